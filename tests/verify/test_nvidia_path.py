"""The NVIDIA path: nvcc builds the original, and the port through HIP's NVIDIA backend.

Building needs only nvcc (no GPU); running needs an NVIDIA GPU, and those tests skip with the
reason on a machine without one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rocport.verify import Status, VerifyOptions, verify
from rocport.verify import build as builder
from rocport.verify.engine import pair_programs
from rocport.verify.toolchain import find_hip_nvidia, nvidia_gpu_present

from .conftest import ROOT, port

pytestmark = pytest.mark.slow


def _pair(tmp: Path, name: str):
    src = tmp / "cuda"
    src.mkdir(exist_ok=True)
    (src / name).write_bytes((ROOT / "examples" / "cuda" / name).read_bytes())
    out = port(src / name, tmp / f"hip-{name}")
    return pair_programs(src / name, out)[0]


def test_original_and_port_build_with_nvcc(tmp_path: Path, hip_nvidia: Path) -> None:
    cuda, ported = _pair(tmp_path, "warp_reduce.cu")
    hip = find_hip_nvidia(hip_nvidia)
    original = builder.build_original(cuda, tmp_path, nvcc="nvcc", arch="sm_90", hip=hip)
    assert original.ok, original.output[-2000:]
    # the mask-free __ballot of the port builds only through the full-mask shim
    build = builder.build_port_nvidia(ported, tmp_path, nvcc="nvcc", arch="sm_90", hip=hip)
    assert build.ok, build.output[-2000:]
    assert Path(build.binary).stat().st_size > 0


def test_runtime_guard_helpers_build_on_both_backends(tmp_path: Path, hip_nvidia: Path) -> None:
    """The CUDA samples' helper_cuda.h defines checkCudaErrors under ``#ifdef __DRIVER_TYPES_H__``:
    the guard the port writes is defined under HIP's NVIDIA backend too (hip/driver_types.h is
    included only on AMD; hybridsort's port did not build on the H200 with its guard)."""
    src = tmp_path / "cuda"
    src.mkdir()
    (src / "helper.h").write_text(
        "#include <cstdio>\n#ifdef __DRIVER_TYPES_H__\n"
        "#define checkCudaErrors(val) check((val), #val)\n"
        "static void check(cudaError_t e, const char* what) { if (e) std::puts(what); }\n"
        "#endif\n"
    )
    (src / "main.cu").write_text(
        '#include <cuda_runtime.h>\n#include "helper.h"\n'
        "int main() { int n = 0; checkCudaErrors(cudaGetDeviceCount(&n)); return 0; }\n"
    )
    original, ported = pair_programs(src, port(src, tmp_path / "hip"))[0]
    hip = find_hip_nvidia(hip_nvidia)
    for build in (
        builder.build_original(original, tmp_path, nvcc="nvcc", arch="sm_90", hip=hip),
        builder.build_port_nvidia(ported, tmp_path, nvcc="nvcc", arch="sm_90", hip=hip),
    ):
        assert build.ok, build.output[-2000:]


def test_port_error_maps_back_to_the_cuda_line(tmp_path: Path, hip_nvidia: Path) -> None:
    """driver_api: hipDeviceptr_t is an integer on NVIDIA, so hipMalloc(&dptr) does not build."""
    from rocport.verify.engine import _cuda_of

    cuda, ported = _pair(tmp_path, "driver_api.cu")
    hip = find_hip_nvidia(hip_nvidia)
    build = builder.build_port_nvidia(ported, tmp_path, nvcc="nvcc", arch="sm_90", hip=hip)
    builder.map_errors(build, _cuda_of(cuda, ported))
    assert not build.ok
    error = next(e for e in build.errors if e.cuda_line is not None)
    cuda_text = Path(error.cuda_file).read_text().splitlines()
    assert "cuMemAlloc" in cuda_text[error.cuda_line - 1]
    assert "cuMemAlloc -> hipMalloc" in error.changed


def test_examples_on_the_gpu(tmp_path: Path, hip_nvidia: Path) -> None:
    if not nvidia_gpu_present():
        pytest.skip("no NVIDIA GPU here (nvidia-smi lists none): the runs need one")
    cuda, _ = _pair(tmp_path, "vector_add.cu")
    report = verify(
        cuda.sources[0], tmp_path / "hip-vector_add.cu", VerifyOptions(hip_nvidia=hip_nvidia)
    )
    assert report.programs[0].status is Status.SAME, report.programs[0].reason


def test_two_runs_without_a_gpu_are_not_the_same(tmp_path: Path, hip_nvidia: Path) -> None:
    """Without a GPU both builds fail alike (CUDA 13: cudaErrorInsufficientDriver); agreeing
    failures prove nothing, so the program could not run (a first try said "same")."""
    if nvidia_gpu_present():
        pytest.skip("an NVIDIA GPU is here: test_examples_on_the_gpu runs the example on it")
    cuda, _ = _pair(tmp_path, "vector_add.cu")
    options = VerifyOptions(path="nvidia", hip_nvidia=hip_nvidia)
    report = verify(cuda.sources[0], tmp_path / "hip-vector_add.cu", options)
    program = report.programs[0]
    assert program.status is Status.RUN_FAILED, program.reason
    assert "found no GPU it could use" in program.reason


def test_thrust_hip_policy_builds_through_cuda_thrust(tmp_path: Path, hip_nvidia: Path) -> None:
    """The port says thrust::hip::par (rocThrust); the NVIDIA build uses CUDA's Thrust, which
    names the same system thrust::cuda (the H100 run reported thrust_sort as not building)."""
    cuda, ported = _pair(tmp_path, "thrust_sort.cu")
    assert "thrust::hip::par" in ported.text()
    hip = find_hip_nvidia(hip_nvidia)
    build = builder.build_port_nvidia(ported, tmp_path, nvcc="nvcc", arch="sm_90", hip=hip)
    assert build.ok, build.output[-2000:]


def test_missing_nvcc_is_one_line(tmp_path: Path, hip_nvidia: Path) -> None:
    from rocport.errors import ToolError

    cuda, _ = _pair(tmp_path, "vector_add.cu")
    with pytest.raises(ToolError, match="not-a-compiler not found"):
        verify(
            cuda.sources[0],
            tmp_path / "hip-vector_add.cu",
            VerifyOptions(path="nvidia", nvcc="not-a-compiler", hip_nvidia=hip_nvidia),
        )
    assert shutil.which("not-a-compiler") is None


def test_c_sources_are_compiled_as_c(tmp_path: Path, hip_nvidia: Path) -> None:
    for side in ("cuda", "hip"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "util.c").write_text(
            "int twice(int x) { int new = 2; return x * new; }\n"
        )
    (tmp_path / "cuda" / "main.cu").write_text(
        '#include <cuda_runtime.h>\nextern "C" int twice(int);\n'
        "int main() { cudaDeviceSynchronize(); return twice(0); }\n"
    )
    (tmp_path / "hip" / "main.cu").write_text(
        '#include <hip/hip_runtime.h>\nextern "C" int twice(int);\n'
        "int main() { (void)hipDeviceSynchronize(); return twice(0); }\n"
    )
    ((cuda, ported),) = pair_programs(tmp_path / "cuda", tmp_path / "hip")
    hip = find_hip_nvidia(hip_nvidia)
    work = tmp_path / "work"
    work.mkdir()
    assert builder.build_original(cuda, work, nvcc="nvcc", arch="sm_90", hip=hip).ok
    build = builder.build_port_nvidia(ported, work, nvcc="nvcc", arch="sm_90", hip=hip)
    assert build.ok, build.output[-2000:]
