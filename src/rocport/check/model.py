"""Results of ``rocport check``: a :class:`UnitResult` per translation unit, in a report."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from rocport.check.sourcemap import ChangedName

#: version of the JSON shape written by :meth:`CheckReport.to_dict`
SCHEMA = 1


class Status(enum.Enum):
    """What became of one translation unit."""

    PASSED = "passed"  # compiled for every requested GPU target
    FAILED = "failed"  # the compiler rejected it
    UNAVAILABLE = "unavailable"  # a library it includes is not installed in this toolchain


class Mode(enum.Enum):
    """Which compilation passes ran."""

    FULL = "full"  # host and device code (``-c``)
    DEVICE_ONLY = (
        "device-only"  # GPU code only (``--offload-device-only``): a host library is missing
    )


@dataclass(slots=True)
class Site:
    """A second place that explains a diagnostic: the macro body it was spelled in, or the line
    of the tree that led into a toolchain header (an include or a template instantiation)."""

    kind: str  # "macro" or "context"
    file: str
    line: int
    column: int | None
    detail: str  # the macro's name, or the note's message
    cuda_file: str | None = None
    cuda_line: int | None = None
    at_column: ChangedName | None = None  # the changed name at the site's column

    def to_dict(self) -> dict:
        return {
            "at_column": self.at_column.to_dict() if self.at_column else None,
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "detail": self.detail,
            "cuda_file": self.cuda_file,
            "cuda_line": self.cuda_line,
        }


@dataclass(slots=True)
class Diagnostic:
    """A compiler error or warning, with where it came from in the CUDA original."""

    file: str | None  # relative to the checked tree when inside it, else as the compiler printed it
    line: int | None
    column: int | None
    severity: str
    message: str
    passes: list[str] = field(default_factory=list)  # GPU targets / "host" that reported it
    cuda_file: str | None = None
    cuda_line: int | None = None
    inserted: bool = False  # the line was inserted by the port (no CUDA line)
    changed: list[ChangedName] = field(default_factory=list)  # names the port changed there
    at_column: ChangedName | None = None  # the changed name under the diagnostic's column
    site: Site | None = None  # the macro body or tree line that explains it

    def to_dict(self) -> dict:
        cuda = None
        if self.cuda_file is not None:
            cuda = {
                "file": self.cuda_file,
                "line": self.cuda_line,
                "inserted": self.inserted,
                "changed": [name.to_dict() for name in self.changed],
                "at_column": self.at_column.to_dict() if self.at_column else None,
            }
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "message": self.message,
            "passes": list(self.passes),
            "site": self.site.to_dict() if self.site else None,
            "cuda": cuda,
        }


@dataclass(slots=True)
class UnitResult:
    """One translation unit compiled for the requested GPU targets."""

    path: str  # relative to the checked tree, "/" separators
    status: Status
    mode: Mode
    seconds: float
    command: list[str]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    missing_headers: list[str] = field(default_factory=list)  # not found in this toolchain
    #: folders of the tree added with -I: they hold headers the given -I folders did not reach
    include_dirs_found: list[str] = field(default_factory=list)
    cuda_file: str | None = None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "status": self.status.value,
            "mode": self.mode.value,
            "seconds": round(self.seconds, 3),
            "cuda_file": self.cuda_file,
            "missing_headers": list(self.missing_headers),
            "include_dirs_found": list(self.include_dirs_found),
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "command": list(self.command),
        }


@dataclass(slots=True)
class CheckReport:
    """Every translation unit of a tree, compiled with one toolchain."""

    tree: str
    toolchain: dict
    offload_arch: list[str]
    flags: list[str]
    units: list[UnitResult] = field(default_factory=list)
    seconds: float = 0.0
    jobs: int = 1

    @property
    def counts(self) -> dict[str, int]:
        counts = {status.value: 0 for status in Status}
        for unit in self.units:
            counts[unit.status.value] += 1
        counts["units"] = len(self.units)
        return counts

    @property
    def ok(self) -> bool:
        """Every unit compiled (an empty tree is not a success: nothing was proven)."""
        return bool(self.units) and all(u.status is Status.PASSED for u in self.units)

    def unit(self, path: str) -> UnitResult:
        for unit in self.units:
            if unit.path == path:
                return unit
        raise KeyError(path)

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "tree": self.tree,
            "toolchain": dict(self.toolchain),
            "offload_arch": list(self.offload_arch),
            "flags": list(self.flags),
            "jobs": self.jobs,
            "seconds": round(self.seconds, 3),
            "ok": self.ok,
            "counts": self.counts,
            "units": [unit.to_dict() for unit in self.units],
        }
