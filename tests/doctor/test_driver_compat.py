"""driver.compat: the amdgpu-dkms release against AMD's driver/user-space pairings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocport.doctor import data
from rocport.doctor.parse.driver import decode_driver_version, parse_dpkg_query, parse_rpm_query

from . import sources
from .helpers import FIXTURES, doctor_json

PROBES = ".rocport-probes"


@pytest.mark.parametrize(
    ("version", "module", "release", "line"),
    [
        # package versions as dpkg-query/rpm print them (the suffix encodes the release as in
        # AMD's conf.py amdgpu_install_version, '6.2.60202-1' for ROCm 6.2.2)
        ("1:6.8.5.60200-2009582.24.04", "6.8.5", "6.2.0", "6.2.x"),
        ("1:6.10.5.60300-2084815.22.04", "6.10.5", "6.3.0", "6.3.x"),
        ("1:6.0.5.50500-1581431", "6.0.5", "5.5.0", "5.5.x"),
        ("1:6.14.14.30100100-2212064.24.04", "6.14.14", "30.10.1", "30.10.x"),
        ("1:6.16.13.30300100-2303411.24.04", "6.16.13", "30.30.1", "30.30.x"),
        ("6.8.5.60200-2009582.el9", "6.8.5", "6.2.0", "6.2.x"),
    ],
)
def test_package_version_decodes_to_the_driver_release(version, module, release, line) -> None:
    package = decode_driver_version(version)
    assert package is not None
    assert (package.module, package.release, package.line) == (module, release, line)


@pytest.mark.parametrize("version", ["", "6.8.5", "1:6.8.5-1", "1:6.8.5.123-1", "garbage"])
def test_unknown_package_versions_do_not_decode(version) -> None:
    assert decode_driver_version(version) is None


def test_query_outputs() -> None:
    assert parse_dpkg_query("amdgpu-dkms\t1:6.8.5.60200-2009582.24.04\n") == (
        "1:6.8.5.60200-2009582.24.04"
    )
    assert parse_dpkg_query("amdgpu-dkms\t\n") is None  # known to dpkg, not installed
    assert parse_rpm_query("6.8.5.60200-2009582.el9\n") == "6.8.5.60200-2009582.el9"
    assert parse_rpm_query("package amdgpu-dkms is not installed\n") is None


def test_driver_matrix_matches_amds_page() -> None:
    """The committed driver/user-space table is the one on AMD's page (excerpt)."""
    rows = []
    for line in sources.text("user-kernel-space-compat-matrix.rst").splitlines():
        match = re.fullmatch(r'\s+"([\d.]+x)", "([^"]+)"', line)
        if match:
            rows.append({"driver": match[1], "user_space": match[2].split(", ")})
    table = data.driver_matrix()
    assert rows and table["rows"] == rows
    assert "user-kernel-space-compat-matrix" in table["source"]


def test_every_release_names_its_driver_source() -> None:
    for release, rel in data.releases().items():
        if rel["driver"]:
            assert rel["driver_role"] in ("compatible", "install"), release
    assert data.releases()["7.2.1"]["driver_role"] == "install"  # only the conf.py driver
    assert data.releases()["7.0.0"]["driver"].startswith("30.10.1, 30.10")


def _with_driver(root: Path, version: str | None, loaded: str | None, rpm: bool = False) -> None:
    probes = root / PROBES
    (probes / "dpkg-query-amdgpu-dkms.txt").unlink(missing_ok=True)
    if version:
        if rpm:
            (probes / "rpm-amdgpu-dkms.txt").write_text(version + "\n")
        else:
            (probes / "dpkg-query-amdgpu-dkms.txt").write_text(f"amdgpu-dkms\t{version}\n")
    sys_version = root / "sys/module/amdgpu/version"
    if loaded:
        sys_version.write_text(loaded + "\n")
    else:
        sys_version.unlink(missing_ok=True)


def _compat(capsys, root: Path, *args: str) -> dict:
    _, report = doctor_json(capsys, "--root", str(root), *args)
    return next(c for c in report["checks"] if c["id"] == "driver.compat")


def test_ready_host_driver_is_listed_for_its_release(capsys) -> None:
    check = _compat(capsys, FIXTURES / "mi300x_ready")
    assert check["status"] == "pass"
    assert "AMD GPU Driver 30.10.1, listed for ROCm 7.0.0" in check["found"]


def test_driver_paired_through_the_user_kernel_space_matrix(capsys, fixture_copy) -> None:
    # 7.0.0's matrix column lists 30.10.1 and 30.10; the driver matrix pairs 30.10.x with 7.0.x
    root = fixture_copy("mi300x_ready")
    _with_driver(root, "1:6.14.14.30100200-2226257.24.04", "6.14.14")
    check = _compat(capsys, root)
    assert check["status"] == "pass"
    assert "pairs driver 30.10.x with ROCm 7.0.x" in check["found"]


def test_older_6x_driver_listed_for_7_0(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    _with_driver(root, "6.8.5.60200-2009582.el9", "6.8.5", rpm=True)
    assert _compat(capsys, root)["status"] == "pass"


def test_driver_too_old_for_the_release_fails(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    _with_driver(root, "1:6.0.5.50500-1581431", "6.0.5")
    check = _compat(capsys, root)
    assert check["status"] == "fail"
    assert (
        "AMD GPU Driver 5.5.0 is not among the drivers AMD supports with ROCm 7.0.0"
        in (check["found"])
    )
    assert "rocport install-plan --rocm 7.0.0" in check["fix"]


def test_driver_newer_than_the_data_warns(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    _with_driver(root, "1:6.16.13.30300100-2303411.24.04", "6.16.13")
    check = _compat(capsys, root)
    assert check["status"] == "warn" and "is newer than every driver" in check["found"]


def test_installed_but_not_loaded_asks_for_a_reboot(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    _with_driver(root, "1:6.16.13.30300100-2303411.24.04", "6.14.14")
    check = _compat(capsys, root)
    assert check["status"] == "warn" and "loaded amdgpu module is 6.14.14" in check["found"]
    assert check["fix"].startswith("sudo reboot")


def test_kernel_driver_and_unknown_package(capsys, fixture_copy) -> None:
    check = _compat(capsys, FIXTURES / "consumer_gfx1031")
    assert check["status"] == "warn" and "the kernel's own amdgpu" in check["found"]
    check = _compat(capsys, FIXTURES / "udev_only")  # DKMS module, no package record
    assert check["status"] == "skip" and "no amdgpu-dkms package" in check["found"]


def test_skipped_without_amdgpu(capsys) -> None:
    check = _compat(capsys, FIXTURES / "nvidia_h200")
    assert check["status"] == "skip"
    assert check["found"].startswith("skipped because driver.amdgpu did not pass")


def test_package_installed_but_kernel_driver_running(capsys, fixture_copy) -> None:
    root = fixture_copy("mi300x_ready")
    _with_driver(root, "1:6.14.14.30100100-2212064.24.04", None)
    check = _compat(capsys, root)
    assert check["status"] == "warn" and "the loaded amdgpu is the kernel's own" in check["found"]
    assert "dkms autoinstall" in check["fix"]


def test_release_with_only_an_install_driver_warns(capsys, fixture_copy) -> None:
    # 7.2.1's data holds only the driver its install pages register (30.30.1)
    root = fixture_copy("mi300x_ready")
    _with_driver(root, "1:6.14.14.30100100-2212064.24.04", "6.14.14")
    check = _compat(capsys, root, "--rocm", "7.2.1")
    assert check["status"] == "warn" and "no compatibility list for ROCm 7.2.1" in check["found"]
    _with_driver(root, "1:6.16.13.30300100-2303411.24.04", "6.16.13")
    assert _compat(capsys, root, "--rocm", "7.2.1")["status"] == "pass"
