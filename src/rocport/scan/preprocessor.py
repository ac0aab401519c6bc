"""Which lines of a file an AMD build compiles: the ``#if`` branches it takes.

The directives of a file are walked in order with the macros of a HIP compile for AMD
(:func:`amd_setup`: ``data/hip_macros.json``, the ``--rocm`` release, the project's ``-D``
options and switches such as ``USE_ROCM`` or ``GGML_USE_HIP``), once for the host pass and
once for the device pass. ``#define``/``#undef`` update the macros as they come, and quoted
``#include``s of headers in the tree are followed (with ``#pragma once`` and include guards).
A branch is *dead* when neither pass takes it; a branch whose condition depends on a macro the
scan cannot know (one that neither the compiler, the build nor the file defines) is kept.
A ``#define`` in a kept branch, or in a header included from one, makes its macro unknown.

Only the directive lines are read (blanked of comments by the caller): a file without ``#if``
costs one ``str.find``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.resources import files
from typing import NamedTuple

from rocport.scan.blank import blank_non_code
from rocport.scan.ppexpr import UNDEFINED, UNKNOWN, Macro, Span, evaluate, truth

__all__ = [
    "AMD",
    "Branches",
    "DeadBranch",
    "Setup",
    "amd_setup",
    "blank",
    "dead_branches",
    "parse_define",
]

#: project switches an AMD build of the project defines (recognized by name)
_SWITCH = re.compile(r"(?!(?:NO|DONT|DISABLE|NOT)_)(?:\w+_)?USE_(?:HIP|ROCM)\Z")
_DIRECTIVE = re.compile(r"[ \t]*(\w+)")
_SPLICE = re.compile(r"\\[ \t\r]*\n")
_DEFINE = re.compile(r"[ \t]*([A-Za-z_]\w*)(\([^)]*\))?(.*)", re.DOTALL)
_NAME = re.compile(r"[ \t]*([A-Za-z_]\w*)")
_INCLUDE = re.compile(r'[ \t]*"([^"\n]+)"')
_GUARD_IF = re.compile(r"[ \t]*!?[ \t]*defined[ \t]*\(?[ \t]*([A-Za-z_]\w*)[ \t]*\)?[ \t]*\Z")
_KINDS = frozenset(
    {"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"}
    | {"define", "undef", "include", "include_next", "import", "pragma"}
)
_OPENS = frozenset({"if", "ifdef", "ifndef"})
#: region states
DEAD, MAYBE, LIVE = 0, 1, 2
_MAX_DEPTH = 40

State = dict[str, Macro | object]


class Directive(NamedTuple):
    """One directive: its kind, where it starts (the ``#``) and ends, where its text after
    the kind starts, that text (splices joined) and its 1-based line."""

    kind: str
    start: int
    end: int
    at: int  # where the body starts
    body: str
    line: int


class DeadBranch(NamedTuple):
    """A branch no pass of the AMD build compiles: ``[start, end)`` (whole lines), the
    directive that opened it and its line."""

    start: int
    end: int
    line: int
    directive: str


@dataclass(frozen=True)
class Setup:
    """The macros of an AMD build: ``host`` for every file, ``device`` what the device pass
    changes, ``files`` extra macros of single translation units (their ``-D`` options in a
    compilation database, by real path), ``roots`` the folders whose headers are followed and
    ``include_dirs`` the ``-I`` folders searched after the including file's own."""

    host: Mapping[str, Macro | object]
    device: Mapping[str, Macro | object]
    files: Mapping[str, Mapping[str, Macro | object]] = field(default_factory=dict)
    roots: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()


@cache
def _hip_macros() -> dict:
    text = (files("rocport.scan") / "data" / "hip_macros.json").read_text("utf-8")
    return json.loads(text)


def parse_define(text: str) -> tuple[str, Macro | object]:
    """``NAME``, ``NAME=VALUE`` (a ``-D`` option) -> ``(NAME, Macro)``; ``NAME`` alone is 1,
    as for the compiler. Raises ValueError for a bad name."""
    name, equals, value = text.partition("=")
    name = name.strip()
    params = None
    if "(" in name and name.endswith(")"):
        name, _, inner = name[:-1].partition("(")
        params = tuple(p.strip() for p in inner.split(",") if p.strip())
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise ValueError(f"bad macro name {name!r}")
    return name, Macro(value if equals else "1", params)


def amd_setup(
    rocm: tuple[int, int] | None = None,
    defines: Iterable[tuple[str, Macro | object]] = (),
    *,
    files: Mapping[str, Mapping[str, Macro | object]] | None = None,
    roots: Iterable[str] = (),
    include_dirs: Iterable[str] = (),
) -> Setup:
    """The macros of a HIP compile for AMD, for ROCm ``rocm`` (None: the release is unknown,
    so ``HIP_VERSION`` and ``__AMDGCN_WAVEFRONT_SIZE`` are), then ``defines`` (``-D``: a
    :class:`Macro`; ``-U``: ``UNDEFINED``) on top."""
    from rocport.port.releases import compiler_defines

    host: State = {}
    device: State = {}
    for row in _hip_macros()["macros"]:
        for table, value in ((host, row["host"]), (device, row["device"])):
            table[row["name"]] = UNDEFINED if value is None else Macro(value)
    if rocm is not None:
        major, minor = rocm
        base = major * 10_000_000 + minor * 100_000
        version = {
            "HIP_VERSION_MAJOR": Macro(str(major)),
            "HIP_VERSION_MINOR": Macro(str(minor)),
            "HIP_VERSION": Macro("", span=Span(base, base + 99_999)),
        }
        host.update(version)
        device.update(version)
        wave = compiler_defines("__AMDGCN_WAVEFRONT_SIZE", rocm)
        for name in ("__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"):
            value = UNKNOWN if wave is None else Macro("64") if wave else UNDEFINED
            host[name] = device[name] = value
    for name, value in defines:
        host[name] = device[name] = value
    device = {name: value for name, value in device.items() if host.get(name) != value}
    return Setup(
        host,
        device,
        dict(files or {}),
        tuple(os.path.abspath(r) for r in roots),
        tuple(os.path.abspath(d) for d in include_dirs),
    )


def directives(code: str) -> list[Directive]:
    """The directives of ``code`` (comments blanked) that decide branches or macros."""
    found: list[Directive] = []
    find = code.find
    pos = find("#")
    line, counted = 1, 0
    while pos != -1:
        line_start = code.rfind("\n", 0, pos) + 1
        if line_start == pos or code[line_start:pos].isspace():
            end = find("\n", pos)
            while end != -1 and _spliced(code, end):
                end = find("\n", end + 1)
            end = len(code) if end == -1 else end
            word = _DIRECTIVE.match(code, pos + 1)
            if word is not None and word.group(1) in _KINDS:
                line += code.count("\n", counted, pos)
                counted = pos
                body = code[word.end() : end]
                if "\\" in body:
                    body = _SPLICE.sub(" ", body)
                found.append(Directive(word.group(1), pos, end, word.end(), body, line))
            pos = find("#", end)
        else:
            pos = find("#", pos + 1)
    return found


def macro_parts(directive: Directive) -> tuple[str, str | None, str] | None:
    """A ``#define``'s name, parameters in parentheses (None: object-like) and replacement
    (None: no name)."""
    match = _DEFINE.match(directive.body)
    return None if match is None else match.groups()


def quoted_include(text: str, directive: Directive) -> str | None:
    """The file an ``#include "file"`` names (None: a ``<file>`` or no name); ``text``: the
    file's text, where the quoted name is not blanked."""
    quoted = _INCLUDE.match(text, directive.at)
    return None if quoted is None else quoted.group(1)


def _spliced(code: str, newline: int) -> bool:
    """Whether the newline at ``newline`` follows a backslash (spaces between allowed)."""
    before = newline - 1
    while before >= 0 and code[before] in " \t\r":
        before -= 1
    return before >= 0 and code[before] == "\\"


class _Header(NamedTuple):
    directives: list[Directive]
    text: str
    guard: str | None
    once: bool


@cache
def _header(path: str, stamp: tuple[int, int]) -> _Header | None:
    """A header's directives, read once per process (per size and modification time)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            text = file.read()
    except OSError:
        return None
    code = blank_non_code(text)
    found = directives(code) if "#" in code else []
    return _Header(found, text, _guard(found), any(_is_once(d) for d in found))


def header_directives(path: str, stamp: tuple[int, int]) -> tuple[str, list[Directive]] | None:
    """A header's text and directives (read once per process, per size and modification
    time; None where it cannot be read)."""
    header = _header(path, stamp)
    return None if header is None else (header.text, header.directives)


def _is_once(directive: Directive) -> bool:
    return directive.kind == "pragma" and directive.body.split()[:1] == ["once"]


def _guard(found: list[Directive]) -> str | None:
    """The include guard of a file: its first conditional is ``#ifndef X`` (or ``#if
    !defined(X)``), the next directive ``#define X`` with an empty body, and the conditional
    ends with the last directive."""
    items = [d for d in found if d.kind != "pragma"]
    if len(items) < 3 or items[-1].kind != "endif" or items[1].kind != "define":
        return None
    first = items[0]
    if first.kind == "ifndef":
        name = _NAME.match(first.body)
        guard = name.group(1) if name and not first.body[name.end() :].strip() else None
    elif first.kind == "if" and "!" in first.body:
        name = _GUARD_IF.match(first.body)
        guard = name.group(1) if name else None
    else:
        return None
    define = macro_parts(items[1])
    if guard is None or define is None or define[0] != guard or define[2].strip():
        return None
    depth = 0
    for item in items[:-1]:
        depth += item.kind in _OPENS
        depth -= item.kind == "endif"
        if depth == 0:
            return None  # the first conditional closes before the end
    return guard


class _Walk:
    """One pass over a translation unit: the macro state and what was included."""

    def __init__(self, setup: Setup, state: State) -> None:
        self.setup = setup
        self.state = state
        self.included: set[str] = set()
        self.depth = 0
        self.asked: set[str] = set()

    def lookup(self, name: str):
        value = self.state.get(name)
        if value is None:
            value = Macro("1") if _SWITCH.match(name) else UNKNOWN
        self.asked.add(name)
        return value

    def condition(self, directive: Directive) -> bool | None:
        kind, body = directive.kind, directive.body
        if kind in ("ifdef", "ifndef", "elifdef", "elifndef"):
            name = _NAME.match(body)
            if name is None:
                return None
            value = self.lookup(name.group(1))
            if value is UNKNOWN:
                return None
            return (value is not UNDEFINED) == (kind in ("ifdef", "elifdef"))
        return truth(evaluate(body, self.lookup))

    def run(
        self,
        items: list[Directive],
        text: str,
        folder: str,
        base: int,
        dead: list[DeadBranch] | None = None,
    ) -> None:
        """Walk ``items`` with the region ``base`` around them; record dead branches."""
        stack: list[list] = []  # [outer region, taken, dead since, opening directive]
        region = base
        for d in items:
            kind = d.kind
            if kind in _OPENS or kind.startswith("elif") or kind == "else":
                if kind in _OPENS:
                    stack.append([region, False, None, d])
                elif not stack:
                    continue  # an #elif or #else without #if: left to the compiler
                frame = stack[-1]
                outer, taken = frame[0], frame[1]
                if dead is not None and frame[2] is not None:
                    dead.append(DeadBranch(frame[2], d.start, frame[3].line, _shown(frame[3])))
                if outer == DEAD or taken is True:
                    value: bool | None = True
                    cond: bool | None = False
                elif kind == "else":
                    value, cond = True, (True if taken is False else None)
                else:
                    value = self.condition(d)
                    cond = value if taken is False else (False if value is False else None)
                region = (
                    DEAD
                    if outer == DEAD or cond is False
                    else LIVE
                    if outer == LIVE and cond is True
                    else MAYBE
                )
                frame[1] = (
                    True
                    if taken is True or value is True
                    else False
                    if taken is False and value is False
                    else None
                )
                frame[2] = d.end if region == DEAD and outer != DEAD else None
                frame[3] = d
            elif kind == "endif":
                if not stack:
                    continue
                frame = stack.pop()
                if dead is not None and frame[2] is not None:
                    dead.append(DeadBranch(frame[2], d.start, frame[3].line, _shown(frame[3])))
                region = frame[0]
            elif region == DEAD:
                if kind == "define":
                    # the tree's own macro, defined (so far) only where the build does not go
                    match = _NAME.match(d.body)
                    if match is not None and match.group(1) not in self.state:
                        self.state[match.group(1)] = UNDEFINED
                continue
            elif kind == "define":
                parts = macro_parts(d)
                if parts is not None:
                    name, params, body = parts
                    if region == LIVE:
                        args = None
                        if params is not None:
                            args = tuple(p.strip() for p in params[1:-1].split(",") if p.strip())
                        self.state[name] = Macro(body.strip(), args)
                    else:
                        self.state[name] = UNKNOWN
            elif kind == "undef":
                match = _NAME.match(d.body)
                if match is not None:
                    self.state[match.group(1)] = UNDEFINED if region == LIVE else UNKNOWN
            elif kind in ("include", "import", "include_next"):
                self.include(d, text, folder, region)
        if dead is not None:  # branches left open at the end of the file
            for frame in stack:
                if frame[2] is not None:
                    dead.append(DeadBranch(frame[2], len(text), frame[3].line, _shown(frame[3])))

    def include(self, d: Directive, text: str, folder: str, region: int) -> None:
        name = quoted_include(text, d)
        if name is None or self.depth >= _MAX_DEPTH:
            return
        for where in (folder, *self.setup.include_dirs):
            path = os.path.normpath(os.path.join(where, name))
            try:
                info = os.stat(path)
            except OSError:
                continue
            if not any(path.startswith(root + os.sep) for root in self.setup.roots):
                return
            header = _header(path, (info.st_size, info.st_mtime_ns))
            if header is None or (path in self.included and (header.once or header.guard)):
                return
            self.included.add(path)
            if header.guard and header.guard not in self.state:
                self.state[header.guard] = UNDEFINED
            self.depth += 1
            self.run(header.directives, header.text, os.path.dirname(path), region)
            self.depth -= 1
            return


def _shown(directive: Directive) -> str:
    """``#if cond`` as the report shows it (one line, shortened)."""
    body = " ".join(directive.body.split())
    text = f"#{directive.kind} {body}".rstrip()
    return text if len(text) <= 100 else text[:97] + "..."


def dead_branches(
    path: str | None, text: str, code: str, setup: Setup, items: list[Directive] | None = None
) -> list[DeadBranch]:
    """The branches of ``text`` (``code``: the same with comments blanked, ``items``: its
    :func:`directives` where known) that neither pass of the AMD build compiles. ``path``
    (the real path, if any) finds included headers and the file's own macros in
    ``setup.files``."""
    if items is None:
        items = directives(code) if "#" in code else []
    if not any(d.kind in _OPENS for d in items):
        return []
    real = os.path.abspath(path) if path is not None else None
    own = setup.files.get(real, {}) if real is not None else {}
    folder = os.path.dirname(real) if real is not None else "."
    guard = _guard(items)
    found: list[list[DeadBranch]] = []
    asked: set[str] = set()
    for index, changes in enumerate(({}, setup.device)):
        if index and not asked & set(changes):
            return found[0]  # no condition asked what the device pass changes
        state: State = {**setup.host, **changes, **own}
        if guard and guard not in state:
            state[guard] = UNDEFINED
        walk = _Walk(setup, state)
        if real is not None:
            walk.included.add(real)
        dead: list[DeadBranch] = []
        walk.run(items, text, folder, LIVE, dead)
        asked = walk.asked
        found.append(sorted(dead))
    return _intersect(found[0], found[1])


def _intersect(first: list[DeadBranch], second: list[DeadBranch]) -> list[DeadBranch]:
    """The parts dead in both passes (each list sorted, its spans disjoint)."""
    out: list[DeadBranch] = []
    j = 0
    for span in first:
        while j < len(second) and second[j].end <= span.start:
            j += 1
        k = j
        while k < len(second) and second[k].start < span.end:
            start, end = max(span.start, second[k].start), min(span.end, second[k].end)
            if start < end:
                out.append(span._replace(start=start, end=end))
            k += 1
    return out


def blank(code: str, dead: list[DeadBranch]) -> str:
    """``code`` with the dead branches blanked (newlines kept, so offsets and lines stay)."""
    parts: list[str] = []
    last = 0
    for branch in dead:
        if branch.start < last:
            continue
        parts.append(code[last : branch.start])
        parts.append(re.sub(r"[^\n]", " ", code[branch.start : branch.end]))
        last = branch.end
    parts.append(code[last:])
    return "".join(parts)


@dataclass(frozen=True)
class Branches:
    """How a scan treats ``#if`` branches: the build's macros (None: :func:`amd_setup` of an
    unknown release), and whether findings in dead branches are shown, marked, instead of
    left out."""

    setup: Setup | None = None
    show_dead: bool = False

    def below(self, paths: Iterable[str | os.PathLike[str]]) -> Branches:
        """These settings with headers followed below ``paths`` (a file: its folder), unless
        the setup names its roots already."""
        setup = self.setup or amd_setup()
        if setup.roots:
            return self if self.setup is not None else replace(self, setup=setup)
        roots = [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in paths]
        return replace(self, setup=replace(setup, roots=tuple(map(os.path.abspath, roots))))

    def dead(self, src, file: str | None) -> list[DeadBranch]:
        """The dead branches of a :class:`~rocport.scan.context.CudaSource`."""
        return dead_branches(file, src.text, src.code, self.setup or amd_setup(), src.directives)

    blank = staticmethod(blank)

    @staticmethod
    def mark(findings: list, dead: list[DeadBranch], text: str) -> None:
        """Mark the findings that lie in dead branches (message and ``extra``)."""
        spans = [(text.count("\n", 0, b.start) + 2, text.count("\n", 0, b.end), b) for b in dead]
        for finding in findings:
            line = finding.location.line
            for first, last, branch in spans:
                if first <= line <= last:
                    finding.message += (
                        f" [dead branch: an AMD build does not compile this line "
                        f"({branch.directive}, line {branch.line})]"
                    )
                    finding.extra["dead_branch"] = {
                        "line": branch.line,
                        "directive": branch.directive,
                    }
                    break


#: the default: the macros of an AMD build of an unknown release, dead branches left out
AMD = Branches()
