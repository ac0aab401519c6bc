"""Shared vocabulary of findings: used by ``port`` reports and ``scan`` results.

The records are plain (not frozen) slotted dataclasses: a scan builds tens of thousands of
them, and a frozen dataclass pays for ``object.__setattr__`` on every field.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field


class Severity(enum.IntEnum):
    """How much a finding matters; ordered so that ``>=`` compares strength."""

    NOTE = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.upper()]
        except KeyError:
            choices = ", ".join(s.name.lower() for s in cls)
            raise ValueError(f"unknown severity {text!r} (choose from {choices})") from None

    @property
    def label(self) -> str:
        return self.name.lower()


class Applicability(enum.Enum):
    """Whether a fix may be applied mechanically (ruff's terms)."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(slots=True)
class Location:
    """A 1-based line and column in a file."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(slots=True)
class Edit:
    """Replace ``source[start:end]`` (character offsets) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(slots=True)
class Fix:
    """A described set of edits with its applicability."""

    title: str
    edits: tuple[Edit, ...] = ()
    applicability: Applicability = Applicability.DISPLAY_ONLY


@dataclass(slots=True)
class Finding:
    """One reported problem at one place."""

    rule: str
    severity: Severity
    location: Location
    message: str
    fix: Fix | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        data = {
            "rule": self.rule,
            "severity": self.severity.label,
            "path": self.location.path,
            "line": self.location.line,
            "column": self.location.column,
            "message": self.message,
        }
        if self.fix is not None:
            data["fix"] = {
                "title": self.fix.title,
                "applicability": self.fix.applicability.value,
                "edits": [asdict(e) for e in self.fix.edits],
            }
        if self.extra:
            data["extra"] = dict(self.extra)
        return data


def line_starts(text: str) -> list[int]:
    """Offsets at which each line of ``text`` starts (for offset -> line/column)."""
    starts = [0]
    find = text.find
    pos = find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = find("\n", pos + 1)
    return starts


def offset_to_line_col(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset, given :func:`line_starts`."""
    from bisect import bisect_right

    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1
