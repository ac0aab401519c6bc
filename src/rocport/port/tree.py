"""Walk a source tree, classify its files, translate them (in parallel for big trees) and write
the results.

Work happens in two phases so that a failure never leaves a half-converted tree behind:

1. *plan and translate*: every selected source and build file is read, checked (NUL bytes,
   UTF-8) and translated in memory; worker processes do this for big trees;
2. *write*: once every result is known (and, with ``--in-place``, every backup is known to be
   safe), outputs are written one by one through :mod:`rocport._fs` (temporary file + rename).
   Outputs that already hold the right bytes are not touched, so timestamps stay and builds
   do not rebuild.

File names are kept (``kernel.cu`` stays ``kernel.cu``), so ``#include "kernel.cuh"`` still
resolves in the output tree; hipcc compiles ``.cu`` files as HIP with ``-x hip``.

FIFOs, sockets and devices are skipped (reading one could block forever); a folder or a file to
copy that cannot be read stops the port in phase 1, before anything is written. With
``--in-place`` the files are replaced by :func:`rocport._fs.replace_all` (unchanged since
read, whole backups synced first, modes kept); the mirror never writes through a symlinked
folder of the output.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from rocport._fs import (
    TEMP_NAME,
    ChangedError,
    FileEdit,
    Snapshot,
    copy_if_changed,
    open_regular,
    read_regular,
    replace_all,
    special_kind,
    temp_path,
    write_if_changed,
)
from rocport._workers import exit_with_parent
from rocport.errors import InputError, OutputError
from rocport.port import directives
from rocport.port.build import build_system
from rocport.port.model import FileReport, FileStatus, PortOptions, Translation
from rocport.port.scanner import project_declarations
from rocport.port.translator import defined_macros

if TYPE_CHECKING:  # rocport.check loads only when a port is compiled
    from rocport.check.sourcemap import FileMap

SOURCE_SUFFIXES = frozenset(
    {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inl", ".inc"}
)
#: version-control folders: never copied, never translated
SKIP_DIRS = frozenset({".git", ".hg", ".svn"})
#: the file that marks a folder as the output of ``rocport port`` (never copied from an input)
OUTPUT_MARKER = ".rocport-output"

#: below this many files or bytes to translate, a process pool costs more than it saves
PARALLEL_MIN_FILES = 16
PARALLEL_MIN_BYTES = 512 * 1024

_HIP_RUNTIME_INCLUDE = re.compile(
    r'^[ \t]*#[ \t]*include[ \t]*[<"]hip/hip_runtime(?:_api)?\.h[>"]', re.MULTILINE
)

Translate = Callable[..., Translation]
#: called as ``progress(done, total)`` after each translated file
Progress = Callable[[int, int], None]
Migrate = Callable[[Path, str, PortOptions], Translation | None]


def classify(path: Path) -> str:
    """``"source"``, ``"build"`` or ``"other"``, from the file name alone."""
    if path.suffix.lower() in SOURCE_SUFFIXES:
        return "source"
    return "build" if build_system(path) is not None else "other"


@dataclass(frozen=True, slots=True)
class Item:
    """One file of the input and where its result goes."""

    rel: str  # relative to the source root, "/" separators
    src: Path
    dest: Path | None  # None with --examine
    kind: str  # "source", "build", "other", "symlink" or "special" (FIFO, socket, device)
    selected: bool = True  # False: left out by globs or compile_commands.json (copied untouched)


Read = tuple[bytes, os.stat_result]


def read_sources(items: list[Item]) -> dict[str, Read]:
    """The bytes and status of every source file by relative path, read once for
    :func:`defined_names` and the translation (:attr:`Engine.reads`); one that cannot be read is
    left out (translating it reports why)."""
    reads = {}
    for item in items:
        if item.kind == "source":
            with suppress(InputError):
                reads[item.rel] = read_regular(item.src)
    return reads


def defined_names(items: list[Item], mapping, reads: dict[str, Read]) -> frozenset[str]:
    """CUDA-looking macro names that the tree's own source files ``#define`` and the mapping
    does not know (``CUDA_CHECK``, ``cudaCheck``): the project's names, not CUDA APIs."""
    names: set[str] = set()
    for item in items:
        if item.kind == "source" and item.rel in reads:
            text = reads[item.rel][0].decode("utf-8", "replace")
            names.update(defined_macros(text))
            if item.rel.endswith(_HEADER_SUFFIXES):  # declarations other files may use
                names.update(project_declarations(text, mapping))
    return frozenset(n for n in names if mapping.is_cuda_like(n) and mapping.lookup(n) is None)


_HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc")


def walk(root: Path) -> Iterator[tuple[str, Path]]:
    """``(relative path, path)`` of every file and symlink under ``root``, sorted; symlinked
    folders are yielded as links, never followed; version-control folders, the output marker
    and our own temporary files are skipped. A folder that cannot be read is an
    :class:`InputError`: leaving it out would give an incomplete tree without a word."""

    def unreadable(exc: OSError) -> None:
        raise InputError(f"cannot read folder {exc.filename}: {exc.strerror or exc}")

    for folder, dirnames, filenames in os.walk(root, onerror=unreadable):
        base = Path(folder)
        links = [name for name in dirnames if (base / name).is_symlink()]
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and d not in links)
        for name in sorted([*filenames, *links]):
            if name == OUTPUT_MARKER or TEMP_NAME.fullmatch(name):
                continue
            path = base / name
            yield path.relative_to(root).as_posix(), path


def kind_of(path: Path) -> str:
    """The :attr:`Item.kind` of ``path``, from ``lstat`` and the file name."""
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        return "symlink"
    if not stat.S_ISREG(mode):
        return "special"
    return classify(path)


@dataclass(slots=True)
class FileResult:
    """A planned item with its report and, when its output must change, the new bytes."""

    item: Item
    report: FileReport
    payload: bytes | None = None  # translated bytes (None: copy the input untouched)
    file_map: FileMap | None = None  # output line -> input line, when the engine keeps them
    read: Snapshot | None = None  # what the input held when it was read (for --in-place)


# -- phase 1: translate (in this process or a worker) --------------------------------------


def _decode(data: bytes) -> tuple[str, str | None]:
    """The text of ``data``, and a note where it holds bytes that are not UTF-8 (a
    Windows-1252 ``é`` in a string): such a file is translated all the same, and those bytes
    are written back exactly as read (``surrogateescape`` both ways)."""
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        note = (
            f"not all UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "such bytes are kept exactly as read"
        )
        return data.decode("utf-8", "surrogateescape"), note


@dataclass(frozen=True)
class Engine:
    """What translating needs: the translator, the build-file migrator, the mapping, the options."""

    translate: Translate
    migrate: Migrate
    mapping: object
    options: PortOptions
    source_maps: bool = False  # keep each source file's line map (for compiling the output)
    snapshots: bool = False  # keep what each changed input held when read (for --in-place)
    #: sources read already (:func:`read_sources`), each taken by the run that translates it
    reads: dict[str, Read] = field(default_factory=dict, compare=False)

    def run(self, item: Item) -> FileResult:
        """Read and translate one selected source or build file; nothing is written here."""
        read = self.reads.pop(item.rel, None)
        data, st = read if read is not None else read_regular(item.src)

        def untouched(status: FileStatus, message: str | None = None, kind: str = item.kind):
            return FileResult(
                item, FileReport(item.rel, kind, status, size=len(data), message=message)
            )

        if b"\0" in data:
            return untouched(FileStatus.BINARY, "binary (contains NUL bytes); copied untouched")
        text, not_utf8 = _decode(data)
        if item.kind == "build":
            try:
                translation = self.migrate(item.src, text, self.options)
            except InputError as exc:  # one odd build file must not stop the port of a tree
                return untouched(FileStatus.COPIED, f"not migrated: {exc}; copied untouched")
            if translation is None:
                return untouched(FileStatus.COPIED, kind="other")
        elif directives.skips_file(text):
            return untouched(FileStatus.EXCLUDED, "rocport: skip-file")
        else:
            try:
                translation = self.translate(
                    text, path=str(item.src), mapping=self.mapping, options=self.options
                )
            except Exception as exc:
                exc.add_note(f"while translating {item.src}")
                raise
        if not translation.has_references() and translation.text == text:
            hip = _HIP_RUNTIME_INCLUDE.search(text) is not None
            return untouched(FileStatus.ALREADY_HIP if hip else FileStatus.UNCHANGED)
        report = FileReport.from_translation(
            item.rel,
            item.kind,
            translation,
            status=FileStatus.TRANSLATED,
            size=len(data),
            message=not_utf8,
        )
        payload = translation.text.encode("utf-8", "surrogateescape")
        file_map = None
        if self.source_maps and item.kind == "source":
            from rocport.check.sourcemap import FileMap

            file_map = FileMap.from_translation(item.rel, translation)
        if payload == data:
            return FileResult(item, report, None, file_map)
        read = Snapshot.of(data, st) if self.snapshots else None
        return FileResult(item, report, payload, file_map, read)


_ENGINE: Engine | None = None  # set in each worker process by _start_worker


def _start_worker(engine: Engine) -> None:
    global _ENGINE
    _ENGINE = engine
    exit_with_parent()


def _run_in_worker(item: Item) -> FileResult:
    assert _ENGINE is not None, "worker not initialised"
    return _ENGINE.run(item)


def plain_result(item: Item) -> FileResult:
    """The outcome of a file that is copied (or linked, or skipped) untouched; a file to copy
    that cannot be read is an :class:`InputError` here, before anything is written."""
    if item.kind == "symlink":
        target = os.readlink(item.src)
        report = FileReport(item.rel, "other", FileStatus.SYMLINK, message=f"-> {target}")
        return FileResult(item, report)
    if item.kind == "special":
        what = special_kind(os.lstat(item.src).st_mode)
        message = f"{what}, not a regular file; skipped"
        return FileResult(item, FileReport(item.rel, "other", FileStatus.SKIPPED, message=message))
    status = FileStatus.EXCLUDED if item.kind in ("source", "build") else FileStatus.COPIED
    message = (
        "not selected by include/exclude globs or the build"
        if status is FileStatus.EXCLUDED
        else None
    )
    if item.dest is not None and item.dest != item.src:  # to be copied: it must be readable
        fd, st = open_regular(item.src)
        os.close(fd)
        size = st.st_size
    else:
        size = item.src.stat().st_size
    return FileResult(item, FileReport(item.rel, item.kind, status, size=size, message=message))


def translate_items(
    items: list[Item], engine: Engine, *, jobs: int, progress: Progress | None = None
) -> list[FileResult]:
    """Translate the selected source and build items, in a process pool when it pays off."""
    work = [item for item in items if item.selected and item.kind in ("source", "build")]
    done: dict[str, FileResult] = {}
    if (
        jobs <= 1
        or len(work) < PARALLEL_MIN_FILES
        or sum(item.src.stat().st_size for item in work) < PARALLEL_MIN_BYTES
    ):
        _collect(map(engine.run, work), done, progress, len(work))
    else:
        from concurrent.futures import ProcessPoolExecutor  # loads multiprocessing: only here

        # one source file here first: workers forked after it inherit what it compiled (the
        # translator's scanner and rules) instead of each compiling it again
        first = next((i for i, item in enumerate(work) if item.kind == "source"), 0)
        head = engine.run(work[first])
        rest = work[:first] + work[first + 1 :]
        chunk = max(1, min(32, len(work) // (jobs * 8)))
        with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(engine,)) as pool:
            results = chain([head], pool.map(_run_in_worker, rest, chunksize=chunk))
            _collect(results, done, progress, len(work))
    return [done.get(item.rel) or plain_result(item) for item in items]


def _collect(
    results: Iterator[FileResult], into: dict[str, FileResult], progress, total: int
) -> None:
    for result in results:
        into[result.item.rel] = result
        if progress is not None:
            progress(len(into), total)


# -- phase 2: write ----------------------------------------------------------------------


def link_if_changed(target: str, dest: Path) -> bool:
    """Create the symlink ``dest -> target`` atomically unless it already exists."""
    if dest.is_symlink() and os.readlink(dest) == target:
        return False
    tmp = temp_path(dest)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, tmp)
        os.replace(tmp, dest)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {dest}: {exc.strerror or exc}") from exc
    return True


def mirrored_link(link: Path, src_root: Path, out_root: Path) -> str:
    """The target to give the copy of ``link``: the same text, except that an absolute link into
    the source tree is redirected to the same place in the output tree."""
    target = os.readlink(link)
    if os.path.isabs(target):
        resolved = Path(os.path.normpath(target))
        root = src_root.resolve()
        if resolved.is_relative_to(root):
            return str(out_root.resolve() / resolved.relative_to(root))
    return target


def check_output_folders(results: list[FileResult], out_root: Path) -> None:
    """Refuse, before anything is written, an output path whose folder below ``out_root`` is a
    symlink (or not a folder): writing there would write through the link, out of the tree."""
    checked: set[Path] = set()
    parents: set[Path] = set()  # the check depends on the folder only: once per folder
    for result in results:
        dest = result.item.dest
        if dest is None or result.item.kind == "special" or dest.parent in parents:
            continue
        parents.add(dest.parent)
        for folder in reversed(dest.relative_to(out_root).parents[:-1]):
            path = out_root / folder
            if path in checked:
                continue
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                break  # created by the write, below a real folder
            if stat.S_ISLNK(mode):
                raise OutputError(
                    f"{path} is a symlink; rocport never writes through one "
                    "(remove it, or choose another output folder)"
                )
            if not stat.S_ISDIR(mode):
                raise OutputError(f"cannot write {dest}: {path} is not a folder")
            checked.add(path)


def write_results(
    results: list[FileResult],
    *,
    in_place: bool,
    backup: bool,
    src_root: Path,
    out_root: Path | None,
) -> None:
    """Phase 2: write every output that changes, and record where each result lives."""
    if out_root is not None and not in_place and out_root.is_dir():
        check_output_folders(results, out_root)
    if in_place:
        _replace_all(results, backup)
        return
    for result in results:
        item, report = result.item, result.report
        if item.dest is None or item.kind == "special":
            continue
        if item.kind == "symlink":
            assert out_root is not None
            report.written = link_if_changed(mirrored_link(item.src, src_root, out_root), item.dest)
            report.output = str(item.dest)
        else:
            if result.payload is not None:
                mode = stat.S_IMODE(os.stat(item.src).st_mode)
                report.written = write_if_changed(item.dest, result.payload, mode=mode)
            else:
                report.written = copy_if_changed(item.src, item.dest)
            report.output = str(item.dest)


def _replace_all(results: list[FileResult], backup: bool) -> None:
    """Rewrite the changed files in place (backups first, all synced, then the files); a file
    edited meanwhile is left alone and reported."""
    edits = [r for r in results if r.payload is not None]
    done = replace_all(
        [FileEdit(r.item.src, r.payload, r.read) for r in edits],  # type: ignore[arg-type]
        backup=backup,
    )
    outcome = {id(r): d for r, d in zip(edits, done, strict=True)}
    for result in results:
        item, report = result.item, result.report
        if item.dest is None or item.kind in ("special", "symlink"):
            continue
        replaced = outcome.get(id(result))
        if isinstance(replaced, ChangedError):
            report.message = "changed after it was read; left as it is (run again)"
            continue
        report.output = str(item.dest)
        if replaced is not None:
            report.written = True
            report.backup = None if replaced.backup is None else str(replaced.backup)
            if item.src.is_symlink():
                report.message = f"a symlink: its target {replaced.target} was edited"
