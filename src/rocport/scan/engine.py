"""Walk files, run the selected rules per language, collect findings and notes."""

from __future__ import annotations

import ast
import gc
import hashlib
import os
import re
import stat
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fnmatch import fnmatch
from fnmatch import translate as fnmatch_translate
from operator import attrgetter
from pathlib import Path

from rocport._diagnostics import Finding
from rocport._fs import special_kind
from rocport.errors import InputError
from rocport.scan.context import CudaSource, PythonSource
from rocport.scan.preprocessor import AMD, Branches
from rocport.scan.registry import Language, Rule, start_scan

CUDA_SUFFIXES = frozenset(
    {
        ".cu",
        ".cuh",
        ".hip",
        ".c",
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".h",
        ".hh",
        ".hpp",
        ".hxx",
        ".inl",
        ".inc",
        ".tpp",
        ".cuinc",
    }
)
PYTHON_SUFFIXES = frozenset({".py"})
NOT_IN_BUILD = "not in the AMD build (compile_commands.json): not scanned as AMD code"
#: Folders that are never source trees of the project itself.
DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "*.egg-info",
)


@dataclass(frozen=True, slots=True)
class Note:
    """Something the scan skipped or could not read, with the reason."""

    path: str
    message: str
    #: a folder or file that could not be read: the scan is incomplete
    unread: bool = False

    def to_dict(self) -> dict:
        return {"path": self.path, "message": self.message}


@dataclass(slots=True)
class ScanReport:
    """Everything one scan found."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    files: int = 0
    bytes: int = 0
    #: file texts (by display path) for files with findings that carry edits
    sources: dict[str, str] = field(default_factory=dict)
    #: display path -> real path, for files in ``sources``
    paths: dict[str, Path] = field(default_factory=dict)
    #: C/C++/CUDA files left out because the AMD build does not compile them
    outside_build: int = 0

    def counts(self) -> Counter[str]:
        return Counter(f.severity.label for f in self.findings)

    @property
    def unread(self) -> list[Note]:
        """The notes of folders and files that could not be read."""
        return [note for note in self.notes if note.unread]


def language_of(path: str | os.PathLike[str]) -> Language | None:
    name = os.path.basename(os.fspath(path))
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""  # as Path.suffix
    if suffix in CUDA_SUFFIXES:
        return Language.CUDA
    if suffix in PYTHON_SUFFIXES:
        return Language.PYTHON
    return None


def display_path(path: str | os.PathLike[str], cwd: Path | None = None) -> str:
    """``path`` relative to the working directory where it lies below it, else as given."""
    base = os.fspath(cwd or Path.cwd().resolve())
    absolute = os.path.normpath(os.path.join(base, path))  # join keeps an absolute path as is
    if absolute == base:
        return "."
    prefix = base.rstrip(os.sep) + os.sep
    if absolute.startswith(prefix):
        return absolute[len(prefix) :].replace(os.sep, "/")
    return Path(path).as_posix()


def iter_files(paths: Sequence[Path], exclude: Sequence[str] = ()) -> Iterable[Path]:
    """Files under ``paths`` (sorted, excluded globs pruned); a missing path is an error."""
    return map(Path, _file_names(paths, exclude))


def _file_names(
    paths: Sequence[Path], exclude: Sequence[str] = (), notes: list[Note] | None = None
) -> Iterable[str]:
    """:func:`iter_files` as path strings (a ``Path`` per file costs more than reading it);
    folders that cannot be read, and given paths that are neither files nor folders, are added
    to ``notes``."""
    patterns = tuple(DEFAULT_EXCLUDES) + tuple(exclude)
    matcher = re.compile("|".join(fnmatch_translate(p) for p in patterns))

    def excluded(name: str, folder: str) -> bool:
        relative = f"{folder}/{name}" if folder else name
        return bool(matcher.match(name) or matcher.match(relative))

    def unreadable(exc: OSError) -> None:
        if notes is not None:
            message = f"skipped: cannot read folder ({exc.strerror or exc})"
            notes.append(Note(display_path(exc.filename), message, unread=True))

    for path in paths:
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        if path.is_file():
            if not any(fnmatch(path.name, p) or fnmatch(path.as_posix(), p) for p in exclude):
                yield os.fspath(path)
            continue
        if not path.is_dir():
            if notes is not None:
                kind = special_kind(path.stat().st_mode)
                notes.append(Note(display_path(path), f"skipped: {kind}, not a regular file"))
            continue
        root = os.fspath(path)
        join = os.path.join
        for folder, dirs, names in os.walk(root, onerror=unreadable):
            # the folder below the root, as a POSIX path (os.walk joins names onto the root)
            below = folder[len(root) :].lstrip(os.sep).replace(os.sep, "/")
            dirs[:] = sorted(d for d in dirs if not excluded(d, below))
            for name in sorted(names):
                if not excluded(name, below):
                    yield join(folder, name)


def scan_text(
    text: str,
    path: str,
    language: Language,
    rules: Sequence[Rule],
    *,
    triggers: bool = True,
    fingerprints: bool = True,
    branches: Branches | None = AMD,
    file: str | None = None,
) -> list[Finding]:
    """Run ``rules`` of ``language`` over one text; raises SyntaxError for bad Python.

    Rules whose triggers or gate rule out a finding in this text are skipped, unless
    ``triggers`` is off (which gives the same findings, more slowly). ``fingerprints`` (for
    JSON and SARIF) gives each finding ``extra["fingerprint"]``. ``branches`` decides which
    ``#if`` branches an AMD build compiles (None: all of them); rules do not see the others,
    unless ``branches.show_dead``, which marks their findings instead. ``file`` is the real
    path, from which included headers are found."""
    selected = [r for r in rules if r.language is language]
    if not selected:
        return []
    if language is Language.PYTHON:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text, filename=path)
        src: CudaSource | PythonSource = PythonSource(path, text, tree)
    else:
        src = CudaSource(path, text)
    dead = branches.dead(src, file) if branches is not None and language is Language.CUDA else ()
    if dead and not branches.show_dead:
        src.code = branches.blank(src.code, dead)
    findings: list[Finding] = []
    for rule in selected:
        if triggers and not rule.may_fire(src):
            continue
        src.rule = rule
        findings.extend(rule.check(src))
    if dead and branches.show_dead:
        branches.mark(findings, dead, text)
    findings.sort(key=_POSITION)
    if findings and fingerprints:
        _add_fingerprints(findings, src.line_text)
    return findings


def _add_fingerprints(findings: list[Finding], line_text: Callable[[int], str]) -> None:
    """Give each finding a fingerprint that survives moving code: rule, path, line text and
    occurrence of that pair (stored in ``extra``, which each finding owns)."""
    seen: dict[tuple[str, str], int] = {}
    contents: dict[int, str] = {}
    blake2b = hashlib.blake2b
    for finding in findings:
        line = finding.location.line
        content = contents.get(line)
        if content is None:
            content = contents[line] = " ".join(line_text(line).split())
        key = (finding.rule, content)
        seen[key] = count = seen.get(key, 0) + 1
        payload = f"{finding.rule}\0{finding.location.path}\0{content}\0{count}"
        finding.extra["fingerprint"] = blake2b(payload.encode(), digest_size=16).hexdigest()


_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
#: where a finding is in its file, and its rule: the order of a file's findings
_POSITION = attrgetter("location.line", "location.column", "rule")
#: Below this many files a process pool costs more than it saves.
MIN_FILES_PER_JOB = 16


def scan_paths(
    paths: Sequence[Path],
    rules: Sequence[Rule],
    exclude: Sequence[str] = (),
    jobs: int = 1,
    *,
    triggers: bool = True,
    fingerprints: bool = True,
    branches: Branches | None = AMD,
    build: frozenset[str] | None = None,
) -> ScanReport:
    """Scan every supported file under ``paths`` with ``rules``, in ``jobs`` processes
    (``triggers``, ``fingerprints`` and ``branches`` as in :func:`scan_text`; headers are
    followed below ``paths`` unless ``branches`` names its roots). ``build``: the real paths
    of the files an AMD build compiles and includes; other C/C++/CUDA files are not scanned
    but noted as outside it."""
    start_scan()
    languages = {r.language for r in rules}
    cwd = Path.cwd().resolve()
    report = ScanReport()
    if branches is not None:
        branches = branches.below(paths)
    given = {os.fspath(path) for path in paths}
    work: list[tuple[str, str, Language]] = []
    for path in _file_names(paths, exclude, report.notes):
        language = language_of(path)
        shown = display_path(path, cwd)
        if language is None:
            if path in given:
                report.notes.append(Note(shown, "skipped: not a C/C++/CUDA/HIP or Python file"))
        elif language in languages:
            if (
                build is not None
                and language is Language.CUDA
                and os.path.realpath(path) not in build
            ):
                report.notes.append(Note(shown, NOT_IN_BUILD))
                report.outside_build += 1
                continue
            work.append((path, shown, language))
    jobs = max(1, min(jobs, len(work) // MIN_FILES_PER_JOB))
    if jobs == 1:
        parts = [_scan_files(work, rules, triggers, fingerprints, branches)]
    else:
        from concurrent.futures import ProcessPoolExecutor

        from rocport._workers import exit_with_parent

        ids = tuple(rule.id for rule in rules)
        chunks = [work[i::jobs] for i in range(jobs)]
        with ProcessPoolExecutor(max_workers=jobs, initializer=exit_with_parent) as pool:
            parts = list(
                pool.map(
                    _scan_files_by_id,
                    chunks,
                    [ids] * jobs,
                    [triggers] * jobs,
                    [fingerprints] * jobs,
                    [branches] * jobs,
                )
            )
    for part in parts:
        report.notes.extend(part.notes)
        report.outside_build += part.outside_build
        report.files += part.files
        report.bytes += part.bytes
        report.findings.extend(part.findings)
        report.sources.update(part.sources)
        report.paths.update(part.paths)
    if len(parts) > 1:  # one process scans the files in order already
        order = {shown: index for index, (_, shown, _) in enumerate(work)}
        report.findings.sort(key=lambda f: order.get(f.location.path, -1))  # stable: keeps lines
        report.notes.sort(key=lambda n: order.get(n.path, -1))
    return report


def _scan_files_by_id(
    work: list[tuple[str, str, Language]],
    ids: tuple[str, ...],
    triggers: bool,
    fingerprints: bool,
    branches: Branches | None,
) -> ScanReport:
    from rocport.scan.rules import BY_ID

    rules = [BY_ID[rule_id] for rule_id in ids]
    return _scan_files(work, rules, triggers, fingerprints, branches)


def _scan_files(
    work: list[tuple[str, str, Language]],
    rules: Sequence[Rule],
    triggers: bool = True,
    fingerprints: bool = True,
    branches: Branches | None = AMD,
) -> ScanReport:
    report = ScanReport()
    with _cycle_collector_paused():
        for path, shown, language in work:
            try:  # O_NONBLOCK: opening a FIFO never blocks; it is then left unread
                fd = os.open(path, _OPEN_FLAGS)
            except OSError as exc:
                message = f"skipped: cannot read ({exc.strerror or exc})"
                report.notes.append(Note(shown, message, unread=True))
                continue
            with open(fd, "rb", buffering=0) as file:  # half the time of read_bytes()
                mode = os.fstat(fd).st_mode
                if not stat.S_ISREG(mode):
                    message = f"skipped: {special_kind(mode)}, not a regular file"
                    report.notes.append(Note(shown, message))
                    continue
                try:
                    data = file.read()
                except OSError as exc:
                    message = f"skipped: cannot read ({exc.strerror or exc})"
                    report.notes.append(Note(shown, message, unread=True))
                    continue
            if b"\0" in data[:8192]:
                report.notes.append(Note(shown, "skipped: binary file"))
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                report.notes.append(Note(shown, f"skipped: not UTF-8 (byte {exc.start})"))
                continue
            try:
                findings = scan_text(
                    text,
                    shown,
                    language,
                    rules,
                    triggers=triggers,
                    fingerprints=fingerprints,
                    branches=branches,
                    file=path,
                )
            except SyntaxError as exc:
                report.notes.append(
                    Note(shown, f"skipped: Python syntax error at line {exc.lineno}")
                )
                continue
            report.files += 1
            report.bytes += len(data)
            report.findings.extend(findings)
            if any(f.fix is not None and f.fix.edits for f in findings):
                report.sources[shown] = text
                report.paths[shown] = Path(path)
    return report


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector: a scan makes no reference cycles (refcounting
    frees all it drops; tests/scan/test_engine.py checks it), so the collector would only walk
    the findings piling up again and again, a few percent of a large scan."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
