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

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule
from rocport.scan.rules.cuda._warp import WARP_SIZE_NAME
from rocport.scan.rules.cuda._warp_model import macro_width

_PER_WARP = re.compile(r"(?:/\s*32|>>\s*5)[uU]?(?![\w.])")
_WIDE_LANE = r"%\s*warpSize\b|&\s*\(\s*warpSize\s*-\s*1\s*\)"
_LANE_VAR = re.compile(rf"\b([A-Za-z_]\w*)\s*=\s*[^;=]*(?:{_WIDE_LANE})")
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


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
    lanes = [re.escape(m.group(1)) for m in _LANE_VAR.finditer(body)]
    wide = _WIDE_LANE + ("|\\b(?:" + "|".join(lanes) + ")\\b" if lanes else "")
    write = re.compile(rf"\b{re.escape(name)}\s*((?:\[[^\];]*\]\s*)+)=(?!=)")
    return any(re.search(wide, m.group(1)) for m in write.finditer(body))
