"""RP117 static-shared-over-64k: more than 64 KiB of static `__shared__` memory in a kernel.

## What it does
Adds up the sizes of the non-`extern` `__shared__` arrays that each kernel declares or uses
(element type size times every dimension, with `#define` and `constexpr` constants evaluated)
and flags kernels above 64 KiB.

## Why is this bad?
The LDS (AMD's shared memory) of a workgroup on CDNA2/CDNA3 (MI200, MI300) is 64 KiB. NVIDIA
allows up to 227 KiB per block on Hopper (through opt-in dynamic shared memory), so tiles tuned
for it do not fit: the HIP compiler stops with "local memory limit exceeded".

## Example
```cuda
__shared__ float tile[128][129];   // 66 048 bytes
```
Use instead:
```cuda
__shared__ float tile[64][129];    // 33 024 bytes: smaller tiles, or fewer stages
```

## Fix safety
No automatic fix: tile sizes drive the kernel's indexing.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

LDS_BYTES = 64 * 1024


def _mentions(src: CudaSource, name: str, start: int, end: int) -> bool:
    pos = src.code.find(name, start, end)
    while pos != -1:
        if src.is_word_at(pos, pos + len(name)):
            return True
        pos = src.code.find(name, pos + 1, end)
    return False


@rule(
    id="RP117",
    name="static-shared-over-64k",
    severity=Severity.ERROR,
    language=Language.CUDA,
    triggers=("__shared__",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    arrays = [a for a in src.shared_arrays if not a.extern and a.size is not None]
    if sum(a.size for a in arrays) <= LDS_BYTES:
        return  # no kernel can use more than all of them together
    code = src.code
    file_scope = [a for a in arrays if src.function_at(a.offset) is None]
    for function in src.functions:
        if not function.is_kernel:
            continue
        start, end = function.body
        used = [a for a in arrays if start <= a.offset <= end]
        used += [a for a in file_scope if _mentions(src, a.name, start, end)]
        total = sum(a.size for a in used)
        if total > LDS_BYTES:
            biggest = max(used, key=lambda a: a.size)
            yield src.finding(
                code.find(function.name, function.start),
                f"kernel `{function.name}` uses "
                f"{total:,} bytes of static shared memory (largest: `{biggest.name}`, "
                f"{biggest.size:,} bytes); AMD GPUs have 64 KiB of LDS per workgroup",
                src.hint("Shrink the tiles or split the kernel so that LDS stays within 64 KiB"),
            )
