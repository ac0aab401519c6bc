"""RP104 warp-size-constant-32: a warp-size macro or constant defined as 32.

## What it does
Flags `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32;` and similar definitions whose name
says "warp size" (`WARP_SIZE`, `warp_size`, `kWarpSize`, `THREADS_PER_WARP`, `LANES_PER_WARP`,
`WAVE_SIZE`, ...), as a note. The warp model of the other rules resolves such a name (here or
in another header of the tree) as a 32-lane spot.

## Why is this bad?
It is not wrong by itself: code that uses the name everywhere (lane ids, warp counts, shuffle
widths, per-warp slots) treats each 64-lane AMD wavefront as two 32-lane warps and computes the
same results. It is wrong where the same kernel also uses `warpSize` or 64, which the other warp
rules report. Moving to 64-lane warps (for speed) means changing the definition together with
every shuffle loop, block shape and grid size that depends on it, as ROCm ports of such code do
(`#define WARP_SIZE 64` under a wave64 switch, with the shuffle loops and `dim3` shapes).

## Example
```cuda
#define WARP_SIZE 32
```
Use instead (when the code should use whole wavefronts):
```cuda
#if defined(__HIP_PLATFORM_AMD__) && __AMDGCN_WAVEFRONT_SIZE == 64
#define WARP_SIZE 64
#else
#define WARP_SIZE 32
#endif
```

## Fix safety
No automatic fix: changing the definition alone breaks code that pairs it with a shuffle loop
from 16 (block sums come out 4 times too large) or a block shape like `dim3(4, 8)` sized for
32 lanes; `warpSize` is not a constant in host code or array sizes (ROCm 7 makes it a run-time
value).
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule
from rocport.scan.rules.cuda._warp import WARP_SIZE_NAME


@rule(
    id="RP104",
    name="warp-size-constant-32",
    severity=Severity.NOTE,
    language=Language.CUDA,
    triggers=("32",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    for kind, table in (("macro", src.defines), ("constant", src.constants)):
        for name, match in table.items():
            value = match.group(2).strip()
            if value.strip("()").rstrip("uU") != "32" or not WARP_SIZE_NAME.match(name):
                continue
            yield src.finding(
                match.start(1),
                f"{kind} `{name}` fixes the warp size at 32: code that uses it everywhere "
                "treats a 64-lane AMD wavefront as two 32-lane warps (same results); moving to "
                "64 changes every use and launch shape with it",
                src.hint(f"Keep `{name}` consistent, or change it with every use together"),
            )
