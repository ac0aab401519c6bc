"""Support headers (rocport.port.support): CUDA SDK headers that a project includes from outside
its tree, and the legacy launch API, become HIP headers that the port adds; they compile, and
the launch shim passes what the program set to hipModuleLaunchKernel (run on this machine)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rocport.port import support
from rocport.port.api import port_tree
from rocport.port.mapping import load_mapping
from rocport.port.model import Outcome, PortOptions
from rocport.port.translator import translate

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
DATA = ROOT / "src" / "rocport" / "port" / "data" / "support"
OPTIONS = PortOptions(rocm="6.4")


def _corpus(rel: str) -> Path:
    path = CORPUS / rel
    if not path.exists():
        pytest.skip(f"the real-world corpus is missing at {CORPUS}")
    return path


def _translate(text: str, present: frozenset[str] = frozenset()):
    mapping = load_mapping(rocm="6.4")
    return support.translate(
        text, base=translate, present=present, path="a.cu", mapping=mapping, options=OPTIONS
    )


def test_every_support_header_of_the_index_is_shipped() -> None:
    files = {p.name for p in DATA.glob("*.h")}
    index = support.headers()
    assert set(index) == files
    for header in index.values():
        assert re.fullmatch(r"rocport_[A-Za-z0-9_]+\.h", header.name)  # as includes are found
        assert set(header.needs) <= files
        for need in header.needs:  # a header includes what it needs, quoted
            assert f'#include "{need}"' in header.data().decode()


def test_an_sdk_header_from_outside_the_tree_becomes_its_support_header() -> None:
    text = '#include <helper_cuda.h>\n#include "helper_timer.h"\n// #include <helper_string.h>\n'
    out = _translate(text)
    assert out.text.splitlines() == [
        '#include "rocport_helper_cuda.h"',
        '#include "rocport_helper_timer.h"',
        "// #include <helper_string.h>",
    ]
    refs = [(r.name, r.line, r.outcome, r.hip) for r in out.references]
    assert refs == [
        ("helper_cuda.h", 1, Outcome.TRANSLATED, "rocport_helper_cuda.h"),
        ("helper_timer.h", 2, Outcome.TRANSLATED, "rocport_helper_timer.h"),
    ]
    assert _translate(out.text).text == out.text


def test_a_helper_header_of_the_project_is_the_projects() -> None:
    text = '#include "helper_cuda.h"\n'
    assert _translate(text, frozenset({"helper_cuda.h"})).text == text


def test_only_a_project_header_the_includer_can_reach_is_the_projects() -> None:
    """Rodinia: hybridsort/ has its own helper_cuda.h, cfd/ includes the SDK's."""
    reach = support.in_tree
    tree = frozenset({"cuda/hybridsort/helper_cuda.h", "inc/helper_timer.h", "src/common/x.h"})
    assert not reach("helper_cuda.h", "cuda/cfd/euler3d.cu", tree)
    assert reach("helper_cuda.h", "cuda/hybridsort/bucketsort.cu", tree)
    assert reach("helper_cuda.h", "cuda/hybridsort/sub/k.cu", tree)  # an ancestor's
    assert reach("helper_timer.h", "cuda/cfd/euler3d.cu", tree)  # the root's inc/
    assert reach("x.h", "src/a/b.cu", tree) and reach("common/x.h", "src/b.cu", tree)
    assert not reach("x.h", "tools/b.cu", tree)
    assert not reach("x.h", "/abs/tools/b.cu", tree)  # an absolute includer ends at "/"


def test_the_legacy_launch_api_is_kept_and_gets_the_shim() -> None:
    source = _corpus("gpu-burn/gpu_burn-drv.cpp").read_text()
    out = _translate(source)
    legacy = [
        r for r in out.references if r.name in support.headers()["rocport_legacy_launch.h"].names
    ]
    assert {r.name for r in legacy} == {
        "cuParamSetSize",
        "cuParamSetv",
        "cuFuncSetBlockShape",
        "cuLaunchGridAsync",
    }
    assert all(r.outcome is Outcome.TRANSLATED for r in legacy)
    assert out.text.count('#include "rocport_legacy_launch.h"') == 1
    inserted = [out.text.splitlines()[i - 1] for i in out.inserted_lines]
    assert '#include "rocport_legacy_launch.h"' in inserted
    assert _translate(out.text).text == out.text  # translating the port changes nothing


def test_the_port_writes_support_headers_beside_the_files_that_include_them(tmp_path) -> None:
    out = tmp_path / "cfd"
    report = port_tree(_corpus("rodinia/cuda/cfd"), out, options=OPTIONS, jobs=1)
    added = {f.path: f for f in report.files if f.status.value == "added"}
    assert set(added) == {
        "rocport_helper_cuda.h",
        "rocport_helper_string.h",  # rocport_helper_cuda.h includes it
        "rocport_helper_timer.h",
    }
    for name in added:
        assert (out / name).read_bytes() == (DATA / name).read_bytes()
    assert '#include "rocport_helper_cuda.h"' in (out / "euler3d.cu").read_text()
    again = port_tree(_corpus("rodinia/cuda/cfd"), out, options=OPTIONS, jobs=1)
    assert not any(f.written for f in again.files if f.status.value == "added")


_LAUNCH_TEST = r"""
#include "rocport_legacy_launch.h"
#include <cstdio>
#include <cstring>

// Stands in for the runtime's hipModuleLaunchKernel (the executable's definition wins over the
// shared library's): it records what the shim passes.
static unsigned seen[7];
static unsigned char seen_args[64];
static size_t seen_size;
static hipStream_t seen_stream;
hipError_t hipModuleLaunchKernel(hipFunction_t, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                 hipStream_t stream, void** params, void** extra) {
  if (params != nullptr || extra == nullptr || extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER ||
      extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE || extra[4] != HIP_LAUNCH_PARAM_END)
    return hipErrorInvalidValue;
  seen_size = *static_cast<size_t*>(extra[3]);
  std::memcpy(seen_args, extra[1], seen_size);
  unsigned v[7] = {gx, gy, gz, bx, by, bz, shared};
  std::memcpy(seen, v, sizeof v);
  seen_stream = stream;
  return hipSuccess;
}

int main() {
  hipFunction_t f = reinterpret_cast<hipFunction_t>(0x1000);
  double* p = reinterpret_cast<double*>(0x1234);
  size_t iters = 7;
  if (cuParamSetSize(f, 24) || cuParamSetv(f, 0, &p, sizeof p) || cuParamSeti(f, 8, 42) ||
      cuParamSetf(f, 12, 1.5f) || cuParamSetv(f, 16, &iters, sizeof iters) ||
      cuFuncSetBlockShape(f, 16, 8, 1) || cuFuncSetSharedSize(f, 256) ||
      cuLaunchGridAsync(f, 4, 2, reinterpret_cast<hipStream_t>(0x99)))
    return 1;
  double* p2; unsigned i; float x; size_t n;
  std::memcpy(&p2, seen_args, 8); std::memcpy(&i, seen_args + 8, 4);
  std::memcpy(&x, seen_args + 12, 4); std::memcpy(&n, seen_args + 16, 8);
  std::printf("grid %u %u %u block %u %u %u shared %u size %zu args %d %u %.1f %zu stream %d\n",
              seen[0], seen[1], seen[2], seen[3], seen[4], seen[5], seen[6], seen_size,
              p2 == p, i, x, n, seen_stream == reinterpret_cast<hipStream_t>(0x99));
  if (cuFuncSetBlockShape(f, 0, 1, 1) != hipErrorInvalidValue) return 2;
  if (cuLaunchGrid(f, 1, 1) || seen_stream != nullptr) return 3;
  return 0;
}
"""


@pytest.mark.hipcc
def test_the_legacy_launch_shim_passes_the_parameter_buffer_and_shape(tmp_path) -> None:
    """Built with HIP 5.2's hipcc and run here: hipModuleLaunchKernel is replaced by a recorder,
    so no GPU is needed to see the grid, block, shared size, stream and argument bytes."""
    hipcc = shutil.which("hipcc")
    if hipcc is None:
        pytest.skip("hipcc (HIP 5.2) not found: run `bash scripts/toolchain-rocm.sh 5.2`")
    shutil.copy(DATA / "rocport_legacy_launch.h", tmp_path)
    (tmp_path / "t.cpp").write_text(_LAUNCH_TEST)
    build = subprocess.run(
        [hipcc, "--offload-arch=gfx90a", "-O1", "t.cpp", "-o", "t"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HIP_PLATFORM": "amd"},
        check=False,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ("grid 4 2 1 block 16 8 1 shared 256 size 24 args 1 42 1.5 7 stream 1\n")


@pytest.mark.hipcc
@pytest.mark.slow
def test_ported_files_that_use_support_headers_compile_for_gfx942(tmp_path) -> None:
    """cfd (the CUDA samples' helper_cuda.h and helper_timer.h), gpu-burn's driver program
    (the legacy launch API) and llm.c's train_gpt2_fp32.cu (cg::reduce), ported and compiled
    with HIP 6.4 for gfx942."""
    from rocport.check import check_tree, find_toolchain
    from rocport.errors import ToolError

    try:
        toolchain = find_toolchain(rocm="6.4")
    except ToolError as exc:
        pytest.skip(f"no HIP 6.4 toolchain: {exc} (run `bash scripts/toolchain-rocm.sh 6.4`)")
    port_tree(_corpus("rodinia/cuda/cfd"), tmp_path / "cfd", options=OPTIONS, jobs=1)
    port_tree(_corpus("gpu-burn"), tmp_path / "gpu-burn", options=OPTIONS, jobs=1)
    port_tree(_corpus("llm.c"), tmp_path / "llm.c", options=OPTIONS, jobs=1)
    units = (
        ("cfd", "euler3d.cu"),
        ("gpu-burn", "gpu_burn-drv.cpp"),
        ("llm.c", "train_gpt2_fp32.cu"),
    )
    for tree, unit in units:
        result = check_tree(
            tmp_path / tree, toolchain=toolchain, offload_arch=("gfx942",), jobs=1, units=[unit]
        )
        statuses = {u.path: (u.status.value, [e.message for e in u.errors]) for u in result.units}
        assert statuses[unit][0] == "passed", statuses


def test_libcudacxx_barrier_becomes_its_support_header_with_its_names() -> None:
    """SGEMM_CUDA's kernel 12: <cuda/barrier>, cuda::barrier, cuda::memcpy_async."""
    source = _corpus("sgemm-cuda/src/kernels/12_kernel_double_buffering.cuh").read_text()
    out = _translate(source)
    assert '#include "rocport_cuda_barrier.h"' in out.text and "<cuda/barrier>" not in out.text
    left = [
        (r.name, r.outcome.value) for r in out.references if r.outcome is not Outcome.TRANSLATED
    ]
    assert left == []
    assert _translate(out.text).text == out.text
    # without the header, its names are not the support header's: they stay unknown
    bare = _translate("__device__ void f(cuda::barrier<cuda::thread_scope_block>& b);\n")
    assert {r.outcome for r in bare.references} == {Outcome.UNKNOWN}


def test_cooperative_groups_reduce_becomes_its_support_header() -> None:
    """llm.c's train_gpt2_fp32.cu: <cooperative_groups/reduce.h> (HIP has none)."""
    source = (
        "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
        "namespace cg = cooperative_groups;\n"
        "__device__ float f(cg::thread_block_tile<32> w, float v) {\n"
        "  return cooperative_groups::reduce(w, v, cooperative_groups::plus<float>{});\n}\n"
    )
    out = _translate(source)
    assert '#include "rocport_cg_reduce.h"' in out.text and "reduce.h>" not in out.text
    assert "cooperative_groups::reduce(w, v, cooperative_groups::plus<float>{})" in out.text
    assert {r.outcome for r in out.references} == {Outcome.TRANSLATED}
    assert _translate(out.text).text == out.text


@pytest.mark.hipcc
def test_cg_reduce_support_header_compiles_with_each_release(tmp_path) -> None:
    """Every operator over tiles of 4 to 64 threads, with HIP 5.2, 6.4 and 7.2."""
    from rocport.check import find_toolchain
    from rocport.errors import ToolError

    header = support.headers()["rocport_cg_reduce.h"]
    (tmp_path / header.name).write_bytes(header.data())
    ops = ("plus", "less", "greater", "bit_and", "bit_or", "bit_xor")
    calls = "".join(
        f"  out[{i * 5 + j}] = cg::reduce(cg::tiled_partition<{n}>(block), v, cg::{op}<int>{{}});\n"
        for i, op in enumerate(ops)
        for j, n in enumerate((4, 8, 16, 32, 64))
    )
    (tmp_path / "k.hip").write_text(
        '#include <hip/hip_runtime.h>\n#include "rocport_cg_reduce.h"\n'
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(int* out) {\n  cg::thread_block block = cg::this_thread_block();\n"
        f"  int v = threadIdx.x;\n{calls}}}\n"
    )
    from rocport.check import check_tree

    for rocm in ("5.2", "6.4", "7.2"):
        try:
            toolchain = find_toolchain(rocm=rocm)
        except ToolError as exc:
            pytest.fail(f"no HIP {rocm} toolchain: {exc} (bash scripts/toolchain-rocm.sh)")
        arch = "gfx90a" if rocm == "5.2" else "gfx942"  # clang 15 (HIP 5.2) has no gfx942
        result = check_tree(tmp_path, toolchain=toolchain, offload_arch=(arch,), units=["k.hip"])
        (unit,) = result.units
        assert unit.status.value == "passed", (rocm, [e.message for e in unit.errors])


def test_ldg_of_a_bfloat16_gets_the_ldg_support_header() -> None:
    """llm.c: __ldg over floatX (__nv_bfloat16) pointers; HIP's __ldg has no bfloat16 form."""
    source = (
        "#include <cuda_bf16.h>\n"
        "__global__ void k(const __nv_bfloat16* a, const float* b, float* out) {\n"
        "  out[0] = __bfloat162float(__ldg(a)) + __ldcs(b);\n}\n"
    )
    out = _translate(source)
    assert out.text.count('#include "rocport_ldg.h"') == 1
    assert "__ldg(a)" in out.text and "__ldg(b)" in out.text
    assert _translate(out.text).text == out.text
    plain = _translate("__global__ void k(const int* a, int* o) { o[0] = a[0]; }\n")
    assert "rocport_ldg.h" not in plain.text


@pytest.mark.hipcc
def test_ldg_support_header_compiles_with_each_release(tmp_path) -> None:
    """bfloat16, a struct and HIP's own overloads (which stay the better match), HIP 6.4 and 7.2
    (and 5.2 with its hip_bfloat16 class)."""
    from rocport.check import check_tree, find_toolchain
    from rocport.errors import ToolError

    header = support.headers()["rocport_ldg.h"]
    (tmp_path / header.name).write_bytes(header.data())
    for rocm, bf16, include in (
        ("5.2", "hip_bfloat16", "hip/hip_bfloat16.h"),
        ("6.4", "__hip_bfloat16", "hip/hip_bf16.h"),
        ("7.2", "__hip_bfloat16", "hip/hip_bf16.h"),
    ):
        (tmp_path / "k.hip").write_text(
            f'#include "rocport_ldg.h"\n#include <{include}>\n'
            "struct pair { int a, b; };\n"
            f"__global__ void k(const {bf16}* x, const pair* p, const float4* v, float* out) {{\n"
            "  out[0] = static_cast<float>(__ldg(x)) + __ldg(p).b + __ldg(v).w;\n}\n"
        )
        try:
            toolchain = find_toolchain(rocm=rocm)
        except ToolError as exc:
            pytest.fail(f"no HIP {rocm} toolchain: {exc} (bash scripts/toolchain-rocm.sh)")
        arch = "gfx90a" if rocm == "5.2" else "gfx942"
        result = check_tree(tmp_path, toolchain=toolchain, offload_arch=(arch,), units=["k.hip"])
        (unit,) = result.units
        assert unit.status.value == "passed", (rocm, [e.message for e in unit.errors])


def test_nvtx_resource_naming_is_kept_and_gets_its_support_header() -> None:
    """llm.c's zero.cuh names its NCCL stream and event (nvtxNameCudaStreamA/EventA, after a
    cudaStreamCreate); rocTX has no naming: the calls stay, over rocport_nvtx_naming.h."""
    source = _corpus("llm.c/llmc/zero.cuh").read_text()
    out = _translate(source)
    named = [r for r in out.references if r.name.startswith("nvtxName")]
    assert [(r.name, r.outcome, r.hip) for r in named] == [
        ("nvtxNameCudaStreamA", Outcome.TRANSLATED, "nvtxNameCudaStreamA"),
        ("nvtxNameCudaEventA", Outcome.TRANSLATED, "nvtxNameCudaEventA"),
    ]
    assert "names are dropped" in named[0].note
    assert out.text.count('#include "rocport_nvtx_naming.h"') == 1
    assert 'nvtxNameCudaStreamA(result.nccl_stream, "nccl stream");' in out.text
    assert _translate(out.text).text == out.text
    # every naming call NVTX declares, and nothing else of NVTX's, is the header's
    names = set(support.headers()["rocport_nvtx_naming.h"].names)
    resources = ("CudaDevice", "CudaStream", "CudaEvent", "CuDevice", "CuContext", "CuStream")
    for resource in (*resources, "CuEvent", "OsThread"):
        assert {f"nvtxName{resource}{s}" for s in ("", "A", "W")} <= names
    assert all(n.startswith("nvtxName") for n in names)


_NAMING_TEST = r"""#include <hip/hip_runtime.h>
#define nvtxNameCuEventA(event, name) {}  /* a project's own stand-in, as llm.c-amd's */
#include "rocport_nvtx_naming.h"
void name_all(hipStream_t s, hipEvent_t e, hipDevice_t d, hipCtx_t c) {
  nvtxNameCudaDeviceA(0, "gpu"); nvtxNameCudaDeviceW(0, L"gpu"); nvtxNameCudaDevice(0, TEXT);
  nvtxNameCudaStreamA(s, "main"); nvtxNameCudaStreamW(s, L"main"); nvtxNameCudaStream(s, TEXT);
  nvtxNameCudaEventA(e, "done"); nvtxNameCudaEventW(e, L"done"); nvtxNameCudaEvent(e, TEXT);
  nvtxNameCuDeviceA(d, "gpu"); nvtxNameCuDeviceW(d, L"gpu"); nvtxNameCuDevice(d, TEXT);
  nvtxNameCuContextA(c, "ctx"); nvtxNameCuContextW(c, L"ctx"); nvtxNameCuContext(c, TEXT);
  nvtxNameCuStreamA(s, "main"); nvtxNameCuStreamW(s, L"main"); nvtxNameCuStream(s, TEXT);
  nvtxNameCuEventA(e, "done"); nvtxNameCuEventW(e, L"done"); nvtxNameCuEvent(e, TEXT);
  nvtxNameOsThreadA(1u, "main"); nvtxNameOsThreadW(1u, L"main"); nvtxNameOsThread(1u, TEXT);
}
"""


@pytest.mark.hipcc
def test_nvtx_naming_support_header_compiles_with_each_release(tmp_path) -> None:
    """Every naming call with the HIP handles, A, W and unsuffixed (W with UNICODE), with HIP
    5.2, 6.4 and 7.2, after a project's own macro of one of the names."""
    from rocport.check import check_tree, find_toolchain
    from rocport.errors import ToolError

    header = support.headers()["rocport_nvtx_naming.h"]
    (tmp_path / header.name).write_bytes(header.data())
    (tmp_path / "k.hip").write_text(_NAMING_TEST)
    for rocm in ("5.2", "6.4", "7.2"):
        try:
            toolchain = find_toolchain(rocm=rocm)
        except ToolError as exc:
            pytest.fail(f"no HIP {rocm} toolchain: {exc} (bash scripts/toolchain-rocm.sh)")
        arch = "gfx90a" if rocm == "5.2" else "gfx942"
        for defines in (['TEXT="x"'], ["UNICODE", 'TEXT=L"x"']):
            result = check_tree(
                tmp_path,
                toolchain=toolchain,
                offload_arch=(arch,),
                units=["k.hip"],
                defines=defines,
            )
            (unit,) = result.units
            assert unit.status.value == "passed", (rocm, defines, [e.message for e in unit.errors])


def test_the_blaslt_scale_type_is_kept_and_gets_its_support_header() -> None:
    """llm.c's matmul.cuh sets CUBLASLT_MATMUL_DESC_SCALE_TYPE to the type it created the
    descriptor with; hipBLASLt has no such attribute."""
    source = _corpus("llm.c/llmc/matmul.cuh").read_text()
    out = _translate(source)
    (ref,) = [r for r in out.references if r.name == "CUBLASLT_MATMUL_DESC_SCALE_TYPE"]
    assert (ref.outcome, ref.hip) == (Outcome.TRANSLATED, "CUBLASLT_MATMUL_DESC_SCALE_TYPE")
    assert "HIPBLAS_STATUS_NOT_SUPPORTED" in ref.note
    assert out.text.count('#include "rocport_hipblaslt_scale_type.h"') == 1
    assert "hipblasLtMatmulDescCreate(&operationDesc, " in out.text
    assert _translate(out.text).text == out.text


_SCALE_TYPE_TEST = r"""#include "rocport_hipblaslt_scale_type.h"
#include <cstdio>
int main() {
  hipblasLtMatmulDesc_t d = nullptr;
  if (hipblasLtMatmulDescCreate(&d, HIPBLAS_COMPUTE_32F, HIP_R_32F)) return 1;
  hipDataType same = HIP_R_32F, other = HIP_R_16F;
  int32_t got = -1;
  size_t written = 0;
  hipblasLtEpilogue_t epilogue = HIPBLASLT_EPILOGUE_DEFAULT;
  std::printf("same %d other %d short %d get %d %d %zu size %d %zu other-attribute %d",
      hipblasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &same, sizeof same),
      hipblasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &other, sizeof other),
      hipblasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &same, 2),
      hipblasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &got, sizeof got,
                                      &written), got, written,
      hipblasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, nullptr, 0, &written),
      written,
      hipblasLtMatmulDescSetAttribute(d, HIPBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                      sizeof epilogue));
  hipblasLtMatmulDesc_t unseen = d;
  if (hipblasLtMatmulDescDestroy(d)) return 2;
  std::printf(" destroyed %d", hipblasLtMatmulDescSetAttribute(
      unseen, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &same, sizeof same));
  hipblasLtMatmulDesc_t ints = nullptr;  // hipBLASLt 6.4 refuses a 16F compute type
  if (hipblasLtMatmulDescCreate(&ints, HIPBLAS_COMPUTE_32I, HIP_R_32I)) return 3;
  hipDataType int32 = HIP_R_32I;
  std::printf(" ints %d %d\n",
      hipblasLtMatmulDescSetAttribute(ints, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &int32, sizeof int32),
      hipblasLtMatmulDescSetAttribute(ints, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &same, sizeof same));
  return hipblasLtMatmulDescDestroy(ints);
}
"""


@pytest.mark.hipcc
def test_the_scale_type_header_accepts_only_the_type_the_descriptor_was_created_with(
    tmp_path,
) -> None:
    """Built with HIP 6.4's hipcc and hipBLASLt and run in the sid root: creating and destroying
    descriptors needs no GPU. Statuses: 0 success, 3 invalid value, 7 not supported."""
    from rocport.check import find_toolchain
    from rocport.errors import ToolError

    try:
        launcher = find_toolchain(rocm="6.4").launcher
    except ToolError as exc:
        pytest.fail(f"no HIP 6.4 toolchain: {exc} (bash scripts/toolchain-rocm.sh 6.4)")
    header = support.headers()["rocport_hipblaslt_scale_type.h"]
    (tmp_path / header.name).write_bytes(header.data())
    (tmp_path / "t.cpp").write_text(_SCALE_TYPE_TEST)
    flags = ["-x", "hip", "--offload-arch=gfx942", "-std=c++17", "-Wall", "-Werror"]
    build = launcher.run(launcher.hipcc, [*flags, "t.cpp", "-o", "t", "-lhipblaslt"], cwd=tmp_path)
    assert build.returncode == 0, build.stdout + build.stderr
    run = launcher.run(str(tmp_path / "t"), [], cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == (
        "same 0 other 7 short 3 get 0 0 4 size 0 4 other-attribute 0 destroyed 7 ints 0 7\n"
    )
