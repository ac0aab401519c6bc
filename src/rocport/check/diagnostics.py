"""Read clang's diagnostics (``file:line:col: error: message``) from a hipcc run.

With several ``--offload-arch`` values clang compiles the file once per GPU target and once for
the host, and repeats a diagnostic in each pass; each pass ends with
``N errors generated when compiling for gfx942.`` (or ``for host.``). The parser keeps one
:class:`CompilerDiagnostic` per distinct message and records in which passes it appeared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?:(?P<column>\d+):)?\s+"
    r"(?P<severity>fatal error|error|warning|note|remark):\s+(?P<message>.*?)\s*$"
)
_DRIVER_ERROR = re.compile(
    r"^(?:clang(?:\+\+)?(?:-\d+)?|hipcc|ld\.lld|lld):\s+error:\s+(?P<message>.*)$"
)
_PASS_END = re.compile(
    r"^\d+ (?:errors?|warnings?)(?: and \d+ (?:errors?|warnings?))? generated"
    r"(?: when compiling for (?P<target>\S+?))?\.$"
)
_MISSING_HEADER = re.compile(r"^'(?P<header>[^']+)' file not found$")


@dataclass(slots=True)
class CompilerDiagnostic:
    """One distinct diagnostic, with the compilation passes (GPU targets, ``host``) that gave it."""

    file: str | None
    line: int | None
    column: int | None
    severity: str  # "error" (fatal errors too), "warning", "note", "remark"
    message: str
    passes: list[str] = field(default_factory=list)
    fatal: bool = False
    notes: list[CompilerDiagnostic] = field(default_factory=list)  # the notes printed after it

    @property
    def missing_header(self) -> str | None:
        """The header named by a ``'x.h' file not found`` error."""
        match = _MISSING_HEADER.match(self.message)
        return match["header"] if match and self.severity == "error" else None

    def key(self) -> tuple:
        return (self.file, self.line, self.column, self.severity, self.message)


def parse_diagnostics(output: str) -> list[CompilerDiagnostic]:
    """The distinct diagnostics in ``output``, in first-seen order, with their passes.

    Notes (``expanded from macro``, ``in instantiation of ... requested here``) are not
    diagnostics of their own: they are kept in the :attr:`CompilerDiagnostic.notes` of the
    diagnostic they follow.
    """
    seen: dict[tuple, CompilerDiagnostic] = {}
    pending: list[CompilerDiagnostic] = []  # diagnostics of the pass now being printed
    last: CompilerDiagnostic | None = None  # the diagnostic that notes belong to
    last_fresh = False  # it was seen for the first time (a repeat's notes are repeats too)
    for raw in output.splitlines():
        line = raw.rstrip()
        if match := _DIAGNOSTIC.match(line):
            severity = match["severity"]
            diag = CompilerDiagnostic(
                file=match["file"],
                line=int(match["line"]),
                column=int(match["column"]) if match["column"] else None,
                severity="error" if severity == "fatal error" else severity,
                message=match["message"],
                fatal=severity == "fatal error",
            )
        elif match := _DRIVER_ERROR.match(line):
            diag = CompilerDiagnostic(None, None, None, "error", match["message"].strip())
        elif match := _PASS_END.match(line):
            for diag in pending if match["target"] else ():
                if match["target"] not in diag.passes:
                    diag.passes.append(match["target"])
            pending = []
            continue
        else:
            continue
        if diag.severity == "note":
            if last is not None and last_fresh:
                last.notes.append(diag)
            continue
        last_fresh = diag.key() not in seen
        last = diag = seen.setdefault(diag.key(), diag)
        pending.append(diag)
    return list(seen.values())
