"""Older and driver-style CUDA that real projects hold, ported and compiled with the real hipcc.

Each test writes its own small tree, ports it with :func:`rocport.port.api.port_tree` and, where
the question is whether the result builds, compiles it with HIP 6.4's hipcc (the project's sid
root, ``bash scripts/toolchain-rocm.sh 6.4``) through :func:`rocport.check.check_tree`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocport.check.model import Status
from rocport.check.runner import check_tree
from rocport.check.toolchain import Toolchain, find_toolchain
from rocport.errors import ToolError
from rocport.port.api import port_tree
from rocport.port.model import Outcome, PortOptions

LEGACY = """\
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void fill(float* a) { a[threadIdx.x] = 1.0f; }

int main() {
  float* d = 0;
  cudaMalloc(&d, 64 * sizeof(float));
  fill<< <1, 64>> >(d);
  cudaThreadSynchronize();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop, cudaEventDisableTiming);
  CUevent_st* raw = start;
  float* h = 0;
  cudaMallocHost(&h, 16);
  cudaFreeHost(h);
  if (cudaGetLastError() == cudaErrorMemoryAllocation) printf("%p\\n", (void*)raw);
#if CUDA_VERSION >= 12000
  this_branch_is_for_cuda_12_only();
#endif
  cudaThreadExit();
  return 0;
}
"""

DRIVER = """\
#include <cuda.h>

int copy(CUstream stream, CUdeviceptr dst, CUarray src) {
  CUevent ev;
  cuEventCreate(&ev, CU_EVENT_DEFAULT);
  CUstream_st* raw = stream;
  CUDA_MEMCPY3D p3 = {};
  p3.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  p3.srcArray = src;
  p3.dstDevice = dst;
  cuMemcpy3D(&p3);
  CUDA_MEMCPY2D p2 = {};
  p2.dstDevice = dst;
  cuMemcpy2D(&p2);
  cuMemcpy2DAsync(&p2, raw);
  return cuEventRecord(ev, stream) == CUDA_SUCCESS;
}
"""


def _hip64() -> Toolchain:
    try:
        return find_toolchain(rocm="6.4")
    except ToolError as exc:
        reason = f"hipcc for ROCm 6.4 not found ({exc}); run `bash scripts/toolchain-rocm.sh 6.4`"
        print(reason)
        pytest.skip(reason)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _port(tmp_path: Path, files: dict[str, str]):
    src = _tree(tmp_path / "src", files)
    out = tmp_path / "out"
    report = port_tree(src, out, options=PortOptions(rocm="6.4"), jobs=1)
    return out, {f.path: f for f in report.files}


def _compile(out: Path, units: list[str]):
    result = check_tree(out, offload_arch=("gfx942",), toolchain=_hip64(), units=units, jobs=2)
    return {u.path: u for u in result.units}


def test_legacy_runtime_and_spaced_launch_compile(tmp_path: Path) -> None:
    out, files = _port(tmp_path, {"legacy.cu": LEGACY})
    text = (out / "legacy.cu").read_text()
    assert "fill<<<1, 64>>>(d);" in text
    assert "hipDeviceSynchronize();" in text and "hipDeviceReset();" in text
    assert "hipEventCreate(&start);" in text
    assert "hipEventCreateWithFlags(&stop, hipEventDisableTiming);" in text
    assert "ihipEvent_t* raw" in text and "hipHostFree(h)" in text
    assert "hipErrorOutOfMemory" in text
    assert "#if CUDA_VERSION >= 12000" in text  # left as written: no HIP_VERSION
    issues = {(i.name, i.outcome) for i in files["legacy.cu"].issues}
    assert issues == {("CUDA_VERSION", Outcome.UNSUPPORTED)}
    assert not files["legacy.cu"].converted
    unit = _compile(out, ["legacy.cu"])["legacy.cu"]
    assert unit.status is Status.PASSED, [d.message for d in unit.errors]


def test_driver_calls_compile_with_their_hip_driver_forms(tmp_path: Path) -> None:
    out, files = _port(tmp_path, {"driver.cpp": DRIVER})
    text = (out / "driver.cpp").read_text()
    for expected in (
        "hipEventCreateWithFlags(&ev,",
        "ihipStream_t* raw",
        "hipDrvMemcpy3D(&p3)",
        "hipMemcpyParam2D(&p2)",
        "hipMemcpyParam2DAsync(&p2, raw)",
    ):
        assert expected in text, expected
    assert files["driver.cpp"].converted, files["driver.cpp"].issues
    unit = _compile(out, ["driver.cpp"])["driver.cpp"]
    assert unit.status is Status.PASSED, [d.message for d in unit.errors]


def test_project_names_with_a_cuda_prefix_are_not_unknown(tmp_path: Path) -> None:
    _, files = _port(
        tmp_path,
        {
            "handles.h": "#include <cublas_v2.h>\nextern cublasHandle_t cublasH;\n",
            "main.cu": (
                '#include "handles.h"\n#include <cusparse.h>\n'
                "cublasHandle_t cublasH = NULL;\n"
                "int main() {\n"
                "  cudaError_t cudaStat1 = cudaSuccess;\n"
                "  cusparseHandle_t cusparseHandle_local;\n"
                "  cusparseCreate(&cusparseHandle_local);\n"
                "  cublasCreate(&cublasH);\n"
                "  cudaStat1 = cudaDeviceSynchronize();\n"
                "  cudaNotAnApi(cudaStat1);\n"
                "#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 12, 0)\n#endif\n"
                "#define INIT(cuDevice) cuDevice = 0\n"
                "  return cudaStat1;\n}\n"
            ),
            "user.cu": '#include "handles.h"\nvoid f() { cublasDestroy(cublasH); }\n',
        },
    )
    unknown = {i.name for f in files.values() for i in f.issues if i.outcome is Outcome.UNKNOWN}
    assert unknown == {"cudaNotAnApi"}
    assert files["user.cu"].converted  # cublasH is declared in the project's header


def test_a_file_is_not_converted_while_an_included_header_holds_cuda(tmp_path: Path) -> None:
    _, files = _port(
        tmp_path,
        {
            "inc/kernels.cuh": "#include <cuda_runtime.h>\ninline void k() { cudaNoSuchCall(); }\n",
            "inc/wrap.cuh": '#include "kernels.cuh"\n',
            "main.cu": '#include "inc/wrap.cuh"\nint main() { cudaDeviceSynchronize(); }\n',
            "clean.cu": "int main() { cudaDeviceSynchronize(); }\n",
        },
    )
    assert not files["main.cu"].converted
    assert files["main.cu"].partial_include == "inc/kernels.cuh"
    assert files["clean.cu"].converted and files["clean.cu"].partial_include is None


def test_libcuxx_code_is_never_converted_and_check_calls_it_a_port_failure(
    tmp_path: Path,
) -> None:
    out, files = _port(
        tmp_path,
        {
            "pipe.cu": (
                "#include <cuda/pipeline>\n"
                "__global__ void k(int* a) {\n"
                "  auto pipe = cuda::make_pipeline();\n"
                "  cuda::memcpy_async(a, a + 1, 4, pipe);\n}\n"
            )
        },
    )
    report = files["pipe.cu"]
    left = {(i.name, i.outcome) for i in report.issues}
    assert ("cuda/pipeline", Outcome.UNSUPPORTED) in left
    assert ("cuda::memcpy_async", Outcome.UNKNOWN) in left  # <cuda/barrier>'s support header
    assert not report.converted  # is not for pipelines
    unit = _compile(out, ["pipe.cu"])["pipe.cu"]
    assert unit.status is Status.FAILED  # not "unavailable": no library would provide it
    assert any("port left CUDA header cuda/pipeline" in d.message for d in unit.errors)
