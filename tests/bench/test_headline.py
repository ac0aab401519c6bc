"""The guide's loop as written, strict fp32, compile and graphs: configs, run, headline, checks."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rocport import __version__
from rocport.bench import headline
from rocport.bench.suite import SuiteConfig, preset, run_suite


def _ids(config: SuiteConfig) -> set[str]:
    return {c.id for c in config.resnet_configs()}


def test_the_guide_loop_runs_as_written_and_in_strict_fp32_at_its_own_batch():
    config = replace(preset("full"), resnet_batches=(256,), resnet_compile=True, resnet_graphs=True)
    ids = _ids(config)
    for mode in ("inference", "training"):
        base = f"resnet/resnet50/{mode}/fp32/contiguous/b64/r224"
        assert base + "/torch-defaults" in ids and base in ids
        # compile and graphs cover the autocast precisions at the largest batch
        for prec in ("bf16", "fp16"):
            eager = f"resnet/resnet50/{mode}/{prec}/channels_last/b256/r224"
            assert {eager, eager + "/compiled", eager + "/graphs"} <= ids
    assert len(ids) == len(config.resnet_configs())  # no duplicates


def _result(rid, value, **params):
    keys = ("arch", "mode", "precision", "memory_format", "batch", "resolution")
    parts = rid.split("/")
    base = dict(zip(keys, parts[1:5], strict=False))
    base.update(batch=int(parts[5][1:]), resolution=int(parts[6][1:]))
    return {"id": rid, "workload": "resnet", "value": value, "params": {**base, **params}}


def test_headline_rows_are_ratios_to_the_guide_and_search_everything():
    r = "resnet/resnet50/training"
    results = [
        _result(f"{r}/fp32/contiguous/b64/r224/torch-defaults", 2000.0, torch_defaults=True),
        _result(f"{r}/fp32/contiguous/b64/r224", 1000.0),
        _result(f"{r}/bf16/channels_last/b256/r224", 5000.0),
        _result(f"{r}/bf16/channels_last/b256/r224/compiled", 7000.0, compile=True),
        _result(f"{r}/bf16/channels_last/b256/r224/graphs", 6000.0, graphs=True),
    ]
    found = headline.rows(results, "training")
    rows = {row.label.split(" (")[0].split(",")[0]: row for row in found}
    assert rows["guide loop as written"].ratio == 1.0
    assert rows["strict fp32"].ratio == 0.5
    assert rows["best eager configuration"].ratio == 2.5
    assert rows["best torch.compile configuration"].ratio == 3.5
    assert rows["best with CUDA/HIP graphs"].ratio == 3.0
    assert rows["best of everything run"].result["id"].endswith("/compiled")
    assert headline.rows(results, "inference") == []


@pytest.fixture(scope="module")
def graphs_document(one_cpu_thread):
    config = preset("tiny")
    config.workloads = ("resnet",)
    config.resnet_modes = ("inference",)
    config.resnet_precisions = ("bf16",)
    config.resnet_memory_formats = ("channels_last",)
    config.resnet_graphs = True
    return run_suite(config, device="cpu", quiet=True)


def test_guide_loop_uses_pytorch_defaults_and_strict_fp32_turns_tf32_off(graphs_document):
    by_id = {r["id"]: r for r in graphs_document["results"]}
    guide = by_id["resnet/resnet50/inference/fp32/contiguous/b2/r32/torch-defaults"]["params"]
    strict = by_id["resnet/resnet50/inference/fp32/contiguous/b2/r32"]["params"]
    # PyTorch's documented defaults: cuDNN may use TF32, matmul may not, no cuDNN benchmark
    assert (guide["tf32_cudnn"], guide["tf32_matmul"], guide["cudnn_benchmark"]) == (
        True,
        False,
        False,
    )
    assert (strict["tf32_cudnn"], strict["tf32_matmul"], strict["cudnn_benchmark"]) == (
        False,
        False,
        True,
    )
    names = {c["name"] for c in graphs_document["checks"]}
    assert "ResNet inference: strict fp32 (TF32 off), same loop / guide loop as written" in names
    assert "ResNet inference: best eager configuration / guide loop as written" in names


def test_graphs_on_the_cpu_are_reported_not_measured(graphs_document):
    reasons = {s["id"]: s["reason"] for s in graphs_document["skipped"]}
    rid = "resnet/resnet50/inference/bf16/channels_last/b2/r32/graphs"
    assert reasons[rid] == "CUDA/HIP graphs need a GPU"


def test_report_shows_the_headline_table(graphs_document):
    from rocport.bench.report import markdown

    text = markdown(graphs_document)
    assert "## ResNet inference: against the guide's loop as written" in text
    assert "| guide loop as written" in text and "| 1.00 |" in text


def test_wall_clock_check_is_two_sided(tiny_document):
    checks = {c["name"]: c for c in tiny_document["checks"]}
    check = checks["timer vs the loop's wall clock"]
    assert (check["minimum"], check["maximum"]) == (0.95, 1.05)
    assert check["passed"] is True, check


def test_version_and_commit_are_recorded_from_the_source_tree(tiny_document):
    software = tiny_document["metadata"]["software"]
    assert software["rocport"] == __version__
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("this copy of the tests has no .git folder: no commit to compare")
    commit = software["rocport_commit"].removesuffix("+dirty")
    # HEAD then, or an ancestor of HEAD now (commits may land while the suite runs)
    merged = subprocess.run(
        ["git", "-C", str(root), "merge-base", "--is-ancestor", commit, "HEAD"],
        capture_output=True,
        text=True,
    )
    assert len(commit) == 40 and merged.returncode == 0, (commit, merged.stderr)


def test_commit_falls_back_to_the_environment_without_git(monkeypatch):
    from rocport.bench import device

    monkeypatch.setattr(device, "which", lambda name: None)
    monkeypatch.setenv("ROCPORT_SOURCE_COMMIT", "abc123")
    assert device.source_commit() == "abc123"
    monkeypatch.delenv("ROCPORT_SOURCE_COMMIT")
    assert device.source_commit() is None


def test_unvalidated_note_is_printed_once_per_file(tiny_document, tmp_path, monkeypatch, capsys):
    from rocport.bench import results

    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import fails as if not installed
    out = tmp_path / "r.json"
    for _ in range(3):
        results.write(tiny_document, out)
    err = capsys.readouterr().err
    assert err.count("written without schema validation") == 1
    assert json.loads(out.read_text())["tool"] == "rocport bench"
