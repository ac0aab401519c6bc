"""RP107 shared-array-per-warp: a `__shared__` array sized for 32-lane warps.

## What it does
Flags `__shared__` array dimensions written as `N / 32` or `N >> 5` (one slot per 32-thread
warp, a note), and dimensions of 32 (a literal, or a warp-size macro or constant that is 32,
also from another header of the tree) that are written at a `warpSize`-based lane id
(`threadIdx.x % warpSize`, or a variable set from it): a warning. A dimension of 32 indexed
only by 32-lane ids is consistent and is a note.

## Why is this bad?
A dimension of one slot per lane, sized 32, overflows when it is indexed by a lane id of a
64-lane wavefront (lanes 32-63 write past the row, into the next warp's row or out of bounds).
A dimension of one slot per warp, sized `N / 32`, is twice too large on AMD GPUs: harmless for
correctness but it takes LDS that could hold more blocks per compute unit.

## Example
```cuda
__shared__ float partial[BLOCK / 32];
__shared__ float tile[WARPS][WARP_SIZE];   // WARP_SIZE == 32
```
Use instead:
```cuda
__shared__ float partial[BLOCK / 32];     // upper bound, indexed by threadIdx.x / warpSize
__shared__ float tile[WARPS][64];         // room for the widest wavefront
```

## Fix safety
No automatic fix: an array size must stay a compile-time constant, and whether to over-allocate
(64 lanes) or to index by `warpSize` depends on how the array is used.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource, word_start
from rocport.scan.registry import Language, rule
from rocport.scan.rules.cuda._warp import WARP_SIZE_NAME
from rocport.scan.rules.cuda._warp_model import macro_width

_PER_WARP = re.compile(r"(?:/\s*32|>>\s*5)[uU]?(?![\w.])")
_WIDE_LANE = r"%\s*warpSize\b|&\s*\(\s*warpSize\s*-\s*1\s*\)"
_LANE_VAR = re.compile(rf"\b([A-Za-z_]\w*)\s*=\s*[^;=]*(?:{_WIDE_LANE})")
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
#: a wide lane id, matched at its operator
_WIDE_AT = re.compile(_WIDE_LANE)


@rule(
    id="RP107",
    name="shared-array-per-warp",
    severity=Severity.WARNING,
    language=Language.CUDA,
    triggers=("__shared__",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for array in src.shared_arrays:
        for start, end in array.dims:
            dim = code[start:end]
            if _PER_WARP.search(dim):
                yield src.finding(
                    start,
                    f"`__shared__ {array.name}[{dim.strip()}]` has one slot per 32-lane "
                    "warp; AMD wavefronts have 64 lanes, so half of it is never used",
                    src.hint("Keep it as an upper bound and index it by `threadIdx.x / warpSize`"),
                    severity=Severity.NOTE,
                )
                continue
            if dim.strip().rstrip("uU") == "32":
                sized = "32"
            else:
                names = [n for n in _NAME.findall(dim) if WARP_SIZE_NAME.match(n)]
                if len(names) != 1 or names[0] == "warpSize" or dim.strip() != names[0]:
                    continue
                if macro_width(src, names[0]) != "32":
                    continue
                sized = f"`{names[0]}` = 32"
            if _indexed_by_wide_lane(src, array.name, array.offset):
                yield src.finding(
                    start,
                    f"`__shared__ {array.name}[{dim.strip()}]` has one slot per lane of a "
                    f"32-lane warp ({sized}) and is indexed by a `warpSize` lane id: lanes "
                    "32-63 of a 64-lane wavefront write past it",
                    src.hint("Size the lane dimension for 64 lanes"),
                )
            elif sized != "32":
                yield src.finding(
                    start,
                    f"`__shared__ {array.name}[{dim.strip()}]` has one slot per lane of a "
                    f"32-lane warp ({sized}); consistent while it is indexed by 32-lane ids",
                    src.hint("Size it for 64 lanes if the lane ids move to `warpSize`"),
                    severity=Severity.NOTE,
                )


def _indexed_by_wide_lane(src: CudaSource, name: str, offset: int) -> bool:
    """Whether ``name[...]`` is written at a lane id taken modulo ``warpSize`` (reads are
    usually guarded by a warp count, as in ``lane < num_warps ? slots[lane] : 0``)."""
    code = src.code
    function = src.function_at(offset)
    start, end = function.body if function is not None else (0, len(code))
    body = code[start:end]
    lanes = [re.escape(lane) for lane in lane_variables(body)]
    wide = _WIDE_LANE + ("|\\b(?:" + "|".join(lanes) + ")\\b" if lanes else "")
    return any(re.search(wide, subscripts) for subscripts in written_subscripts(body, name))


def lane_variables(body: str) -> list[str]:
    """The names that ``_LANE_VAR.finditer(body)`` assigns (each may come more than once),
    found from each ``warpSize`` of a wide lane id: a regex that starts with ``\\b`` and a
    name would be tried at every word of the body."""
    names = []
    # where the last assignment found starts and ends (it reaches each wide lane id after the
    # same `=`): as in finditer, the next one starts after it
    first, last = -1, 0
    at = body.find("warpSize")
    while at != -1:
        operator = max(body.rfind("%", 0, at), body.rfind("&", 0, at))
        wide = _WIDE_AT.match(body, operator) if operator != -1 else None
        equals = body.rfind("=", 0, operator) if wide is not None and wide.end() > at else -1
        if equals != -1 and body.rfind(";", equals, operator) == -1:
            # the assignment that ends at this wide lane id: the name before its `=`
            start = max(body.rfind(";", 0, equals), body.rfind("=", 0, equals)) + 1
            begin = _skip_to_name(body, start, equals)
            if begin == first:
                last = wide.end()
            elif begin >= last:
                assigned = _LANE_VAR.match(body, begin, wide.end())
                if assigned is not None:
                    names.append(assigned.group(1))
                    first, last = begin, wide.end()
        at = body.find("warpSize", at + 8)
    return names


def _skip_to_name(body: str, start: int, equals: int) -> int:
    """Where the name before the ``=`` at ``equals`` starts (``equals`` when there is none)."""
    end = equals
    while end > start and body[end - 1].isspace():
        end -= 1
    begin = word_start(body, end, start)
    return begin if begin < end else equals


def written_subscripts(body: str, name: str) -> list[str]:
    """The subscripts of each write ``name[...] =`` in ``body`` (what
    ``\\bname\\s*((?:\\[...\\]\\s*)+)=(?!=)`` finds), found with ``str.find``."""
    write = _write_pattern(name)
    found = []
    last = 0
    at = body.find(name)
    while at != -1:
        if at >= last and (at == 0 or not (body[at - 1].isalnum() or body[at - 1] == "_")):
            match = write.match(body, at)
            if match is not None:
                found.append(match.group(1))
                last = match.end()
        at = body.find(name, at + 1)
    return found


@lru_cache(maxsize=1024)
def _write_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"{re.escape(name)}\s*((?:\[[^\];]*\]\s*)+)=(?!=)")
