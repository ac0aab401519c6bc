"""Which translated files include a project header that still holds CUDA code.

A file is only *converted* when nothing CUDA is left in it nor in the project headers it
includes (directly or through other headers): ``#include "kernels.cuh"`` of a header with an
unmapped call still fails to build. :func:`mark_partial_includes` finds such files after a
port and records the first header that holds them back.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from rocport.port.model import FileStatus
from rocport.port.tree import FileResult

#: literal-first, so that ``re`` skips to each ``#``; the line start is checked after
_QUOTED_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*"([^"\n]+)"')


def quoted_includes(data: bytes) -> list[bytes]:
    """The paths of the ``#include "..."`` directives at line starts in ``data``."""
    found = []
    for match in _QUOTED_INCLUDE.finditer(data):
        before = match.start() - 1
        while before >= 0 and data[before] in b" \t":  # only back over spaces: linear time
            before -= 1
        if before < 0 or data[before] == 10:  # a newline
            found.append(match.group(1))
    return found


def _left_over(result: FileResult) -> bool:
    counts = result.report.counts
    return counts["unsupported"] > 0 or counts["unknown"] > 0


def _text(result: FileResult) -> bytes:
    if result.payload is not None:
        return result.payload
    try:
        return result.item.src.read_bytes()
    except OSError:
        return b""


def mark_partial_includes(results: Iterable[FileResult]) -> None:
    """Set ``report.partial_include`` of every translated file that includes (transitively,
    through ``#include "..."`` resolved beside the including file, then at the tree root)
    a project file with unsupported or unknown CUDA references left."""
    by_rel = {r.item.rel: r for r in results if r.item.kind == "source"}
    if not any(_left_over(r) for r in by_rel.values()):
        return
    includes: dict[str, list[str]] = {}

    def included(rel: str) -> list[str]:
        found = includes.get(rel)
        if found is None:
            folder = posixpath.dirname(rel)
            found = []
            for raw in quoted_includes(_text(by_rel[rel])):
                name = raw.decode("utf-8", "replace")
                for base in (folder, ""):
                    cand = posixpath.normpath(posixpath.join(base, name))
                    if cand in by_rel:
                        found.append(cand)
                        break
            includes[rel] = found
        return found

    for rel, result in by_rel.items():
        if result.report.status is not FileStatus.TRANSLATED or _left_over(result):
            continue
        seen = {rel}
        stack = list(included(rel))
        while stack:
            dep = stack.pop()
            if dep in seen:
                continue
            seen.add(dep)
            if _left_over(by_rel[dep]):
                result.report.partial_include = dep
                break
            stack.extend(included(dep))
