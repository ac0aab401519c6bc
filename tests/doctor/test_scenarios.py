"""The five fixture hosts give the statuses, messages and exit codes their situation calls for."""

from __future__ import annotations

import pytest

from .helpers import FIXTURES, doctor_json, invoke, statuses

# (scenario, --rocm, exit code, expected statuses of some checks)
EXPECTED = [
    (
        "mi300x_ready",
        None,
        0,
        {
            "os.supported": "pass",
            "os.kernel": "pass",
            "perm.groups": "pass",
            "perm.devices": "pass",
            "driver.amdgpu": "pass",
            "driver.dkms": "pass",
            "rocm.version": "pass",
            "rocm.agents": "pass",
            "rocm.gpu_support": "pass",
            "rocm.smi": "pass",
            "torch.build": "pass",
            "torch.gpu_arch": "pass",
            "tensorflow": "skip",
            "env.gpu_vars": "pass",
            "nvidia.gpus": "skip",
        },
    ),
    (
        "render_missing",
        None,
        1,
        {"perm.groups": "fail", "rocm.agents": "fail", "torch.build": "fail", "rocm.smi": "pass"},
    ),
    (
        "consumer_gfx1031",
        None,
        1,
        {
            "os.supported": "pass",
            "os.kernel": "pass",
            "driver.amdgpu": "pass",
            "driver.dkms": "skip",
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
            "perm.devices": "skip",
            "rocm.version": "fail",
            "rocm.hip": "fail",
            "rocm.agents": "skip",
            "rocm.smi": "skip",
            "torch.build": "warn",
            "nvidia.gpus": "skip",
        },
    ),
    (
        "nvidia_h200",
        "7.0",
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
    assert "/dev/kfd" in _check(report, "rocm.agents")["found"]
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
    assert "No PyTorch wheel index" in _check(report, "torch.build")["fix"]
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
