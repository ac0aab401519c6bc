"""The fixture roots and a runner for the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocport.cli.main import main

FIXTURES = Path(__file__).parent / "fixtures"
SCENARIOS = (
    "mi300x_ready",
    "render_missing",
    "consumer_gfx1031",
    "no_rocm",
    "nvidia_h200",
    "mi300x_rocm702",
    "radeon_debian12",
    "udev_only",
)


def invoke(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``rocport ARGS`` through ``main()`` and return (exit code, stdout, stderr)."""
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def doctor_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code, out, err = invoke(capsys, "doctor", "--json", *args)
    assert err == "", err
    return code, json.loads(out)


def statuses(report: dict) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["checks"]}
