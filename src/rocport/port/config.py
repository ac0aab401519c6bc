"""Project settings of ``rocport port``: ``rocport.toml``, path globs, ``compile_commands.json``.

``rocport.toml`` (at the root of the source tree, or any file given with ``--map``)::

    include = ["src/**", "kernels/*.cu"]     # translate only these (default: every source file)
    exclude = ["third_party/**"]              # never translate these (copied untouched)
    rocm = "6.4"                              # defaults for --rocm (a known release), --blas,
                                              # --launch, --warp-sync
    blas = "hipblas"
    launch = "keep"
    warp_sync = "mask-free"

    [scan]                                    # macros of the project's AMD build, for
    defines = ["GGML_USE_HIP", "TILE=64"]     # `rocport scan` (as -D and -U options)
    undefines = ["USE_CUDNN"]

    [names]                                   # project-specific CUDA -> HIP names
    initCuda = "initHip"
    CUDA_CHECK = "HIP_CHECK"
    cudaLegacyPool = { status = "unsupported", note = "use the pool in alloc.hip instead" }
    cudaTexRef_t = { hip = "hipTexRef", kind = "type", note = "checked by hand" }

A plain string renames the identifier; a table is a full mapping entry (``hip``, ``kind``,
``status``, ``note``, ``since``, ``header``), as in the mapping data files.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from rocport.errors import InputError
from rocport.lexer import compile_scanner
from rocport.port.releases import resolve_release

CONFIG_NAME = "rocport.toml"

_IDENT = re.compile(r"[A-Za-z_]\w*")
_CHOICES = {
    "blas": ("hipblas", "rocblas"),
    "launch": ("keep", "ggl"),
    "warp_sync": ("mask-free", "keep"),
}
_SETTINGS = ("rocm", "blas", "launch", "warp_sync")
_KEYS = ("include", "exclude", "names", "scan", *_SETTINGS)
_SCAN_KEYS = ("defines", "undefines")
_ENTRY_KEYS = ("hip", "kind", "status", "note", "since", "header")


def glob_to_regex(pattern: str) -> str:
    """Translate a path glob to a regex: ``*`` and ``?`` stay inside one path segment, ``**``
    as a whole segment crosses segments (elsewhere it is a plain ``*``, as in .gitignore),
    ``[...]`` is a character class (``[!...]`` never matches ``/``)."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        whole_segment = pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/")
        if whole_segment and pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if whole_segment and i + 2 == len(pattern):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):  # nor a "/": a class stays inside one segment
                    body = "^/" + body[1:]
                elif body.startswith("^"):  # a literal caret, as in fnmatch
                    body = "\\" + body
                out.append("[" + body + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


class PathFilter:
    """Include/exclude globs over paths relative to the tree root (``/`` separators).

    A pattern matches a path or any folder above it (``third_party`` covers everything below
    it); a pattern without ``/`` also matches a bare file or folder name anywhere (``*.cuh``).
    Exclusion wins over inclusion; no include pattern means "everything".
    """

    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self._include = self._compile(self.include)
        self._exclude = self._compile(self.exclude)

    @staticmethod
    def _compile(patterns: Sequence[str]) -> re.Pattern[str] | None:
        if not patterns:
            return None
        parts = []
        for pattern in patterns:
            body = glob_to_regex(pattern.strip().removeprefix("./").rstrip("/"))
            prefix = "(?:.*/)?" if "/" not in pattern.strip().rstrip("/") else ""
            parts.append(f"{prefix}{body}(?:/.*)?")
        return re.compile("|".join(f"(?:{part})" for part in parts), re.DOTALL)

    def selects(self, relpath: str) -> bool:
        if self._exclude is not None and self._exclude.fullmatch(relpath):
            return False
        return self._include is None or self._include.fullmatch(relpath) is not None


@dataclass(frozen=True)
class ProjectConfig:
    """Settings read from ``rocport.toml``; every field is optional."""

    path: Path | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    names: dict[str, str] = field(default_factory=dict)  # plain renames
    entries: dict[str, dict[str, str]] = field(default_factory=dict)  # full mapping entries
    rocm: str | None = None
    blas: str | None = None
    launch: str | None = None
    warp_sync: str | None = None
    #: ``[scan]``: ``-D`` and ``-U`` macros of the project's AMD build
    scan_defines: tuple[str, ...] = ()
    scan_undefines: tuple[str, ...] = ()


def _strings(where: str, key: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise InputError(f"{where}: '{key}' must be a list of glob strings")
    return tuple(value)


def _check_entry(where: str, cuda: str, value: dict) -> None:
    if not _IDENT.fullmatch(cuda):
        raise InputError(f"{where}: [names] {cuda!r} is not a C identifier")
    unknown = sorted(set(value) - set(_ENTRY_KEYS))
    if unknown:
        raise InputError(
            f"{where}: [names] {cuda}: unknown key '{unknown[0]}' "
            f"(expected: {', '.join(_ENTRY_KEYS)})"
        )
    if not all(isinstance(v, str) for v in value.values()):
        raise InputError(f"{where}: [names] {cuda}: every value must be a string")
    if "hip" in value and not _IDENT.fullmatch(value["hip"]):
        raise InputError(f"{where}: [names] {cuda}: hip = {value['hip']!r} is not a C identifier")
    if "hip" not in value and value.get("status") != "unsupported":
        raise InputError(f"{where}: [names] {cuda}: give 'hip', or status = \"unsupported\"")


def _macros(where: str, key: str, value: object) -> tuple[str, ...]:
    """``[scan] defines`` (``NAME`` or ``NAME=VALUE``) or ``undefines`` (``NAME``)."""
    pattern = r"[A-Za-z_]\w*(?:=.*)?" if key == "defines" else r"[A-Za-z_]\w*"
    if not isinstance(value, list) or not all(
        isinstance(item, str) and re.fullmatch(pattern, item, re.DOTALL) for item in value
    ):
        shape = "NAME or NAME=VALUE" if key == "defines" else "NAME"
        raise InputError(f"{where}: [scan] {key} must be a list of {shape} strings")
    return tuple(value)


def load_config(path: Path) -> ProjectConfig:
    """Read and validate one ``rocport.toml``-style file."""
    import tomllib  # (loaded only for a project that has such a file)

    where = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: invalid TOML: {exc}") from None
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise InputError(f"{where}: unknown key '{unknown[0]}' (expected: {', '.join(_KEYS)})")
    names = data.get("names", {})
    if not isinstance(names, dict):
        raise InputError(f"{where}: [names] must be a table of CUDA name = HIP name")
    renames: dict[str, str] = {}
    entries: dict[str, dict[str, str]] = {}
    for cuda, value in names.items():
        if isinstance(value, dict):
            _check_entry(where, cuda, value)
            entries[cuda] = value
        elif _IDENT.fullmatch(cuda) and isinstance(value, str) and _IDENT.fullmatch(value):
            renames[cuda] = value
        else:
            raise InputError(
                f"{where}: [names] {cuda} = {value!r}: both sides must be C identifiers"
            )
    settings: dict[str, str | None] = {}
    for key in _SETTINGS:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise InputError(f"{where}: '{key}' must be a string")
        if value is not None and key in _CHOICES and value not in _CHOICES[key]:
            raise InputError(f"{where}: '{key}' must be one of {', '.join(_CHOICES[key])}")
        if key == "rocm" and value not in (None, "auto"):
            try:
                resolve_release(value)
            except InputError as exc:
                raise InputError(f"{where}: 'rocm': {exc}") from None
        settings[key] = value
    scan = data.get("scan", {})
    if not isinstance(scan, dict):
        raise InputError(f"{where}: [scan] must be a table")
    unknown = sorted(set(scan) - set(_SCAN_KEYS))
    if unknown:
        raise InputError(
            f"{where}: [scan]: unknown key '{unknown[0]}' (expected: {', '.join(_SCAN_KEYS)})"
        )
    macros = {key: _macros(where, key, scan.get(key, [])) for key in _SCAN_KEYS}
    return ProjectConfig(
        path=Path(path),
        scan_defines=macros["defines"],
        scan_undefines=macros["undefines"],
        include=_strings(where, "include", data.get("include", [])),
        exclude=_strings(where, "exclude", data.get("exclude", [])),
        names=renames,
        entries=entries,
        **settings,
    )


def find_config(root: Path, explicit: Path | None = None) -> ProjectConfig:
    """``explicit`` (``--map``) if given, else ``rocport.toml`` in ``root``, else empty settings."""
    if explicit is not None:
        return load_config(explicit)
    candidate = root / CONFIG_NAME
    return load_config(candidate) if candidate.is_file() else ProjectConfig()


# -- compile_commands.json -------------------------------------------------------------------

_INCLUDE_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter", "--include-directory")


@dataclass(frozen=True)
class CompileEntry:
    """One translation unit of a compilation database."""

    file: Path
    include_dirs: tuple[Path, ...]
    quote_dirs: tuple[Path, ...]
    #: ``("D", "NAME=VALUE")`` and ``("U", "NAME")`` in command-line order
    macros: tuple[tuple[str, str], ...] = ()


def _include_dirs(args: Sequence[str], directory: Path) -> tuple[list[Path], list[Path]]:
    """The ``-I``-style search folders of one command line: (include dirs, ``-iquote`` dirs)."""
    dirs: list[Path] = []
    quote: list[Path] = []
    i = 0
    while i < len(args):
        arg = args[i]
        for flag in _INCLUDE_FLAGS:
            if arg == flag and i + 1 < len(args):
                value = args[i + 1]
                i += 1
            elif flag.startswith("--") and arg.startswith(flag + "="):
                value = arg[len(flag) + 1 :]
            elif not flag.startswith("--") and arg.startswith(flag) and len(arg) > len(flag):
                value = arg[len(flag) :].removeprefix("=")
            else:
                continue
            (quote if flag == "-iquote" else dirs).append((directory / value).resolve())
            break
        i += 1
    return dirs, quote


def _macro_args(args: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The ``-D NAME[=VALUE]`` and ``-U NAME`` options of one command line, in order."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        for flag, long in (("-D", "--define-macro"), ("-U", "--undefine-macro")):
            if arg in (flag, long) and i + 1 < len(args):
                found.append((flag[1], args[i + 1]))
                i += 1
            elif arg.startswith(long + "="):
                found.append((flag[1], arg[len(long) + 1 :]))
            elif arg.startswith(flag) and len(arg) > 2:
                found.append((flag[1], arg[2:]))
            else:
                continue
            break
        i += 1
    return tuple(found)


def read_compile_commands(path: Path) -> list[CompileEntry]:
    """Parse a clang compilation database (``directory``, ``file``, ``arguments``/``command``)."""
    try:
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON: {exc}") from None
    if not isinstance(entries, list):
        raise InputError(f"{path}: a compilation database is a JSON list of entries")
    result = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise InputError(f"{path}: entry {number} has no 'file'")
        directory = Path(entry.get("directory") or Path(path).parent)
        if "arguments" in entry and isinstance(entry["arguments"], list):
            args = [str(arg) for arg in entry["arguments"]]
        elif isinstance(entry.get("command"), str):
            try:
                args = shlex.split(entry["command"])
            except ValueError as exc:
                raise InputError(f"{path}: entry {number}: bad command: {exc}") from None
        else:
            raise InputError(f"{path}: entry {number} has neither 'arguments' nor 'command'")
        dirs, quote = _include_dirs(args, directory)
        result.append(
            CompileEntry(
                (directory / entry["file"]).resolve(), tuple(dirs), tuple(quote), _macro_args(args)
            )
        )
    return result


_INCLUDES_ONLY = compile_scanner(
    r"(?!)"
)  # the lexer without identifiers: comments, literals, #include


def _included(text: str) -> Iterable[tuple[str, bool]]:
    """``(path, quoted)`` for each ``#include`` directive outside comments."""
    for match in _INCLUDES_ONLY.finditer(text):
        if match.lastgroup == "include":
            ipath = match.group("ipath")
            yield ipath[1:-1], ipath[0] == '"'


@dataclass
class BuildFiles:
    """The files of a real build inside one source root: the translation units and the
    headers they include (found through the quote and ``-I`` search paths, followed
    recursively). Headers outside the root are not followed."""

    root: Path
    entries: list[CompileEntry]

    @cached_property
    def files(self) -> frozenset[Path]:
        root = self.root.resolve()
        found: set[Path] = set()
        queue: deque[tuple[Path, CompileEntry]] = deque()
        for entry in self.entries:
            if entry.file.is_relative_to(root) and entry.file not in found:
                found.add(entry.file)
                queue.append((entry.file, entry))
        if not found:
            raise InputError(f"the compilation database lists no file inside {self.root}")
        while queue:
            current, entry = queue.popleft()
            try:
                text = current.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for name, quoted in _included(text):
                search = (current.parent, *entry.quote_dirs) if quoted else ()
                for folder in (*search, *entry.include_dirs):
                    candidate = (folder / name).resolve()
                    if candidate.is_file():
                        if candidate.is_relative_to(root) and candidate not in found:
                            found.add(candidate)
                            queue.append((candidate, entry))
                        break
        return frozenset(found)

    def relative(self) -> frozenset[str]:
        root = self.root.resolve()
        return frozenset(path.relative_to(root).as_posix() for path in self.files)


# -- --rocm auto -----------------------------------------------------------------------------

_HIP_VERSION = re.compile(r"#define\s+HIP_VERSION_(MAJOR|MINOR)\s+(\d+)")


def detect_rocm_release(roots: Sequence[Path] | None = None) -> str:
    """The ``MAJOR.MINOR`` release of the installed HIP headers (``hip/hip_version.h``), looked
    up under ``$ROCM_PATH``, ``$HIP_PATH``, ``/opt/rocm`` and ``/usr``, in that order."""

    if roots is None:
        env = [os.environ.get(name) for name in ("ROCM_PATH", "HIP_PATH")]
        roots = [Path(p) for p in env if p] + [Path("/opt/rocm"), Path("/usr")]
    for root in roots:
        header = root / "include" / "hip" / "hip_version.h"
        try:
            found = dict(_HIP_VERSION.findall(header.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
        if "MAJOR" in found and "MINOR" in found:
            return f"{int(found['MAJOR'])}.{int(found['MINOR'])}"
    searched = ", ".join(str(root / "include/hip/hip_version.h") for root in roots)
    raise InputError(f"--rocm auto: no HIP installation found (looked for {searched})")
