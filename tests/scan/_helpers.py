"""Paths and look-ups shared by the scan tests."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
SNAPSHOTS = Path(__file__).parent / "snapshots"


def fixture(rule_id: str, stem: str) -> Path | None:
    """The fixture file ``<stem>.<ext>`` of a rule, whatever its extension."""
    matches = [
        p
        for p in (FIXTURES / rule_id).glob(f"{stem}.*")
        if p.name.count(".") == stem.count(".") + 1
    ]
    return matches[0] if matches else None
