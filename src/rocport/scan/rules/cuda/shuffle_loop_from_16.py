"""RP105 shuffle-loop-from-16: a shuffle reduction or scan loop bounded by 32 lanes.

## What it does
Flags loops whose body shuffles (`__shfl*`, `tile.shfl*`) and whose header starts a halving
offset at 16 (`for (int o = 16; o > 0; o /= 2)`, `o >>= 1`), or doubles an offset while it stays
below 32 (`for (int o = 1; o < 32; o *= 2)`).

## Why is this bad?
A tree reduction over a 64-lane wavefront needs offsets 32, 16, ..., 1. Starting at 16 combines
each half of the wavefront separately: lane 0 ends up with the sum of lanes 0-31 only, and the
result is silently wrong by the other half. Scans that stop below 32 leave lanes 32-63 without
the contribution of the lower half.

## Example
```cuda
for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
```
Use instead:
```cuda
for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffffffffffULL, v, offset);
```

## Fix safety
Safe: `warpSize / 2` is 16 and `warpSize` is 32 on NVIDIA GPUs, so the loop is unchanged there,
and covers the full wavefront on AMD GPUs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import FixAvailability, Language, rule
from rocport.scan.rules.cuda._warp import SHUFFLE

_FOR = re.compile(r"for\s*\(")
_DOWN = re.compile(
    r"^\s*(?:(?:const|unsigned|signed|int|auto|long|short|size_t|u?int32_t)\s+)*"
    r"(?P<var>[A-Za-z_]\w*)\s*=\s*(?P<start>16)[uU]?\s*;[^;]*;\s*"
    r"(?:(?P=var)\s*(?:/=\s*2|>>=\s*1)|(?P=var)\s*=\s*(?P=var)\s*(?:/\s*2|>>\s*1))\s*$"
)
_UP = re.compile(
    r"^\s*(?:(?:const|unsigned|signed|int|auto|long|short|size_t|u?int32_t)\s+)*"
    r"(?P<var>[A-Za-z_]\w*)\s*=\s*1[uU]?\s*;\s*(?P=var)\s*(?P<cmp><=?)\s*(?P<limit>32|16)[uU]?\s*;"
    r"\s*(?:(?P=var)\s*(?:\*=\s*2|<<=\s*1)|(?P=var)\s*=\s*(?P=var)\s*(?:\*\s*2|<<\s*1))\s*$"
)


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
    fix=FixAvailability.ALWAYS,
    triggers=("shfl",),
    gate=_may_fire,
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for head in _FOR.finditer(code):
        if not src.starts_word(head.start()):
            continue
        close = src.paren_end(head.end() - 1)
        header_start = head.end()
        header = code[header_start:close] if close > 0 else ""
        down, up = _DOWN.match(header), _UP.match(header)
        if not (down or up):
            continue
        loop = src.loop_at(head.start(), "for", head.end() - 1)
        if loop is None or not SHUFFLE.search(code, *loop.body):
            continue
        if down:
            start, end = header_start + down.start("start"), header_start + down.end("start")
            yield src.finding(
                start,
                "shuffle loop starts at offset 16, which reduces 32 lanes; a 64-wide "
                "wavefront needs offsets from 32",
                src.replace(start, end, "warpSize / 2", "Start at `warpSize / 2`"),
            )
            continue
        if up:
            start, end = header_start + up.start("limit"), header_start + up.end("limit")
            limit = (
                "warpSize"
                if (up.group("cmp"), up.group("limit")) == ("<", "32")
                else "warpSize / 2"
                if (up.group("cmp"), up.group("limit")) == ("<=", "16")
                else None
            )
            if limit is None:
                continue
            yield src.finding(
                start,
                f"shuffle loop stops at `{up.group('cmp')} {up.group('limit')}`, which "
                "covers 32 lanes; a 64-wide wavefront needs offsets up to 32",
                src.replace(start, end, limit, f"Bound the loop by `{limit}`"),
            )
