"""Real projects build after ``rocport port``: a fast subset of ``benchmarks/realworld.py``.

gpu-burn and three Rodinia programs from the corpus (``../shared/corpus``) are ported by rocport
and by hipify-perl, every translation unit is compiled, and each project's own build (``make``)
runs in the HIP 6.4 toolchain; AMD's hand port of the same Rodinia programs is built beside them.
The counts asserted are those the full benchmark measured for these programs (docs/benchmarks.md,
"Real-world corpus"): a port regression makes a build or a unit fail here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from rocport.errors import ToolError

pytestmark = [pytest.mark.hipcc, pytest.mark.slow]

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "realworld.py"
RODINIA = ("bfs", "gaussian", "pathfinder")
SUBSET = "gpu-burn," + ",".join(f"rodinia:{p}" for p in RODINIA)


def _load():
    spec = importlib.util.spec_from_file_location("realworld", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    module = _load()
    if not module.CORPUS.is_dir():
        pytest.skip(f"the real-world corpus is missing at {module.CORPUS} (set ROCPORT_CORPUS)")
    try:
        module.hipify_perl()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    try:
        columns, facts = module.run(
            tmp_path_factory.mktemp("realworld"),
            module.parse_only(SUBSET),
            archs=("gfx90a",),
            jobs=2,
            cache=module.Cache(False),
            log=lambda message: print(message, flush=True),
        )
    except ToolError as exc:
        pytest.skip(f"no HIP 6.4 toolchain: {exc} (run `bash scripts/toolchain-rocm.sh 6.4`)")
    print(module.table(columns, facts))
    return {(c.project, c.tool): c for c in columns}, facts


def test_gpu_burn_builds_with_its_makefile(measured) -> None:
    """The migrated Makefile builds the kernel code object (``-fatbin`` -> ``--genco``) and the
    program: gpu_burn-drv.cpp's legacy launch API (cuParamSetv, cuFuncSetBlockShape,
    cuLaunchGridAsync) runs on the support header that the port adds."""
    columns, _ = measured
    rocport = columns["gpu-burn", "rocport"]
    assert (Path(rocport.tree) / "compare.fatbin").is_file()
    assert (Path(rocport.tree) / "rocport_legacy_launch.h").is_file()
    assert rocport.units == {
        "compare.cu": "passed",
        "gpu_burn-drv.cpp": "passed",
        "win/gpu_burn-drv.cpp": "unavailable",
    }
    assert rocport.built() == 1, rocport.builds


def test_rodinia_programs_build_at_least_as_often_as_amds_hand_port(measured) -> None:
    columns, facts = measured
    rocport, amd = columns["rodinia", "rocport"], columns["rodinia", "amd"]
    assert facts["rodinia"]["apart"] == []
    failed = {p: r["error"] for p, r in rocport.builds.items() if not r["ok"]}
    assert rocport.built() == len(RODINIA), failed
    assert rocport.built() >= amd.built()


def test_rocport_compiles_more_units_than_hipify_perl(measured) -> None:
    columns, _ = measured
    for project in ("gpu-burn", "rodinia"):
        ours, anchor = columns[project, "rocport"], columns[project, "hipify-perl"]
        assert ours.count("passed") >= anchor.count("passed"), (project, ours.units, anchor.units)


def test_hipify_perl_leaves_build_files_so_its_builds_fail(measured) -> None:
    """The comparison is fair only if it is real: hipify-perl's ports keep nvcc in the build."""
    columns, _ = measured
    assert columns["gpu-burn", "hipify-perl"].built() == 0
