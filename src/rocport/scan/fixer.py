"""Apply fixes: safe ones by default, unsafe ones on request; diff and write safely.

Writing goes through :func:`rocport._fs.replace_all`: a file is replaced only if it still
holds the text that was scanned, after its whole backup (``FILE.orig``, or ``FILE.orig.N`` when
an earlier backup holds other bytes) is on disk; its mode is kept; a symlink's target is
edited. :func:`locked` keeps a second run out of the folders being fixed.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from rocport._diagnostics import Applicability, Edit, Finding
from rocport._fs import (
    ChangedError,
    FileEdit,
    Replaced,
    folder_lock,
    remove_stale_temps,
    replace_all,
)
from rocport._printable import printable
from rocport.scan.engine import ScanReport, language_of, scan_text
from rocport.scan.registry import Rule

#: Re-scan after applying fixes at most this many times (a fix can enable another one).
MAX_PASSES = 4


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
                fromfile=f"a/{printable(self.shown)}",
                tofile=f"b/{printable(self.shown)}",
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


@dataclass(frozen=True, slots=True)
class Outcome:
    """What writing one fixed file did: ``done`` (None: left as it is) and why."""

    item: FixedFile
    done: Replaced | None
    message: str | None = None


def write(fixed: Sequence[FixedFile], backup: bool = True) -> list[Outcome]:
    """Write every fixed file in place, keeping a backup unless ``backup`` is off; a file that
    changed since it was scanned is left as it is, and one reached twice (through a symlink)
    is written once."""
    unique: list[FixedFile] = []
    seen: set[str] = set()
    for item in fixed:
        real = os.path.realpath(item.path)
        if real not in seen:
            seen.add(real)
            unique.append(item)
    edits = [
        FileEdit(item.path, item.after.encode("utf-8"), item.before.encode("utf-8"))
        for item in unique
    ]
    outcomes = []
    for item, done in zip(unique, replace_all(edits, backup=backup), strict=True):
        if isinstance(done, ChangedError):
            message = "changed after it was scanned; left as it is (run again)"
            outcomes.append(Outcome(item, None, message))
            continue
        linked = item.path.is_symlink()
        message = f"a symlink: its target {done.target} was edited" if linked else None
        outcomes.append(Outcome(item, done, message))
    return outcomes


def summary(outcomes: Sequence[Outcome]) -> list[str]:
    """The lines that tell what :func:`write` did: totals, where the backups are, and every
    file that was left as it is or reached through a symlink."""
    written = [o for o in outcomes if o.done is not None]
    total = sum(o.item.applied for o in written)
    line = (
        f"Fixed {total} finding{'s' if total != 1 else ''} in {len(written)} "
        f"file{'s' if len(written) != 1 else ''}"
    )
    backups = [o.done.backup for o in written if o.done.backup is not None]
    if backups:
        numbered = [o for o in written if o.done.numbered]
        line += " (backups: <file>.orig"
        if numbered:
            line += (
                f"; {len(numbered)} numbered <file>.orig.N, e.g. "
                f"{printable(str(numbered[0].done.backup))}, because <file>.orig held other bytes"
            )
        line += ")"
    lines = [line + "."]
    lines.extend(
        f"{printable(o.item.shown)}: {printable(o.message)}" for o in outcomes if o.message
    )
    return lines


@contextmanager
def locked(paths: Sequence[Path]) -> Iterator[None]:
    """Lock the folders that a fix writes in (each folder given, a given file's folder) and
    remove the temporary files that a killed run left there."""
    folders: dict[str, tuple[Path, str | None]] = {}
    for path in paths:
        if not path.exists():
            continue  # the scan reports it
        folder, only = (path, None) if path.is_dir() else (path.parent, path.name)
        key = os.path.realpath(folder)
        if key not in folders:
            folders[key] = (folder, only)
        elif folders[key][1] != only:  # the folder and a file in it, or two files: all of it
            folders[key] = (folders[key][0], None)
    with ExitStack() as stack:
        for key in sorted(folders):
            folder, only = folders[key]
            stack.enter_context(folder_lock(folder))
            remove_stale_temps(folder, frozenset(_SKIP), only=only)
        yield


_SKIP = (".git", ".hg", ".svn")
