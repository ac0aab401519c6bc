"""Reports: JSON shape (checked against a JSON Schema), CSV rows, and the text summary."""

from __future__ import annotations

import csv
import io
import json
from functools import cache
from pathlib import Path

import jsonschema
from rich.console import Console

from rocport.port import report as port_report
from rocport.port.api import port_tree
from rocport.port.mapping import load_mapping
from rocport.port.model import FileStatus

_COUNTS = {
    "type": "object",
    "required": ["found", "translated", "unsupported", "unknown"],
    "additionalProperties": False,
    "properties": {
        k: {"type": "integer", "minimum": 0}
        for k in ("found", "translated", "unsupported", "unknown")
    },
}
_REFERENCE = {
    "type": "object",
    "required": ["name", "line", "column", "outcome", "family", "hip", "note"],
    "properties": {
        "name": {"type": "string"},
        "line": {"type": "integer", "minimum": 1},
        "column": {"type": "integer", "minimum": 1},
        "outcome": {"enum": ["unsupported", "unknown"]},
        "family": {"type": "string"},
    },
}
SCHEMA = {
    "type": "object",
    "required": [
        "schema",
        "tool",
        "version",
        "source",
        "output",
        "mode",
        "options",
        "totals",
        "files",
    ],
    "properties": {
        "schema": {"const": 1},
        "mode": {"enum": ["mirror", "in-place", "examine"]},
        "options": {
            "type": "object",
            "required": [
                "rocm",
                "blas",
                "launch",
                "warp_sync",
                "offload_arch",
                "names",
                "local_names",
            ],
        },
        "totals": {
            "type": "object",
            "required": ["files", "converted", "written", "statuses", "counts", "families"],
            "properties": {
                "counts": _COUNTS,
                "families": {"type": "object", "additionalProperties": _COUNTS},
                "statuses": {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                    "required": [s.value for s in FileStatus],
                },
            },
        },
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "path",
                    "kind",
                    "status",
                    "output",
                    "written",
                    "converted",
                    "compiled",
                    "counts",
                    "families",
                    "issues",
                ],
                "properties": {
                    "status": {"enum": [s.value for s in FileStatus]},
                    "kind": {"enum": ["source", "build", "other"]},
                    "counts": _COUNTS,
                    "families": {"type": "object", "additionalProperties": _COUNTS},
                    "issues": {"type": "array", "items": _REFERENCE},
                },
            },
        },
    },
}

PROGRAM = """\
#include <cuda_runtime.h>
void f(float* d) {
  cudaMalloc(&d, 4);
  cudaGraphExecNodeSetParams(0);
  cudaMadeUpCall();
  cublasSgemm(0);
}
"""


@cache
def pinned_mapping():
    """The shipped mapping, with the names these tests rely on pinned as a rocport.toml would."""
    return load_mapping(rocm="6.4", extra={"cudaGraphExecNodeSetParams": None})


def _report(tmp_path: Path, *, examine: bool = False, files: int = 1):
    src = tmp_path / "proj"
    src.mkdir()
    for i in range(files):
        (src / f"f{i:02}.cu").write_text(PROGRAM)
    (src / "notes.txt").write_text("plain\n")
    (src / "blob.cuh").write_bytes(b"\x00\x01")
    return port_tree(src, tmp_path / "out", examine=examine, mapping=pinned_mapping())


def test_json_matches_the_schema_and_the_counts(tmp_path: Path) -> None:
    report = _report(tmp_path)
    path = tmp_path / "report.json"
    port_report.write_json(report, path)
    doc = json.loads(path.read_text())
    jsonschema.validate(doc, SCHEMA)
    totals = doc["totals"]
    assert totals["counts"] == {"found": 5, "translated": 3, "unsupported": 1, "unknown": 1}
    assert totals["families"]["cublas"] == {
        "found": 1,
        "translated": 1,
        "unsupported": 0,
        "unknown": 0,
    }
    assert totals["statuses"]["translated"] == 1 and totals["statuses"]["binary"] == 1
    (f,) = [f for f in doc["files"] if f["path"] == "f00.cu"]
    assert {(i["name"], i["outcome"], i["line"], i["column"]) for i in f["issues"]} == {
        ("cudaGraphExecNodeSetParams", "unsupported", 4, 3),
        ("cudaMadeUpCall", "unknown", 5, 3),
    }
    assert f["written"] is True and f["converted"] is False  # leftovers: not fully converted


def test_examine_json_claims_nothing_written(tmp_path: Path) -> None:
    doc = port_report.to_dict(_report(tmp_path, examine=True))
    jsonschema.validate(doc, SCHEMA)
    assert doc["output"] is None and doc["totals"]["written"] == 0
    assert all(f["output"] is None and not f["converted"] for f in doc["files"])


def test_csv_has_one_row_per_file_and_family(tmp_path: Path) -> None:
    report = _report(tmp_path)
    path = tmp_path / "report.csv"
    port_report.write_csv(report, path)
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert tuple(rows[0]) == port_report.CSV_FIELDS
    program_rows = {r["family"]: r for r in rows if r["path"] == "f00.cu"}
    assert set(program_rows) == {"include", "runtime", "cublas", "project"}
    assert program_rows["project"]["unsupported"] == "1"  # pinned like a rocport.toml entry
    assert program_rows["runtime"]["unknown"] == "1"
    other = [r for r in rows if r["path"] == "notes.txt"]
    assert len(other) == 1 and other[0]["family"] == "" and other[0]["status"] == "copied"
    assert sum(int(r["found"]) for r in rows) == report.counts["found"]


def test_text_report_lists_issues_and_cuts_long_lists(tmp_path: Path) -> None:
    report = _report(tmp_path, files=12)
    console = Console(file=io.StringIO(), width=160, color_system=None)
    port_report.render(report, console, top=5, max_issues=10)
    text = console.file.getvalue()
    assert "60 found, 36 translated, 12 unsupported, 12 unknown" in text
    assert "f00.cu:4:3" in text and "cudaGraphExecNodeSetParams" in text
    assert "… and 7 more files" in text
    assert "… and 14 more uses" in text
    assert "blob.cuh: binary" in text
