"""Every test module under tests/ is collected by the README's test command (pytest leaves
folders named ``build`` out by default, which once hid tests/port/build from CI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_module_is_collected() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    collected = {line.split("::", 1)[0] for line in proc.stdout.splitlines() if "::" in line}
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("test_*.py")}
    assert modules - collected == set()
