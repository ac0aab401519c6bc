"""Finding and identifying HIP toolchains; the project's sid root launcher."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rocport.check.toolchain import checkout_dir, find_toolchain, registry, release_of
from rocport.errors import InputError, ToolError

pytestmark = pytest.mark.hipcc

KERNEL = """\
#include <hip/hip_runtime.h>
__global__ void scale(float* a, float s) { a[blockIdx.x * blockDim.x + threadIdx.x] *= s; }
"""


def test_release_of_versions_as_hipcc_prints_them() -> None:
    assert release_of("6.4.43484-9999") == "6.4"
    assert release_of("5.2.21153-0") == "5.2"
    assert release_of("10.0") == "10.0"
    with pytest.raises(InputError):
        release_of("latest")


def test_each_release_identifies_itself(rocm52, rocm64) -> None:
    assert rocm52.release == "5.2" and rocm52.clang_version.startswith("15.")
    assert rocm64.release == "6.4" and rocm64.clang_version.startswith("21.")
    assert rocm64.launcher.root is not None and rocm64.origin == "registry"
    # GPU targets come from the compiler: clang 15 predates gfx942
    assert "gfx90a" in rocm52.offload_archs and "gfx942" not in rocm52.offload_archs
    assert {"gfx90a", "gfx942"} <= rocm64.offload_archs


def test_header_search_list_is_seen_from_this_machine(rocm52, rocm64) -> None:
    assert rocm52.find_header("hip/hip_runtime.h") == Path("/usr/include/hip/hip_runtime.h")
    found = rocm64.find_header("hip/hip_runtime.h")
    assert found is not None and found.is_relative_to(rocm64.launcher.root)
    assert rocm64.find_header("hipblas/hipblas.h") is not None
    assert rocm52.find_header("hipblas/hipblas.h") is None
    assert not rocm52.has_library("hipblas/hipblas.h") and not rocm52.has_library("hipblas.h")
    assert rocm64.has_library("hipblas.h")  # the library is there, under hipblas/


def test_missing_hipcc_is_a_tool_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="hipcc not found"):
        find_toolchain(hipcc=tmp_path / "hipcc")
    script = tmp_path / "not-a-compiler"
    script.write_text("#!/bin/sh\necho hello\n")
    script.chmod(0o755)
    with pytest.raises(ToolError, match="did not identify"):
        find_toolchain(hipcc=script)


def test_no_toolchain_for_an_unknown_release() -> None:
    with pytest.raises(ToolError, match="ROCm 1.0"):
        find_toolchain(rocm="1.0")


def test_launcher_script_stands_for_its_root(rocm64) -> None:
    entry = next(e for e in registry() if e.name == "debian-sid")
    assert entry.launcher_script is not None
    toolchain = find_toolchain(hipcc=entry.launcher_script)
    assert toolchain.launcher.root == rocm64.launcher.root and toolchain.origin == "--hipcc"


@pytest.mark.parametrize("place", ["tmp", "outside_tmp"])
def test_sid_hipcc_script_compiles_outside_the_repository(
    rocm64, tmp_path: Path, place: str
) -> None:
    checkout = checkout_dir()
    if checkout is None:
        pytest.skip("scripts/sid-hipcc lives in the project checkout, not in an installed package")
    work = tmp_path
    if place == "outside_tmp":  # a folder that the script must bind-mount itself
        work = Path("/var/tmp/rocport-check-tests/work")  # fixed: one mount point in the root
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    include = tmp_path / "include"
    include.mkdir()
    (include / "scale.h").write_text("#define SCALE 2.0f\n")
    (work / "k.hip").write_text("#include <scale.h>\n" + KERNEL)
    try:
        proc = subprocess.run(
            [
                str(checkout / "scripts" / "sid-hipcc"),
                f"-I{include}",
                "--offload-arch=gfx90a",
                "--offload-arch=gfx942",
                "-x",
                "hip",
                "-c",
                "k.hip",
                "-o",
                "k.o",
            ],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert (work / "k.o").stat().st_size > 0
    finally:
        if work != tmp_path:
            for child in work.iterdir():
                child.unlink()
            work.rmdir()


def test_sid_hipcc_refuses_without_its_root(tmp_path: Path) -> None:
    checkout = checkout_dir()
    if checkout is None:
        pytest.skip("scripts/sid-hipcc lives in the project checkout")
    proc = subprocess.run(
        [str(checkout / "scripts" / "sid-hipcc"), "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "ROCPORT_SID_ROOT": str(tmp_path / "none")},
        check=False,
    )
    assert proc.returncode == 2 and "toolchain-rocm.sh 6.4" in proc.stderr
