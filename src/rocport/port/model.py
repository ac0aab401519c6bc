"""Plain data passed between the translator, the tree driver and the reports."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any

_WHAT = itemgetter(2)


class Outcome(enum.Enum):
    """What became of one CUDA reference."""

    TRANSLATED = "translated"  # rewritten to HIP, or kept on purpose (``<<<>>>``, Thrust, NCCL)
    UNSUPPORTED = "unsupported"  # a known CUDA name with no HIP equivalent for the target release
    UNKNOWN = "unknown"  # looks like CUDA (by prefix) but is not in the mapping


@dataclass(frozen=True, slots=True)
class PortOptions:
    """Choices that change the translation."""

    rocm: str | None = None  # target ROCm release ("6.4"); None means the newest in the data
    blas: str = "hipblas"  # "hipblas" or "rocblas"
    launch: str = "keep"  # "keep" the <<<...>>> syntax, or "ggl" for hipLaunchKernelGGL
    extra_names: tuple[tuple[str, str], ...] = ()  # project-specific CUDA -> HIP names
    #: names the project defines itself (macros such as CUDA_CHECK in a shared header): never
    #: reported as unknown CUDA APIs, whatever their prefix
    local_names: frozenset[str] = frozenset()
    #: "mask-free": CUDA's __shfl_*_sync/__ballot_sync/... become HIP's mask-free forms (whole
    #: wavefront; what a full mask means), because HIP declares the _sync forms only with
    #: HIP_ENABLE_WARP_SYNC_BUILTINS and only for 64-bit masks; "keep": emit the _sync forms
    warp_sync: str = "mask-free"
    offload_arch: tuple[str, ...] = ("gfx90a", "gfx942")  # AMD GPU targets for build files
    #: libraries that the ported sources call while CUDA builds link nothing for them (NVTX 3
    #: is header-only, rocTX is libroctx64): the build files' hipcc link commands get them
    link_needs: tuple[str, ...] = ()


@dataclass(slots=True)  # not frozen: building frozen instances costs 3x on dense files
class Reference:
    """One CUDA reference in a source file (1-based line and column in the input)."""

    name: str
    line: int
    column: int
    outcome: Outcome
    family: str
    hip: str | None = None
    note: str | None = None

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "line": self.line,
            "column": self.column,
            "outcome": self.outcome.value,
            "family": self.family,
            "hip": self.hip,
            "note": self.note,
        }


class Found:
    """References as the translator found them, not yet placed on lines: ``(offset, name, what)``
    in the order of ``offset`` in ``source``, where ``what`` carries the reference's ``outcome``,
    ``family``, ``hip`` and ``note``. A port counts most references and lists only the few not
    translated, so a :class:`Reference` (line and column) is made only for those asked for."""

    __slots__ = ("source", "entries", "_whats", "_untranslated")

    def __init__(self, source: str, entries: list[tuple[int, str, Any]]) -> None:
        self.source = source
        self.entries = entries
        self._whats: list[Any] | None = None
        self._untranslated: list[Reference] | None = None

    def whats(self) -> list[Any]:
        """Each entry's outcome, family, hip and note holder, in order."""
        if self._whats is None:
            self._whats = list(map(_WHAT, self.entries))
        return self._whats

    def untranslated(self) -> list[Reference]:
        """The entries not translated (unsupported or unknown), as references, in order."""
        if self._untranslated is None:
            translated = Outcome.TRANSLATED
            entries = [e for e in self.entries if e[2].outcome is not translated]
            self._untranslated = self.references(entries)
        return self._untranslated

    def references(self, entries: Iterable[tuple[int, str, Any]] | None = None) -> list[Reference]:
        """``entries`` (default: all), in order, as references with their line and column."""
        text = self.source
        count = text.count
        rfind = text.rfind
        refs = []
        line = 1
        line_start = 0  # of the line holding ``last``: searched for only when lines change,
        last = 0  # so that many references on one long line cost linear time, not quadratic
        for offset, name, what in self.entries if entries is None else entries:
            newlines = count("\n", last, offset)
            if newlines:
                line += newlines
                line_start = rfind("\n", last, offset) + 1
            last = offset
            refs.append(
                Reference(
                    name, line, offset - line_start + 1, what.outcome, what.family, what.hip,
                    what.note,
                )
            )  # fmt: skip
        return refs


class Translation:
    """The result of translating one text: the text, its references (a list of
    :class:`Reference`, or :class:`Found` to be placed on lines only when asked for) and the
    1-based output lines that the translator inserted (no input line maps to them)."""

    __slots__ = ("text", "inserted_lines", "_references", "_found")

    def __init__(
        self,
        text: str,
        references: list[Reference] | Found | None = None,
        inserted_lines: list[int] | None = None,
    ) -> None:
        self.text = text
        self.inserted_lines = inserted_lines if inserted_lines is not None else []
        self._found = references if isinstance(references, Found) else None
        self._references = None if self._found is not None else list(references or ())

    def __repr__(self) -> str:
        return f"Translation({self.text!r}, {self.references!r}, {self.inserted_lines!r})"

    @property
    def references(self) -> list[Reference]:
        if self._references is None:
            assert self._found is not None
            self._references = self._found.references()
        return self._references

    def with_text(self, text: str, inserted_lines: list[int]) -> Translation:
        """This translation with another text and inserted lines, the same references."""
        return Translation(text, self._found or self._references, inserted_lines)

    def has_references(self) -> bool:
        return bool(self._found.entries if self._found is not None else self.references)

    def whats(self) -> list[Any]:
        """What was found of each reference, in order: each has ``outcome``, ``family``,
        ``hip`` and ``note`` (references need not be placed on lines for it)."""
        return self._found.whats() if self._found is not None else self.references

    def untranslated(self) -> list[Reference]:
        """The references that were not translated (unsupported or unknown), in order."""
        if self._found is not None:
            return self._found.untranslated()
        return [r for r in self.references if r.outcome is not Outcome.TRANSLATED]

    @property
    def counts(self) -> Counter[str]:
        whats = self.whats()
        counts = Counter(what.outcome.value for what in whats)
        counts["found"] = len(whats)
        return counts


class FileStatus(enum.Enum):
    """What the tree driver did with one file."""

    TRANSLATED = "translated"  # a source or build file whose CUDA references were rewritten
    UNCHANGED = "unchanged"  # a source file without CUDA references: copied byte for byte
    ALREADY_HIP = "already-hip"  # includes a HIP runtime header and has no CUDA reference left
    COPIED = "copied"  # not a source file: copied untouched
    EXCLUDED = "excluded"  # left out by globs, compile_commands.json or rocport: skip-file
    BINARY = "binary"  # a source-named file with NUL bytes: copied untouched
    SYMLINK = "symlink"  # a symbolic link: recreated, never followed
    SKIPPED = "skipped"  # a FIFO, socket or device: never read, nothing written
    ADDED = "added"  # a support header rocport adds to the port (rocport.port.support)


#: outcome name -> count, for each API family
FamilyCounts = dict[str, dict[str, int]]

_OUTCOMES = tuple(outcome.value for outcome in Outcome)
_COUNTED = ("found", *_OUTCOMES)
_COUNT_GETTERS = tuple((key, itemgetter(key)) for key in _COUNTED)
_FAMILY = attrgetter("family")


def empty_counts() -> dict[str, int]:
    """Zero counts for ``found`` and every :class:`Outcome`."""
    return dict.fromkeys(_COUNTED, 0)


def total_counts(many: Iterable[dict[str, int]]) -> dict[str, int]:
    """The sum of counts (each as :func:`empty_counts` makes them), key by key in C."""
    many = many if isinstance(many, list) else list(many)
    return {key: sum(map(get, many)) for key, get in _COUNT_GETTERS}


@dataclass(slots=True)
class FileReport:
    """What happened to one file of a tree.

    Only the references that were *not* translated are kept one by one (``issues``); all of
    them are counted per API family, so that a report on a large tree stays small.
    """

    path: str  # relative to the source root, with "/" separators
    kind: str  # "source", "build" or "other"
    status: FileStatus
    output: str | None = None  # where the result lives (None when nothing is written: --examine)
    written: bool = False  # bytes written during this run (False: the output already held them)
    size: int = 0
    families: FamilyCounts = field(default_factory=dict)
    issues: list[Reference] = field(default_factory=list)
    message: str | None = None  # why a file was copied untouched (binary, not UTF-8, ...)
    backup: str | None = None  # --in-place: the backup that holds the bytes replaced
    compiled: bool | None = None  # --check result: None when not checked
    check_message: str | None = None
    #: a project header this file includes (maybe through others) that still holds CUDA code
    partial_include: str | None = None

    @classmethod
    def from_translation(cls, path: str, kind: str, translation: Translation, **kw) -> FileReport:
        families: FamilyCounts = {}
        for family, n in Counter(map(_FAMILY, translation.whats())).items():  # counted in C;
            counts = families[family] = empty_counts()  # then the few references not
            counts["found"] = counts["translated"] = n  # translated move to their outcome
        issues = translation.untranslated()
        for ref in issues:
            counts = families[ref.family]
            counts["translated"] -= 1
            counts[ref.outcome.value] += 1
        return cls(path, kind, families=families, issues=issues, **kw)

    @property
    def counts(self) -> dict[str, int]:
        return total_counts(self.families.values())

    @property
    def on_disk(self) -> bool:
        """The output file holds this result (written now, or already identical)."""
        return self.output is not None

    @property
    def converted(self) -> bool:
        """Translated, on disk, nothing left over, and (with --check) it compiled."""
        return self.converted_with(self.counts)

    def converted_with(self, counts: dict[str, int]) -> bool:
        """:attr:`converted`, given this file's :attr:`counts` (summed once by callers that
        need them for other things too)."""
        return (
            self.status is FileStatus.TRANSLATED
            and self.on_disk
            and counts["unsupported"] == 0
            and counts["unknown"] == 0
            and self.partial_include is None
            and self.compiled is not False
        )

    def to_dict(self) -> dict:
        counts = self.counts
        return {
            "path": self.path,
            "kind": self.kind,
            "status": self.status.value,
            "output": self.output,
            "written": self.written,
            "converted": self.converted_with(counts),
            "compiled": self.compiled,
            "size": self.size,
            "message": self.message,
            "backup": self.backup,
            "check_message": self.check_message,
            "partial_include": self.partial_include,
            "counts": counts,
            "families": {name: dict(c) for name, c in sorted(self.families.items())},
            "issues": [ref.to_dict() for ref in self.issues],
        }


@dataclass(slots=True)
class TreeReport:
    """What happened to a whole tree (or a single file)."""

    source: str
    output: str | None  # the output root; the source itself with --in-place; None with --examine
    mode: str  # "mirror", "in-place" or "examine"
    options: PortOptions
    files: list[FileReport] = field(default_factory=list)
    seconds: float = 0.0
    jobs: int = 1
    #: with --check: the toolchain, GPU targets and unit counts of the compile check
    check: dict | None = None

    @property
    def counts(self) -> dict[str, int]:
        return total_counts(report.counts for report in self.files)

    @property
    def families(self) -> FamilyCounts:
        by_family: dict[str, list[dict[str, int]]] = {}
        for report in self.files:
            for name, counts in report.families.items():
                by_family.setdefault(name, []).append(counts)
        return {name: total_counts(by_family[name]) for name in sorted(by_family)}

    @property
    def statuses(self) -> dict[str, int]:
        counts = dict.fromkeys((status.value for status in FileStatus), 0)
        for report in self.files:
            counts[report.status.value] += 1
        return counts

    @property
    def issues(self) -> list[tuple[FileReport, Reference]]:
        return [(report, ref) for report in self.files for ref in report.issues]

    @property
    def failed_checks(self) -> list[FileReport]:
        return [report for report in self.files if report.compiled is False]
