"""The five fixture hosts give the statuses, messages and exit codes their situation calls for."""

from __future__ import annotations

import json

import pytest
from packaging.version import Version

from rocport.doctor import data

from .helpers import FIXTURES, doctor_json, invoke, statuses

# (scenario, --rocm, exit code, expected statuses of some checks); --rocm None means the
# installed release decides the matrix
EXPECTED = [
    (
        "mi300x_ready",
        None,
        0,
        {
            "os.supported": "pass",
            "os.kernel": "pass",
            "os.glibc": "pass",
            "perm.groups": "pass",
            "perm.devices": "pass",
            "driver.amdgpu": "pass",
            "driver.dkms": "pass",
            "driver.compat": "pass",
            "boot.secure_boot": "pass",
            "boot.iommu": "pass",
            "rocm.version": "pass",
            "rocm.agents": "pass",
            "rocm.gpu_support": "pass",
            "rocm.smi": "pass",
            "hw.igpu": "pass",
            "torch.build": "pass",
            "torch.gpu_arch": "pass",
            "torch.env": "pass",
            "tensorflow": "skip",
            "env.gpu_vars": "pass",
            "nvidia.gpus": "skip",
        },
    ),
    (
        # one cause (alice not in render), one FAIL; what it blocks says "skipped because"
        "render_missing",
        None,
        1,
        {
            "perm.groups": "fail",
            "rocm.agents": "skip",
            "torch.build": "skip",
            "rocm.smi": "pass",
            "rocm.ecc": "pass",
        },
    ),
    (
        # ROCm 6.4.1 installed: its own matrix, where kernel 6.11 (HWE) is validated
        "consumer_gfx1031",
        None,
        1,
        {
            "os.supported": "pass",
            "os.kernel": "pass",
            "driver.amdgpu": "pass",
            "driver.dkms": "skip",
            "driver.compat": "warn",
            "boot.secure_boot": "pass",
            "rocm.version": "pass",
            "rocm.gpu_support": "warn",
            "torch.build": "pass",
            "torch.gpu_arch": "fail",
        },
    ),
    (
        "no_rocm",
        "7.0",
        1,
        {
            "driver.amdgpu": "fail",
            "driver.compat": "skip",
            "perm.devices": "skip",
            "rocm.version": "fail",
            "rocm.hip": "skip",
            "rocm.agents": "skip",
            "rocm.smi": "skip",
            "torch.build": "warn",
            "nvidia.gpus": "skip",
        },
    ),
    (
        # no AMD GPU on the PCI bus: one FAIL, no group or modprobe advice
        "nvidia_h200",
        None,
        1,
        {
            "nvidia.gpus": "pass",
            "nvidia.torch": "pass",
            "torch.build": "warn",
            "driver.amdgpu": "fail",
            "perm.groups": "skip",
            "perm.devices": "skip",
            "rocm.agents": "skip",
            "rocm.smi": "skip",
            "rocm.version": "warn",
            "env.gpu_vars": "pass",
        },
    ),
    (
        # point release 7.0.2 with the 24.04 HWE kernel 6.14; 2 GPUs booted without iommu=pt
        "mi300x_rocm702",
        None,
        0,
        {
            "os.supported": "pass",
            "os.kernel": "pass",
            "rocm.version": "pass",
            "driver.dkms": "pass",
            "driver.compat": "pass",
            "boot.iommu": "warn",
            "rocm.agents": "pass",
            "rocm.gpu_support": "pass",
        },
    ),
    (
        # Debian 12 is in the 7.0 matrix for Instinct only; AMD supports Radeon on Ubuntu and
        # RHEL 9.6 alone
        "radeon_debian12",
        None,
        0,
        {
            "os.supported": "warn",
            "os.kernel": "pass",
            "os.glibc": "pass",
            "rocm.version": "pass",
            "rocm.gpu_support": "pass",
            "rocm.agents": "pass",
        },
    ),
    (
        # alice is in no GPU group; AMD's udev rule gives her group devteam the device nodes
        "udev_only",
        None,
        0,
        {"perm.groups": "pass", "perm.devices": "pass", "rocm.agents": "pass"},
    ),
]


@pytest.mark.parametrize(
    ("scenario", "rocm", "code", "expected"), EXPECTED, ids=[e[0] for e in EXPECTED]
)
def test_scenario_statuses(capsys, scenario, rocm, code, expected) -> None:
    args = ["--rocm", rocm] if rocm else []
    exit_code, report = doctor_json(capsys, "--root", str(FIXTURES / scenario), *args)
    got = statuses(report)
    assert {k: got[k] for k in expected} == expected
    assert exit_code == code
    assert report["ok"] is (code == 0)
    for check in report["checks"]:
        if check["status"] in ("warn", "fail"):
            assert check["fix"], f"{check['id']} has no fix"


def _check(report: dict, check_id: str) -> dict:
    return next(c for c in report["checks"] if c["id"] == check_id)


def test_ready_host_reports_the_agents_from_rocminfo(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "mi300x_ready"))
    agents = _check(report, "rocm.agents")["details"]["agents"]
    assert [a["gfx"] for a in agents] == ["gfx942", "gfx942"]
    assert {a["compute_units"] for a in agents} == {304}
    assert {a["wavefront_size"] for a in agents} == {64}
    assert {a["memory_bytes"] for a in agents} == {201310208 * 1024}
    smi = _check(report, "rocm.smi")["details"]
    assert smi["tool"] == "rocm-smi" and smi["driver"] == "6.14.14"
    assert [g["temperature_c"] for g in smi["gpus"]] == [41.0, 39.0]


def test_missing_render_group_names_the_user_and_the_command(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "render_missing"))
    groups = _check(report, "perm.groups")
    assert groups["details"]["missing"] == ["render"]
    assert "sudo usermod -aG render alice" in groups["fix"]
    fails = [c["id"] for c in report["checks"] if c["status"] == "fail"]
    assert fails == ["perm.groups"]
    agents = _check(report, "rocm.agents")
    assert agents["found"].startswith("skipped because perm.groups did not pass")
    smi = _check(report, "rocm.smi")["details"]
    assert smi["tool"] == "amd-smi"
    assert [(g["temperature_c"], g["use_percent"]) for g in smi["gpus"]] == [
        (42.0, 0.0),
        (40.0, 0.0),
    ]
    assert {g["vram_used_bytes"] for g in smi["gpus"]} == {283 * 1024**2}


def test_consumer_card_gets_the_override_from_the_data_file(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "consumer_gfx1031"), "--rocm", "6.4")
    arch = _check(report, "torch.gpu_arch")
    assert "gfx1031" in arch["found"] and "AMD Radeon RX 6700 XT" in arch["found"]
    assert "export HSA_OVERRIDE_GFX_VERSION=10.3.0" in arch["fix"]
    assert arch["details"]["arch_list"][:3] == ["gfx900", "gfx906", "gfx908"]


def test_721_gpu_support_is_judged_by_the_compatibility_matrix_column(capsys) -> None:
    """7.2.1's gfx list (the matrix's 7.2.2/7.2.1 column) judges the GPU; it was skipped."""
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "mi300x_ready"), "--rocm", "7.2.1")
    assert _check(report, "rocm.gpu_support")["status"] == "pass"
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "consumer_gfx1031"), "--rocm", "7.2.1")
    support = _check(report, "rocm.gpu_support")
    assert support["status"] == "warn" and "(gfx1031)" in support["found"]
    assert support["details"]["source"] == data.releases()["7.2.1"]["sources"]["gfx"]
    assert "compatibility-matrix-7.2.4-gpu-targets.rst" in support["details"]["source"]


def test_override_in_effect_is_a_warning(capsys, fixture_copy) -> None:
    root = fixture_copy("consumer_gfx1031")
    environ = root / "proc/self/environ"
    environ.write_bytes(environ.read_bytes() + b"HSA_OVERRIDE_GFX_VERSION=10.3.0\0")
    code, report = doctor_json(capsys, "--root", str(root), "--rocm", "6.4")
    assert statuses(report)["torch.gpu_arch"] == "warn"
    assert code == 0
    assert "HSA_OVERRIDE_GFX_VERSION" in _check(report, "env.gpu_vars")["found"]


def test_gpu_without_override_advice_asks_for_a_source_build(capsys, fixture_copy) -> None:
    root = fixture_copy("consumer_gfx1031")
    probe = root / ".rocport-probes/rocminfo.txt"
    probe.write_text(probe.read_text().replace("gfx1031", "gfx1010"))
    _, report = doctor_json(capsys, "--root", str(root), "--rocm", "6.4")
    arch = _check(report, "torch.gpu_arch")
    assert arch["status"] == "fail"
    assert "PYTORCH_ROCM_ARCH=gfx1010" in arch["fix"]


def test_empty_visibility_variable_hides_every_gpu(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    (root / "proc/self/environ").write_bytes(b"USER=alice\0HIP_VISIBLE_DEVICES=\0")
    code, report = doctor_json(capsys, "--root", str(root))
    assert statuses(report)["env.gpu_vars"] == "fail"
    assert code == 1


def test_no_rocm_host_says_not_installed_and_points_to_install_plan(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "no_rocm"))
    assert "0000:0a:00.0" in _check(report, "driver.amdgpu")["found"]
    agents = _check(report, "rocm.agents")
    assert agents["status"] == "skip" and "skipped because driver.amdgpu" in agents["found"]
    assert "rocport install-plan --rocm" in _check(report, "rocm.version")["fix"]
    fails = [c["id"] for c in report["checks"] if c["status"] == "fail"]
    assert sum("modprobe" in (c["fix"] or "") for c in report["checks"]) == 1, fails


def test_nvidia_baseline_lists_the_gpus_and_the_cuda_wheel(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "nvidia_h200"))
    gpus = _check(report, "nvidia.gpus")["details"]["gpus"]
    assert [(g["name"], g["memory_total_mib"], g["sm"]) for g in gpus] == [
        ("NVIDIA H200", 143771, "sm_90")
    ] * 2
    torch = _check(report, "nvidia.torch")
    assert torch["details"]["cuda"] == "12.8" and "sm_90" in torch["details"]["arch_list"]
    fix = _check(report, "torch.build")["fix"]  # 7.2.1: AMD's page installs nightly builds
    assert "no stable build for ROCm 7.2.1" in fix and "--pre" in fix
    assert fix.endswith("--index-url https://download.pytorch.org/whl/nightly/rocm7.2")
    assert not any("modprobe" in (c["fix"] or "") for c in report["checks"])
    assert [c["id"] for c in report["checks"] if c["status"] == "fail"] == ["driver.amdgpu"]
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "nvidia_h200"), "--rocm", "7.1")
    assert "download.pytorch.org/whl/rocm7.1" in _check(report, "torch.build")["fix"]


def test_rocm_version_mismatch_with_matrix_warns(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "consumer_gfx1031"), "--rocm", "7.0")
    version = _check(report, "rocm.version")
    assert version["status"] == "warn" and "--rocm 6.4.1" in version["fix"]


def test_table_output_lists_every_check(capsys) -> None:
    code, out, err = invoke(capsys, "doctor", "--root", str(FIXTURES / "render_missing"))
    assert code == 1 and err == ""
    for check_id in (
        "os.supported",
        "perm.groups",
        "rocm.agents",
        "torch.gpu_arch",
        "nvidia.torch",
    ):
        assert check_id in out
    assert "FAIL" in out and "usermod" in out


@pytest.mark.parametrize("bad", ["banana", "5.6", "6.4.4"])
def test_unknown_rocm_release_is_one_line_and_exit_2(capsys, bad) -> None:
    code, out, err = invoke(capsys, "doctor", "--root", str(FIXTURES / "no_rocm"), "--rocm", bad)
    assert code == 2 and out == ""
    assert err.startswith("rocport: error: ") and err.count("\n") == 1


def test_missing_root_is_a_usage_error(capsys, tmp_path) -> None:
    code, out, err = invoke(capsys, "doctor", "--root", str(tmp_path / "nowhere"))
    assert code == 2 and out == "" and "nowhere" in err and "Traceback" not in err


def test_point_release_is_judged_by_its_own_matrix(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "mi300x_rocm702"))
    assert report["rocm_release"] == "7.0.2"
    assert "6.14" in _check(report, "os.kernel")["found"]
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "consumer_gfx1031"))
    assert report["rocm_release"] == "6.4.1"


def test_radeon_on_debian_names_amds_limit(capsys) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "radeon_debian12"))
    supported = _check(report, "os.supported")
    assert "AMD Radeon RX 7900 XTX" in supported["found"]
    assert "Ubuntu 24.04.3, Ubuntu 22.04.5, RHEL 9.6" in supported["found"]


def test_udev_rule_counts_for_device_access(capsys, fixture_copy) -> None:
    _, report = doctor_json(capsys, "--root", str(FIXTURES / "udev_only"))
    groups = _check(report, "perm.groups")
    assert groups["details"]["udev_rules"] == ["/etc/udev/rules.d/70-amdgpu.rules"]
    root = fixture_copy("udev_only")
    (root / "etc/udev/rules.d/70-amdgpu.rules").write_text(
        'KERNEL=="kfd", GROUP="devteam", MODE="0660"\n'
    )  # no rule for the render nodes: the groups decide again
    _, report = doctor_json(capsys, "--root", str(root))
    assert _check(report, "perm.groups")["status"] == "fail"


def test_secure_boot_with_an_unloaded_dkms_module_fails(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    (root / ".rocport-probes/mokutil-sb-state.txt").write_text("SecureBoot enabled\n")
    (root / "proc/modules").write_text("")
    (root / "sys/module/amdgpu/version").unlink()
    (root / "sys/module/amdgpu").rmdir()
    _, report = doctor_json(capsys, "--root", str(root))
    secure = _check(report, "boot.secure_boot")
    assert secure["status"] == "fail" and "mokutil --import" in secure["fix"]


def test_integrated_gpu_beside_discrete_ones_warns(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    probe = root / ".rocport-probes/rocminfo.txt"
    text = probe.read_text()
    last = text.rindex("  Memory Properties:")
    probe.write_text(
        text[:last]
        + text[last:].replace("Memory Properties:       ", "Memory Properties:       APU", 1)
    )
    _, report = doctor_json(capsys, "--root", str(root))
    igpu = _check(report, "hw.igpu")
    assert igpu["status"] == "warn" and "BIOS" in igpu["fix"]


def test_ecc_errors_and_old_glibc_warn(capsys, fixture_copy) -> None:
    root = fixture_copy("render_missing")
    metric = root / ".rocport-probes/amd-smi-metric.json"
    metric.write_text(
        metric.read_text().replace(
            '"total_uncorrectable_count": 0', '"total_uncorrectable_count": 3', 1
        )
    )
    (root / ".rocport-probes/ldd-version.txt").write_text("ldd (GNU libc) 2.35\n")
    _, report = doctor_json(capsys, "--root", str(root))
    assert _check(report, "rocm.ecc")["status"] == "warn"
    assert "3 uncorrectable" in _check(report, "rocm.ecc")["found"]
    assert _check(report, "os.glibc")["status"] == "warn"


def test_collect_env_without_miopen_or_triton_warns(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    probe = root / ".rocport-probes/torch.json"
    torch = json.loads(probe.read_text())
    torch["env"].update(miopen_runtime_version="N/A", triton=[])
    probe.write_text(json.dumps(torch))
    _, report = doctor_json(capsys, "--root", str(root))
    env = _check(report, "torch.env")
    assert env["status"] == "warn" and "MIOpen not found" in env["found"]
    assert "pytorch-triton-rocm" in env["fix"]


def test_os_footnote_limits_the_gpus_of_a_distribution(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    (root / "etc/os-release").write_text(
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n'
    )
    (root / "proc/sys/kernel/osrelease").write_text("6.1.0-37-amd64\n")
    _, report = doctor_json(capsys, "--root", str(root))
    assert _check(report, "os.supported")["status"] == "pass"  # MI300X is listed for Debian 12
    probe = root / ".rocport-probes/rocminfo.txt"
    probe.write_text(probe.read_text().replace("AMD Instinct MI300X", "AMD Instinct MI100"))
    _, report = doctor_json(capsys, "--root", str(root))
    supported = _check(report, "os.supported")
    assert supported["status"] == "warn" and "AMD Instinct MI100" in supported["found"]
    assert "RHEL 8.10" in supported["found"] and "Debian 12" not in supported["fix"]


def test_pcie_atomics_off_warns_and_unreadable_skips(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    probe = root / ".rocport-probes/lspci.txt"
    text = probe.read_text()
    probe.write_text(text.replace("AtomicOpsCtl: ReqEn+", "AtomicOpsCtl: ReqEn-", 1))
    _, report = doctor_json(capsys, "--root", str(root))
    atomics = _check(report, "hw.pcie_atomics")
    assert atomics["status"] == "warn" and atomics["details"]["disabled"] == ["0000:05:00.0"]
    blocks = text.split("\n\n")
    probe.write_text(
        "\n\n".join(
            b.split("\tCapabilities:")[0] + "\tCapabilities: <access denied>" for b in blocks if b
        )
    )
    _, report = doctor_json(capsys, "--root", str(root))
    atomics = _check(report, "hw.pcie_atomics")
    assert atomics["status"] == "skip" and "root" in atomics["found"]


def test_installed_release_the_data_lacks_is_named_not_mapped(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    (root / "opt/rocm/.info/version").write_text("7.2.3-10\n")
    _, report = doctor_json(capsys, "--root", str(root))
    assert report["rocm_release"] == max(data.releases(), key=Version)
    version = _check(report, "rocm.version")
    assert version["status"] == "warn" and "a release the data lacks" in version["found"]
    assert "7.2.1" in version["found"]


def test_mixed_firmware_across_gpus_warns(capsys, fixture_copy) -> None:
    root = fixture_copy("udev_only")
    probe = root / ".rocport-probes/amd-smi-firmware.json"
    firmware = json.loads(probe.read_text())
    firmware[1]["fw_list"][0]["fw_version"] = "175"
    probe.write_text(json.dumps(firmware))
    _, report = doctor_json(capsys, "--root", str(root))
    ecc = _check(report, "rocm.ecc")
    assert ecc["status"] == "warn" and "CP_MEC1" in ecc["found"]
    assert ecc["details"]["firmware_differs"] == ["CP_MEC1"]


def test_loaded_driver_without_kfd_names_kfd_not_modprobe(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    (root / "dev/kfd").unlink()
    _, report = doctor_json(capsys, "--root", str(root))
    devices = _check(report, "perm.devices")
    assert devices["status"] == "fail" and "KFD" in devices["found"]
    assert "modprobe" not in devices["fix"]
