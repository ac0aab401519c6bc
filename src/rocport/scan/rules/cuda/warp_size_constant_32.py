"""RP104 warp-size-constant-32: a warp-size macro or constant defined as 32.

## What it does
Flags `#define WARP_SIZE 32`, `constexpr int kWarpSize = 32;` and similar definitions whose name
says "warp size" (`WARP_SIZE`, `warp_size`, `kWarpSize`, `THREADS_PER_WARP`, `LANES_PER_WARP`,
`WAVE_SIZE`, ...).

## Why is this bad?
Every use of the name inherits the 32-lane assumption: lane ids, warp counts, shuffle loop
bounds and per-warp buffers are all sized for half of an AMD CDNA wavefront (64 lanes). HIP
provides `warpSize` (a compile-time constant in device code up to ROCm 6.4) for this.

## Example
```cuda
#define WARP_SIZE 32
```
Use instead:
```cuda
#define WARP_SIZE warpSize
```

## Fix safety
Unsafe: the name may be used in host code, in template arguments or in `__shared__` array
sizes, where `warpSize` is not available or not a constant (ROCm 7 makes `warpSize` a run-time
value). Review every use before applying; code that needs a compile-time bound can use 64 (the
widest wavefront) instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Applicability, Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import FixAvailability, Language, rule
from rocport.scan.rules.cuda._warp import WARP_SIZE_NAME


@rule(
    id="RP104",
    name="warp-size-constant-32",
    severity=Severity.WARNING,
    language=Language.CUDA,
    fix=FixAvailability.ALWAYS,
    triggers=("32",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    for kind, table in (("macro", src.defines), ("constant", src.constants)):
        for name, match in table.items():
            value = match.group(2).strip()
            if value.strip("()").rstrip("uU") != "32" or not WARP_SIZE_NAME.match(name):
                continue
            start = match.start(2) + match.group(2).index("32")
            end = start + len(value.strip("()"))
            yield src.finding(
                match.start(1),
                f"{kind} `{name}` fixes the warp size at 32; AMD CDNA wavefronts have 64 lanes",
                src.replace(
                    start, end, "warpSize", f"Define `{name}` as `warpSize`", Applicability.UNSAFE
                ),
            )
