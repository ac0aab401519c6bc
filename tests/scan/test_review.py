"""The reviewed findings on real trees (benchmarks/scan_review.py): every error and warning
that the scan reports on ggml's CUDA backend and on llm.c has a verdict, each tree's precision
is at least 90%, the recall spots and port differences match the corpus, and the table in
docs/scan.md is the one the current scan gives."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "benchmarks" / "scan_review.py"


def _module():
    spec = importlib.util.spec_from_file_location("rocport_scan_review", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


review = _module()


def test_verdict_rows_are_complete_and_unique() -> None:
    data = review.load_data()
    keys = []
    for row in data["verdicts"]:
        assert row["tree"] in data["trees"], row
        assert row["verdict"] in ("true", "false"), row
        assert row["why"].strip() and row["why"] != "?", row
        assert row["rule"].startswith("RP") and row["file"] and row["text"].strip(), row
        keys.append((row["tree"], row["file"], row["rule"], row["text"], row.get("n", 1)))
    assert len(keys) == len(set(keys)), "two verdicts for one finding"
    for spot in data["port"]["spots"] + data["port"]["differences"]:
        assert spot["why"].strip(), spot


@pytest.fixture(scope="module")
def reviewed():
    if not review.CORPUS.is_dir():
        pytest.skip(f"the corpus is not at {review.CORPUS} (set ROCPORT_CORPUS)")
    data = review.load_data()
    return data, review.review(data)


@pytest.mark.slow
def test_every_error_and_warning_has_a_verdict(reviewed) -> None:
    _, reviews = reviewed
    missing = [review.stub(f) for r in reviews for f in r.missing]
    assert not missing, "unreviewed findings, add them to benchmarks/data/scan_review.json:\n" + (
        json.dumps(missing, indent=1)
    )


@pytest.mark.slow
def test_precision_of_each_tree(reviewed) -> None:
    _, reviews = reviewed
    for r in reviews:
        assert r.findings, f"{r.name}: no errors or warnings at all"
        false = [
            f"{f.file}:{f.line} {f.rule}"
            for f in r.findings
            if r.verdicts.get(f.key, {}).get("verdict") == "false"
        ]
        assert r.precision >= review.GOAL, (
            f"{r.name}: precision {r.precision:.0%} < {review.GOAL:.0%}; false positives: {false}"
        )


@pytest.mark.slow
def test_recall_spots_and_port_differences_match_the_corpus(reviewed) -> None:
    data, _ = reviewed
    assert review.check_spots(data) == []
    assert review.unclassified_hunks(data) == []


@pytest.mark.slow
def test_docs_table_is_current(reviewed) -> None:
    data, reviews = reviewed
    section = review.render(data, reviews, review.recall(data, reviews))
    _, written = review.split((ROOT / "docs" / "scan.md").read_text("utf-8"))
    assert written == section, "docs/scan.md is stale: run python benchmarks/scan_review.py --write"
