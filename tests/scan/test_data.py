"""The scan data tables: shape, no duplicate keys, a source for every row; docs and hook."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path

import pytest

from rocport.scan import docgen, tables
from rocport.scan.rules.cuda.architecture_specific import ARCH_TRIGGERS

ROOT = Path(__file__).parents[2]
TABLES = ("python_packages", "torch_backends", "cuda_features", "nvidia_tools")


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    duplicated = {key for key in keys if keys.count(key) > 1}
    assert not duplicated, f"duplicate keys {duplicated}"
    return dict(pairs)


@pytest.mark.parametrize("name", TABLES)
def test_table_has_schema_and_no_duplicate_keys(name: str) -> None:
    text = (files("rocport.scan") / "data" / f"{name}.json").read_text("utf-8")
    data = json.loads(text, object_pairs_hook=_no_duplicates)
    assert data["schema"] == 1 and data["source"]


def test_python_packages_rows() -> None:
    for module, row in tables.python_packages().items():
        assert re.fullmatch(r"[a-z_][a-z0-9_.]*", module), module
        assert row["status"] in ("rocm-build", "rocm-fork", "replacement", "unsupported")
        for key in ("distribution", "alternative", "install", "source"):
            assert row[key].strip(), (module, key)


def test_cudnn_rows() -> None:
    for attr, row in tables.cudnn_settings().items():
        assert attr.isidentifier() and row["source"], attr
        if "values" not in row:  # the same meaning whatever the value
            assert row["meaning"] and row["hint"], attr
            continue
        assert set(row["values"]) == {"true", "false"}, attr
        meant = [v for v in row["values"].values() if v is not None]
        assert meant and all(v["meaning"] and v["hint"] for v in meant), attr
        assert len({v["meaning"] for v in meant}) == len(meant), f"{attr}: one text for two values"


def test_nvidia_tool_rows() -> None:
    data = tables.nvidia_tools()
    for program, row in [*data["programs"].items(), ("modules", data["module_tools"])]:
        assert row["what"] and row["alternative"] and row["source"], program
    assert {"nvcc", "nvidia-smi"}.isdisjoint(data["programs"]), "RP306 and RP307 own these"


def test_cuda_feature_rows() -> None:
    for row in tables.ptx_instructions() + tables.architecture_features():
        assert row["pattern"] and row["feature"] and row["hint"] and row["source"]
    patterns = [row["pattern"] for row in tables.architecture_features()]
    assert len(patterns) == len(set(patterns))
    # RP112 finds the patterns through its triggers
    assert [p for p in patterns if not any(t in p for t in ARCH_TRIGGERS)] == []


def test_docs_are_generated_from_the_docstrings() -> None:
    reference, _ = docgen.split((ROOT / "docs" / "scan.md").read_text("utf-8"))
    assert reference == docgen.render(), (
        "docs/scan.md is stale: run python -m rocport.scan.docgen docs/scan.md"
    )


def test_pre_commit_hook_runs_the_scan() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert re.search(r"^- id: rocport-scan$", text, re.MULTILINE)
    entry = re.search(r"^  entry: (.+)$", text, re.MULTILINE).group(1)
    assert entry.split()[:2] == ["rocport", "scan"] and "--fail-on" in entry
    pattern = re.search(r"^  files: (.+)$", text, re.MULTILINE).group(1)
    for name in ("k.cu", "k.hip", "k.cuh", "train.py", "a/b.cpp"):
        assert re.search(pattern, name), name
