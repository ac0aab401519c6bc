"""Every rule against its own fixtures (ruff's one parametrised test over the registry).

For each rule: the positive sample gives findings that match the reviewed snapshot, the negative
sample gives none, applying the safe (and, separately, the unsafe) fixes to the positive sample
gives the expected ``.fixed`` file, and fixing again changes nothing. Set
``ROCPORT_UPDATE_SNAPSHOTS=1`` to rewrite the snapshots after reviewing a change.
"""

from __future__ import annotations

import os

import pytest

from rocport._diagnostics import Applicability
from rocport.scan.engine import language_of, scan_text
from rocport.scan.fixer import applicable, fix_text
from rocport.scan.rules import BY_ID

from ._helpers import SNAPSHOTS, fixture


def _scan(rule_id: str, stem: str):
    path = fixture(rule_id, stem)
    assert path is not None, f"missing fixture {rule_id}/{stem}.*"
    text = path.read_text("utf-8")
    rule = BY_ID[rule_id]
    return path, text, scan_text(text, path.name, language_of(path), [rule])


def _render(findings) -> str:
    lines = []
    for f in findings:
        fix = "" if f.fix is None else f"  [{f.fix.applicability.value}] {f.fix.title}"
        lines.append(
            f"{f.location.line}:{f.location.column} {f.rule} {f.severity.label} {f.message}{fix}"
        )
    return "\n".join(lines) + "\n"


def test_positive_matches_snapshot(rule_id: str) -> None:
    _, _, findings = _scan(rule_id, "positive")
    assert findings, f"{rule_id} found nothing in its positive sample"
    assert {f.rule for f in findings} == {rule_id}
    snapshot = SNAPSHOTS / f"{rule_id}_positive.txt"
    rendered = _render(findings)
    if os.environ.get("ROCPORT_UPDATE_SNAPSHOTS"):
        snapshot.write_text(rendered, "utf-8")
    assert snapshot.exists(), f"no snapshot {snapshot.name}; run with ROCPORT_UPDATE_SNAPSHOTS=1"
    assert rendered == snapshot.read_text("utf-8")


def test_negative_is_clean(rule_id: str) -> None:
    _, _, findings = _scan(rule_id, "negative")
    assert findings == [], _render(findings)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_fixes(rule_id: str, unsafe: bool) -> None:
    path, text, findings = _scan(rule_id, "positive")
    rule = BY_ID[rule_id]
    wanted = Applicability.UNSAFE if unsafe else Applicability.SAFE
    has_fix = any(f.fix and f.fix.edits and f.fix.applicability is wanted for f in findings)
    expected = fixture(rule_id, "positive.unsafe.fixed" if unsafe else "positive.fixed")
    if not has_fix:
        assert expected is None, f"{expected} exists but no {wanted.value} fix is offered"
        return
    assert expected is not None, f"missing {rule_id}/positive{'.unsafe' if unsafe else ''}.fixed.*"
    fixed, applied = fix_text(text, path.name, [rule], findings, language_of(path), unsafe)
    assert applied > 0
    assert fixed == expected.read_text("utf-8")
    again = scan_text(fixed, path.name, language_of(path), [rule])
    assert not any(applicable(f, unsafe) for f in again), "fixing twice changes the file again"
    assert len(again) < len(findings)
