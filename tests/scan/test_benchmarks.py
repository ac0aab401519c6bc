"""The scan's speed benchmarks run end to end on a small generated tree (they back figures in
docs/benchmarks.md, so they must keep working)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _run(script: str, *args: str) -> str:
    env = {**os.environ, "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--size-mb", "0.4", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_scan_speed_reports_rates_stages_the_forced_scan_and_the_anchor(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("_anchors", BENCHMARKS / "_anchors.py")
    anchors = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(anchors)
    try:
        anchors.hipify_perl()
    except FileNotFoundError as exc:
        pytest.skip(f"{exc}; fetch it with ../shared/tools/get-hipify-perl .cache/anchors")
    out = tmp_path / "speed.json"
    text = _run("scan_speed.py", "--repeats", "2", "--json", str(out))
    result = json.loads(out.read_text())
    anchor = result["anchor"]
    assert anchor["tool"] == "hipify-perl -examine" and anchor["cpu_s"] > 0
    assert anchor["mb_per_cpu_s"] == pytest.approx(result["bytes"] / 1e6 / anchor["cpu_s"])
    assert "Anchor, same run: hipify-perl -examine" in text and "x as fast" in text
    assert result["files"] > 10 and result["findings"] > 100
    for mode in ("text_report", "json_sarif"):
        assert len(result[mode]["cpu_s"]) == 2
        assert result[mode]["best_mb_per_cpu_s"] >= result[mode]["median_mb_per_cpu_s"] > 0
    assert set(result["rules_s"]) >= {"RP101", "RP103", "RP121"}
    assert result["first_scan_mb_per_cpu_s"] > 0
    assert "by the best scan" in text and "forced on (same findings)" in text
    assert "First scan in this process" in text


def test_literal_search_compares_both_ways_for_every_length() -> None:
    text = _run("literal_search.py")
    rows = [line for line in text.splitlines() if line.startswith("│")]
    lengths = {line.split("│")[1].strip() for line in rows}
    assert {str(n) for n in range(1, 13)} <= lengths
    assert any("MallocManaged" in line for line in rows)  # a rule's trigger
    assert "rocport's own measurement chose" in text
