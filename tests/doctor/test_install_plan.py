"""``rocport install-plan`` for every known release and distribution, against AMD's pages."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest
from packaging.version import Version

from rocport.doctor import data

from . import sources
from .helpers import FIXTURES, invoke

RECIPES = ("ubuntu", "debian", "rhel", "rocky", "ol", "sles")


def _distro(row: dict) -> str:
    version = row["version"]
    if row["id"] in ("rocky", "ol") and "." not in version:
        version = row.get("el_version") or f"{version}.6"
    return f"{row['id']}-{version}"


CASES = [
    (release, row)
    for release, rel in data.releases().items()
    for row in rel["os"]
    if row["id"] in RECIPES
]


@pytest.mark.parametrize(("release", "row"), CASES, ids=[f"{r}-{_distro(row)}" for r, row in CASES])
def test_every_release_and_distro_follows_amds_page(capsys, release, row) -> None:
    code, out, err = invoke(capsys, "install-plan", "--rocm", release, "--distro", _distro(row))
    assert code == 0, err
    lines = out.splitlines()
    rel = Version(release)
    f = sources.folder(release)
    assert "apt-key" not in out
    assert f"({release}) on {row['label']}" in lines[0]
    if row["id"] in ("ubuntu", "debian"):
        suite = row["suite"]
        assert "gpg --dearmor | sudo tee /etc/apt/keyrings/rocm.gpg > /dev/null" in out
        page = (
            "rocm-6.2.4-native-install.rst"
            if rel < Version("7.0")
            else "rocm-7.1.1-package-manager.rst"
        )
        for template in sources.templates(page):
            if "deb [" not in template or "/amdgpu/" in template and rel >= Version("7.0"):
                continue  # 7.x drivers come from the Instinct driver repository, checked below
            line = template.removeprefix('echo "').split('"')[0]
            line = line.replace("|rocm_version|", f).replace("{{ os_release }}", suite)
            assert any(line in plan_line for plan_line in lines), line
        assert "Pin: release o=repo.radeon.com\\nPin-Priority: 600" in out
        assert "sudo apt install amdgpu-dkms" in out and "sudo apt install rocm" in out
        graphics = f"https://repo.radeon.com/graphics/{f}/ubuntu {suite} main"
        assert (graphics in out) is (rel >= Version("7.0"))
    elif row["id"] == "sles":
        version = row["version"]
        templates = [t for t in sources.templates("rocm-sles-package-manager.rst")]
        wanted = templates[:2] if rel < Version("7.0") else templates[2:]
        for template in wanted:
            line = template.replace("|rocm_version|", f).replace("{{ os_version }}", version)
            if "/amdgpu/" in line and rel < Version("6.0"):
                line = line.rstrip("/")  # ROCm 5.7's page writes the folder without the slash
            assert line in lines, line
        assert "sudo zypper --gpg-auto-import-keys install rocm" in lines
        assert "sudo zypper --gpg-auto-import-keys install amdgpu-dkms" in lines
        assert f"SUSEConnect -p sle-module-development-tools/{version}/x86_64" in out
    else:
        version = _distro(row).split("-", 1)[1]
        major = version.split(".")[0]
        el = "rhel" if rel < Version("6.0") else "el"
        assert f"baseurl=https://repo.radeon.com/rocm/{el}{major}/{f}/main" in lines
        assert (
            all(line == "gpgcheck=1" for line in lines if line.startswith("gpgcheck"))
            and "gpgcheck=1" in lines
        )
        if rel >= Version("7.0"):
            el_dir = version if major == "9" else major
            assert f"baseurl=https://repo.radeon.com/graphics/{f}/el/{el_dir}/main/x86_64/" in lines
            assert "[amdgraphics]" in lines
        assert f"/{version}/main/x86_64/" in out  # minor release, never el/9
        assert "codeready" in out or "crb enable" in out
        assert "sudo apt" not in out
    path_step = lines.index('export PATH="$PATH:/opt/rocm/bin"')
    assert path_step < lines.index("rocminfo | grep -E 'Marketing Name|gfx'")
    published = {url for _, url in sources.pytorch_pairs()}
    indexes = [w.split()[0] for w in out.split("--index-url ")[1:]]
    line_indexes = [
        url
        for url in published
        if url.rsplit("rocm", 1)[1] in (f"{rel.major}.{rel.minor}", release)
    ]
    amd = sources.amd_pytorch_page(release)
    if line_indexes:  # PyTorch's stable index first
        assert len(indexes) == 1 and indexes[0] in line_indexes, indexes
    else:  # else the command of AMD's PyTorch page, as the page writes it
        assert amd is not None, release
        assert [amd[1].split("--index-url ")[1]] == indexes
        assert amd[1].replace("pip3 install", '"$HOME/.venvs/rocm/bin/pip" install') in lines
        assert f"tests/doctor/fixtures/sources/{amd[0]})" in out


def test_7x_driver_comes_from_the_instinct_repository(capsys) -> None:
    expected = {"7.0.0": "30.10", "7.0.1": "30.10.1", "7.0.2": "30.10.2", "7.1.0": "30.20"}
    for release, driver in expected.items():
        _, out, _ = invoke(capsys, "install-plan", "--rocm", release, "--distro", "ubuntu-22.04")
        assert f"https://repo.radeon.com/amdgpu/{driver}/ubuntu jammy main" in out


def test_point_release_gets_its_own_urls_and_unknown_ones_are_refused(capsys) -> None:
    _, out, _ = invoke(capsys, "install-plan", "--rocm", "6.4.3", "--distro", "ubuntu-24.04")
    assert "https://repo.radeon.com/rocm/apt/6.4.3 noble main" in out
    code, out, err = invoke(capsys, "install-plan", "--rocm", "6.4.4", "--distro", "ubuntu-24.04")
    assert code == 2 and out == "" and "6.4.3" in err and "7.0.0" in err
    _, out, _ = invoke(capsys, "install-plan", "--rocm", "6.4", "--distro", "ubuntu-24.04")
    assert "ROCm 6.4 (6.4.3)" in out


def test_torch_29_is_not_claimed_for_rocm_70(capsys) -> None:
    _, out, _ = invoke(capsys, "install-plan", "--rocm", "7.0", "--distro", "ubuntu-24.04")
    assert "whl/rocm7.0" not in out and "torch==" not in out
    assert "PyTorch nightly (pre-release) builds for ROCm 7.0" in out
    assert "PyTorch publishes no stable torch for ROCm 7.0" in out
    assert "ROCm 6.4.3 (rocm6.4, torch 2.9.1), ROCm 7.1.0 (rocm7.1, torch 2.10.0)" in out
    _, out, _ = invoke(capsys, "install-plan", "--rocm", "7.1", "--distro", "ubuntu-24.04")
    assert "torch==2.10.0" in out and "whl/rocm7.1" in out and "--pre" not in out


def test_every_7x_release_gets_a_published_index_with_its_source(capsys) -> None:
    stable = {url for _, url in sources.pytorch_pairs()}
    for release in (r for r in data.releases() if Version(r) >= Version("7.0")):
        _, out, _ = invoke(capsys, "install-plan", "--rocm", release, "--distro", "ubuntu-24.04")
        index = out.split("--index-url ")[1].split()[0]
        if index in stable:
            assert "# Sources:\n" in out and "pytorch.org/get-started/previous-versions/" in out
        else:
            name, command = sources.amd_pytorch_page(release)
            assert command.endswith(f"--index-url {index}"), release
            assert "/install/3rd-party/pytorch-install.html" in out and name in out, release


def test_no_build_known_says_so_and_names_the_nearest_stable_releases(capsys, monkeypatch) -> None:
    monkeypatch.setitem(data.releases()["7.2.1"], "amd_pytorch", [])
    _, out, _ = invoke(capsys, "install-plan", "--rocm", "7.2.1", "--distro", "ubuntu-24.04")
    assert "neither PyTorch nor AMD's PyTorch page lists a build for ROCm 7.2" in out
    assert "nearest releases with a stable torch: ROCm 7.1.1 (rocm7.1, torch 2.10.0)" in out
    assert "--index-url" not in out


def test_sh_output_is_valid_bash_and_written_0755(capsys, tmp_path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash not found: cannot check the script's syntax")
    for rocm, distro in [("6.4", "ubuntu-24.04"), ("7.0", "rhel-9.6"), ("7.1", "debian-12")]:
        script = tmp_path / f"install-{distro}.sh"
        code, out, err = invoke(
            capsys, "install-plan", "--rocm", rocm, "--distro", distro,
            "--format", "sh", "-o", str(script),
        )  # fmt: skip
        assert code == 0 and out == "" and str(script) in err
        text = script.read_text()
        assert text.startswith("#!/usr/bin/env bash\n") and "set -euo pipefail\n" in text
        assert stat.S_IMODE(script.stat().st_mode) == 0o755
        check = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


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
        ["--distro", "sles-15.4", "--rocm", "6.4"],
        ["--distro", "azurelinux-3.0"],
        ["--distro", "rhel-9.5", "--rocm", "7.0"],
        ["--distro", "ubuntu"],
        ["--distro", "rocky-9", "--rocm", "7.0"],
        ["--rocm", "9.9", "--distro", "ubuntu-24.04"],
        ["--rocm", "7.0.3", "--distro", "ubuntu-24.04"],
    ],
)
def test_unsupported_target_is_one_line_exit_2(capsys, tmp_path, args) -> None:
    target = tmp_path / "plan.sh"
    code, out, err = invoke(capsys, "install-plan", *args, "--format", "sh", "-o", str(target))
    assert code == 2 and out == ""
    assert err.startswith("rocport: error: ") and err.count("\n") == 1
    assert not target.exists()
