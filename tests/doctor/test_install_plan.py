"""``rocport install-plan``: exact commands per release and distribution, never apt-key."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest

from .helpers import FIXTURES, invoke

# (release, distro, apt suite, repository folder of the ROCm packages)
CASES = [
    ("6.4", "ubuntu-24.04", "noble", "6.4.2"),
    ("6.4", "ubuntu-22.04", "jammy", "6.4.2"),
    ("7.0", "ubuntu-24.04", "noble", "7.0"),
    ("7.0", "debian-12", "jammy", "7.0"),
    ("6.2", "ubuntu-22.04", "jammy", "6.2.4"),
]


@pytest.mark.parametrize(("rocm", "distro", "suite", "folder"), CASES)
def test_apt_plan_lines(capsys, rocm, distro, suite, folder) -> None:
    code, out, err = invoke(capsys, "install-plan", "--rocm", rocm, "--distro", distro)
    assert code == 0 and err == ""
    assert "apt-key" not in out
    keyring = "signed-by=/etc/apt/keyrings/rocm.gpg"
    assert "gpg --dearmor | sudo tee /etc/apt/keyrings/rocm.gpg" in out
    rocm_source = (
        f"deb [arch=amd64 {keyring}] https://repo.radeon.com/rocm/apt/{folder} {suite} main"
    )
    assert f'echo "{rocm_source}" | sudo tee /etc/apt/sources.list.d/rocm.list' in out.splitlines()
    assert (
        "/amdgpu/" in out and f'{suite} main" | sudo tee /etc/apt/sources.list.d/amdgpu.list' in out
    )
    assert "sudo apt install rocm" in out and "sudo apt install amdgpu-dkms" in out
    assert 'sudo usermod -aG render,video "$USER"' in out
    assert f"--index-url https://download.pytorch.org/whl/rocm{rocm}" in out


def test_rocm_70_driver_comes_from_the_instinct_repository(capsys) -> None:
    _, out, _ = invoke(capsys, "install-plan", "--rocm", "7.0", "--distro", "ubuntu-22.04")
    assert "https://repo.radeon.com/amdgpu/30.10/ubuntu jammy main" in out


@pytest.mark.parametrize(
    ("rocm", "distro", "folder"),
    [("7.0", "rhel-9.6", "7.0"), ("6.4", "rhel-9.4", "6.4.2"), ("6.4", "rhel-8.10", "6.4.2")],
)
def test_dnf_plan_uses_signed_repositories(capsys, rocm, distro, folder) -> None:
    code, out, _ = invoke(capsys, "install-plan", "--rocm", rocm, "--distro", distro)
    version = distro.split("-")[1]
    major = version.split(".")[0]
    assert code == 0
    assert f"baseurl=https://repo.radeon.com/rocm/el{major}/{folder}/main" in out
    assert f"/el/{version}/main/x86_64/" in out
    assert out.splitlines().count("gpgcheck=1") == 2 and "sudo apt" not in out
    assert f"epel-release-latest-{major}.noarch.rpm" in out


def test_sh_output_is_valid_bash_and_written_0755(capsys, tmp_path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash not found: cannot check the script's syntax")
    for rocm, distro in [("6.4", "ubuntu-24.04"), ("7.0", "rhel-9.6"), ("7.0", "debian-12")]:
        script = tmp_path / f"install-{distro}.sh"
        code, out, err = invoke(
            capsys,
            "install-plan",
            "--rocm",
            rocm,
            "--distro",
            distro,
            "--format",
            "sh",
            "-o",
            str(script),
        )
        assert code == 0 and out == "" and str(script) in err
        text = script.read_text()
        assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail\n" in text
        assert "apt-key" not in text
        assert stat.S_IMODE(script.stat().st_mode) == 0o755
        check = subprocess.run(
            [bash, "-n", str(script)], capture_output=True, text=True, check=False
        )
        assert check.returncode == 0, check.stderr
    assert [
        p.name for p in tmp_path.iterdir() if p.name.startswith(".")
    ] == []  # no temp files left


def test_plan_runs_no_command(capsys, monkeypatch) -> None:
    def forbidden(*args, **kwargs):
        raise AssertionError(f"install-plan tried to run {args!r}")

    monkeypatch.setattr(subprocess, "run", forbidden)
    monkeypatch.setattr(subprocess, "Popen", forbidden)
    monkeypatch.setattr(os, "system", forbidden)
    code, out, _ = invoke(capsys, "install-plan", "--distro", "ubuntu-24.04", "--format", "sh")
    assert code == 0 and out.startswith("#!/usr/bin/env bash")


def test_auto_reads_os_release_under_root(capsys) -> None:
    code, out, _ = invoke(
        capsys, "install-plan", "--root", str(FIXTURES / "nvidia_h200"), "--rocm", "6.4"
    )
    assert code == 0 and "Ubuntu 22.04.5 [ubuntu-22.04]" in out and " jammy main" in out


@pytest.mark.parametrize(
    "args",
    [
        ["--distro", "ubuntu-20.04"],
        ["--distro", "sles-15.7"],
        ["--distro", "rhel-9.5", "--rocm", "7.0"],
        ["--distro", "ubuntu"],
        ["--rocm", "9.9", "--distro", "ubuntu-24.04"],
    ],
)
def test_unsupported_target_is_one_line_exit_2(capsys, tmp_path, args) -> None:
    target = tmp_path / "plan.sh"
    code, out, err = invoke(capsys, "install-plan", *args, "--format", "sh", "-o", str(target))
    assert code == 2 and out == ""
    assert err.startswith("rocport: error: ") and err.count("\n") == 1
    assert not target.exists()
