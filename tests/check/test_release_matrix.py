"""The project's CUDA samples, ported by rocport for ROCm 5.2 and 6.4, compile with that release.

Runs ``benchmarks/release_matrix.py`` once (every sample ported three ways: rocport for each
release and hipify-perl, then compiled with both toolchains) and checks its results.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from rocport.check import Status
from rocport.errors import ToolError

pytestmark = [pytest.mark.hipcc, pytest.mark.slow]

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "release_matrix.py"


def _load():
    spec = importlib.util.spec_from_file_location("release_matrix", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    module = _load()
    try:
        module.hipify_perl()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    try:
        units, columns = module.run_matrix(
            tmp_path_factory.mktemp("matrix"),
            jobs=os.cpu_count(),
            log=lambda message: print(message),
        )
    except ToolError as exc:
        pytest.skip(f"{exc}; run `bash scripts/toolchain-rocm.sh all`")
    return module, units, {(c.tool, c.release): c for c in columns}


def _failures(column) -> list[str]:
    lines = []
    for path, unit in sorted(column.units.items()):
        if unit.status is Status.FAILED:
            first = unit.errors[0] if unit.errors else None
            where = f"{first.file}:{first.line}: {first.message}" if first else "no diagnostic"
            lines.append(f"{path}: {where}")
    return lines


def test_every_sample_is_ported_and_compiled_four_ways(matrix) -> None:
    _, units, columns = matrix
    assert len(units) >= 10
    assert set(columns) == {
        (tool, release) for tool in ("rocport", "hipify-perl") for release in ("5.2", "6.4")
    }
    for column in columns.values():
        assert set(column.units) == set(units)
    assert columns[("rocport", "6.4")].archs == ("gfx90a", "gfx942")


@pytest.mark.parametrize("release", ["5.2", "6.4"])
def test_rocport_ports_compile_with_their_release(matrix, release: str) -> None:
    _, _, columns = matrix
    column = columns[("rocport", release)]
    # Known gaps: the port reports these names unsupported for the release, so the file is
    # expected not to compile there (checked strictly: once it compiles, drop the row).
    expected = KNOWN_UNSUPPORTED.get(release, {})
    for unit, why in expected.items():
        assert column.units[unit].status is Status.FAILED, f"{unit} now compiles ({why}): drop it"
    failures = [f for f in _failures(column) if f.split(":")[0] not in expected]
    assert not failures, f"rocport --rocm {release} ports that do not compile:\n" + "\n".join(
        failures
    )


KNOWN_UNSUPPORTED = {
    "5.2": {
        "examples/driver_api.cu": "cuGetErrorName/cuGetErrorString: HIP 5.2 has no "
        "hipDrvGetErrorName/hipDrvGetErrorString; the port reports both unsupported",
    }
}


@pytest.mark.parametrize("release", ["5.2", "6.4"])
def test_rocport_compiles_at_least_what_hipify_perl_does(matrix, release: str) -> None:
    _, units, columns = matrix
    ours, anchor = columns[("rocport", release)], columns[("hipify-perl", release)]
    behind = [
        u
        for u in units
        if anchor.units[u].status is Status.PASSED and ours.units[u].status is not Status.PASSED
    ]
    assert not behind, (
        f"hipify-perl's port compiles with ROCm {release}, rocport's does not: {behind}"
    )


def test_library_samples_are_unavailable_only_where_the_library_is_missing(matrix) -> None:
    _, units, columns = matrix
    newest = columns[("rocport", "6.4")]
    assert not [u for u in units if newest.units[u].status is Status.UNAVAILABLE]
    for unit in columns[("rocport", "5.2")].units.values():
        if unit.status is Status.UNAVAILABLE:
            assert unit.missing_headers and unit.mode.value == "device-only"


def test_markdown_section(matrix) -> None:
    module, units, columns = matrix
    text = module.markdown(units, list(columns.values()), {"5.2": "hipcc 5.2", "6.4": "hipcc 7.0"})
    assert text.startswith(module.HEADING + "\n")
    for unit in units:
        assert f"| `{unit}` |" in text
    doc = "# Benchmarks\n\n## Other\n\nkept\n"
    replace_section = sys.modules["_markdown"].replace_section  # loaded by the benchmark
    merged = replace_section(doc, text)
    assert "## Other\n\nkept" in merged and merged.count(module.HEADING) == 1
    assert replace_section(merged, text) == merged
