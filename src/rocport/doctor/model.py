"""The result of one doctor check, and the report that collects them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """Outcome of a check; only ``FAIL`` makes ``rocport doctor`` exit 1."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True)
class CheckResult:
    """What one check found, and how to fix it when it did not pass."""

    id: str
    group: str
    title: str
    status: Status
    found: str
    fix: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "group": self.group,
            "title": self.title,
            "status": self.status.value,
            "found": self.found,
            "fix": self.fix,
            "details": self.details,
        }


@dataclass(frozen=True)
class Report:
    """Every check result of one doctor run."""

    rocm_release: str
    root: str | None
    results: tuple[CheckResult, ...]

    @property
    def failed(self) -> bool:
        return any(r.status is Status.FAIL for r in self.results)

    def counts(self) -> dict[str, int]:
        return {s.value: sum(r.status is s for r in self.results) for s in Status}

    def to_dict(self, version: str) -> dict[str, Any]:
        return {
            "schema": 1,
            "tool": {"name": "rocport", "version": version},
            "rocm_release": self.rocm_release,
            "root": self.root,
            "ok": not self.failed,
            "summary": self.counts(),
            "checks": [r.to_dict() for r in self.results],
        }
