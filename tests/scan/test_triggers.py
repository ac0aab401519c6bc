"""Triggers and gates only skip rules that would find nothing: the scan with them gives
exactly the findings of the scan with every rule forced on."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from rocport.scan.context import CudaSource
from rocport.scan.engine import CUDA_SUFFIXES, scan_text
from rocport.scan.registry import Language
from rocport.scan.rules import RULES

from ._helpers import FIXTURES

CUDA_RULES = [r for r in RULES if r.language is Language.CUDA]
CORPUS = Path(__file__).parents[2] / "benchmarks" / "corpus.py"


def _corpus_module():
    spec = importlib.util.spec_from_file_location("rocport_bench_corpus", CORPUS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _cuda_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in CUDA_SUFFIXES)


def _same_findings(path: Path, text: str) -> None:
    fast = scan_text(text, path.name, Language.CUDA, CUDA_RULES)
    full = scan_text(text, path.name, Language.CUDA, CUDA_RULES, triggers=False)
    assert [f.to_dict() for f in fast] == [f.to_dict() for f in full], path


def test_triggers_are_literals_of_code():
    """A trigger found in the blanked code is found in the raw text only if it has no blank."""
    for rule in CUDA_RULES:
        for literal in rule.triggers:
            assert literal and not any(c.isspace() for c in literal), (rule.id, literal)


def test_fixtures_same_findings_with_triggers():
    files = _cuda_files(FIXTURES)
    assert len(files) > 30
    for path in files:
        _same_findings(path, path.read_text(encoding="utf-8"))


def test_corpus_sample_same_findings_with_triggers(tmp_path):
    corpus = _corpus_module()
    corpus.generate(tmp_path / "tree", 0.6, 7)
    files = _cuda_files(tmp_path / "tree")
    assert files
    for path in files:
        _same_findings(path, path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("rule", CUDA_RULES, ids=lambda r: r.id)
def test_rule_skipped_where_it_cannot_fire(rule):
    """Each rule with triggers is really skipped on a text that has none of them, and the
    rule, run anyway, finds nothing there."""
    if not rule.triggers and rule.gate is None:
        pytest.skip(f"{rule.id} has no trigger: it runs on every file")
    text = "__global__ void k(float* y, int n) { int i = threadIdx.x; y[i] = n; }\n"
    blocked = rule.triggers and not any(t in text for t in rule.triggers)
    src = CudaSource("k.cu", text)
    if not blocked:
        assert rule.gate is not None
        blocked = not rule.gate(src)
    assert blocked, rule.id
    assert not rule.may_fire(src)
    src.rule = rule
    assert list(rule.check(src)) == []


def test_mutated_fixtures_same_findings(tmp_path):
    """Fixtures with random lines dropped or swapped still give the same findings either way."""
    rng = random.Random(11)
    for path in _cuda_files(FIXTURES):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        for _ in range(3):
            mutated = [line for line in lines if rng.random() > 0.2]
            if len(mutated) > 1:
                i, j = rng.randrange(len(mutated)), rng.randrange(len(mutated))
                mutated[i], mutated[j] = mutated[j], mutated[i]
            _same_findings(path, "".join(mutated))


def test_a_feature_spelled_with_capitals_is_triggered():
    """``cudaLaunchAttributeClusterDimension`` is the file's only Hopper feature (its
    ``Cluster`` is capitalised)."""
    text = "void set(cudaLaunchAttribute* a) { a->id = cudaLaunchAttributeClusterDimension; }\n"
    findings = scan_text(text, "launch.cu", Language.CUDA, CUDA_RULES)
    assert [f.rule for f in findings] == ["RP112"]


def test_underscored_triggers_are_indexed():
    """Every ``__`` trigger is found by the one search of CudaSource (not one search each)."""
    from rocport.scan.context import _UNDERSCORED_INDEX
    from rocport.scan.rules.cuda._warp import MASKED_CALL_STARTS

    underscored = {t for rule in CUDA_RULES for t in rule.triggers if t.startswith("__")}
    assert underscored | set(MASKED_CALL_STARTS) <= set(_UNDERSCORED_INDEX)


@pytest.mark.parametrize(
    "text",
    [
        "__global__ void k() { __shared__ int a[4]; __ballot_sync(~0u, 1); }",
        "___global__ x__device__ __ballot __ballot_sync __nv_fp8x2 ____shared__",
        "__ __g __global__global__ __activemask(",
    ],
)
def test_underscored_index_finds_what_find_finds(text):
    from rocport.scan.context import _UNDERSCORED_INDEX

    src = CudaSource("k.cu", text)
    for literal in _UNDERSCORED_INDEX:
        expected = [i for i in range(len(text)) if text.startswith(literal, i)]
        assert src.find_all(literal) == expected, literal
        assert src.has(literal) == bool(expected)
