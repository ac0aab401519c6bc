"""RP107 shared-array-per-warp: a `__shared__` array sized for 32-lane warps.

## What it does
Flags `__shared__` array dimensions written as `N / 32` or `N >> 5` (one slot per 32-thread
warp), or as a warp-size macro or constant whose value is 32 (one slot per lane).

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

_PER_WARP = re.compile(r"(?:/\s*32|>>\s*5)[uU]?(?![\w.])")
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
            for name in _NAME.findall(dim):
                if WARP_SIZE_NAME.match(name) and src.evaluate(name) == 32:
                    yield src.finding(
                        start,
                        f"`__shared__ {array.name}[{dim.strip()}]` has one slot per lane "
                        f"of a 32-lane warp (`{name}` = 32); lane ids of a 64-lane wavefront "
                        "run past it",
                        src.hint("Size the lane dimension for 64 lanes"),
                    )
                    break
