"""The CUDA -> HIP mapping data: shape, key uniqueness, important names, release targeting,
and the check of every emitted HIP name against the real HIP 5.2 and 6.4 headers."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from rocport.errors import InputError
from rocport.port import mapping as mapping_mod
from rocport.port.mapping import load_mapping

REPO = Path(__file__).resolve().parents[2]
DATA = resources.files("rocport.port") / "data"
META = mapping_mod.META_FILES
FAMILY_FILES = sorted(
    p.name for p in DATA.iterdir() if p.name.endswith(".json") and p.name not in META
)
SID_READY = REPO / ".toolchains" / "sid" / ".rocport-ready"

_NAME = {"type": "string", "minLength": 1}
_OLDER = {
    "type": "object",
    "required": ["hip"],
    "additionalProperties": False,
    "properties": {
        "hip": _NAME,
        "transform": {"enum": ["drop_first_arg", "hipblas_datatype"]},
        "note": _NAME,
        "header": _NAME,
    },
}
ENTRY_SCHEMA = {
    "type": "object",
    "required": ["kind"],
    "additionalProperties": False,
    "properties": {
        "hip": _NAME,
        "kind": {
            "enum": ["function", "type", "enum", "enumerator", "macro", "namespace", "variable"]
        },
        "status": {"enum": ["supported", "unsupported", "deprecated"]},
        "since": {"type": "string", "pattern": r"^\d+\.\d+$"},
        "header": _NAME,
        "note": _NAME,
        "source": _NAME,
        "transform": {"enum": ["drop_first_arg", "assign_through_pointer"]},
        "older": _OLDER,
        # why a CUDA declaration and its HIP one differ yet the rename stands (see
        # scripts/signatures.py), and HIP names for calls with another argument count
        "signature": _NAME,
        "arity": {"type": "object", "additionalProperties": _NAME, "minProperties": 1},
    },
    # unsupported entries and calls rewritten to plain code have no hip name, the others one
    "if": {
        "anyOf": [
            {"properties": {"status": {"const": "unsupported"}}, "required": ["status"]},
            {
                "properties": {"transform": {"const": "assign_through_pointer"}},
                "required": ["transform"],
            },
        ]
    },
    "then": {"not": {"required": ["hip"]}},
    "else": {"required": ["hip"]},
}
FAMILY_SCHEMA = {
    "type": "object",
    "required": ["schema", "family", "title", "source", "verified_releases", "entries"],
    "properties": {
        "schema": {"const": 1},
        "family": _NAME,
        "title": _NAME,
        "source": {"type": "string", "minLength": 20},
        "verified_releases": {
            "type": "array",
            "items": {"type": "string", "pattern": r"^\d+\.\d+$"},
        },
        "hip_header_sets": {"type": "array", "items": _NAME},
        "replaces": _NAME,
        "reference": _NAME,
        "includes": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["hip"],
                "properties": {"hip": _NAME},
            },
        },
        "entries": {"type": "object", "minProperties": 1, "additionalProperties": ENTRY_SCHEMA},
    },
}


def _strict_load(name: str) -> dict:
    def pairs(items: list[tuple[str, object]]) -> dict:
        keys = [k for k, _ in items]
        dupes = {k for k in keys if keys.count(k) > 1}
        assert not dupes, f"{name}: duplicate keys {sorted(dupes)}"
        return dict(items)

    return json.loads((DATA / name).read_text(encoding="utf-8"), object_pairs_hook=pairs)


def _need_toolchain(path: Path, what: str) -> None:
    if path.exists():
        return
    reason = f"{what} not found at {path} (install it with scripts/toolchain-rocm.sh)"
    if os.environ.get("ROCPORT_ALLOW_MISSING_TOOLCHAIN") == "1":
        print(reason)
        pytest.skip(reason)
    pytest.fail(reason + "; set ROCPORT_ALLOW_MISSING_TOOLCHAIN=1 to skip")


# -- shape ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FAMILY_FILES)
def test_family_file_shape(name: str) -> None:
    doc = _strict_load(name)
    jsonschema.validate(doc, FAMILY_SCHEMA)
    assert name == f"{doc['family']}.json"
    for cuda, entry in doc["entries"].items():
        assert cuda.replace("::", "").isidentifier(), cuda
        if "older" in entry:
            assert "since" in entry, f"{cuda}: older without since"


def test_meta_files_shape() -> None:
    for name in META:
        doc = _strict_load(name)
        assert doc["schema"] == 1 and doc["source"]
    inc = _strict_load("includes.json")
    for cuda, entry in inc["entries"].items():
        assert ("hip" in entry) != (entry.get("status") == "unsupported"), cuda
    releases = [r["version"] for r in _strict_load("releases.json")["releases"]]
    assert releases == sorted(releases, key=lambda v: tuple(map(int, v.split("."))))


def test_no_cuda_name_in_two_base_families() -> None:
    owner: dict[str, str] = {}
    for name in FAMILY_FILES:
        doc = _strict_load(name)
        if doc.get("replaces"):  # a variant covers exactly the CUDA names of its base family
            base = _strict_load(f"{doc['replaces']}.json")["entries"]
            assert set(doc["entries"]) == set(base), name
            continue
        for cuda in doc["entries"]:
            assert cuda not in owner, f"{cuda} in {name} and {owner[cuda]}"
            owner[cuda] = name
    assert 5000 < len(owner) < 20000


def test_every_override_cites_a_source() -> None:
    rows = tomllib.loads((DATA / "overrides.toml").read_text(encoding="utf-8"))["entry"]
    seen = set()
    for row in rows:
        assert row.get("source"), row
        assert (row["family"], row["cuda"]) not in seen, row
        seen.add((row["family"], row["cuda"]))
        hipless = (
            row.get("status") == "unsupported" or row.get("transform") == "assign_through_pointer"
        )
        assert ("hip" in row) != hipless, row


# -- important names --------------------------------------------------------------------------
SPOT = [
    ("cudaMalloc", "hipMalloc"),
    ("cudaMemcpyAsync", "hipMemcpyAsync"),
    ("cudaStreamCreateWithFlags", "hipStreamCreateWithFlags"),
    ("cudaEventElapsedTime", "hipEventElapsedTime"),
    ("cudaGetDeviceProperties", "hipGetDeviceProperties"),
    ("cudaDeviceProp", "hipDeviceProp_t"),
    ("cudaMemcpyHostToDevice", "hipMemcpyHostToDevice"),
    ("cudaSuccess", "hipSuccess"),
    ("cudaDevAttrMaxThreadsPerBlock", "hipDeviceAttributeMaxThreadsPerBlock"),
    ("cudaStreamCallback_t", "hipStreamCallback_t"),
    ("cudaLaunchKernel", "hipLaunchKernel"),
    ("cudaTextureObject_t", "hipTextureObject_t"),
    ("cuMemAlloc", "hipMalloc"),
    ("cuMemAlloc_v2", "hipMalloc"),
    ("CUresult", "hipError_t"),
    ("CUdeviceptr", "hipDeviceptr_t"),
    ("cuLaunchKernel", "hipModuleLaunchKernel"),
    ("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK", "hipDeviceAttributeMaxThreadsPerBlock"),
    ("cublasSgemm_v2", "hipblasSgemm"),
    ("cublasSgemm", "hipblasSgemm"),
    ("cublasHandle_t", "hipblasHandle_t"),
    ("CUBLAS_OP_N", "HIPBLAS_OP_N"),
    ("CUBLAS_COMPUTE_32F", "HIPBLAS_COMPUTE_32F"),
    ("cudaDataType", "hipDataType"),
    ("CUDA_R_32F", "HIP_R_32F"),
    ("cublasLtMatmul", "hipblasLtMatmul"),
    ("cufftExecC2C", "hipfftExecC2C"),
    ("cufftHandle", "hipfftHandle"),
    ("curandGenerateUniform", "hiprandGenerateUniform"),
    ("curand_init", "hiprand_init"),
    ("curandState", "hiprandState"),
    ("cusparseSpMV", "hipsparseSpMV"),
    ("cusolverDnSgetrf", "hipsolverDnSgetrf"),
    ("cub", "hipcub"),
    ("cub::DeviceReduce", "hipcub::DeviceReduce"),
    ("ncclAllReduce", "ncclAllReduce"),
    ("make_cuComplex", "make_hipComplex"),
    ("cuCaddf", "hipCaddf"),
    ("__nv_bfloat16", "__hip_bfloat16"),
    ("cooperative_groups::this_thread_block", "cooperative_groups::this_thread_block"),
    ("nvrtcCompileProgram", "hiprtcCompileProgram"),
    ("nvtxRangePushA", "roctxRangePushA"),
    ("cudnnCreate", "miopenCreate"),
    ("cudaProfilerStart", "hipProfilerStart"),
    # legacy names that the CUDA 13 headers no longer declare (from HIPIFY's tables)
    ("cudaThreadSynchronize", "hipDeviceSynchronize"),
    ("cudaThreadExit", "hipDeviceReset"),
    ("cudaBindTexture", "hipBindTexture"),
    ("cusparseScsrmv", "hipsparseScsrmv"),
    ("curand_poisson", "hiprand_poisson"),
    # driver calls onto the HIP call with the same parameters
    ("cuEventCreate", "hipEventCreateWithFlags"),
    ("cuMemcpy3D", "hipDrvMemcpy3D"),
    ("cuMemcpy2D", "hipMemcpyParam2D"),
    ("cuMemcpy2D_v2", "hipMemcpyParam2D"),
    ("cuStreamGetCaptureInfo_v2", "hipStreamGetCaptureInfo_v2"),
    # the current HIP name, not a deprecated one
    ("cudaFreeHost", "hipHostFree"),
    ("cudaErrorMemoryAllocation", "hipErrorOutOfMemory"),
    # struct tags become struct tags
    ("CUevent_st", "ihipEvent_t"),
    ("CUstream_st", "ihipStream_t"),
    ("CUctx_st", "ihipCtx_t"),
    ("CUgraph_st", "ihipGraph"),
    ("CUarray_st", "hipArray"),
    ("CUtexref_st", "textureReference"),
]


@pytest.mark.parametrize(("cuda", "hip"), SPOT)
def test_important_names_newest_release(cuda: str, hip: str) -> None:
    entry = load_mapping().lookup(cuda)
    assert entry is not None and entry.supported, cuda
    assert entry.hip == hip and entry.cuda == cuda


def test_shuffle_sync_falls_back_for_5_2() -> None:
    new = load_mapping(rocm="6.4").lookup("__shfl_down_sync")
    assert (new.hip, new.transform, new.since) == ("__shfl_down_sync", None, "6.2")
    assert "HIP_ENABLE_WARP_SYNC_BUILTINS" in new.note
    old = load_mapping(rocm="5.2").lookup("__shfl_down_sync")
    assert (old.hip, old.transform) == ("__shfl_down", "drop_first_arg")
    # 6.0 was never verified, but the 6.2 is cited: the fallback applies there too
    assert load_mapping(rocm="6.0").lookup("__ballot_sync").hip == "__ballot"


def test_release_targeting_rules() -> None:
    runtime = _strict_load("runtime.json")
    derived = next(
        k
        for k, e in runtime["entries"].items()
        if e.get("since") == "6.4" and "source" not in e and "older" not in e
    )
    # 5.2 was verified for the runtime family and lacks it; the note names the release that
    # added it according to the per-release facts (not the next verified snapshot)
    at52 = load_mapping(rocm="5.2").lookup(derived)
    assert at52.status == "unsupported" and at52.hip is None and "needs" in at52.note
    # 6.0 was never verified: keep the entry
    assert load_mapping(rocm="6.0").lookup(derived).supported
    # cuBLAS was verified only for 6.4: a 5.2 target keeps hipBLAS names
    assert load_mapping(rocm="5.2").lookup("cublasSgemm_v2").hip == "hipblasSgemm"
    # a cited since with an older form
    assert load_mapping(rocm="5.2").lookup("__nv_bfloat16").hip == "hip_bfloat16"


def test_rocblas_variant_replaces_hipblas() -> None:
    m = load_mapping(blas="rocblas")
    assert m.lookup("cublasSgemm_v2").hip == "rocblas_sgemm"
    assert m.lookup("cublasHandle_t").hip == "rocblas_handle"
    assert m.lookup("CUBLAS_OP_N").hip == "rocblas_operation_none"
    assert m.lookup("cublasCreate_v2").hip == "rocblas_create_handle"
    assert m.lookup("cublasSgemm_v2").family == "cublas_rocblas"
    assert m.lookup("cudaMalloc").hip == "hipMalloc"
    assert m.include("cublas_v2.h").hip == "rocblas/rocblas.h"
    assert load_mapping().include("cublas_v2.h").hip == "hipblas/hipblas.h"


def test_includes() -> None:
    m = load_mapping()
    expected = {
        "cuda_runtime.h": "hip/hip_runtime.h",
        "cuda.h": "hip/hip_runtime.h",
        "cuda_runtime_api.h": "hip/hip_runtime_api.h",
        "device_launch_parameters.h": "hip/hip_runtime.h",
        "cuda_fp16.h": "hip/hip_fp16.h",
        "cuda_bf16.h": "hip/hip_bf16.h",
        "cooperative_groups.h": "hip/hip_cooperative_groups.h",
        "cub/cub.cuh": "hipcub/hipcub.hpp",
        "curand_kernel.h": "hiprand/hiprand_kernel.h",
        "curand.h": "hiprand/hiprand.h",
        "cufft.h": "hipfft/hipfft.h",
        "cusparse.h": "hipsparse/hipsparse.h",
        "cusolverDn.h": "hipsolver/hipsolver.h",
        "nccl.h": "rccl/rccl.h",
        "cudnn.h": "miopen/miopen.h",
        "nvrtc.h": "hip/hiprtc.h",
        "thrust/device_vector.h": "thrust/device_vector.h",
        "cuComplex.h": "hip/hip_complex.h",
    }
    for cuda, hip in expected.items():
        entry = m.include(cuda)
        assert entry is not None and entry.hip == hip, (cuda, entry)
    assert m.include("./cuda_runtime.h").hip == "hip/hip_runtime.h"
    assert m.include("no_such_header.h") is None
    assert load_mapping(rocm="5.2").include("cuda_bf16.h").hip == "hip/hip_bfloat16.h"


def test_cuda_like_prefixes() -> None:
    m = load_mapping()
    for name in (
        "cudaFooBar",
        "cuFoo",
        "CUfoo",
        "CU_FOO",
        "CUDA_FOO",
        "cublasFoo",
        "CUFFT_X",
        "curandFoo",
        "cusparseX",
        "cusolverDnX",
        "cudnnX",
        "nvrtcX",
        "nvtxX",
        "__nv_thing",
        "ncclFoo",
        "__shfl_foo_sync",
    ):
        assert m.is_cuda_like(name), name
    for name in ("cumsum", "cute", "hipMalloc", "float4", "curious", "custom_kernel"):
        assert not m.is_cuda_like(name), name
    # a project's own snake_case names that share a library prefix
    for name in ("cuda_check", "cuda_num_SMs", "cublas_handle", "cublaslt_workspace",
                 "cudnn_workspace_size", "nccl_comm", "curand_state", "nvtx_range"):  # fmt: skip
        assert not m.is_cuda_like(name), name


def test_extra_names_merge_on_top() -> None:
    m = load_mapping(
        extra={
            "cudaMalloc": "myMalloc",
            "cudaMyThing": {"hip": "hipMyThing", "kind": "type", "note": "project type"},
            "cudaGone": None,
        }
    )
    assert m.lookup("cudaMalloc").hip == "myMalloc"
    assert m.lookup("cudaMyThing") == mapping_mod.Entry(
        "cudaMyThing",
        "hipMyThing",
        "type",
        "project",
        "supported",
        None,
        None,
        "project type",
        None,
    )
    assert m.lookup("cudaGone").status == "unsupported"
    assert load_mapping().lookup("cudaMalloc").hip == "hipMalloc"  # the cache is untouched


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rocm": "six"},
        {"rocm": "6"},
        {"blas": "mkl"},
        {"extra": {"cudaX": 3}},
        {"extra": {"cudaX": {"kind": "bogus", "hip": "y"}}},
    ],
)
def test_bad_arguments_raise_input_error(kwargs: dict) -> None:
    with pytest.raises(InputError):
        load_mapping(**kwargs)


def test_loading_is_fast() -> None:
    mapping_mod._load.cache_clear()
    mapping_mod._read.cache_clear()
    gc.collect()  # the garbage of earlier tests is not the loader's cost
    start = time.process_time()
    m = load_mapping(rocm="6.4")
    elapsed = time.process_time() - start
    assert len(m.entries) > 5000
    # about 40 ms here; the bound leaves room for a busy CI machine
    assert elapsed < 0.15, f"load_mapping took {elapsed * 1000:.0f} ms of CPU"


# -- against the real headers -----------------------------------------------------------------
def _run_check(release: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / "check_mapping.py"), "--release", release],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hip_names_declared_in_rocm_5_2_headers() -> None:
    _need_toolchain(Path("/usr/include/hip/hip_runtime_api.h"), "HIP 5.2 headers (Debian 12)")
    proc = _run_check("5.2")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 problem(s)" in proc.stdout
    compared = int(re.search(r"signatures: (\d+) compared", proc.stdout)[1])
    assert compared > 1000, proc.stdout[-500:]


def test_hip_names_declared_in_rocm_6_4_headers() -> None:
    _need_toolchain(SID_READY, "HIP 6.4 sid root")
    proc = _run_check("6.4")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 problem(s)" in proc.stdout


def _check_mapping_on(data: Path, release: str) -> subprocess.CompletedProcess[str]:
    """scripts/check_mapping.py over the mapping data in ``data`` for one release."""
    script = REPO / "scripts" / "check_mapping.py"
    return subprocess.run(
        [sys.executable, str(script), "--release", release, "--data", str(data)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_check_reports_an_undeclared_name(tmp_path: Path) -> None:
    _need_toolchain(Path("/usr/include/hip/hip_runtime_api.h"), "HIP 5.2 headers (Debian 12)")
    bad = _strict_load("runtime.json")
    bad["entries"] = {
        "cudaMalloc": {"hip": "hipMallocThatDoesNotExist", "kind": "function", "since": "5.2"}
    }
    (tmp_path / "runtime.json").write_text(json.dumps(bad), encoding="utf-8")
    proc = _check_mapping_on(tmp_path, "5.2")
    assert proc.returncode == 1
    assert "hipMallocThatDoesNotExist not declared in ROCm 5.2" in proc.stdout


@pytest.mark.slow
def test_version_macros_are_not_hip_version() -> None:
    """HIP_VERSION counts ROCm releases (60443484 > 13000): mapping CUDA_VERSION onto it would
    take every '#if CUDA_VERSION >= ...' branch written for the newest CUDA."""
    m = load_mapping(rocm="6.4")
    for name in ("CUDA_VERSION", "CUDART_VERSION"):
        entry = m.lookup(name)
        assert entry is not None and not entry.supported and "HIP_VERSION" in entry.note


def test_event_create_with_flags_by_argument_count() -> None:
    entry = load_mapping(rocm="6.4").lookup("cudaEventCreate")
    assert entry.hip == "hipEventCreate" and entry.arity == ((2, "hipEventCreateWithFlags"),)


def test_unfit_driver_call_is_unsupported_with_the_reason() -> None:
    """cuOccupancyMaxPotentialBlockSizeWithFlags takes a callback HIP's call lacks (7 vs 6)."""
    entry = load_mapping(rocm="6.4").lookup("cuOccupancyMaxPotentialBlockSizeWithFlags")
    assert not entry.supported and "parameters differ" in entry.note


def test_signature_check_catches_a_rename_with_other_parameters(tmp_path: Path) -> None:
    _need_toolchain(Path("/usr/include/hip/hip_runtime_api.h"), "HIP 5.2 headers (Debian 12)")
    bad = _strict_load("driver.json")
    bad["entries"] = {
        "cuEventCreate": {"hip": "hipEventCreate", "kind": "function", "since": "5.2"},
        "CUevent_st": {"hip": "hipEvent_t", "kind": "type", "since": "5.2"},
    }
    (tmp_path / "driver.json").write_text(json.dumps(bad), encoding="utf-8")
    old = _strict_load("runtime.json")
    old["entries"] = {
        "cudaFreeHost": {
            "hip": "hipFreeHost",
            "kind": "function",
            "since": "5.2",
            "status": "deprecated",
        }
    }
    (tmp_path / "runtime.json").write_text(json.dumps(old), encoding="utf-8")
    proc = _check_mapping_on(tmp_path, "5.2")
    assert proc.returncode == 1, proc.stdout
    assert "cuEventCreate -> hipEventCreate: no CUDA form compiles" in proc.stdout
    assert "CUevent_st: a struct tag mapped to hipEvent_t" in proc.stdout
    assert "cudaFreeHost: emits hipFreeHost, deprecated, where HIP 5.2 declares hipHostFree" in (
        proc.stdout
    )


def test_committed_data_matches_the_generator() -> None:
    cccl = Path("/usr/local/cuda/include/cccl/cub/cub.cuh")
    if not cccl.exists():
        reason = f"CUDA toolkit headers not found ({cccl}); only needed to regenerate the data"
        print(reason)
        pytest.skip(reason)
    _need_toolchain(SID_READY, "HIP 6.4 sid root")
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_mapping.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


# -- the declaration scanner the generator and the check rely on ------------------------------
def _scan(tmp_path: Path, text: str) -> dict:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from cdecls import scan_headers
    finally:
        sys.path.remove(str(REPO / "scripts"))
    (tmp_path / "api.h").write_text(text, encoding="utf-8")
    return scan_headers(tmp_path, ["api.h"])


def test_scanner_finds_c_declarations(tmp_path: Path) -> None:
    decls = _scan(
        tmp_path,
        """
#define API_EXPORT __attribute__((visibility("default")))
#define OLD_API __attribute__((deprecated))
#define fooAlloc fooAlloc_v2
#if 0
int hiddenFunction(void);
#endif
#ifdef __cplusplus
extern "C" {
#endif
typedef struct fooStream_st* fooStream_t;
typedef enum fooError { fooSuccess = 0, fooErrorBad = 1 << 2, } fooError_t;
typedef void (API_EXPORT *fooCallback_t)(fooStream_t s, /* comment { */ void* user);
typedef struct { int x; } fooPoint OLD_API;
API_EXPORT fooError_t fooAlloc(void** p, size_t n);
static inline int fooInline(int a) { if (a) { return a; } return 0; }
extern const char* fooName(void) OLD_API;
const char* s = "typedef int notAType;";
#ifdef __cplusplus
}
#endif
""",
    )
    kinds = {name: d.kind for name, d in decls.items()}
    assert kinds["fooStream_t"] == "type" and kinds["fooStream_st"] == "type"
    assert kinds["fooError"] == "enum" and kinds["fooError_t"] == "type"
    assert kinds["fooSuccess"] == kinds["fooErrorBad"] == "enumerator"
    assert kinds["fooCallback_t"] == "type" and kinds["fooPoint"] == "type"
    assert kinds["fooAlloc"] == kinds["fooAlloc_v2"] == "function"
    assert decls["fooAlloc"].params == ("void * *", "size_t")
    assert kinds["fooInline"] == kinds["fooName"] == "function"
    assert decls["fooName"].deprecated
    assert "hiddenFunction" not in decls and "notAType" not in decls
    assert "OLD_API" not in [n for n, d in decls.items() if d.kind == "type"]


def test_scanner_follows_namespaces_and_declaring_macros(tmp_path: Path) -> None:
    decls = _scan(
        tmp_path,
        """
#define BEGIN_NS namespace lib { inline namespace v2 {
#define END_NS } }
#define DECLARE_OBJECT(name) struct name {}; typedef struct name* name##_t;
DECLARE_OBJECT(libHandle);
BEGIN_NS
struct DeviceReduce { template <typename T> static int Sum(T* p) { return 0; } };
template <typename T> __device__ T shuffle(T v, int lane);
namespace detail { int helper(); }
enum class Mode : int { Fast, Slow };
END_NS
int outside();
""",
    )
    assert decls["libHandle_t"].kind == "type"
    assert decls["lib::DeviceReduce"].kind == "type"
    assert decls["lib::shuffle"].kind == "function"
    assert "lib::detail::helper" in decls and "lib::helper" not in decls
    assert "lib::Mode" in decls and "lib::DeviceReduce::Sum" not in decls
    assert decls["outside"].kind == "function"
