"""The build mapping tables: shape, and the ROCm names they emit exist in a real ROCm install."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocport.check.toolchain import registry
from rocport.port.build._data import nvcc_flag_index, table

TABLES = ("nvcc_flags", "link_libraries", "cmake", "make")


def sid_root() -> Path:
    entry = next((e for e in registry() if e.name == "debian-sid"), None)
    if entry is None or not entry.ready:
        pytest.skip("sid HIP 6.4 root not set up: run `bash scripts/toolchain-rocm.sh 6.4`")
    return entry.root


@pytest.mark.parametrize("name", TABLES)
def test_table_has_schema_and_source(name: str) -> None:
    data = table(name)
    assert data["schema"] == 1 and data["source"] and data["title"]


def test_nvcc_rows_are_well_formed_and_spellings_unique() -> None:
    flags = table("nvcc_flags")["flags"]
    actions = set(table("nvcc_flags")["actions"])
    spellings: list[str] = []
    for name, row in flags.items():
        assert row["action"] in actions, name
        if row["action"] == "replace":
            assert "hip" in row or "by_value" in row, name
            assert "by_value" not in row or row.get("takes_value"), name
        spellings += [name, *row.get("aliases", ())]
    assert len(spellings) == len(set(spellings))
    assert len(nvcc_flag_index()) == len(spellings)


def test_every_cuda_cmake_target_row_names_a_package_or_a_reason() -> None:
    for name, row in table("cmake")["targets"].items():
        if row.get("status") == "unsupported" or row.get("hip") is None:
            assert row.get("note"), name
        else:
            assert row["package"], name


def _exported_targets(root: Path) -> dict[str, set[str]]:
    """package -> targets that its CMake config files create (add_library(... IMPORTED))."""
    found: dict[str, set[str]] = {}
    for base in (root / "usr/lib/x86_64-linux-gnu/cmake", root / "usr/share/cmake"):
        for config in base.glob("*/*.cmake"):
            package = config.parent.name
            for target in re.findall(
                r"add_library\(\s*([\w:.-]+)\s+\w+\s+IMPORTED", config.read_text(errors="replace")
            ):
                found.setdefault(package, set()).add(target)
    return found


def test_hip_targets_are_exported_by_the_rocm_packages() -> None:
    exported = _exported_targets(sid_root())
    for name, row in table("cmake")["targets"].items():
        for variant in (row, *(v for v in row.values() if isinstance(v, dict))):
            hip = variant.get("hip")
            if hip is None or row.get("verified") is False:
                continue
            package = variant["package"]
            assert hip in exported.get(package, set()), (
                f"{name}: {hip} not exported by package {package}"
            )


def test_packages_have_config_files() -> None:
    root = sid_root()
    packages = {
        row["package"]
        for row in table("cmake")["targets"].values()
        if "package" in row and row.get("verified") is not False
    }
    for package in packages:
        configs = list(
            root.glob(f"usr/lib/x86_64-linux-gnu/cmake/{package}/{package}-config.cmake")
        ) + list(root.glob(f"usr/share/cmake/{package}/{package}-config.cmake"))
        assert configs, package


def test_link_libraries_exist_in_the_rocm_packages() -> None:
    """Each emitted -l<name> has a linkable lib<name>.so (rows marked unverified say why not)."""
    libdir = sid_root() / "usr/lib/x86_64-linux-gnu"
    for name, row in table("link_libraries")["libraries"].items():
        for key in ("hip", "rocblas"):
            hip = row.get(key)
            if hip is None or row.get("verified") is False:
                continue
            assert (libdir / f"lib{hip}.so").exists(), f"-l{name} -> -l{hip}: no lib{hip}.so"


def test_half_macros_exist_in_the_hip_headers() -> None:
    headers = " ".join(
        p.read_text(errors="replace") for p in (sid_root() / "usr/include/hip").rglob("*.h")
    )
    for name, row in table("nvcc_flags")["macros"].items():
        if row["hip"]:
            assert row["hip"] in headers, name
        else:
            assert not re.search(name.replace("CUDA", "HIP"), headers), (
                f"{name}: HIP has it after all"
            )
