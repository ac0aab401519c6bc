#!/usr/bin/env python3
"""Generate rocport's CUDA -> HIP mapping data from real headers.

For every family (runtime, driver, cuBLAS, ...) the script lists the identifiers that the CUDA
headers declare, derives HIP candidates with the family's systematic renaming rules
(``cuda`` -> ``hip``, ``CUBLAS_`` -> ``HIPBLAS_``, ``_v2`` dropped, ...), and keeps a candidate only
if the HIP headers of a verified ROCm release declare it. ``since`` is the first verified release
that declares it and ``header`` the file that does (in the newest one). Names the rules cannot
derive come from ``src/rocport/port/data/overrides.toml``, each row citing its source; everything
else is written as ``unsupported``.

    python3 scripts/gen_mapping.py            # regenerate src/rocport/port/data/*.json
    python3 scripts/gen_mapping.py --check    # fail if the committed files are stale
    python3 scripts/gen_mapping.py --mirrors DIR   # also re-read RCCL's and rocTX's headers
                                                   # from git mirrors DIR/ROCm+rccl/repo, ...

Deterministic: the same headers give byte-identical files.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import re
import sys
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cdecls import Decl, scan_headers  # noqa: E402
from signatures import TypeSystem, mismatch  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "src" / "rocport" / "port" / "data"
CUDA_VERSION = "13.0"


# -- where the headers are ------------------------------------------------------------------
@dataclass(frozen=True)
class Release:
    version: str
    root: Path
    source: str
    root_label: str


RELEASES = (
    Release(
        "5.2",
        Path("/usr/include"),
        "Debian 12 packages hipcc, libamdhip64-dev, "
        "libhipsparse-dev, libhiprand-dev, librocprim-dev (HIP 5.2.3)",
        "/usr/include",
    ),
    Release(
        "6.4",
        REPO / ".toolchains" / "sid" / "usr" / "include",
        "Debian sid packages libamdhip64-dev, libhipblas-dev, libhipblaslt-dev, libhipfft-dev, "
        "libhipsolver-dev, libhipcub-dev, libhipsparse-dev, libhiprand-dev, libmiopen-dev, "
        "librocblas-dev, librocthrust-dev, libroctx-dev (HIP 6.4.x), built by "
        "scripts/toolchain-rocm.sh",
        ".toolchains/sid/usr/include",
    ),
)

#: HIP header sets: globs relative to a release's include root.
HIP_SETS: dict[str, tuple[str, ...]] = {
    "hip": ("hip/*.h", "hip/amd_detail/*.h", "hip/amd_detail/*.hpp", "hip/hcc_detail/*.h"),
    "hipblas": ("hipblas/*.h", "hipblas-common/*.h", "hipblas.h"),
    "hipblaslt": ("hipblaslt/*.h",),
    "hipfft": ("hipfft/*.h", "hipfft.h"),
    "hiprand": ("hiprand/*.h", "hiprand/*.hpp"),
    "hipsparse": ("hipsparse/*.h",),
    "hipsolver": ("hipsolver/*.h", "hipsolver/internal/*.h"),
    "hipcub": ("hipcub/*.hpp", "hipcub/*/*.hpp", "hipcub/backend/rocprim/**/*.hpp"),
    "miopen": ("miopen/*.h",),
    "rocblas": ("rocblas/*.h", "rocblas/internal/*.h"),
    "rocthrust": ("thrust/system/hip/*.h", "thrust/system/hip/detail/*.h"),
}


def cuda_roots() -> dict[str, Path]:
    """The CUDA toolkit include dir and the include dirs of the NVIDIA wheels torch brings."""
    roots = {}
    toolkit = Path("/usr/local/cuda/include")
    if toolkit.is_dir():
        roots["cuda"] = toolkit
    spec = importlib.util.find_spec("nvidia")
    if spec and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            for sub, key in (("cu13", "cu13"), ("cudnn", "cudnn"), ("nccl", "nccl")):
                inc = Path(loc) / sub / "include"
                if inc.is_dir():
                    roots.setdefault(key, inc)
    if "cuda" not in roots and "cu13" in roots:
        roots["cuda"] = roots["cu13"]  # the wheel's copy has the runtime headers, not CCCL
    return roots


#: clang's own HIP wrapper headers (device math since HIP 6) live beside the compiler
CLANG_HIP_HEADERS = ("__clang_hip_math.h", "__clang_hip_cmath.h", "__clang_hip_runtime_wrapper.h")


@cache
def hip_decls(version: str, set_name: str) -> dict[str, Decl]:
    rel = next(r for r in RELEASES if r.version == version)
    if not rel.root.is_dir():
        return {}
    decls = scan_headers(rel.root, list(HIP_SETS[set_name]))
    if set_name == "hip" and decls:
        for clang_inc in sorted(rel.root.parent.glob("lib/llvm-*/lib/clang/*/include")):
            for name, d in scan_headers(clang_inc, list(CLANG_HIP_HEADERS)).items():
                decls.setdefault(name, dataclasses.replace(d, header="hip/hip_runtime.h"))
    return decls


# -- renaming rules ---------------------------------------------------------------------------
Rule = Callable[[str], Iterable[str]]


def prefix(*pairs: tuple[str, str]) -> Rule:
    """Replace the first matching prefix (pairs tried in order)."""

    def rule(name: str) -> Iterable[str]:
        for old, new in pairs:
            if name.startswith(old):
                yield new + name[len(old) :]

    return rule


def strip_version(rule: Rule) -> Rule:
    """Also try the name without a ``_v2``/``_v3`` suffix (cuBLAS, driver API)."""

    def wrapped(name: str) -> Iterable[str]:
        yield from rule(name)
        base = re.sub(r"_v\d+$", "", name)
        if base != name:
            yield from rule(base)

    return wrapped


def identity(name: str) -> Iterable[str]:
    yield name


def snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).lower()


def rocblas_rule(name: str) -> Iterable[str]:
    base = re.sub(r"_v2$", "", name)
    if base.startswith("cublas"):
        yield "rocblas_" + snake(base[6:])
    elif base.startswith("CUBLAS_"):
        yield "rocblas_" + base[7:].lower()


#: driver functions whose HIP form drops the "Mem" or the "Ctx" (the runtime-style name)
DRIVER_PREFIXES = (
    ("cuMemAlloc", "hipMalloc"),
    ("cuMemFreeHost", "hipHostFree"),
    ("cuMemFree", "hipFree"),
    ("cuMemHost", "hipHost"),
    ("cuCtxGet", "hipDeviceGet"),
    ("cuCtxSet", "hipDeviceSet"),
)


def driver_rule(name: str) -> Iterable[str]:
    base = re.sub(r"(_v\d+)?(_st|_enum|_union)?(_v\d+)?$", "", name)
    versioned = re.fullmatch(r"cu([A-Z]\w*_v\d+)", name)
    if versioned:  # cuStreamGetCaptureInfo_v2 -> hipStreamGetCaptureInfo_v2 (same parameters)
        yield "hip" + versioned.group(1)
    if re.match(r"cu[A-Z]", base):
        yield "hip" + base[2:]
        yield "hipDrv" + base[2:]
        for old, new in DRIVER_PREFIXES:
            if base.startswith(old):
                yield new + base[len(old) :]
    elif re.match(r"CU[a-z]", base):
        yield "hip" + base[2].upper() + base[3:] + "_t"
        yield "hip" + base[2].upper() + base[3:]
    elif base.startswith(("CU_", "CUDA_")):
        yield "HIP_" + base.split("_", 1)[1]


#: kind groups that may map onto each other
_KIND_GROUP = {
    "function": "f",
    "type": "t",
    "enum": "t",
    "alias": "t",
    "enumerator": "v",
    "variable": "v",
    "macro": "*",
    "namespace": "n",
}


def norm(name: str) -> str:
    return re.sub(r"_t$", "", name).replace("_", "").lower()


@dataclass
class Family:
    name: str
    title: str
    cuda_root: str
    cuda_headers: tuple[str, ...]
    select: str  # regex over CUDA names taken by this family
    hip_sets: tuple[str, ...]
    rules: tuple[Rule, ...]
    #: (CUDA prefix regex, HIP prefix) for matching names that differ only in case/underscores
    normalized: tuple[tuple[str, str], ...] = ()
    replaces: str | None = None
    exclude: str | None = None
    one_to_one: bool = False  # functions must also match parameter for parameter (cuDNN)
    #: CUDA header -> HIP header candidates that this variant family uses instead
    includes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: a reference header set (REFERENCES) for a library no verified release installs
    reference: str | None = None
    #: (CUDA namespace, HIP namespace) written as a kind=namespace entry
    namespace: tuple[str, str] | None = None
    #: headers of a legacy API whose names count only where the main headers lack them
    #: (cuBLAS v1's cublas.h: cublasInit, cublasAlloc; its cublasSgemm is not v2's)
    legacy_headers: tuple[str, ...] = ()


FAMILIES: tuple[Family, ...] = (
    Family(
        "profiler",
        "CUDA profiler API -> HIP",
        "cuda",
        ("cuda_profiler_api.h", "cudaProfiler.h"),
        r"(cudaProfiler|cuProfiler)\w+",
        ("hip",),
        (prefix(("cudaProfiler", "hipProfiler"), ("cuProfiler", "hipProfiler")),),
    ),
    Family(
        "cooperative_groups",
        "Cooperative groups -> HIP cooperative groups",
        "cuda",
        ("cooperative_groups.h", "cooperative_groups/*.h", "cooperative_groups/details/*.h"),
        r"cooperative_groups::[a-z]\w*",
        ("hip",),
        (identity,),
        namespace=("cooperative_groups", "cooperative_groups"),
    ),
    Family(
        "device",
        "Device intrinsics, atomics and warp functions",
        "cuda",
        (
            "device_functions.h",
            "crt/device_functions.h",
            "crt/device_functions.hpp",
            "device_atomic_functions.h",
            "device_atomic_functions.hpp",
            "sm_*_intrinsics.h",
            "sm_*_intrinsics.hpp",
            "sm_*_atomic_functions.h",
            "sm_*_atomic_functions.hpp",
            "crt/sm_70_rt.h",
            "crt/sm_80_rt.h",
            "crt/sm_90_rt.h",
            "crt/device_double_functions.h",
        ),
        r"(__[a-z]\w*|atomic[A-Z]\w*)",
        ("hip",),
        (identity,),
        exclude=r"__(cuda|nv_|internal|device_builtin|cudart|fsqrt_|dsqrt_)\w*|\w*_(?:impl|helper)|"
        r"__(i|u|ll|ull|ill|f|d|u128)Atomic\w+|__pm[0-9]|__local_warpSize",
    ),
    Family(
        "types",
        "Complex, half, bfloat16, fp8 and library data types",
        "cuda",
        (
            "cuComplex.h",
            "cuda_fp16.h",
            "cuda_fp16.hpp",
            "cuda_bf16.h",
            "cuda_bf16.hpp",
            "cuda_fp8.h",
            "cuda_fp8.hpp",
            "library_types.h",
            "math_constants.h",
        ),
        r"(cu[A-Z]\w*|make_cu\w+|cuda[A-Z]\w*|CUDA_\w+|CUDART_\w+|__nv_\w+|__h\w+|"
        r"__(float|double|half|bfloat|int|uint|ll|ull|short|ushort)\w*2\w+|h2?[a-z]\w+|"
        r"libraryPropertyType\w*|MAJOR_VERSION|MINOR_VERSION|PATCH_LEVEL)",
        ("hip",),
        (
            prefix(
                ("make_cu", "make_hip"),
                ("cuda", "hip"),
                ("cu", "hip"),
                ("CUDART_", "HIP_"),
                ("CUDA_", "HIP_"),
                ("__nv_", "__hip_"),
            ),
            identity,
        ),
        normalized=(("cuda", "hip"), ("CUDA_", "hip")),
        exclude=r"__internal\w*|_*[A-Z][A-Z0-9_]*_(DECL|API|HOST|DEVICE|H|HPP)_*|__CUDA\w*",
    ),
    Family(
        "runtime",
        "CUDA runtime API -> HIP runtime API",
        "cuda",
        (
            "cuda_runtime_api.h",
            "cuda_runtime.h",
            "driver_types.h",
            "surface_types.h",
            "texture_types.h",
            "channel_descriptor.h",
            "cuda_device_runtime_api.h",
            "cuda_gl_interop.h",
            "cuda_occupancy.h",
            "vector_types.h",
            "cuda_texture_types.h",
            "cuda_surface_types.h",
        ),
        r"(cuda[A-Z]\w*|CUDA_\w+|CUDART_\w+)",
        ("hip",),
        (
            prefix(
                ("cudaDevAttr", "hipDeviceAttribute"),
                ("cuda", "hip"),
                ("CUDART_", "HIP_"),
                ("CUDA_", "HIP_"),
            ),
        ),
        normalized=(
            ("cudaDevAttr", "hipDeviceAttribute"),
            ("cudaJit", "hipJitOption"),
            ("cuda", "hip"),
            ("CUDA_", "hip"),
        ),
    ),
    Family(
        "driver",
        "CUDA driver API -> HIP driver-style API",
        "cuda",
        ("cuda.h",),
        r"(cu[A-Z]\w*|CU[a-zA-Z_]\w*|CUDA_\w+)",
        ("hip",),
        (driver_rule,),
        normalized=(
            ("CU_DEVICE_ATTRIBUTE_MAXIMUM_", "hipDeviceAttributeMax"),
            ("CU_DEVICE_ATTRIBUTE_", "hipDeviceAttribute"),
            ("CU_JIT_", "hipJitOption"),
            ("CU_CTX_SCHED_", "hipDeviceSchedule"),
            ("CU_CTX_", "hipDevice"),
            ("CU_MEMHOSTALLOC_", "hipHostMalloc"),
            ("CU_MEMHOSTREGISTER_", "hipHostRegister"),
            ("CU_DEVICE_P2P_ATTRIBUTE_", "hipDevP2PAttr"),
            ("CU_MEMPOOL_ATTR_", "hipMemPool"),
            ("CU_MEM_ALLOC_GRANULARITY_", "hipMemAllocationGranularity"),
            ("CUDA_ARRAY3D_", "hipArray"),
            ("CU_", "hip"),
            ("CUDA_", "hip"),
            ("CU", "hip"),
            ("cu", "hip"),
        ),
    ),
    Family(
        "cublaslt",
        "cuBLASLt -> hipBLASLt",
        "cu13",
        ("cublasLt.h",),
        r"(cublasLt\w+|CUBLASLT_\w+)",
        ("hipblaslt",),
        (prefix(("cublasLt", "hipblasLt"), ("CUBLASLT_", "HIPBLASLT_")),),
        normalized=(("cublasLt", "hipblasLt"), ("CUBLASLT_", "HIPBLASLT_")),
    ),
    Family(
        "cublas",
        "cuBLAS -> hipBLAS",
        "cu13",
        ("cublas_api.h", "cublas_v2.h", "cublasXt.h"),
        r"(cublas\w+|CUBLAS_\w+)",
        ("hipblas", "hip"),  # hip: hipDataType (hip/library_types.h), which hipblas.h includes
        (strip_version(prefix(("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_"))),),
        normalized=(("cublas", "hipblas"), ("CUBLAS_", "HIPBLAS_")),
        exclude=r"cublasLt\w*|CUBLASLT_\w*|CUBLAS_VER_\w+|CUBLAS_VERSION|CUBLASAPI|CUBLASWINAPI",
        legacy_headers=("cublas.h",),
    ),
    Family(
        "cublas_rocblas",
        "cuBLAS -> rocBLAS (--blas=rocblas)",
        "cu13",
        ("cublas_api.h", "cublas_v2.h", "cublasXt.h"),
        r"(cublas\w+|CUBLAS_\w+)",
        ("rocblas",),
        (rocblas_rule,),
        replaces="cublas",
        includes=tuple(
            (h, ("rocblas/rocblas.h",)) for h in ("cublas_v2.h", "cublas.h", "cublas_api.h")
        ),
        exclude=r"cublasLt\w*|CUBLASLT_\w*|CUBLAS_VER_\w+|CUBLAS_VERSION|CUBLASAPI|CUBLASWINAPI",
        legacy_headers=("cublas.h",),
    ),
    Family(
        "cufft",
        "cuFFT -> hipFFT",
        "cu13",
        ("cufft.h", "cufftXt.h"),
        r"(cufft\w+|CUFFT_\w+)",
        ("hipfft",),
        (prefix(("cufft", "hipfft"), ("CUFFT_", "HIPFFT_")),),
        normalized=(("cufft", "hipfft"), ("CUFFT_", "HIPFFT_")),
        exclude=r"CUFFT_VER_\w+|CUFFT_VERSION|CUFFTAPI",
    ),
    Family(
        "curand",
        "cuRAND -> hipRAND",
        "cu13",
        ("curand.h", "curand_kernel.h", "curand_*.h"),
        r"(curand\w*|CURAND_\w+)",
        ("hiprand",),
        (prefix(("curand", "hiprand"), ("CURAND_", "HIPRAND_")),),
        normalized=(("curand", "hiprand"), ("CURAND_", "HIPRAND_")),
        exclude=r"curand(?:_precalc|_MTGP32|_mtgp32_kernel|_detail)\w*|CURAND_VER\w*|CURANDAPI|"
        r"\w*precalc\w*|_\w+",
    ),
    Family(
        "cusparse",
        "cuSPARSE -> hipSPARSE",
        "cu13",
        ("cusparse.h",),
        r"(cusparse\w+|CUSPARSE_\w+)",
        ("hipsparse",),
        (prefix(("cusparse", "hipsparse"), ("CUSPARSE_", "HIPSPARSE_")),),
        normalized=(("cusparse", "hipsparse"), ("CUSPARSE_", "HIPSPARSE_")),
        exclude=r"CUSPARSE_VER_\w+|CUSPARSE_VERSION|CUSPARSEAPI|CUSPARSE_DEPRECATED\w*",
    ),
    Family(
        "cusolver",
        "cuSOLVER -> hipSOLVER",
        "cu13",
        ("cusolverDn.h", "cusolver_common.h", "cusolverSp.h", "cusolverRf.h", "cusolverMg.h"),
        r"(cusolver\w+|CUSOLVER_\w+)",
        ("hipsolver",),
        (prefix(("cusolver", "hipsolver"), ("CUSOLVER_", "HIPSOLVER_")),),
        normalized=(("cusolver", "hipsolver"), ("CUSOLVER_", "HIPSOLVER_")),
        exclude=r"CUSOLVER_VER_\w+|CUSOLVER_VERSION|CUSOLVERAPI|CUSOLVER_DEPRECATED\w*",
    ),
    Family(
        "cub",
        "CUB -> hipCUB",
        "cuda",
        ("cccl/cub/*.cuh", "cccl/cub/*/*.cuh"),
        r"cub::[A-Za-z]\w*",
        ("hipcub", "rocthrust"),  # rocthrust: Thrust's CUDA system -> thrust::hip (overrides)
        (prefix(("cub::", "hipcub::")),),
        exclude=r"cub::(detail|internal)\w*|cub::\w*(Impl|_impl|Policy\d*|Agent\w*)",
        namespace=("cub", "hipcub"),
    ),
    Family(
        "nccl",
        "NCCL -> RCCL (same API names)",
        "nccl",
        ("nccl.h",),
        r"(nccl[A-Z]\w*|NCCL_\w+)",
        (),
        (identity,),
        reference="rccl",
        exclude=r"NCCL_H_?",  # the version macros stay: RCCL's nccl.h defines them too
    ),
    Family(
        "cudnn",
        "cuDNN -> MIOpen (only 1:1 calls)",
        "cudnn",
        (
            "cudnn.h",
            "cudnn_graph.h",
            "cudnn_ops.h",
            "cudnn_cnn.h",
            "cudnn_adv.h",
            "cudnn_version.h",
            "cudnn_backend.h",
        ),
        r"(cudnn[A-Z]\w*|CUDNN_\w+)",
        ("miopen",),
        (prefix(("cudnn", "miopen")),),
        normalized=(("cudnn", "miopen"), ("CUDNN_", "miopen")),
        one_to_one=True,
        exclude=r"CUDNN_(MAJOR|MINOR|PATCHLEVEL|VERSION)\w*|CUDNN_DEPRECATED\w*|CUDNNWINAPI",
    ),
    Family(
        "nvrtc",
        "NVRTC -> hipRTC",
        "cu13",
        ("nvrtc.h",),
        r"(nvrtc[A-Z]\w*|NVRTC_\w+)",
        ("hip",),
        (prefix(("nvrtc", "hiprtc"), ("NVRTC_", "HIPRTC_")),),
        normalized=(("nvrtc", "hiprtc"), ("NVRTC_", "HIPRTC_")),
    ),
    Family(
        "nvtx",
        "NVTX -> rocTX",
        "cuda",
        ("nvtx3/nvToolsExt.h", "nvtx3/nvToolsExtCuda.h", "nvtx3/nvToolsExtCudaRt.h"),
        r"(nvtx[A-Z]\w*|NVTX_\w+)",
        (),
        (prefix(("nvtx", "roctx")),),
        reference="roctx",
        exclude=r"nvtx\w*_impl\w*|nvtx\w*Fn\w*|NVTX_VERSION\w*|nvtxGlobals\w*|NVTX_\w*(DECLSPEC|API|INLINE|STATIC|LINKONCE|EXTERN_C|ARRAY)\w*|NVTX_PASTE\w*|NVTX_VERSIONED\w*",
    ),
)


# -- reference headers (libraries that no verified release installs) ---------------------------
@dataclass(frozen=True)
class Reference:
    repo: str
    path: str
    title: str


REFERENCES = {
    "rccl": Reference("ROCm/rccl", "src/nccl.h.in", "RCCL's public header template"),
    "roctx": Reference("ROCm/roctracer", "inc/roctx.h", "rocTX header of roctracer"),
}
REFERENCE_FILE = DATA / "reference_decls.json"


def reference_decls(mirrors: Path | None) -> dict:
    """Names declared by the REFERENCES headers: read from git mirrors when given, else the
    committed data/reference_decls.json (so that a rerun needs no network)."""
    if mirrors is None:
        return json.loads(REFERENCE_FILE.read_text(encoding="utf-8"))
    import subprocess  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    out: dict = {
        "schema": 1,
        "source": "names declared by headers of ROCm libraries that no "
        "verified release installs, read by scripts/gen_mapping.py --mirrors",
        "references": {},
    }
    for key, ref in REFERENCES.items():
        git = mirrors / ref.repo.replace("/", "+") / "repo"
        commit = subprocess.run(
            ["git", f"--git-dir={git}", "rev-parse", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        text = subprocess.run(
            ["git", f"--git-dir={git}", "show", f"HEAD:{ref.path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        with tempfile.TemporaryDirectory() as tmp:
            hdr = Path(tmp) / Path(ref.path).name
            hdr.write_text(text, encoding="utf-8")
            names = sorted(scan_headers(Path(tmp), [hdr.name]))
        out["references"][key] = {
            "repo": ref.repo,
            "path": ref.path,
            "commit": commit,
            "title": ref.title,
            "names": names,
        }
    return out


# -- HIPIFY's tables (names CUDA 13 no longer declares, and AMD's choice of HIP name) ---------
HIPIFY_REPO = "ROCm/HIPIFY"
#: HIPIFY docs/tables/<stem>.md -> the family whose CUDA names it lists
HIPIFY_TABLES = {
    "CUDA_Runtime_API_functions_supported_by_HIP": "runtime",
    "CUDA_Driver_API_functions_supported_by_HIP": "driver",
    "CUDA_Device_API_supported_by_HIP": "device",
    "CUBLAS_API_supported_by_HIP": "cublas",
    "CUSPARSE_API_supported_by_HIP": "cusparse",
    "CURAND_API_supported_by_HIP": "curand",
    "CUFFT_API_supported_by_HIP": "cufft",
    "CUSOLVER_API_supported_by_HIP": "cusolver",
    "CUDA_RTC_API_supported_by_HIP": "nvrtc",
    "cuComplex_API_supported_by_HIP": "types",
}
HIPIFY_FILE = DATA / "hipify_tables.json"
_HIPIFY_ROW = re.compile(
    r"^\|`(\w+)`\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|[ \t]*(?:`(\w+)`)?[ \t]*\|([^|]*)\|([^|]*)\|"
)


@cache
def hipify_tables(mirror: Path | None) -> dict:
    """HIPIFY's CUDA -> HIP tables: read from a git mirror of ROCm/HIPIFY when given, else the
    committed data/hipify_tables.json. Each row: family, CUDA name, HIP name (or null), the CUDA
    release that deprecated / removed the name."""
    if mirror is None:
        return json.loads(HIPIFY_FILE.read_text(encoding="utf-8"))
    import subprocess  # noqa: PLC0415

    git = ["git", f"--git-dir={mirror}"]
    commit = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    rows: dict[str, dict[str, dict]] = {}
    for stem, family in HIPIFY_TABLES.items():
        text = subprocess.run(
            [*git, "show", f"HEAD:docs/tables/{stem}.md"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for line in text.splitlines():
            m = _HIPIFY_ROW.match(line)
            if not m:
                continue
            cuda, _added, deprecated, _changed, removed, hip = m.groups()[:6]
            row: dict = {"hip": hip}
            if deprecated.strip():
                row["cuda_deprecated"] = deprecated.strip()
            if removed.strip():
                row["cuda_removed"] = removed.strip()
            rows.setdefault(family, {}).setdefault(cuda, row)
    return {
        "schema": 1,
        "source": f"CUDA -> HIP rows of {HIPIFY_REPO} docs/tables/*.md at {commit} (AMD's "
        "HIPIFY documentation), read by scripts/gen_mapping.py --hipify; used for CUDA names that "
        "the CUDA 13 headers no longer declare, and to prefer AMD's current HIP name where the "
        "rules find a deprecated one",
        "repo": HIPIFY_REPO,
        "commit": commit,
        "tables": {f: {k: rows[f][k] for k in sorted(rows[f])} for f in sorted(rows)},
    }


# -- overrides ------------------------------------------------------------------------------
def load_overrides() -> dict[tuple[str, str], dict]:
    raw = tomllib.loads((DATA / "overrides.toml").read_text(encoding="utf-8"))
    out: dict[tuple[str, str], dict] = {}
    for row in raw.get("entry", []):
        key = (row["family"], row["cuda"])
        if key in out:
            raise SystemExit(f"overrides.toml: duplicate row for {key}")
        if not row.get("source"):
            raise SystemExit(f"overrides.toml: row {key} has no source")
        out[key] = row
    return out


# -- generation -------------------------------------------------------------------------------
@dataclass
class Result:
    family: Family
    entries: dict[str, dict] = field(default_factory=dict)
    verified: list[str] = field(default_factory=list)
    cuda_seen: int = 0
    #: CUDA declarations of the family's names, its HIP declarations per release, and per
    #: CUDA function every HIP name the rules accept (for the signature pass)
    cuda: dict[str, Decl] = field(default_factory=dict)
    per: dict[str, dict[str, Decl]] = field(default_factory=dict)
    candidates: dict[str, list[str]] = field(default_factory=dict)


def available(fam: Family) -> list[str]:
    """Verified releases whose headers have every HIP header set of ``fam``."""
    out = []
    for rel in RELEASES:
        if fam.hip_sets and all(hip_decls(rel.version, s) for s in fam.hip_sets):
            out.append(rel.version)
    return out


def hip_index(fam: Family, versions: list[str]) -> tuple[dict[str, dict[str, Decl]], dict]:
    """Per release the merged declarations of ``fam``'s HIP sets, plus a normalized index."""
    per: dict[str, dict[str, Decl]] = {}
    for v in versions:
        merged: dict[str, Decl] = {}
        for s in fam.hip_sets:
            for k, d in hip_decls(v, s).items():
                merged.setdefault(k, d)
        per[v] = merged
    normed: dict[str, set[str]] = {}
    for decls in per.values():
        for k in decls:
            normed.setdefault(norm(k), set()).add(k)
    return per, normed


def compatible(cuda_kind: str, hip_kind: str) -> bool:
    a, b = _KIND_GROUP.get(cuda_kind, "*"), _KIND_GROUP.get(hip_kind, "*")
    return a == "*" or b == "*" or a == b


def cuda_names(fam: Family, roots: dict[str, Path]) -> dict[str, Decl]:
    root = roots.get(fam.cuda_root)
    if root is None:
        raise SystemExit(
            f"gen_mapping: CUDA include dir for {fam.cuda_root!r} not found "
            "(CUDA toolkit in /usr/local/cuda, or the nvidia-* wheels of torch)"
        )
    decls = _scan_cuda(root, fam.cuda_headers)
    if fam.legacy_headers:
        main = decls
        decls = dict(main)
        for k, d in _scan_cuda(root, fam.legacy_headers).items():
            decls.setdefault(k, d)
    if not decls:
        raise SystemExit(
            f"gen_mapping: no {fam.name} headers ({', '.join(fam.cuda_headers)}) under {root}"
        )
    sel = re.compile(fam.select + r"\Z")
    exc = re.compile(fam.exclude + r"\Z") if fam.exclude else None
    return {k: d for k, d in decls.items() if sel.match(k) and not (exc and exc.match(k))}


@cache
def _scan_cuda(root: Path, headers: tuple[str, ...]) -> dict[str, Decl]:
    return scan_headers(root, list(headers), ("cccl",))


def param_types_match(
    cuda: Decl, hip: Decl, rename: Callable[[str], str], hip_alias: Callable[[str], str]
) -> bool:
    """Same arity and, after renaming the CUDA types and resolving HIP typedef aliases, the
    same parameter types (``const`` ignored)."""
    if cuda.params is None or hip.params is None or len(cuda.params) != len(hip.params):
        return False
    for a, b in zip(cuda.params, hip.params, strict=True):
        a2 = [hip_alias(rename(t)) for t in a.split() if t != "const"]
        b2 = [hip_alias(t) for t in b.split() if t != "const"]
        if a2 != b2:
            return False
    return True


def generate_family(fam: Family, roots: dict[str, Path], overrides: dict, refs: dict) -> Result:
    res = Result(fam)
    res.verified = available(fam)
    per, normed = hip_index(fam, res.verified)
    ref_names = set(refs["references"][fam.reference]["names"]) if fam.reference else set()
    names = cuda_names(fam, roots)
    # a variant family (rocBLAS) takes the same CUDA names, but not hipBLAS's HIP names
    legacy_rows = HIPIFY_ROWS.get(fam.replaces or fam.name, {})
    hipify = {} if fam.replaces else legacy_rows
    legacy = set()
    sel = re.compile(fam.select + r"\Z")
    exc = re.compile(fam.exclude + r"\Z") if fam.exclude else None
    for cname in sorted(legacy_rows):  # names CUDA 13 no longer declares (cudaThreadSynchronize)
        if cname in names or cname in ALL_CUDA_NAMES or not sel.match(cname):
            continue
        if not (exc and exc.match(cname)):
            hip = legacy_rows[cname].get("hip")
            names[cname] = Decl(_legacy_kind(cname, hip, release_decls_of(res.verified)), "HIPIFY")
            legacy.add(cname)
    for (ofam, cname), row in overrides.items():
        if ofam == fam.name and cname not in names:
            names[cname] = Decl(row.get("kind", "function"), "overrides.toml")
    res.cuda_seen = len(names)
    res.cuda, res.per = names, per

    def declared(hip: str) -> list[str]:
        return [v for v in res.verified if hip in per[v]]

    def fits(cname: str, cdecl: Decl, cand: str) -> bool:
        if not declared(cand):
            return False
        if cand == cname:
            return fam.name in _IDENTITY_OK
        return compatible(cdecl.kind, first_decl(per, cand).kind)

    def amd_choice(cname: str, cdecl: Decl, hip: str | None) -> str | None:
        """HIPIFY's HIP name where it differs from the rules' and the headers declare it
        wherever they declare the rules' name (cudaFreeHost -> hipHostFree, not hipFreeHost)."""
        cand = hipify.get(cname, {}).get("hip")
        if not cand or cand == hip or not fits(cname, cdecl, cand):
            return None
        if hip is not None and not set(declared(hip)) <= set(declared(cand)):
            return None
        if hip is not None and (
            cdecl.kind in ("type", "alias", "enum")
            or first_decl(per, cand).header != first_decl(per, hip).header
        ):
            return None  # types, and names from another HIP library, stay with the rules
        if first_decl(per, cand).deprecated and hip is not None:
            return None
        return cand

    def rename_token(tok: str) -> str:
        e = res.entries.get(tok) or MAPPED.get(tok)
        return e["hip"] if e and "hip" in e else tok

    def hip_alias(tok: str) -> str:
        for _ in range(4):
            d = first_decl(per, tok) if any(tok in p for p in per.values()) else None
            d = d or HIP_BASE_DECLS.get(tok)
            if d is None or not d.alias_of:
                return tok
            tok = d.alias_of
        return tok

    pending_one_to_one: list[tuple[str, Decl, str]] = []
    for cname in sorted(names):
        cdecl = names[cname]
        kind = _KIND_OUT.get(cdecl.kind, cdecl.kind)
        row = overrides.get((fam.name, cname))
        if row is not None:
            res.entries[cname] = override_entry(row, kind, per, res.verified)
            continue
        hip = None
        for rule in fam.rules:
            hip = next((c for c in rule(cname) if fits(cname, cdecl, c)), None)
            if hip:
                break
        if hip is None:
            for cpre, hpre in fam.normalized:
                if cname.startswith(cpre):
                    hits = {
                        h
                        for h in normed.get(norm(hpre + cname[len(cpre) :]), ())
                        if compatible(cdecl.kind, first_decl(per, h).kind)
                    }
                    if len(hits) == 1:
                        hip = hits.pop()
                        break
        if hip is None and fam.reference:
            hip = next((c for rule in fam.rules for c in rule(cname) if c in ref_names), None)
        if cdecl.kind == "function":
            cands = [c for rule in fam.rules for c in rule(cname) if fits(cname, cdecl, c)]
            extra = hipify.get(cname, {}).get("hip")
            if extra and fits(cname, cdecl, extra):
                cands.append(extra)
            res.candidates[cname] = list(dict.fromkeys(cands))
        rule_hip = hip
        amd = amd_choice(cname, cdecl, hip)
        if amd is not None:
            hip = amd
        if hip is None:
            res.entries[cname] = {"kind": kind, "status": "unsupported"}
            if fam.legacy_headers and cdecl.header in fam.legacy_headers:
                res.entries[cname]["note"] = (
                    f"legacy API ({cdecl.header}); the HIP library has only the current one"
                )
            if cname in legacy:
                res.entries[cname]["note"] = _legacy_note(legacy_rows[cname])
            continue
        if fam.one_to_one and cdecl.kind == "function":
            pending_one_to_one.append((cname, cdecl, hip))
            continue
        res.entries[cname] = supported_entry(hip, kind, per, res.verified)
        if amd is not None:
            res.entries[cname]["source"] = (
                f"{HIPIFY_REPO} docs/tables: AMD's HIP name for {cname}"
                + (f" (the renaming rules give {rule_hip})" if rule_hip else "")
            )
        if cname in legacy:
            res.entries[cname]["note"] = _legacy_note(legacy_rows[cname])
    _map_variants(res, names)
    _map_tags(res, names, per)
    if fam.namespace:
        cns, hns = fam.namespace
        have = [v for v in res.verified if any(k.startswith(hns + "::") for k in per[v])]
        res.entries[cns] = {"hip": hns, "kind": "namespace", **({"since": have[0]} if have else {})}
    for cname, cdecl, hip in pending_one_to_one:
        hdecl = first_decl(per, hip)
        if param_types_match(cdecl, hdecl, rename_token, hip_alias):
            res.entries[cname] = supported_entry(hip, "function", per, res.verified)
        else:
            res.entries[cname] = {
                "kind": "function",
                "status": "unsupported",
                "note": f"{hip} exists but its parameters differ; not a 1:1 call",
            }
    return res


def release_decls_of(versions: list[str]) -> dict[str, dict[str, Decl]]:
    return {v: release_decls(v) for v in versions}


def _legacy_kind(cname: str, hip: str | None, per: dict) -> str:
    if hip and any(hip in p for p in per.values()):
        return _KIND_OUT.get(first_decl(per, hip).kind, first_decl(per, hip).kind)
    if re.fullmatch(r"[A-Z0-9_]+", cname):
        return "enumerator"
    return "type" if cname.endswith("_t") else "function"


def _legacy_note(row: dict) -> str:
    when = (
        f"removed in CUDA {row['cuda_removed']}"
        if "cuda_removed" in row
        else f"deprecated in CUDA {row['cuda_deprecated']}"
        if "cuda_deprecated" in row
        else "not declared"
    )
    return (
        f"legacy CUDA name ({when}; not in the CUDA {CUDA_VERSION} headers): from HIPIFY's tables"
    )


#: HIPIFY's rows per family (set by build()), and every CUDA name the CUDA 13 headers declare
HIPIFY_ROWS: dict[str, dict[str, dict]] = {}
ALL_CUDA_NAMES: set[str] = set()


#: spellings of one CUDA name: struct tags (_st), enum tags (_enum), versioned typedefs (_v2)
_VARIANT_SUFFIX = re.compile(r"(_v\d+)?(_st|_enum|_union)?(_v\d+)?$")


def _map_variants(res: Result, names: dict[str, Decl]) -> None:
    """An unmapped tag or versioned spelling takes the mapping of the name it spells:
    ``CUDA_MEMCPY2D_st``/``CUDA_MEMCPY2D_v2`` like ``CUDA_MEMCPY2D``, ``cublasDgemm_v2_64`` like
    ``cublasDgemm_64``, a typedef ``A`` of ``B`` like ``B``."""
    for cname, entry in list(res.entries.items()):
        if entry.get("status") != "unsupported" or "source" in entry:
            continue
        decl = names.get(cname)
        cands = [decl.alias_of] if decl and decl.alias_of else []
        cands += [_VARIANT_SUFFIX.sub("", cname), re.sub(r"_v\d+(?=_64$)", "", cname)]
        for cand in cands:
            base = res.entries.get(cand)
            if cand != cname and base and "hip" in base:
                res.entries[cname] = {k: v for k, v in base.items() if k != "source"}
                res.entries[cname]["kind"] = entry["kind"]
                break


def _map_tags(res: Result, names: dict[str, Decl], per: dict) -> None:
    """Struct tags map to struct tags: for ``typedef struct CUevent_st* CUevent`` mapped to
    ``hipEvent_t`` (``typedef struct ihipEvent_t* hipEvent_t``), ``CUevent_st`` becomes
    ``ihipEvent_t``, never the pointer typedef (``CUevent_st*`` would get one ``*`` too many)."""
    for cname, decl in sorted(names.items()):
        tag = decl.pointer_to
        entry = res.entries.get(cname)
        if not tag or tag not in res.entries or not entry or "hip" not in entry:
            continue
        hdecl = first_decl(per, entry["hip"])
        if hdecl.pointer_to and any(hdecl.pointer_to in p for p in per.values()):
            new = supported_entry(hdecl.pointer_to, "type", per, res.verified)
            new["note"] = f"the struct behind {entry['hip']} (typedef {hdecl.pointer_to}*)"
            res.entries[tag] = new
    for cname, entry in res.entries.items():  # a tag still mapped to a pointer typedef
        if "hip" in entry and cname in names and _is_tag(cname, names):
            hdecl = first_decl(per, entry["hip"])
            if hdecl.pointer_to:
                res.entries[cname] = {
                    "kind": "type",
                    "status": "unsupported",
                    "note": f"a struct tag; HIP's {entry['hip']} is a pointer typedef",
                }


def _is_tag(cname: str, names: dict[str, Decl]) -> bool:
    return any(d.pointer_to == cname for d in names.values())


_KIND_OUT = {"alias": "type"}
#: entries of the families generated so far (cuDNN's parameter check renames cudaStream_t...)
MAPPED: dict[str, dict] = {}
#: the newest release's core HIP declarations, for typedef aliases such as hipStream_t
HIP_BASE_DECLS: dict[str, Decl] = {}
_IDENTITY_OK = {"cooperative_groups", "device", "types", "nccl"}


def first_decl(per: dict[str, dict[str, Decl]], name: str) -> Decl:
    for v in sorted(per, reverse=True):
        if name in per[v]:
            return per[v][name]
    return Decl("macro", "")


def supported_entry(hip: str, kind: str, per: dict, verified: list[str]) -> dict:
    """A supported entry; ``since``/``header`` from the first/newest release declaring it."""
    have = [v for v in verified if hip in per[v]]
    entry: dict = {"hip": hip, "kind": kind}
    if have:
        entry["since"] = have[0]
        newest = per[have[-1]][hip]
        entry["header"] = newest.header
        if newest.deprecated:
            entry["status"] = "deprecated"
            entry["note"] = f"deprecated in HIP {have[-1]}"
    return entry


def override_entry(row: dict, kind: str, per: dict, verified: list[str]) -> dict:
    if "hip" not in row and "transform" in row:  # the call becomes plain code, no HIP name
        entry = {"kind": row.get("kind", kind), "transform": row["transform"]}
        for key in ("note", "source"):
            entry[key] = row[key]
        return entry
    if row.get("status") == "unsupported" or "hip" not in row:
        entry = {"kind": row.get("kind", kind), "status": "unsupported", "source": row["source"]}
        if row.get("note"):
            entry["note"] = row["note"]
        return entry
    entry = supported_entry(row["hip"], row.get("kind", kind), per, verified)
    for key in ("since", "header", "note", "status", "transform", "signature"):
        if key in row:
            entry[key] = row[key]
    if "arity" in row:  # a call with this many arguments becomes a call of another HIP name
        entry["arity"] = {str(k): v for k, v in sorted(row["arity"].items())}
    if "older" in row:
        entry["older"] = dict(sorted(row["older"].items()))
    entry["source"] = row["source"]
    return entry


# -- signatures -----------------------------------------------------------------------------
#: families whose CUDA names are C++ overload sets (device intrinsics, half/bf16 math, CUB,
#: cooperative groups): one CUDA form that HIP accepts is enough
OVERLOAD_SETS = frozenset({"device", "types", "cooperative_groups", "cub"})


@cache
def release_decls(version: str) -> dict[str, Decl]:
    """Every HIP declaration of one release (all header sets), for typedef resolution."""
    merged: dict[str, Decl] = {}
    for set_name in HIP_SETS:
        for k, d in hip_decls(version, set_name).items():
            merged.setdefault(k, d)
    return merged


def type_systems(rename: Callable[[str], str], cuda: dict[str, Decl]) -> dict[str, TypeSystem]:
    return {r.version: TypeSystem(rename, release_decls(r.version), cuda) for r in RELEASES}


def signature_problem(
    cdecl: Decl | None,
    hip: str,
    per: dict[str, dict[str, Decl]],
    systems: dict[str, TypeSystem],
    since: str | None = None,
) -> tuple[bool, str | None]:
    """Whether calls of the CUDA function compile as calls of ``hip`` in every verified
    release from ``since`` on (see :func:`signatures.mismatch`), and the first form that
    does not, with its release."""
    if cdecl is None or cdecl.kind != "function" or cdecl.params is None:
        return True, None
    partial = None
    for version in sorted(per, key=vkey):
        if since and vkey(version) < vkey(since):
            continue
        hdecl = per[version].get(hip)
        if hdecl is None or hdecl.kind != "function":
            continue
        some, why = mismatch(cdecl, hdecl, systems[version])
        if not some:
            return False, f"HIP {version}: {why}"
        if why and partial is None:
            partial = f"HIP {version}: {why}"
    return True, partial


def signature_pass(results: list[Result], overrides: dict) -> None:
    """Compare every function mapping's CUDA and HIP declarations: a rename whose calls would
    not compile takes another candidate that fits, or becomes unsupported with the reason; an
    override that does not fit must say why (``signature``) or declare a rewrite."""
    bad: list[str] = []
    cuda_all: dict[str, Decl] = {}
    for res in results:
        for k, d in res.cuda.items():
            cuda_all.setdefault(k, d)
    base: dict[str, dict] = {}
    for res in results:
        if not res.family.replaces:
            for k, v in res.entries.items():
                base.setdefault(k, v)
    for res in results:
        fam = res.family
        table = {**base, **res.entries} if fam.replaces else base

        def rename(tok: str, table: dict = table) -> str:
            e = table.get(tok)
            return e["hip"] if e and "hip" in e and e.get("kind") != "function" else tok

        systems = type_systems(rename, cuda_all)
        for cname in sorted(res.entries):
            entry = res.entries[cname]
            hip = entry.get("hip")
            cdecl = res.cuda.get(cname)
            if not hip or entry.get("kind") != "function" or entry.get("arity"):
                continue
            some, why = signature_problem(cdecl, hip, res.per, systems)
            if why is None:
                continue
            row = overrides.get((fam.name, cname))
            if row is not None or some:
                if row is not None and not row.get("signature") and not some:
                    bad.append(f"overrides.toml: {fam.name} {cname} -> {hip} does not fit ({why})")
                entry["signature"] = (row or {}).get("signature") or (
                    f"some CUDA overloads have no HIP form ({why})"
                )
                continue
            alt = next(
                (
                    c
                    for c in res.candidates.get(cname, ())
                    if c != hip and signature_problem(cdecl, c, res.per, systems) == (True, None)
                ),
                None,
            )
            later = _folded_version(fam.replaces or fam.name, cname, hip)
            if alt is not None:
                res.entries[cname] = supported_entry(alt, "function", res.per, res.verified)
                res.entries[cname]["note"] = f"{alt}, not {hip}: {hip} takes other parameters"
            elif later is not None and not fam.replaces:
                entry["signature"] = (
                    f"CUDA {CUDA_VERSION} gave {cname} the parameters of {later} (HIPIFY's tables "
                    f"list {later} apart, with no HIP name); {hip} takes the earlier form of "
                    f"{cname}, which HIPIFY maps to it ({why})"
                )
                entry["note"] = (
                    f"{hip} takes the CUDA 12 form of {cname}, not the CUDA {CUDA_VERSION} one"
                )
            else:
                res.entries[cname] = {
                    "kind": "function",
                    "status": "unsupported",
                    "note": f"{hip} exists but its parameters differ ({why})",
                }
    if bad:
        raise SystemExit(
            "\n".join(bad) + "\ngive each row a 'signature' saying why, or an 'arity' rewrite"
        )


CUDA_SIGNATURES = "cuda_signatures.json"


def dumps_signatures(results: list[Result]) -> str:
    """The CUDA declarations of every mapped function (so that scripts/check_mapping.py can
    compare them with the HIP headers where no CUDA toolkit is installed)."""
    funcs: dict[str, dict] = {}
    for res in results:
        for cname, entry in res.entries.items():
            d = res.cuda.get(cname)
            if "hip" not in entry or entry.get("kind") != "function" or d is None:
                continue
            if d.params is None or d.header in ("HIPIFY", "overrides.toml"):
                continue
            row: dict = {"params": list(d.params)}
            if d.defaults:
                row["defaults"] = d.defaults
            if d.overloads:
                row["overloads"] = [[list(p), n] for p, n in d.overloads]
            funcs.setdefault(cname, row)
    lines = [
        "{",
        '  "schema": 1,',
        '  "source": '
        + json.dumps(
            f"parameter types of the CUDA {CUDA_VERSION} declarations of every mapped function "
            "(all overloads; defaults = trailing parameters with a default argument), read by "
            "scripts/cdecls.py from the headers listed in each family file"
        )
        + ",",
        '  "functions": {',
    ]
    items = sorted(funcs.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"    {json.dumps(k)}: {json.dumps(v, sort_keys=True)}{comma}")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def cuda_decl(row: dict) -> Decl:
    """A :class:`Decl` from one row of cuda_signatures.json."""
    return Decl(
        "function",
        "",
        tuple(row["params"]),
        defaults=row.get("defaults", 0),
        overloads=tuple((tuple(p), n) for p, n in row.get("overloads", ())),
    )


def _folded_version(family: str, cname: str, hip: str) -> str | None:
    """``cudaMemAdvise_v2`` where HIPIFY maps ``cudaMemAdvise`` to ``hip`` and lists a later
    ``cudaMemAdvise_v2`` without a HIP name: CUDA 13 gave the plain name the ``_v2``
    parameters, and HIP's call has the plain name's earlier ones."""
    rows = HIPIFY_ROWS.get(family, {})
    if rows.get(cname, {}).get("hip") != hip:
        return None
    return next(
        (
            f"{cname}_v{n}"
            for n in (2, 3, 4)
            if f"{cname}_v{n}" in rows and not rows[f"{cname}_v{n}"].get("hip")
        ),
        None,
    )


# -- includes -------------------------------------------------------------------------------
#: CUDA header (glob relative to a CUDA root) -> HIP header; "{stem}" is the CUDA file's stem.
#: The first HIP candidate that exists in a verified release wins.
INCLUDE_RULES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("cuda", "cuda_runtime.h", ("hip/hip_runtime.h",)),
    ("cuda", "cuda_runtime_api.h", ("hip/hip_runtime_api.h",)),
    ("cuda", "cuda.h", ("hip/hip_runtime.h",)),
    ("cuda", "device_launch_parameters.h", ("hip/hip_runtime.h",)),
    ("cuda", "device_functions.h", ("hip/device_functions.h", "hip/hip_runtime.h")),
    ("cuda", "device_atomic_functions.h", ("hip/hip_runtime.h",)),
    ("cuda", "sm_*_intrinsics.h", ("hip/hip_runtime.h",)),
    ("cuda", "sm_*_atomic_functions.h", ("hip/hip_runtime.h",)),
    ("cuda", "math_functions.h", ("hip/math_functions.h",)),
    ("cuda", "driver_types.h", ("hip/driver_types.h",)),
    ("cuda", "texture_types.h", ("hip/texture_types.h",)),
    ("cuda", "surface_types.h", ("hip/surface_types.h",)),
    ("cuda", "channel_descriptor.h", ("hip/channel_descriptor.h",)),
    ("cuda", "vector_types.h", ("hip/hip_vector_types.h",)),
    ("cuda", "vector_functions.h", ("hip/hip_vector_types.h",)),
    ("cuda", "library_types.h", ("hip/library_types.h",)),
    ("cuda", "cuComplex.h", ("hip/hip_complex.h",)),
    ("cuda", "cuda_fp16.h", ("hip/hip_fp16.h",)),
    ("cuda", "cuda_bf16.h", ("hip/hip_bf16.h", "hip/hip_bfloat16.h")),
    ("cuda", "cuda_fp8.h", ("hip/hip_fp8.h",)),
    ("cuda", "math_constants.h", ("hip/hip_math_constants.h",)),
    ("cuda", "cooperative_groups.h", ("hip/hip_cooperative_groups.h",)),
    ("cuda", "cooperative_groups/reduce.h", ()),  # HIP has no cooperative_groups::reduce
    ("cuda", "cooperative_groups/scan.h", ()),
    ("cuda", "cooperative_groups/memcpy_async.h", ()),
    ("cuda", "cuda_profiler_api.h", ("hip/hip_runtime_api.h",)),
    ("cuda", "cudaProfiler.h", ("hip/hip_runtime_api.h",)),
    ("cuda", "cuda_gl_interop.h", ("hip/hip_gl_interop.h",)),
    ("cuda", "cuda_occupancy.h", ("hip/hip_runtime.h",)),
    ("cuda", "cuda_texture_types.h", ("hip/hip_texture_types.h",)),
    ("cuda", "texture_indirect_functions.h", ("hip/hip_runtime.h",)),
    ("cuda", "surface_indirect_functions.h", ("hip/hip_runtime.h",)),
    ("cuda", "mma.h", ()),
    ("cuda", "cuda_pipeline.h", ()),
    ("cuda", "cuda_awbarrier.h", ()),
    ("cuda", "cudaEGL.h", ()),
    ("cuda", "cudaVDPAU.h", ()),
    ("cu13", "cublas_v2.h", ("hipblas/hipblas.h",)),
    ("cu13", "cublas.h", ("hipblas/hipblas.h",)),
    ("cu13", "cublas_api.h", ("hipblas/hipblas.h",)),
    ("cu13", "cublasLt.h", ("hipblaslt/hipblaslt.h",)),
    ("cu13", "cublasXt.h", ()),
    ("cu13", "cufft.h", ("hipfft/hipfft.h",)),
    ("cu13", "cufftXt.h", ("hipfft/hipfftXt.h",)),
    ("cu13", "cufftw.h", ()),
    ("cu13", "curand.h", ("hiprand/hiprand.h",)),
    ("cu13", "curand_kernel.h", ("hiprand/hiprand_kernel.h",)),
    ("cu13", "curand_mtgp32_host.h", ("hiprand/hiprand_mtgp32_host.h",)),
    ("cu13", "curand_*.h", ("hiprand/hiprand_kernel.h",)),
    ("cu13", "cusparse.h", ("hipsparse/hipsparse.h",)),
    ("cu13", "cusparse_v2.h", ("hipsparse/hipsparse.h",)),
    ("cu13", "cusolverDn.h", ("hipsolver/hipsolver.h",)),
    ("cu13", "cusolverSp.h", ("hipsolver/hipsolver.h",)),
    ("cu13", "cusolverRf.h", ("hipsolver/hipsolver.h",)),
    ("cu13", "cusolver_common.h", ("hipsolver/hipsolver.h",)),
    ("cu13", "cusolverMg.h", ()),
    ("cu13", "nvrtc.h", ("hip/hiprtc.h",)),
    ("cuda", "nvtx3/nvToolsExt.h", ("roctracer/roctx.h",)),
    ("cuda", "nvToolsExt.h", ("roctracer/roctx.h",)),
    ("cuda", "nvtx3/nvToolsExtCuda.h", ("roctracer/roctx.h",)),
    ("cuda", "nvtx3/nvToolsExtCudaRt.h", ("roctracer/roctx.h",)),
    ("nccl", "nccl.h", ("rccl/rccl.h",)),
    ("cudnn", "cudnn.h", ("miopen/miopen.h",)),
    ("cudnn", "cudnn_*.h", ()),
    ("cuda", "cccl/cub/cub.cuh", ("hipcub/hipcub.hpp",)),
    ("cuda", "cccl/cub/*.cuh", ("hipcub/{rel}.hpp", "hipcub/hipcub.hpp")),
    ("cuda", "cccl/cub/*/*.cuh", ("hipcub/{rel}.hpp", "hipcub/hipcub.hpp")),
    ("cuda", "cccl/thrust/*.h", ("thrust/{rel}.h",)),
    ("cuda", "cccl/thrust/iterator/*.h", ("thrust/{rel}.h",)),
    ("cuda", "cccl/thrust/system/cuda/*.h", ("thrust/system/hip/{relhip}.h",)),
    # libcu++ (cuda::std, cuda::barrier, cuda::memcpy_async): ROCm installs no libcu++
    ("cuda", "cccl/cuda/*", ()),
    ("cuda", "cccl/cuda/std/*", ()),
)

#: HIP headers that no verified release installs; their path is documented, not checked.
UNCHECKED_HEADERS = {
    "rccl/rccl.h": "RCCL installs rccl/rccl.h (ROCm RCCL documentation, 'Using RCCL'); "
    "Debian has no RCCL for HIP 6.4, so it is not checked here",
}

#: the component directory layout (hipblas/hipblas.h, ...) exists from ROCm 5.2 on
LAYOUT_SOURCE = (
    "ROCm 5.2 installs component headers as include/<component>/<header> and keeps "
    "deprecated top-level wrappers (ROCm 5.3 release notes, 'Linux Filesystem "
    "Hierarchy Standard for ROCm'; 5.2's include/hipblas.h says 'use "
    "hipblas/hipblas.h')"
)


def includes_doc(roots: dict[str, Path]) -> dict:
    entries: dict[str, dict] = {}
    for root_key, pattern, candidates in INCLUDE_RULES:
        root = roots.get(root_key)
        if root is None:
            continue
        found = sorted(root.glob(pattern)) if any(c in pattern for c in "*?") else [root / pattern]
        for path in found:
            if not path.is_file():
                continue
            key = path.relative_to(root).as_posix()
            key = key.removeprefix("cccl/")
            if key.startswith("nvtx3/") and pattern == "nvToolsExt.h":
                continue
            if key in entries:
                continue
            if pattern == "nvToolsExt.h":
                key = "nvToolsExt.h"
            rel = key.split("/", 1)[1].rsplit(".", 1)[0] if "/" in key else path.stem
            relhip = rel.split("/", 2)[-1] if rel.startswith("system/cuda/") else rel
            entries[key] = include_entry(candidates, rel, relhip)
    return {
        "schema": 1,
        "family": "includes",
        "title": "CUDA headers -> HIP headers",
        "source": "generated by scripts/gen_mapping.py: CUDA " + CUDA_VERSION + " header "
        "files mapped by its INCLUDE_RULES table; each HIP header checked to exist "
        "in the verified releases. " + LAYOUT_SOURCE,
        "verified_releases": [r.version for r in RELEASES],
        "entries": entries,
    }


def include_entry(candidates: tuple[str, ...], rel: str, relhip: str) -> dict:
    """The first candidate that a verified release installs; a later candidate that an older
    release installs becomes ``older``."""
    found: list[tuple[str, list[str]]] = []
    for cand in candidates:
        hip = cand.format(rel=rel, relhip=relhip)
        have = [r.version for r in RELEASES if (r.root / hip).is_file()]
        if have:
            found.append((hip, have))
        elif hip in UNCHECKED_HEADERS and not found:
            return {"hip": hip, "note": UNCHECKED_HEADERS[hip]}
    if not found:
        return {"status": "unsupported"}
    hip, have = found[0]
    entry: dict = {"hip": hip, "since": have[0]}
    component = hip.split("/", 1)[0]
    oldest = RELEASES[0]
    if (
        have[0] != oldest.version
        and component not in ("hip", "thrust")
        and not (oldest.root / component).is_dir()
    ):
        # the oldest verified tree lacks the whole library: the path follows the layout
        entry["since"] = oldest.version
        entry["note"] = (
            f"ROCm {oldest.version} installs it as {hip} (component layout); the "
            f"{oldest.root_label} tree does not package {component}"
        )
    for alt, alt_have in found[1:]:
        if vkey(alt_have[0]) < vkey(entry["since"]):
            entry["older"] = {"hip": alt}
            break
    return entry


def vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


#: identifier prefixes that make a name CUDA-looking (reported as 'unknown' when unmapped)
PREFIXES: tuple[tuple[str, str], ...] = (
    (r"cuda[A-Z_0-9]", "runtime"),
    (r"CUDA_", "runtime/driver"),
    (r"CUDART_", "runtime"),
    (r"cu[A-Z]", "driver"),
    (r"CU_", "driver"),
    (r"CU[a-z]", "driver types"),
    (r"cublas", "cublas"),
    (r"CUBLAS", "cublas"),
    (r"cufft", "cufft"),
    (r"CUFFT_", "cufft"),
    (r"curand", "curand"),
    (r"CURAND_", "curand"),
    (r"cusparse", "cusparse"),
    (r"CUSPARSE_", "cusparse"),
    (r"cusolver", "cusolver"),
    (r"CUSOLVER_", "cusolver"),
    (r"cudnn", "cudnn"),
    (r"CUDNN_", "cudnn"),
    (r"nvrtc", "nvrtc"),
    (r"NVRTC_", "nvrtc"),
    (r"nvtx", "nvtx"),
    (r"NVTX_", "nvtx"),
    (r"nccl", "nccl"),
    (r"NCCL_", "nccl"),
    (r"nvml", "nvml"),
    (r"NVML_", "nvml"),
    (r"__nv_", "types"),
    (r"make_cu[A-Z]", "types"),
    (r"make_cuda[A-Z]", "runtime"),
    (r"cub::", "cub"),
    (r"thrust::cuda\b", "cub"),
    (r"cooperative_groups::", "cooperative_groups"),
    (r"cuda::", "libcu++"),
    (r"__shfl\w*_sync\b", "device"),
    (r"__CUDA", "preprocessor"),
)


#: identifiers that carry a library prefix but are shaped like the project's own snake_case
#: names (``cuda_check``, ``cublas_handle``, ``nccl_comm``, ``nvml_check``): the CUDA
#: headers declare no name of this shape except cuRAND's device API (``curand_init``) and
#: ``cusolver_int_t``, which the mapping knows, so an unmapped one is the project's, not an
#: unknown CUDA API
USER_SHAPED = (
    r"(?:cuda|cublas|cufft|curand|cusparse|cusolver|cudnn|nvrtc|nvtx|nccl|nvml)(?:_|[a-z])"
)


def prefixes_doc() -> dict:
    return {
        "schema": 1,
        "source": "scripts/gen_mapping.py PREFIXES: the name prefixes of the CUDA families "
        "it reads (an identifier matching one is CUDA-looking); USER_SHAPED: names with such a "
        "prefix that no CUDA header declares unless the mapping has them",
        "prefixes": [{"pattern": p, "family": f} for p, f in PREFIXES],
        "user_shaped": USER_SHAPED,
    }


def releases_doc() -> dict:
    return {
        "schema": 1,
        "source": "the ROCm releases whose headers scripts/gen_mapping.py reads; include roots "
        "are relative to the repository (absolute for system trees)",
        "releases": [
            {
                "version": r.version,
                "include_root": r.root_label,
                "source": r.source,
                "verified": True,
                "header_sets": [s for s in HIP_SETS if hip_decls(r.version, s)],
            }
            for r in RELEASES
        ],
    }


# -- output -----------------------------------------------------------------------------------
refs_cache: dict = {}


def family_doc(res: Result) -> dict:
    fam = res.family
    releases = ", ".join(
        f"ROCm {v} ({next(r for r in RELEASES if r.version == v).root_label})" for v in res.verified
    )
    source = (
        f"generated by scripts/gen_mapping.py from CUDA {CUDA_VERSION} headers "
        f"({', '.join(fam.cuda_headers)})"
    )
    if fam.hip_sets:
        source += f" checked against the {', '.join(fam.hip_sets)} headers of " + (
            releases or "no installed ROCm release"
        )
    if fam.reference:
        ref = refs_cache["references"][fam.reference]
        source += (
            f"; HIP names checked against {ref['repo']} {ref['path']} at {ref['commit'][:12]}"
            " (not installed by any verified release)"
        )
    source += "; irregular names from overrides.toml"
    doc_ref = {"reference": fam.reference} if fam.reference else {}
    doc = {
        "schema": 1,
        "family": fam.name,
        "title": fam.title,
        "source": source,
        **doc_ref,
        "hip_header_sets": list(fam.hip_sets),
        "verified_releases": res.verified,
        "entries": res.entries,
    }
    if fam.replaces:
        doc["replaces"] = fam.replaces
    if fam.includes:
        doc["includes"] = {h: include_entry(c, "", "") for h, c in fam.includes}
    return doc


def dumps(doc: dict) -> str:
    """JSON with one entry per line: small diffs, deterministic."""
    head = {k: v for k, v in doc.items() if k != "entries"}
    lines = ["{"]
    for k in sorted(head):
        lines.append(f"  {json.dumps(k)}: {json.dumps(head[k], sort_keys=True)},")
    lines.append('  "entries": {')
    items = sorted(doc["entries"].items())
    for i, (k, v) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f"    {json.dumps(k)}: {json.dumps(v, sort_keys=True)}{comma}")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def build(
    roots: dict[str, Path],
    mirrors: Path | None = None,
    hipify: Path | None = None,
) -> tuple[dict[str, str], list[Result]]:
    overrides = load_overrides()
    known = {f.name for f in FAMILIES}
    for fam_name, cname in overrides:
        if fam_name not in known:
            raise SystemExit(f"overrides.toml: unknown family {fam_name!r} (row {cname})")
    refs = reference_decls(mirrors)
    refs_cache.update(refs)
    tables = hipify_tables(hipify)
    HIPIFY_ROWS.update(tables["tables"])
    for fam in FAMILIES:
        ALL_CUDA_NAMES.update(cuda_names(fam, roots))
    HIP_BASE_DECLS.update(hip_decls(RELEASES[-1].version, "hip"))
    results = []
    for fam in FAMILIES:
        results.append(generate_family(fam, roots, overrides, refs))
        if not fam.replaces:
            for k, v in results[-1].entries.items():
                MAPPED.setdefault(k, v)
    signature_pass(results, overrides)
    # one family per CUDA name: the first family (in FAMILIES order) that has it wins
    owner: dict[str, str] = {}
    for res in results:
        if res.family.replaces:
            continue
        for k in list(res.entries):
            if k in owner:
                del res.entries[k]
            else:
                owner[k] = res.family.name
    # A CUDA name with no HIP answer and no CUDA-looking prefix (libraryPropertyType's
    # MAJOR_VERSION, say) would flag every user variable of that name: leave it out. Reserved
    # names (a leading "__": __syncwarp, __vadd2) cannot be the user's, so they stay.
    cuda_like = re.compile("|".join(f"(?:{p})" for p, _ in PREFIXES))
    for res in results:
        for k in [k for k, v in res.entries.items() if v.get("status") == "unsupported"]:
            if "source" not in res.entries[k] and not (k.startswith("__") or cuda_like.match(k)):
                del res.entries[k]
    files = {f"{r.family.name}.json": dumps(family_doc(r)) for r in results}
    files["includes.json"] = dumps(includes_doc(roots))
    files["reference_decls.json"] = json.dumps(refs, indent=1, sort_keys=True) + "\n"
    files["hipify_tables.json"] = json.dumps(tables, indent=0, sort_keys=True) + "\n"
    files[CUDA_SIGNATURES] = dumps_signatures(results)
    files["prefixes.json"] = json.dumps(prefixes_doc(), indent=2, sort_keys=True) + "\n"
    files["releases.json"] = json.dumps(releases_doc(), indent=2, sort_keys=True) + "\n"
    return files, results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if a data file differs from what would be generated",
    )
    ap.add_argument(
        "--mirrors",
        type=Path,
        default=None,
        help="directory of git mirrors (OWNER+NAME/repo) of ROCm/rccl and "
        "ROCm/roctracer to refresh data/reference_decls.json from",
    )
    ap.add_argument(
        "--hipify",
        type=Path,
        default=None,
        help="git directory of a ROCm/HIPIFY mirror to refresh data/hipify_tables.json from",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    roots = cuda_roots()
    missing = [r.root_label for r in RELEASES if not r.root.is_dir()]
    if missing:
        print(
            f"gen_mapping: HIP headers missing for {', '.join(missing)} "
            "(run scripts/toolchain-rocm.sh)",
            file=sys.stderr,
        )
        return 2
    files, results = build(roots, args.mirrors, args.hipify)
    print(f"{'family':20} {'cuda':>6} {'mapped':>7} {'unsupp':>7}  verified")
    for r in results:
        mapped = sum(1 for e in r.entries.values() if "hip" in e)
        print(
            f"{r.family.name:20} {len(r.entries):6} {mapped:7} {len(r.entries) - mapped:7}  "
            f"{','.join(r.verified) or '-'}"
        )
    stale = []
    for name, text in sorted(files.items()):
        path = DATA / name
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            stale.append(name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    total = sum(len(t) for t in files.values())
    print(f"{len(files)} files, {total / 1e6:.2f} MB, {time.perf_counter() - t0:.1f} s")
    if args.check and stale:
        print(f"gen_mapping: stale data files: {', '.join(stale)}", file=sys.stderr)
        return 1
    if not args.check:
        print(f"wrote {len(stale)} changed file(s) to {DATA.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
