"""Parsers of the files and tool outputs, on the fixture files and on inline samples."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocport.doctor.parse.accounts import parse_group, parse_id, parse_passwd
from rocport.doctor.parse.nvidia_smi import parse_nvidia_smi_csv
from rocport.doctor.parse.rocminfo import parse_rocminfo
from rocport.doctor.parse.smi import merge_amd_smi_metric, parse_amd_smi_static, parse_rocm_smi
from rocport.doctor.parse.system import (
    kernel_series,
    parse_df_portable,
    parse_dkms_status,
    parse_os_release,
)

from .helpers import FIXTURES


def probe(scenario: str, name: str) -> str:
    return (FIXTURES / scenario / ".rocport-probes" / name).read_text()


def test_rocminfo_mi300x_agents() -> None:
    report = parse_rocminfo(probe("mi300x_ready", "rocminfo.txt"))
    assert report.rock_loaded is True and report.runtime_version == "1.18"
    assert [a.device_type for a in report.agents] == ["CPU", "CPU", "GPU", "GPU"]
    gpu = report.gpus[0]
    assert (gpu.gfx_target, gpu.marketing_name) == ("gfx942", "AMD Instinct MI300X")
    assert (gpu.compute_units, gpu.wavefront_size) == (304, 64)
    assert gpu.memory_bytes == 201310208 * 1024
    assert gpu.isas == ["amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"]
    assert report.agents[0].gfx_target is None  # CPU agents have no ISA list


def test_rocminfo_consumer_card_is_wave32() -> None:
    (gpu,) = parse_rocminfo(probe("consumer_gfx1031", "rocminfo.txt")).gpus
    assert (gpu.gfx_target, gpu.wavefront_size, gpu.compute_units) == ("gfx1031", 32, 40)


def test_rocminfo_without_driver_and_with_colour_codes() -> None:
    report = parse_rocminfo("\x1b[31mROCk module is NOT loaded, possibly no GPU devices\x1b[0m\n")
    assert report.rock_loaded is False and report.agents == []


def test_os_release_quoting_and_comments() -> None:
    text = '# comment\nNAME="Red Hat Enterprise Linux"\nVERSION_ID="9.6"\nID=rhel\nX=\'a b\'\n\n'
    fields = parse_os_release(text)
    assert fields == {
        "NAME": "Red Hat Enterprise Linux",
        "VERSION_ID": "9.6",
        "ID": "rhel",
        "X": "a b",
    }


@pytest.mark.parametrize(
    ("release", "series"),
    [("6.8.0-79-generic", "6.8"), ("5.14.0-570.12.1.el9_6.x86_64", "5.14"), ("garbage", None)],
)
def test_kernel_series(release, series) -> None:
    assert kernel_series(release) == series


def test_group_passwd_and_id() -> None:
    groups = parse_group("video:x:44:alice,bob\nrender:x:992:\nbroken line\n")
    assert groups["video"].members == ("alice", "bob") and groups["render"].members == ()
    assert parse_passwd("alice:x:1000:1000::/home/alice:/bin/bash\n") == {"alice": (1000, 1000)}
    ident = parse_id("uid=1000(alice) gid=1000(alice) groups=1000(alice),44(video),992(render)\n")
    assert (
        ident is not None
        and ident.user == "alice"
        and ident.group_names == {"alice", "video", "render"}
    )
    assert parse_id("not id output") is None


@given(
    st.lists(
        st.tuples(st.integers(0, 65535), st.from_regex(r"[a-z_][a-z0-9_-]{0,15}", fullmatch=True)),
        min_size=1,
        max_size=8,
    )
)
def test_id_round_trips_any_group_list(groups) -> None:
    text = "uid=1000(u) gid=1000(u) groups=" + ",".join(f"{gid}({name})" for gid, name in groups)
    ident = parse_id(text)
    assert ident is not None and list(ident.groups) == groups


def test_df_portable_and_dkms_status() -> None:
    space = parse_df_portable(probe("mi300x_ready", "df.txt"))
    assert space is not None and space.available_bytes == 1462942080 * 1024 and space.mount == "/"
    assert parse_df_portable("garbage") is None
    (entry,) = parse_dkms_status(probe("mi300x_ready", "dkms.txt"))
    assert (entry.module, entry.kernel, entry.state) == ("amdgpu", "6.8.0-79-generic", "installed")
    old_style = parse_dkms_status(
        "amdgpu, 6.3.6-1718217.22.04, 5.15.0-91-generic, x86_64: installed\n"
    )
    assert (
        old_style[0].version == "6.3.6-1718217.22.04" and old_style[0].kernel == "5.15.0-91-generic"
    )


def test_rocm_smi_json_with_leading_warning_and_key_case() -> None:
    gpus, driver = parse_rocm_smi(probe("mi300x_ready", "rocm-smi.json"))
    assert driver == "6.14.14" and len(gpus) == 2
    assert gpus[0].gfx == "gfx942" and gpus[0].vram_total_bytes == 206141652992
    text = (
        "WARNING: AMD GPU device(s) is/are in a low-power state.\n"
        '{"card0": {"Card series": "X", "GPU use (%)": "7"}}'
    )
    (gpu,), driver = parse_rocm_smi(text)
    assert gpu.name == "X" and gpu.use_percent == 7.0 and driver is None
    with pytest.raises(ValueError):
        parse_rocm_smi("no json at all")


def test_amd_smi_static_both_layouts() -> None:
    gpus, driver = parse_amd_smi_static(probe("render_missing", "amd-smi.json"))
    assert driver == "6.14.14"
    assert [(g.name, g.gfx, g.vram_total_bytes) for g in gpus] == [
        ("AMD Instinct MI300X", "gfx942", 196592 * 1024**2)
    ] * 2
    legacy = (
        '[{"gpu": 0, "asic": {"market_name": "Navi 31", "target_graphics_version": "gfx1100"},'
        ' "vram": {"size": "24560 MB"}}]'
    )
    (gpu,), _ = parse_amd_smi_static(legacy)
    assert gpu.gfx == "gfx1100" and gpu.vram_total_bytes == 24560 * 1024**2
    metric = '[{"gpu": 0, "usage": {"gfx_activity": {"value": 97, "unit": "%"}},'
    metric += ' "temperature": {"edge": {"value": 61, "unit": "C"}, "hotspot": "N/A"},'
    metric += ' "mem_usage": {"used_vram": {"value": 1024, "unit": "MB"}}}]'
    (merged,) = merge_amd_smi_metric([gpu], metric)
    assert (merged.use_percent, merged.temperature_c, merged.vram_used_bytes) == (
        97.0,
        61.0,
        1024**3,
    )


def test_nvidia_smi_csv_with_unavailable_fields() -> None:
    gpus = parse_nvidia_smi_csv(probe("nvidia_h200", "nvidia-smi.csv"))
    assert [(g.index, g.name, g.sm) for g in gpus] == [
        (0, "NVIDIA H200", "sm_90"),
        (1, "NVIDIA H200", "sm_90"),
    ]
    (gpu,) = parse_nvidia_smi_csv(
        "0, NVIDIA A100-SXM4-40GB, 550.54.15, 40960, [N/A], [N/A], [Not Supported], 8.0\n"
    )
    assert gpu.memory_used_mib is None and gpu.utilization_percent is None and gpu.sm == "sm_80"
