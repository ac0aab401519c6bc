"""Support headers: HIP code that rocport adds to a port where HIP has no form of what the CUDA
code uses (``data/support/``, indexed by ``support.json``).

Two cases:

- a header the project includes from the CUDA SDK rather than from its own tree (the CUDA
  samples' ``helper_cuda.h``, ``helper_timer.h``, ...): when no file of the tree that the
  including file can reach has that name (its folder or an ancestor's, or an ``include/``,
  ``inc/``, ``common/``... folder of one: another program's copy beside it does not count),
  ``#include <helper_cuda.h>`` becomes ``#include "rocport_helper_cuda.h"``;
- CUDA names that HIP lacks but a support header implements over HIP (the legacy launch API,
  ``cuParamSetv`` ... ``cuLaunchGridAsync``, over ``hipModuleLaunchKernel``): they are kept,
  reported translated, and the file gets ``#include "rocport_legacy_launch.h"``;
- HIP names that a support header completes with the overloads HIP lacks (``__ldg`` of a
  bfloat16): a file whose port uses one gets that header too.

:func:`translate` applies both after the translator; :func:`added_headers` plans the support
headers that the translated files include, written beside each including file (a quoted
include finds them there with any build system), and those they include in turn.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from operator import attrgetter
from pathlib import Path
from typing import Any

from rocport._fs import write_if_changed
from rocport.lexer import at_line_start
from rocport.port import directives
from rocport.port.model import FileReport, FileStatus, Outcome, Reference, Translation
from rocport.port.tree import FileResult, Item

#: literal-first, so that ``re`` skips to each ``#``; the line start is checked after
_INCLUDE = re.compile(r'#[ \t]*include[ \t]*(?P<path>"[^"\n]+"|<[^>\n]+>)')
_QUOTED = re.compile(rb'#[ \t]*include[ \t]*"(rocport_[A-Za-z0-9_]+\.h)"')
#: a quoted include of a support header (every support header's name has this shape)
_SUPPORT_INCLUDE = re.compile(r'"rocport_[A-Za-z0-9_]+\.h"')
_HIP = attrgetter("hip")
_POSITION = attrgetter("line", "column")


@dataclass(frozen=True, slots=True)
class SupportHeader:
    """One header of ``data/support``: what it stands for and what it provides."""

    name: str
    note: str
    stands_for: tuple[str, ...] = ()  # CUDA SDK headers it replaces when the tree lacks them
    needs: tuple[str, ...] = ()  # support headers it includes
    names: tuple[str, ...] = ()  # CUDA names it implements over HIP
    completes: tuple[str, ...] = ()  # HIP names it adds overloads to

    def data(self) -> bytes:
        return (resources.files("rocport.port") / "data" / "support" / self.name).read_bytes()


@cache
def headers() -> dict[str, SupportHeader]:
    """The support headers by file name."""
    path = resources.files("rocport.port") / "data" / "support" / "support.json"
    table = json.loads(path.read_text(encoding="utf-8"))["headers"]
    return {
        name: SupportHeader(
            name,
            row["note"],
            tuple(row.get("stands_for", ())),
            tuple(row.get("needs", ())),
            tuple(row.get("names", ())),
            tuple(row.get("completes", ())),
        )
        for name, row in table.items()
    }


@cache
def _stand_ins() -> dict[str, SupportHeader]:
    return {cuda: h for h in headers().values() for cuda in h.stands_for}


@cache
def _providers() -> dict[str, SupportHeader]:
    return {name: h for h in headers().values() for name in h.names}


@cache
def _completers() -> dict[str, SupportHeader]:
    return {name: h for h in headers().values() for name in h.completes}


#: folders that projects keep shared headers in, beside the code that includes them
_INCLUDE_FOLDERS = ("include", "inc", "common", "util", "utils", "helper", "helpers", "headers")


def translate(text: str, *, base, present: frozenset[str] = frozenset(), **kw) -> Translation:
    """``base(text, **kw)`` (the translator), then :func:`apply` with the tree's files."""
    return apply(base(text, **kw), present, kw.get("path", ""))


def in_tree(written: str, includer: str, files: frozenset[str]) -> bool:
    """Whether ``#include "written"`` in ``includer`` can reach one of the tree's ``files``
    (paths relative to the tree): from the includer's folder or an ancestor, or from an
    include-like folder (``include/``, ``common/``, ...) of one of those."""
    folder = posixpath.dirname(includer)
    while True:
        for base in (folder, *(posixpath.join(folder, d) for d in _INCLUDE_FOLDERS)):
            if posixpath.normpath(posixpath.join(base, written)) in files:
                return True
        parent = posixpath.dirname(folder)
        if parent == folder:  # "" or "/": an includer given by its absolute path ends at "/"
            return False
        folder = parent


def apply(
    translation: Translation, present: frozenset[str] = frozenset(), includer: str = ""
) -> Translation:
    """Point includes of absent CUDA SDK headers at their support headers, and report the names
    a support header implements as translated (including it). ``present``: the tree's files,
    relative to it; a header the including file (``includer``, relative too) can reach there is
    ported as the project's own."""
    out = translation.text
    inserted = translation.inserted_lines
    refs: list[Reference] | None = None  # set where a reference changes
    added: list[Reference] = []
    stand_ins = _stand_ins()
    edits: list[tuple[int, int, str]] = []
    replaced: dict[tuple[str, int], SupportHeader] = {}  # (include, input line) -> header
    stand_in_includes = []
    included: set[str] = set()  # support headers included already (translating a port again)
    for m in _INCLUDE.finditer(out):
        path = m.group("path")
        if path[1:-1] in stand_ins and at_line_start(out, m.start()):
            stand_in_includes.append(m)
        if _SUPPORT_INCLUDE.fullmatch(path) and at_line_start(out, m.start()):
            included.add(path[1:-1])
    if stand_in_includes:
        reported = {(r.name, r.line) for r in translation.references if r.family == "include"}
        for m in stand_in_includes:
            written = m.group("path")[1:-1]
            header = stand_ins[written]
            if in_tree(written, includer, present):
                continue
            start, end = m.span("path")
            edits.append((start, end, f'"{header.name}"'))
            line = out.count("\n", 0, start) + 1
            column = start + 1 - out.rfind("\n", 0, start)  # at the name, after < or "
            line -= sum(1 for i in inserted if i < line)
            if (written, line) in reported:
                replaced[written, line] = header  # the translator reported it: that one changes
                continue
            added.append(
                Reference(
                    written, line, column, Outcome.TRANSLATED, "include", header.name, header.note
                )
            )
        for start, end, new in reversed(edits):
            out = out[:start] + new + out[end:]
    providers = _providers()
    included.update(h.name for h in replaced.values())
    included.update(r.hip for r in added)
    needed: list[str] = []
    if replaced or any(r.name in providers for r in translation.untranslated()):
        refs = []
        for r in translation.references:
            header = replaced.get((r.name, r.line)) if r.family == "include" else None
            if header is not None:
                r = replace(r, outcome=Outcome.TRANSLATED, hip=header.name, note=header.note)
            elif r.outcome is not Outcome.TRANSLATED and (header := providers.get(r.name)):
                if header.stands_for and header.name not in included:
                    refs.append(r)  # its names come with its header, not on their own
                    continue
                r = replace(r, outcome=Outcome.TRANSLATED, hip=r.name, note=header.note)
                if header.name not in needed:
                    needed.append(header.name)
            refs.append(r)
    for name in _completing(translation.whats() if refs is None else refs):
        if name not in needed:
            needed.append(name)
    for name in needed:
        if name in included:
            continue
        at = directives.header_end(out)
        newline = "\r\n" if "\r\n" in out[: out.find("\n") + 1 or None] else "\n"
        line = out.count("\n", 0, at) + 1
        out = out[:at] + f'#include "{name}"{newline}' + out[at:]
        inserted = sorted([line, *(i + 1 if i >= line else i for i in inserted)])
    if not added and refs is None:
        return translation if out is translation.text else translation.with_text(out, inserted)
    refs = translation.references if refs is None else refs
    if added:
        refs = sorted([*refs, *added], key=_POSITION)
    return Translation(out, refs, list(inserted))


def _completing(refs: Sequence[Any]) -> list[str]:
    """The support headers that complete the HIP names of translated ``refs`` (references, or
    what :meth:`Translation.whats` gives), in the order of their first such reference (searched
    in C: a file holds thousands of references)."""
    completers = _completers()
    hips = list(map(_HIP, refs))
    if completers.keys().isdisjoint(hips):
        return []
    first: dict[str, int] = {}
    for hip, header in completers.items():
        try:
            at = hips.index(hip)
            while refs[at].outcome is not Outcome.TRANSLATED:
                at = hips.index(hip, at + 1)
        except ValueError:  # no translated reference has this HIP name
            continue
        first[header.name] = min(at, first.get(header.name, at))
    return sorted(first, key=first.__getitem__)


def _closure(names: Iterable[str]) -> list[str]:
    table = headers()
    todo, seen = [n for n in names if n in table], []
    while todo:
        name = todo.pop(0)
        if name not in seen:
            seen.append(name)
            todo += table[name].needs
    return seen


def _output_text(result: FileResult) -> bytes:
    if result.payload is not None:
        return result.payload
    try:
        return result.item.src.read_bytes()
    except OSError:
        return b""


def _support_includes(data: bytes) -> list[str]:
    """The support headers that ``data`` includes (``#include "rocport_….h"`` lines)."""
    names = []
    for match in _QUOTED.finditer(data):
        if at_line_start(data, match.start()):
            names.append(match.group(1).decode())
    return names


def added_headers(results: list[FileResult]) -> list[FileResult]:
    """The support headers that the translated files include, as results to write: one copy in
    each folder that has an including file, unless the tree has a file of that name there."""
    existing = {r.item.rel for r in results}
    planned: dict[str, FileResult] = {}
    table = headers()
    for result in results:
        item = result.item
        if item.kind != "source" or result.report.status is not FileStatus.TRANSLATED:
            continue
        for name in _closure(_support_includes(_output_text(result))):
            rel = posixpath.join(posixpath.dirname(item.rel), name)
            if rel in existing or rel in planned:
                continue
            header = table[name]
            data = header.data()
            dest = None if item.dest is None else item.dest.parent / name
            report = FileReport(
                rel, "source", FileStatus.ADDED, size=len(data), message=header.note
            )
            planned[rel] = FileResult(Item(rel, Path(name), dest, "other"), report, data)
    return list(planned.values())


def write_added(added: list[FileResult]) -> None:
    """Write the planned support headers (through a temporary file and a rename)."""
    for result in added:
        dest = result.item.dest
        if dest is None or result.payload is None:
            continue
        result.report.written = write_if_changed(dest, result.payload, mode=0o644)
        result.report.output = str(dest)
