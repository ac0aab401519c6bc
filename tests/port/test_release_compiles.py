"""Ports for each ROCm release compiled with the real toolchain nearest to it: Debian 12's
hipcc (HIP 5.2) for 5.x, with Debian trixie's hipBLAS 5.5 headers (hipBLAS before 2.0); the
Debian sid root (HIP 6.4) for 6.x; the Debian experimental root (HIP 7.2) for 7.x.

The default run compiles a small set (the hipBLAS Ex sample, one sample and one corpus program
per release); ``slow`` adds the rest of the corpus programs. A missing toolchain fails the test
unless ROCPORT_ALLOW_MISSING_TOOLCHAIN=1 (then it is skipped with the reason).
"""

from __future__ import annotations

import os
import re
import shutil
from functools import cache
from pathlib import Path

import pytest

from rocport.errors import ToolError
from rocport.port.api import port_tree
from rocport.port.model import PortOptions
from rocport.port.releases import name_state, parameters_changed
from rocport.port.report import to_dict

pytestmark = pytest.mark.hipcc

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "cuda"
CORPUS = Path(os.environ.get("ROCPORT_CORPUS", REPO.parent / "shared" / "corpus"))
HIPBLAS5 = Path(os.environ.get("ROCPORT_HIPBLAS5_ROOT", REPO / ".toolchains" / "hipblas-5.5"))
#: target release -> the release of the toolchain that compiles its port
NEAREST = {"5.7": "5.2", "6.2": "6.4", "6.4": "6.4", "7.2": "7.2"}
_NEEDS = re.compile(r"^(\S+) needs ROCm (\d+\.\d+) or newer$")


@cache
def _toolchain(version: str):
    from rocport.check import find_toolchain

    try:
        return find_toolchain(rocm=version)
    except ToolError as exc:
        return str(exc)


def _need(version: str):
    found = _toolchain(version)
    if isinstance(found, str):
        why = f"no HIP {version} toolchain: {found} (bash scripts/toolchain-rocm.sh)"
        if os.environ.get("ROCPORT_ALLOW_MISSING_TOOLCHAIN") == "1":
            pytest.skip(why)
        pytest.fail(why)
    return found


def _include_dirs(version: str) -> list[Path]:
    """hipBLAS 5.5's headers beside Debian 12's HIP 5.2 (Debian 12 packages no hipBLAS)."""
    if version != "5.2":
        return []
    if not (HIPBLAS5 / "usr" / "include" / "hipblas" / "hipblas.h").is_file():
        why = f"no hipBLAS 5.5 headers under {HIPBLAS5} (bash scripts/toolchain-rocm.sh 5.2)"
        if os.environ.get("ROCPORT_ALLOW_MISSING_TOOLCHAIN") == "1":
            pytest.skip(why)
        pytest.fail(why)
    return [HIPBLAS5 / "usr" / "include"]


def _compile(tree: Path, version: str, units: list[str] | None = None):
    from rocport.check import check_tree

    return check_tree(
        tree,
        toolchain=_need(version),
        offload_arch=("gfx90a",),
        include_dirs=_include_dirs(version),
        units=units,
    )


def _port(src: Path, dest: Path, rocm: str) -> dict:
    return to_dict(port_tree(src, dest, options=PortOptions(rocm=rocm)))


# -- hipBLAS Ex data types per release ---------------------------------------------------------
@pytest.fixture(scope="module")
def gemm_ports(tmp_path_factory) -> dict[str, Path]:
    """examples/cuda/cublas_gemm.cu (cublasGemmEx with CUDA_R_32F and CUBLAS_COMPUTE_32F),
    ported for 5.7, 6.4 and 7.2."""
    base = tmp_path_factory.mktemp("gemm")
    (base / "src").mkdir()
    shutil.copy(EXAMPLES / "cublas_gemm.cu", base / "src" / "cublas_gemm.cu")
    out = {}
    for rocm in ("5.7", "6.4", "7.2"):
        report = _port(base / "src", base / rocm, rocm)
        assert report["release"]["line"] == rocm
        out[rocm] = base / rocm
    return out


def test_hipblas_ex_calls_use_the_data_type_enum_of_each_release(gemm_ports) -> None:
    text = {r: (p / "cublas_gemm.cu").read_text() for r, p in gemm_ports.items()}
    # before hipBLAS 2.0: hipblasDatatype_t values for data and compute types
    assert "hipblasGemmEx(" in text["5.7"] and "HIP_R_32F" not in text["5.7"]
    assert text["5.7"].count("HIPBLAS_R_32F") == 4 and "HIPBLAS_COMPUTE" not in text["5.7"]
    # 6.x: the _v2 form with hipDataType and hipblasComputeType_t
    assert "hipblasGemmEx_v2(" in text["6.4"] and text["6.4"].count("HIP_R_32F") == 3
    assert "HIPBLAS_COMPUTE_32F" in text["6.4"] and "HIPBLAS_R_32F" not in text["6.4"]
    # 7.x: the plain name takes hipDataType
    assert "hipblasGemmEx(" in text["7.2"] and "_v2" not in text["7.2"]
    assert text["7.2"].count("HIP_R_32F") == 3 and "HIPBLAS_COMPUTE_32F" in text["7.2"]


@pytest.mark.parametrize(
    ("rocm", "toolchain", "compiles"),
    [
        ("5.7", "5.2", True),  # HIP 5.2 with hipBLAS 5.5: hipblasDatatype_t
        ("6.4", "5.2", False),  # the _v2 names and hipDataType are not in hipBLAS 5.5
        ("6.4", "6.4", True),
        ("5.7", "6.4", True),  # 6.x keeps the hipblasDatatype_t interface beside the _v2 one
        ("7.2", "7.2", True),
        ("5.7", "7.2", False),  # 7.x removed hipblasDatatype_t's Ex interface
    ],
)
def test_hipblas_ex_ports_compile_with_their_release(gemm_ports, rocm, toolchain, compiles):
    result = _compile(gemm_ports[rocm], toolchain)
    (unit,) = result.units
    errors = [e.message for e in unit.errors][:3]
    print(f"--rocm {rocm} port with HIP {toolchain}: {unit.status.value} {errors}")
    assert (unit.status.value == "passed") is compiles, errors


def test_a_hip_data_type_variable_passed_to_hipblas_5_is_reported(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "g.cu").write_text(
        "#include <cublas_v2.h>\n"
        "void f(cublasHandle_t h, const void *x, void *y, cudaDataType t) {\n"
        "  const float a = 2.0f;\n"
        "  cublasAxpyEx(h, 4, &a, CUDA_R_32F, x, t, 1, y, t, 1, CUDA_R_32F);\n"
        "}\n"
    )
    report = _port(src, tmp_path / "57", "5.7")
    notes = [(r["name"], r["note"]) for f in report["files"] for r in f["issues"]]
    assert [n for n, note in notes if "hipblasDatatype_t here" in (note or "")] == ["t", "t"]
    text = (tmp_path / "57" / "g.cu").read_text()
    assert "hipblasAxpyEx(h, 4, &a, HIPBLAS_R_32F, x, t, 1, y, t, 1, HIPBLAS_R_32F)" in text
    report = _port(src, tmp_path / "64", "6.4")
    assert not [r for f in report["files"] for r in f["issues"]]


# -- examples and corpus per release ---------------------------------------------------------
#: tree -> (source folder, units to compile or None for all); test_releases.py compiles
#: examples/cuda, sgemm-cuda and gpu-burn per release (slow); these are the rest of the corpus
#: that builds as separate units, with one of them per release in the default run
TREES = {
    "rodinia-hotspot": (CORPUS / "rodinia" / "cuda" / "hotspot", None),
    "rodinia-bfs": (CORPUS / "rodinia" / "cuda" / "bfs", ["bfs.cu"]),  # it includes kernel*.cu
    "rodinia-gaussian": (CORPUS / "rodinia" / "cuda" / "gaussian", None),
    "rodinia-pathfinder": (CORPUS / "rodinia" / "cuda" / "pathfinder", None),
    "llm.c": (CORPUS / "llm.c", ["train_gpt2_fp32.cu"]),
}
QUICK = {
    "5.7": "rodinia-hotspot",
    "6.2": "rodinia-bfs",
    "6.4": "rodinia-pathfinder",
    "7.2": "llm.c",
}
#: ports that do not compile for a reason the port does not see yet
GAPS = {
    ("5.7", "rodinia-gaussian"): "struct members are not in the release facts: "
    "cudaDeviceProp::deviceOverlap has no hipDeviceProp_t member before HIP 6.0 (HIP 5.2 "
    "headers; Debian trixie's libamdhip64-dev 5.7.1 lacks it too), and the port keeps it",
}


def _marks(rocm: str, tree: str) -> list:
    marks = [] if QUICK[rocm] == tree else [pytest.mark.slow]
    if (rocm, tree) in GAPS:
        marks.append(pytest.mark.xfail(reason=GAPS[rocm, tree], strict=True))
    return marks


CASES = [pytest.param(rocm, tree, marks=_marks(rocm, tree)) for rocm in NEAREST for tree in TREES]


def _key(version: str) -> tuple[int, int]:
    return tuple(int(p) for p in version.split(".")[:2])


@pytest.mark.parametrize(("rocm", "tree"), CASES)
def test_port_compiles_with_the_nearest_toolchain(tmp_path: Path, rocm: str, tree: str) -> None:
    """Every file the report calls converted compiles with the nearest real toolchain, or
    fails for a reason the facts give (a name the toolchain's release lacks, parameters that
    differ between the two releases); each "needs ROCm X" line names the release the facts
    say added the name, and it is newer than the target."""
    src, units = TREES[tree]
    if not src.is_dir():
        pytest.fail(f"corpus folder missing: {src} (set ROCPORT_CORPUS)")
    version = NEAREST[rocm]
    report = _port(src, tmp_path / "out", rocm)
    assert report["release"]["line"] == rocm
    from rocport.port.releases import _facts

    facts = _facts()
    for file in report["files"]:
        for ref in file["issues"]:
            match = _NEEDS.match(ref["note"] or "")
            if match:
                hip, needed = match.groups()
                row = facts["names"].get(hip) or facts["headers"].get(hip)
                assert row is not None and row["added"] == needed, (hip, row)
                assert _key(needed) > _key(rocm), (hip, needed, rocm)
    converted = {f["path"] for f in report["files"] if f["converted"]}
    result = _compile(tmp_path / "out", version, units)
    assert result.units, f"nothing compiled in {tree}"
    unexplained = []
    for unit in result.units:
        print(f"--rocm {rocm} {tree} with HIP {version}: {unit.path}: {unit.status.value}")
        if unit.status.value != "failed" or unit.path not in converted:
            continue
        why = _explained(unit, version, rocm)
        if why and version != rocm:
            print(f"  expected with HIP {version}: {why}")
            continue
        first = unit.errors[0].message if unit.errors else "no diagnostic"
        unexplained.append(f"{unit.path}: {first}")
    assert not unexplained, f"--rocm {rocm} ports reported converted fail: {unexplained}"


def _explained(unit, version: str, rocm: str) -> str | None:
    toolchain, target = _key(version), _key(rocm)
    for error in unit.errors:
        for ident in re.findall(r"'([A-Za-z_]\w*)'", error.message):
            state = name_state(ident, toolchain)
            if state.kind in ("absent", "removed"):
                return f"{ident}: {state.message}"
            why = parameters_changed(ident, min(toolchain, target), max(toolchain, target))
            if why:
                return why
    return None


# -- warpSize where C++ needs a constant -------------------------------------------------------
#: code written for HIP (nvcc rejects warpSize in all of these): an AMD branch of a project
WARP_SAMPLE = """\
#include <cuda_runtime.h>
#ifdef __HIP_PLATFORM_AMD__
#define WARP_SIZE warpSize
#else
#define WARP_SIZE 32
#endif
template <int N> struct Lanes { static constexpr int n = N; };

__global__ void __launch_bounds__(4 * WARP_SIZE) reduce(const float *in, float *out) {
  __shared__ float partial[WARP_SIZE];
  static_assert(WARP_SIZE % 32 == 0, "whole warps");
  constexpr int lanes = Lanes<WARP_SIZE>::n;
  float v = in[threadIdx.x];  // not a constant use: [warpSize]
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + lanes;
}
"""
WARP_LINES = [9, 10, 11, 12]  # launch bounds, shared array bound, static_assert, template arg


@pytest.fixture(scope="module")
def warp_ports(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    base = tmp_path_factory.mktemp("warp")
    (base / "src").mkdir()
    (base / "src" / "reduce.cu").write_text(WARP_SAMPLE)
    return {r: (base / r, _port(base / "src", base / r, r)) for r in ("6.4", "7.0", "7.2")}


def _warp_lines(report: dict) -> list[int]:
    return [
        r["line"]
        for f in report["files"]
        for r in f["issues"]
        if "reads warpSize at run time" in (r["note"] or "")
    ]


def test_constant_warp_size_uses_are_reported_from_7(warp_ports) -> None:
    assert _warp_lines(warp_ports["6.4"][1]) == []
    for rocm in ("7.0", "7.2"):
        assert _warp_lines(warp_ports[rocm][1]) == WARP_LINES, rocm
    note = next(r["note"] for f in warp_ports["7.0"][1]["files"] for r in f["issues"] if r["note"])
    assert "releases between 6.4 and 7.2 were not read" in note


def test_constant_warp_size_compiles_with_6_4_and_fails_where_reported_with_7_2(
    warp_ports,
) -> None:
    (unit,) = _compile(warp_ports["6.4"][0], "6.4").units
    assert unit.status.value == "passed", [e.message for e in unit.errors]
    (unit,) = _compile(warp_ports["7.2"][0], "7.2").units
    assert unit.status.value == "failed"
    lines = sorted({e.line for e in unit.errors if e.severity == "error"})
    print("HIP 7.2 errors:", [(e.line, e.message) for e in unit.errors][:8])
    assert lines == WARP_LINES


def test_the_suggested_upper_bound_compiles_with_7_2(tmp_path: Path) -> None:
    """The report's suggestion for a bound: rocPRIM's constexpr max_size()."""
    (tmp_path / "bound.hip").write_text(
        "#include <hip/hip_runtime.h>\n"
        "#include <rocprim/intrinsics/arch.hpp>\n"
        "__global__ void k(float *out) {\n"
        "  __shared__ float partial[rocprim::arch::wavefront::max_size()];\n"
        "  partial[threadIdx.x % warpSize] = 1.0f;\n"
        "  __syncthreads();\n"
        "  out[0] = partial[0];\n"
        "}\n"
    )
    (unit,) = _compile(tmp_path, "7.2").units
    assert unit.status.value == "passed", [e.message for e in unit.errors]
