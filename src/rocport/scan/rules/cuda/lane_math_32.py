"""RP103 lane-math-32: lane or warp index computed with the constant 32.

## What it does
In device code that uses cross-lane operations (shuffles, votes, warp reductions), flags
`x % 32`, `x & 31` (or `& 0x1f`), `x / 32` and `x >> 5` where `x` is a thread, lane or warp
index (`threadIdx.x`, `tid`, `lane`, `blockDim.x`, `idx`, ...). It is a warning where the same
kernel (the kernel and the `__device__` functions it calls in the file) also assumes
`warpSize` or 64 lanes elsewhere, and a note where every warp spot of the kernel assumes 32
lanes. Arithmetic in kernels without cross-lane operations (`n = tid / 32` to tile data) is
not reported. It also reports, as an error, a launch whose grid is sized `N / 32` for a kernel
that covers `blockIdx.x * warpSize` elements per block.

## Why is this bad?
Code that uses 32 everywhere computes the same on a 64-lane wavefront: each wavefront holds two
32-lane groups, and the lane ids, warp ids, shuffle trees and per-warp slots all agree. Code
that mixes widths does not: with `lane = tid % warpSize` but `warp = tid >> 5` (or a shuffle
loop from 16), lanes 32-63 store into the wrong warp slot or their partial sums are dropped (a
block maximum of 0.0 instead of 5.0). A grid of `N / 32` blocks for a kernel whose blocks cover
`warpSize` (64) columns each starts half of its blocks past the end of the data.

## Example
```cuda
int lane = threadIdx.x % warpSize;
int warp = threadIdx.x >> 5;
```
Use instead:
```cuda
int lane = threadIdx.x % warpSize;
int warp = threadIdx.x / warpSize;
```

## Fix safety
The fix changes every 32-lane spot of the kernel together (`% 32`, `/ 32` and `& 31` to
`% warpSize`, `/ warpSize` and `& (warpSize - 1)`, an isolated `x >> 5` to `x / warpSize`,
shuffle loops from 16 to `warpSize / 2`), or is not offered: one spot changed alone makes the
kernel mixed. It is not offered where a spot has no mechanical rewrite or another literal 32
ties data to 32 lanes. Safe in a mixed kernel (`warpSize` is 32 on NVIDIA GPUs); unsafe in a
consistent 32-lane kernel, where it only moves the code to the full 64-lane wavefront. The grid
size has no automatic fix (host code has no `warpSize`; query `deviceProp.warpSize`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import FixAvailability, Language, rule
from rocport.scan.rules.cuda._lane_math import lane_math
from rocport.scan.rules.cuda._warp_model import model_at

#: a kernel whose blocks cover ``warpSize`` elements each
_COVERS_WARPSIZE = re.compile(r"blockIdx\.x\s*\*\s*warpSize\b|\bwarpSize\s*\*\s*blockIdx\.x")
_GRID_32 = re.compile(r"/\s*32[uU]?(?![\w.])|\bCEIL_DIV\s*\([^;]*,\s*32[uU]?\s*\)")


@rule(
    id="RP103",
    name="lane-math-32",
    severity=Severity.WARNING,
    language=Language.CUDA,
    fix=FixAvailability.SOMETIMES,
)
def check(src: CudaSource) -> Iterator[Finding]:
    if not src.functions:
        return
    for item in lane_math(src):
        model = model_at(src, item.lhs_start)
        if model is None or not model.cross_lane:
            continue  # no cross-lane operation: the arithmetic does not depend on the warp
        expr = f"{item.lhs} {item.op} {item.match.group('num')}"
        meaning = "lane index" if item.op in ("%", "&") else "warp index"
        if model.mixed:
            yield src.finding(
                item.lhs_start,
                f"`{expr}` computes a {meaning} for 32-lane warps, {model.disagreement()}: "
                "on a 64-lane wavefront they disagree",
                model.group_fix(src) or model.hint(),
            )
        else:
            yield src.finding(
                item.lhs_start,
                f"`{expr}` computes a {meaning} for 32-lane warps; every warp spot of "
                f"`{model.name}` assumes 32 lanes, so it computes the same on a 64-lane wavefront",
                model.group_fix(src) or model.hint(),
                severity=Severity.NOTE,
            )
    yield from _grids(src)


def _grids(src: CudaSource) -> Iterator[Finding]:
    """Launches with a grid of ``N / 32`` blocks of kernels that cover ``warpSize`` per block."""
    if not src.has("<<<"):
        return
    code = src.code
    warp_size = src.find_in_bodies("warpSize")  # in both forms: no regex search without one
    if not warp_size:
        return
    covering = {
        f.name
        for f in src.functions
        if f.is_kernel
        and bisect_left(warp_size, f.body[0]) < bisect_left(warp_size, f.body[1])
        and _COVERS_WARPSIZE.search(code, *f.body)
    }
    if not covering:
        return
    for at in src.find_all("<<<"):
        name = re.search(r"(\w+)\s*(?:<[^<>;]*>)?\s*$", code[max(0, at - 200) : at])
        if name is None or name.group(1) not in covering:
            continue
        grid_end = code.find(",", at)
        grid = code[at + 3 : grid_end].strip() if grid_end != -1 else ""
        where, text = at + 3, grid
        if re.fullmatch(r"[A-Za-z_]\w*", grid):
            assignment = re.compile(rf"\b{re.escape(grid)}\s*=\s*([^;=][^;]*);")
            found = list(assignment.finditer(code, max(0, at - 4000), at))
            if not found:
                continue
            assigned = found[-1]
            where, text = assigned.start(1), assigned.group(1).strip()
        if not _GRID_32.search(text):
            continue
        yield src.finding(
            where,
            f"grid of `{text}` blocks for `{name.group(1)}`, whose blocks cover "
            "`blockIdx.x * warpSize` elements: with 64-lane wavefronts the blocks past the "
            "half start beyond the data (out-of-bounds reads and writes)",
            src.hint("Size the grid by the device's warp size (`deviceProp.warpSize`)"),
            severity=Severity.ERROR,
        )
