"""RP106 tile-size-32: a cooperative-groups tile of 32 threads used as "the warp".

## What it does
Flags `thread_block_tile<32>`, `tiled_partition<32>(...)` and `tiled_partition(group, 32)`.

## Why is this bad?
On NVIDIA GPUs a 32-thread tile is exactly one warp. On AMD CDNA GPUs it is half a wavefront:
the tile still works, but code that treats it as the hardware warp (one leader per warp,
per-warp shared-memory slots indexed by `threadIdx.x / 32`, a `__ballot` over the tile's lanes)
now sees two tiles per wavefront, and tile operations run with half of the SIMD lanes masked.

## Example
```cuda
auto warp = cg::tiled_partition<32>(cg::this_thread_block());
```
Use instead (HIP, run-time tile size):
```cuda
auto warp = cg::tiled_partition(cg::this_thread_block(), warpSize);
```

## Fix safety
No automatic fix: `thread_block_tile<N>` needs a compile-time size, and whether 32 means "a
warp" or "32 threads" is a design decision. The suggestion is shown only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

_TILE = re.compile(r"(?P<api>thread_block_tile|tiled_partition)\s*<\s*32\s*>")
_DYNAMIC = re.compile(r"(?P<api>tiled_partition)\s*\([^;()]*(?:\([^;()]*\)[^;()]*)*,\s*32\s*\)")


@rule(
    id="RP106",
    name="tile-size-32",
    severity=Severity.NOTE,
    language=Language.CUDA,
    triggers=("tiled_partition", "thread_block_tile"),
)
def check(src: CudaSource) -> Iterator[Finding]:
    matches = src.matches_at("thread_block_tile", _TILE) + src.matches_at("tiled_partition", _TILE)
    matches += src.matches_at("tiled_partition", _DYNAMIC)
    for match in sorted(matches, key=re.Match.start):
        api = match.group("api")
        yield src.finding(
            match.start(),
            f"`{api}` of 32 threads is half of a 64-lane AMD wavefront; code "
            "that treats the tile as the hardware warp sees two tiles per wavefront",
            src.hint("Use `tiled_partition(block, warpSize)` where the tile stands for a warp"),
        )
