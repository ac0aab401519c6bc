"""Apply fixes: safe ones by default, unsafe ones on request; diff and write atomically."""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rocport._diagnostics import Applicability, Edit, Finding
from rocport._fs import atomic_write
from rocport.errors import OutputError
from rocport.scan.engine import ScanReport, language_of, scan_text
from rocport.scan.registry import Rule

#: Re-scan after applying fixes at most this many times (a fix can enable another one).
MAX_PASSES = 4
BACKUP_SUFFIX = ".orig"


@dataclass(frozen=True, slots=True)
class FixedFile:
    """One file's text before and after fixing."""

    shown: str
    path: Path
    before: str
    after: str
    applied: int

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{self.shown}",
                tofile=f"b/{self.shown}",
            )
        )


def applicable(finding: Finding, unsafe: bool) -> bool:
    fix = finding.fix
    if fix is None or not fix.edits:
        return False
    return fix.applicability is Applicability.SAFE or (
        unsafe and fix.applicability is Applicability.UNSAFE
    )


def apply_edits(text: str, findings: Iterable[Finding], unsafe: bool = False) -> tuple[str, int]:
    """Apply every applicable fix whose edits overlap no fix applied before it."""
    chosen: list[Edit] = []
    applied = 0
    for finding in sorted(
        findings, key=lambda f: min(e.start for e in f.fix.edits) if f.fix and f.fix.edits else 0
    ):
        if not applicable(finding, unsafe):
            continue
        edits = finding.fix.edits
        if any(
            e.start < c.end and c.start < e.end or (e.start == c.start == e.end == c.end)
            for e in edits
            for c in chosen
        ):
            continue
        chosen.extend(edits)
        applied += 1
    pieces, pos = [], 0
    for edit in sorted(chosen, key=lambda e: (e.start, e.end)):
        pieces.append(text[pos : edit.start])
        pieces.append(edit.text)
        pos = edit.end
    pieces.append(text[pos:])
    return "".join(pieces), applied


def fix_text(
    text: str,
    shown: str,
    rules: Sequence[Rule],
    findings: Sequence[Finding],
    language,
    unsafe: bool = False,
) -> tuple[str, int]:
    """Fix ``text`` until no applicable fix is left (or :data:`MAX_PASSES` passes)."""
    total = 0
    for _ in range(MAX_PASSES):
        text, applied = apply_edits(text, findings, unsafe)
        total += applied
        if not applied:
            break
        findings = scan_text(text, shown, language, rules)
        if not any(applicable(f, unsafe) for f in findings):
            break
    return text, total


def fix_report(report: ScanReport, rules: Sequence[Rule], unsafe: bool = False) -> list[FixedFile]:
    """The files of ``report`` that change when their applicable fixes are applied."""
    by_file: dict[str, list[Finding]] = {}
    for finding in report.findings:
        by_file.setdefault(finding.location.path, []).append(finding)
    fixed = []
    for shown, text in report.sources.items():
        findings = by_file.get(shown, [])
        if not any(applicable(f, unsafe) for f in findings):
            continue
        path = report.paths[shown]
        after, applied = fix_text(text, shown, rules, findings, language_of(path), unsafe)
        if after != text:
            fixed.append(FixedFile(shown, path, text, after, applied))
    return fixed


def write(fixed: Sequence[FixedFile], backup: bool = True) -> None:
    """Write every fixed file atomically, keeping ``<name>.orig`` unless ``backup`` is off."""
    for item in fixed:
        if backup:
            target = item.path.with_name(item.path.name + BACKUP_SUFFIX)
            try:
                shutil.copy2(item.path, target)
            except OSError as exc:
                raise OutputError(f"cannot write backup {target}: {exc.strerror or exc}") from exc
        atomic_write(item.path, item.after.encode("utf-8"))
