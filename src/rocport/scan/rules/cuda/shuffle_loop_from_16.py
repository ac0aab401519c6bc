"""RP105 shuffle-loop-from-16: a shuffle reduction or scan loop bounded by 32 lanes.

## What it does
Flags loops whose body shuffles (`__shfl*`, `tile.shfl*`) and whose header starts a halving
offset at 16 (`for (int o = 16; o > 0; o /= 2)`, `o >>= 1`), or doubles an offset while it stays
below 32 (`for (int o = 1; o < 32; o *= 2)`). It is an error only where the kernel mixes warp
widths: the loop reduces 32 lanes while another spot of the same kernel (the kernel and the
`__device__` functions it calls in the file) uses `warpSize` or 64. Where every warp spot of
the kernel assumes 32 lanes (lane `% 32`, warp `/ 32`, a warp-size macro of 32, widths and
tiles of 32), it is a note.

## Why is this bad?
A tree reduction over a 64-lane wavefront needs offsets 32, 16, ..., 1; from 16 it combines
each 32-lane half of the wavefront separately. That is right when the rest of the kernel also
treats 32 lanes as its warp (each 64-lane wavefront then holds two such warps, and every lane
gets the same value as on NVIDIA GPUs). It is wrong when the lane 0 that stores the result is
lane 0 of the 64-lane wavefront (`threadIdx.x % warpSize == 0`): the sum of lanes 32-63 is lost.

## Example
```cuda
for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
if (threadIdx.x % warpSize == 0) atomicAdd(out, v);
```
Use instead:
```cuda
for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down(v, offset);
if (threadIdx.x % warpSize == 0) atomicAdd(out, v);
```

## Fix safety
The fix changes every 32-lane spot of the kernel together (loop starts to `warpSize / 2`, lane
math to `% warpSize` and `/ warpSize`, shuffle widths of 32 to `warpSize`), or is not offered:
changing the loop alone doubles or quadruples block sums where the lane math stays at 32. It is
not offered where a spot has no mechanical rewrite (a warp-size macro, a tile of 32, a
non-isolated `>> 5`) or another literal 32 ties data to 32 lanes (`32 * n`). In a mixed kernel
it is safe: `warpSize` is 32 on NVIDIA GPUs. In a consistent 32-lane kernel it is unsafe: it
only moves the code to the full 64-lane wavefront (the results stay the same).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import FixAvailability, Language, rule
from rocport.scan.rules.cuda._warp_model import model_at, shuffle_loop

_FOR = re.compile(r"for\s*\(")

#: the ``16;``/``32;`` of ``= 16;``, ``< 32;`` or ``<= 16;`` in ``_DOWN``/``_UP``
_BOUNDS = (re.compile(r"16[uU]?\s*;"), re.compile(r"32[uU]?\s*;"))


def _may_fire(src: CudaSource) -> bool:
    """Both loop patterns need ``= 16;`` or ``< 32;``/``<= 16;``: a 16 or 32 right after
    ``=`` or ``<`` (blanks between) and right before ``;``."""
    code = src.code
    for pattern in _BOUNDS:
        for match in pattern.finditer(code):
            before = match.start()
            while before > 0 and code[before - 1].isspace():
                before -= 1
            if before and code[before - 1] in "=<":
                return True
    return False


@rule(
    id="RP105",
    name="shuffle-loop-from-16",
    severity=Severity.ERROR,
    language=Language.CUDA,
    fix=FixAvailability.SOMETIMES,
    triggers=("shfl",),
    gate=_may_fire,
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for head in _FOR.finditer(code):
        found = shuffle_loop(src, head)
        if found is None:
            continue
        match, base, kind = found
        if kind == "down" and match.group("start") != "16":
            continue
        if kind == "down":
            start = base + match.start("start")
            what = "shuffle loop starts at offset 16, which reduces 32 lanes"
        else:
            start = base + match.start("limit")
            what = (
                f"shuffle loop stops at `{match.group('cmp')} {match.group('limit')}`, which "
                "covers 32 lanes"
            )
        model = model_at(src, start)
        if model is not None and model.mixed:
            yield src.finding(
                start,
                f"{what}, {model.disagreement()}: on a 64-lane wavefront they disagree",
                model.group_fix(src) or model.hint(),
            )
        elif model is not None:
            yield src.finding(
                start,
                f"{what}; every warp spot of `{model.name}` assumes 32 lanes, so it computes "
                "the same on a 64-lane wavefront (two 32-lane groups per wavefront)",
                model.group_fix(src) or model.hint(),
                severity=Severity.NOTE,
            )
        else:
            yield src.finding(
                start,
                f"{what}; a 64-lane wavefront needs offsets from 32 where the rest of the code "
                "uses 64-lane warps",
                src.hint("Start at `warpSize / 2` together with the lane math"),
                severity=Severity.NOTE,
            )
