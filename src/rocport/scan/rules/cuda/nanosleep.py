"""RP111 nanosleep: `__nanosleep` in device code.

## What it does
Flags calls to `__nanosleep(ns)`.

## Why is this bad?
`__nanosleep` is an sm_70+ CUDA intrinsic with no declaration in HIP (5.x or 6.x), so the
translated file does not compile. AMD GPUs sleep a wavefront with `s_sleep`, exposed as
`__builtin_amdgcn_s_sleep(n)`, where `n` (0-127) counts units of about 64 clock cycles, not
nanoseconds; spin-wait back-off loops need their constants re-tuned.

## Example
```cuda
while (atomicCAS(lock, 0, 1) != 0) __nanosleep(100);
```
Use instead:
```cuda
while (atomicCAS(lock, 0, 1) != 0) __builtin_amdgcn_s_sleep(2);
```

## Fix safety
No automatic fix: the sleep unit differs, so the argument must be chosen again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

_CALL = re.compile(r"(?<![\w])__nanosleep\s*\(")


@rule(
    id="RP111",
    name="nanosleep",
    severity=Severity.ERROR,
    language=Language.CUDA,
    triggers=("__nanosleep",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    for match in _CALL.finditer(src.code):
        yield src.finding(
            match.start(),
            "`__nanosleep` does not exist in HIP; AMD GPUs sleep in units of "
            "~64 cycles with `s_sleep`",
            src.hint("Use `__builtin_amdgcn_s_sleep(n)` with n chosen for the wait"),
        )
