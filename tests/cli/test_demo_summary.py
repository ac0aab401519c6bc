"""scripts/demo_summary.py: which compile outcomes of the demo are expected, documented gaps.

The report fragments follow `rocport port --json` and `rocport check --json` as they came out
of the demo on Debian 12 (HIP 5.2.3): driver_api.cu fails on the two driver calls the port
reports unsupported before ROCm 6.4, cub_reduce.cu lacks hipCUB.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "demo_summary.py"
spec = importlib.util.spec_from_file_location("demo_summary", SCRIPT)
demo_summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(demo_summary)


def _port(unsupported: list[str]) -> dict:
    issues = [{"name": n, "outcome": "unsupported"} for n in unsupported]
    return {
        "totals": {
            "files": 2,
            "converted": 2,
            "counts": {
                "found": 9,
                "translated": 9 - len(issues),
                "unsupported": len(issues),
                "unknown": 0,
            },
        },
        "files": [
            {"path": "driver_api.cu", "issues": issues},
            {"path": "cub_reduce.cu", "issues": []},
        ],
    }


def _error(message: str) -> dict:
    return {"severity": "error", "message": message, "passes": ["gfx90a"]}


def _check(driver_errors: list[str]) -> dict:
    return {
        "offload_arch": ["gfx90a"],
        "units": [
            {
                "path": "driver_api.cu",
                "status": "failed" if driver_errors else "passed",
                "missing_headers": [],
                "diagnostics": [_error(m) for m in driver_errors],
            },
            {
                "path": "cub_reduce.cu",
                "status": "unavailable",
                "missing_headers": ["hipcub/hipcub.hpp"],
                "diagnostics": [_error("'hipcub/hipcub.hpp' file not found")],
            },
        ],
    }


def test_failure_explained_by_the_ports_unsupported_report_is_expected():
    port = _port(["cuGetErrorName"])
    check = _check(["use of undeclared identifier 'cuGetErrorName'"])
    lines, unexpected = demo_summary.check_lines("5.2", check, port, gaps_allowed=True)
    assert unexpected == []
    assert "  ROCm 5.2 gfx90a: 0 ok, 1 failed, 1 unavailable" in lines


def test_failure_the_port_did_not_announce_is_unexpected():
    check = _check(["no matching function for call to 'hipMemcpy'"])
    _, unexpected = demo_summary.check_lines("6.4", check, _port([]), gaps_allowed=True)
    assert unexpected == ["ROCm 6.4: driver_api.cu failed to compile"]


def test_missing_library_is_a_gap_only_where_allowed():
    _, unexpected = demo_summary.check_lines("6.4", _check([]), _port([]), gaps_allowed=False)
    assert unexpected == ["ROCm 6.4: cub_reduce.cu could not be compiled here"]


@pytest.mark.parametrize(("allowed", "code"), [(["5.2"], 0), ([], 1)])
def test_main_prints_the_summary_and_exits_by_expectation(tmp_path, capsys, allowed, code):
    (tmp_path / "port-5.2.json").write_text(json.dumps(_port(["cuGetErrorName"])))
    check = _check(["use of undeclared identifier 'cuGetErrorName'"])
    (tmp_path / "check-5.2.json").write_text(json.dumps(check))
    summary = {"files": 2, "by_severity": {"error": 1, "warning": 0, "note": 3}}
    (tmp_path / "scan.json").write_text(json.dumps({"summary": summary}))
    argv = [str(tmp_path), "--release", "5.2", *(f"--gaps-allowed={a}" for a in allowed)]
    assert demo_summary.main(argv) == code
    out = capsys.readouterr().out
    assert "ROCm 5.2: 2 files, 2 converted; 8 of 9 CUDA uses translated, 1 unsupported" in out
    assert "1 error, 0 warnings, 3 notes" in out


def test_a_missing_report_is_unexpected(tmp_path, capsys):
    assert demo_summary.main([str(tmp_path), "--release", "6.4"]) == 1
    assert "ROCm 6.4: port wrote no report" in capsys.readouterr().out
