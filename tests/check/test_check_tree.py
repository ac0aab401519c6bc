"""``check_tree`` with real compiles under both project toolchains."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rocport.check import Mode, Status, check_tree, find_units
from rocport.errors import InputError

pytestmark = pytest.mark.hipcc

VECTOR_ADD = """\
#include <hip/hip_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
void launch(const float* a, const float* b, float* c, int n) {
    add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
"""

# A driver-API error message: cuGetErrorString -> hipDrvGetErrorString, which HIP 5.2 lacks.
CUDA_DRIVER = """\
#include <cstdio>

void report(CUresult status) {
    const char* text = nullptr;
    // ask the driver what went wrong
    cuGetErrorString(status, &text);
    std::printf("%s\\n", text);
}
"""
HIP_DRIVER = """\
#include <hip/hip_runtime.h>
#include <cstdio>

void report(hipError_t status) {
    const char* text = nullptr;
    // ask the driver what went wrong
    hipDrvGetErrorString(status, &text);
    std::printf("%s\\n", text);
}
"""


def test_units_are_sources_that_use_hip(write, tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a.hip": VECTOR_ADD,
            "b.cu": VECTOR_ADD,
            "host.cpp": "#include <hip/hip_runtime.h>\n",
            "plain.cpp": "int main() {}\n",
            "k.cuh": VECTOR_ADD,
            ".git/x.cu": VECTOR_ADD,
            "sub/c.cu": VECTOR_ADD,
        },
    )
    assert find_units(tmp_path) == ["a.hip", "b.cu", "host.cpp", "sub/c.cu"]


def test_passing_units_with_each_release(write, any_toolchain, tmp_path: Path) -> None:
    write(tmp_path, {"a.hip": VECTOR_ADD, "b.cu": VECTOR_ADD, "sub/c.cpp": VECTOR_ADD})
    report = check_tree(tmp_path, toolchain=any_toolchain, jobs=2)
    assert report.ok and report.jobs == 2
    assert [u.path for u in report.units] == ["a.hip", "b.cu", "sub/c.cpp"]
    for unit in report.units:
        assert unit.status is Status.PASSED and unit.mode is Mode.FULL and not unit.errors
        assert "--offload-arch=gfx90a" in unit.command and unit.command[1:3] == ["-x", "hip"]
    assert report.toolchain["release"] == any_toolchain.release


def test_error_is_mapped_to_the_cuda_line(write, rocm52, rocm64, tmp_path: Path) -> None:
    write(tmp_path, {"cuda/err.cu": CUDA_DRIVER, "hip/err.cu": HIP_DRIVER})
    report = check_tree(tmp_path / "hip", toolchain=rocm52, cuda_root=tmp_path / "cuda")
    (unit,) = report.units
    assert unit.status is Status.FAILED and not report.ok
    (error,) = unit.errors
    assert (error.file, error.line) == ("err.cu", 7)
    assert "hipDrvGetErrorString" in error.message
    assert (error.cuda_file, error.cuda_line) == (str(tmp_path / "cuda" / "err.cu"), 6)
    assert (error.at_column.cuda, error.at_column.hip) == (
        "cuGetErrorString",
        "hipDrvGetErrorString",
    )
    # the same port compiles with the release that has the function
    assert check_tree(tmp_path / "hip", toolchain=rocm64).ok


def test_error_of_one_gpu_target(write, rocm64, tmp_path: Path) -> None:
    write(
        tmp_path, {"t.hip": VECTOR_ADD + "#if defined(__gfx942__)\nint x = y_undeclared;\n#endif\n"}
    )
    report = check_tree(tmp_path, toolchain=rocm64, offload_arch=["gfx90a", "gfx942"])
    (error,) = report.units[0].errors
    assert error.passes == ["gfx942"] and error.line == 10


def test_unknown_gpu_target_is_bad_input(write, rocm52, tmp_path: Path) -> None:
    write(tmp_path, {"a.hip": VECTOR_ADD})
    with pytest.raises(InputError, match="gfx942: not a GPU target of HIP 5.2"):
        check_tree(tmp_path, toolchain=rocm52, offload_arch=["gfx90a", "gfx942"])


# hipFFT is a host library; this unit's GPU code needs none of it.
GUARDED_FFT = """\
#include <hip/hip_runtime.h>
#ifndef __HIP_DEVICE_COMPILE__
#include <hipfft/hipfft.h>
void plan(int n) { hipfftHandle h; hipfftPlan1d(&h, n, HIPFFT_C2C, 1); }
#endif
__global__ void normalise(float* x, float s) { x[threadIdx.x] *= s; }
"""


def test_device_only_where_a_host_library_is_absent(write, rocm52, rocm64, tmp_path: Path) -> None:
    write(tmp_path, {"fft.hip": GUARDED_FFT})
    old = check_tree(tmp_path, toolchain=rocm52).units[0]
    assert (old.status, old.mode, old.missing_headers) == (
        Status.PASSED,
        Mode.DEVICE_ONLY,
        ["hipfft/hipfft.h"],
    )
    assert "--offload-device-only" in old.command
    new = check_tree(tmp_path, toolchain=rocm64).units[0]
    assert (new.status, new.mode, new.missing_headers) == (Status.PASSED, Mode.FULL, [])


# llm.c's train_gpt2.cu: RCCL and MPI only with -DMULTI_GPU / -DUSE_MPI, NVML where it exists
CONDITIONAL_LIBRARIES = """\
#include <hip/hip_runtime.h>
#ifdef MULTI_GPU
#include <rccl/rccl.h>
#endif
#if __has_include(<nvml.h>)
#include <nvml.h>
#endif
void host_side() {}
""" + VECTOR_ADD.split("\n", 1)[1]


def test_headers_the_compiler_skips_leave_the_unit_in_full(write, rocm64, tmp_path) -> None:
    """The include scan does not evaluate conditionals: absent headers that the compiler skips
    do not make the unit device-only; where it does not skip them, the unit is unavailable."""
    write(tmp_path, {"t.hip": CONDITIONAL_LIBRARIES})
    unit = check_tree(tmp_path, toolchain=rocm64).units[0]
    assert unit.missing_headers == ["rccl/rccl.h", "nvml.h"]
    assert (unit.status, unit.mode) == (Status.PASSED, Mode.FULL)
    assert "--offload-device-only" not in unit.command
    unit = check_tree(tmp_path, toolchain=rocm64, defines=["MULTI_GPU"]).units[0]
    assert (unit.status, unit.mode) == (Status.UNAVAILABLE, Mode.DEVICE_ONLY)
    assert [e.message for e in unit.errors] == ["'rccl/rccl.h' file not found"]


def test_absent_library_makes_the_unit_unavailable(write, rocm52, tmp_path: Path) -> None:
    write(tmp_path, {"blas.hip": "#include <hipblas/hipblas.h>\n" + VECTOR_ADD})
    report = check_tree(tmp_path, toolchain=rocm52)
    unit = report.units[0]
    assert unit.status is Status.UNAVAILABLE and unit.missing_headers == ["hipblas/hipblas.h"]
    assert report.counts == {"passed": 0, "failed": 0, "unavailable": 1, "units": 1}
    assert not report.ok


def test_wrong_header_for_the_release_is_a_failure(write, rocm64, tmp_path: Path) -> None:
    # ROCm 5.x spelled it <hipblas.h>; 6.x has hipBLAS only under hipblas/
    write(tmp_path, {"blas.hip": "#include <hipblas.h>\n" + VECTOR_ADD})
    unit = check_tree(tmp_path, toolchain=rocm64).units[0]
    assert (unit.status, unit.mode) == (Status.FAILED, Mode.FULL)
    assert unit.errors[0].message == "'hipblas.h' file not found"


def test_project_headers_defines_and_outside_includes(write, rocm64, tmp_path: Path) -> None:
    # outside /tmp, so that it must be bind-mounted into the root; a fixed name, so that the
    # root keeps one mount point for it, not one per run
    outside = Path("/var/tmp/rocport-check-tests/include")
    shutil.rmtree(outside, ignore_errors=True)
    outside.mkdir(parents=True)
    try:
        (outside / "scale.h").write_text("#define SCALE 3.0f\n")
        write(
            tmp_path,
            {
                "include/util.cuh": "#pragma once\n"
                "__device__ inline float twice(float v) { return 2 * v; }\n",
                "src/k.hip": "#include <hip/hip_runtime.h>\n"
                '#include "include/util.cuh"\n#include <scale.h>\n'
                "__global__ void k(float* a) { a[0] = twice(SCALE) * OFFSET; }\n",
            },
        )
        report = check_tree(
            tmp_path, toolchain=rocm64, defines=["OFFSET=1.5f"], include_dirs=[outside]
        )
        assert report.ok, report.units[0].diagnostics
        assert "-DOFFSET=1.5f" in report.flags
    finally:
        (outside / "scale.h").unlink()
        outside.rmdir()


def test_bad_input(write, rocm52, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        check_tree(tmp_path / "missing", toolchain=rocm52)
    with pytest.raises(InputError, match="no translation units"):
        check_tree(tmp_path, toolchain=rocm52)
    write(tmp_path, {"a.hip": VECTOR_ADD})
    with pytest.raises(InputError, match="-I folder"):
        check_tree(tmp_path, toolchain=rocm52, include_dirs=[tmp_path / "nope"])


CUDA_MACRO = """\
#include <cstdio>
#define CU_CHECK(call) do { CUresult r_ = (call); const char* t_; \\
    cuGetErrorString(r_, &t_); std::puts(t_); } while (0)

void start() { CU_CHECK(cuInit(0)); }
"""
HIP_MACRO = """\
#include <hip/hip_runtime.h>
#include <cstdio>
#define CU_CHECK(call) do { hipError_t r_ = (call); const char* t_; \\
    hipDrvGetErrorString(r_, &t_); std::puts(t_); } while (0)

void start() { CU_CHECK(hipInit(0)); }
"""


def test_error_in_a_macro_names_the_macro_body(write, rocm52, tmp_path: Path) -> None:
    write(tmp_path, {"cuda/m.cu": CUDA_MACRO, "hip/m.cu": HIP_MACRO})
    report = check_tree(tmp_path / "hip", toolchain=rocm52, cuda_root=tmp_path / "cuda")
    (error,) = report.units[0].errors
    assert (error.line, error.cuda_line) == (6, 5)  # where the macro is used
    site = error.site
    assert (site.kind, site.detail, site.file, site.line, site.cuda_line) == (
        "macro",
        "CU_CHECK",
        "m.cu",
        4,
        3,
    )
    assert (site.at_column.cuda, site.at_column.hip) == ("cuGetErrorString", "hipDrvGetErrorString")


def test_error_in_a_toolchain_header_points_at_the_tree_line(write, rocm52, tmp_path: Path) -> None:
    code = (
        "#include <hip/hip_runtime.h>\n#include <memory>\n#include <vector>\n\n"
        "void copy_owners() { std::vector<std::unique_ptr<int>> a; auto b = a; }\n"
    )
    write(
        tmp_path,
        {"cuda/own.cu": code.replace("hip/hip_runtime.h", "cuda_runtime.h"), "hip/own.cu": code},
    )
    report = check_tree(tmp_path / "hip", toolchain=rocm52, cuda_root=tmp_path / "cuda")
    error = report.units[0].errors[0]
    assert error.file.startswith("/usr/") and error.cuda_file is None  # inside libstdc++
    assert error.site is not None and error.site.kind == "context"
    assert (error.site.file, error.site.line, error.site.cuda_line) == ("own.cu", 5, 5)


def test_headers_the_tree_has_are_found_as_its_build_would(write, rocm52, tmp_path: Path) -> None:
    """A project header that only the project's build reaches (``-I include``, here in no file
    of the tree) is the tree's, not a library the toolchain lacks; a vendor header that
    includes the system header of its own name is not taken for that header."""
    write(
        tmp_path,
        {
            "include/scale.h": "#pragma once\nconstexpr float kScale = 2.0f;\n",
            "src/vendors/musa.h": "#pragma once\n#include <musa.h>\n",
            "src/kernel.cu": '#include <hip/hip_runtime.h>\n#include "scale.h"\n'
            '#ifdef USE_MUSA\n#include "vendors/musa.h"\n#endif\n'
            "__global__ void scale(float* x) { x[threadIdx.x] *= kScale; }\n",
        },
    )
    unit = check_tree(tmp_path, toolchain=rocm52).units[0]
    assert unit.status is Status.PASSED and unit.include_dirs_found == ["include"]
    assert f"-I{tmp_path.resolve() / 'include'}" in unit.command
    # musa.h: only the vendor header itself has that name; it stays missing, but the compiler
    # skips it (USE_MUSA is not defined), so the unit compiles in full
    assert unit.missing_headers == ["musa.h"] and unit.mode is Mode.FULL
    alone = check_tree(tmp_path / "src" / "kernel.cu", toolchain=rocm52).units[0]
    assert alone.status is Status.UNAVAILABLE and "scale.h" in alone.missing_headers
