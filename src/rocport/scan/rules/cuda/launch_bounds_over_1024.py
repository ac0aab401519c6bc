"""RP116 launch-bounds-over-1024: `__launch_bounds__` above 1024 threads.

## What it does
Evaluates the first argument of `__launch_bounds__(...)` (literals, `#define`s, `constexpr`
integers and simple arithmetic) and flags values above 1024.

## Why is this bad?
AMD GPUs run at most 1024 work-items per workgroup. The HIP compiler rejects a larger
`__launch_bounds__` (or `amdgpu_flat_work_group_size`) and a launch with more threads fails at
run time with `hipErrorInvalidConfiguration`.

## Example
```cuda
__global__ void __launch_bounds__(2048) k(float* x);
```
Use instead:
```cuda
__global__ void __launch_bounds__(1024) k(float* x);
```

## Fix safety
No automatic fix: the kernel's indexing usually assumes the larger block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule
from rocport.scan.rules.cuda._warp import first_argument

_BOUNDS = re.compile(r"__launch_bounds__\s*\(")
MAX_THREADS = 1024


@rule(
    id="RP116",
    name="launch-bounds-over-1024",
    severity=Severity.ERROR,
    language=Language.CUDA,
    triggers=("__launch_bounds__",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for match in src.matches_from(_BOUNDS, src.find_all("__launch_bounds__")):
        start, end = first_argument(code, match.end() - 1)
        value = src.evaluate(code[start:end])
        if value is not None and value > MAX_THREADS:
            yield src.finding(
                start,
                f"`__launch_bounds__({code[start:end]})` asks for {value} threads per "
                f"block; AMD GPUs allow at most {MAX_THREADS}",
                src.hint(f"Use at most {MAX_THREADS} threads per block"),
            )
