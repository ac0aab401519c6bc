"""RP118 block-size-not-multiple-of-64: a launch whose block is not a whole number of wavefronts.

## What it does
Evaluates the block argument of `<<<grid, block>>>`, `hipLaunchKernelGGL` and
`cudaLaunchKernel` launches (a number, a constant expression, `dim3(x, y, z)`, or a `dim3`
variable declared with constant extents in the same file) and flags thread counts that are not
a multiple of 64.

## Why is this bad?
AMD CDNA GPUs schedule threads in wavefronts of 64. A block of 96 threads occupies two
wavefronts, the second one half empty; a block of 32 leaves half of every wavefront idle. NVIDIA
block sizes chosen as multiples of 32 therefore waste up to half of the SIMD lanes on AMD.

## Example
```cuda
kernel<<<blocks, 96>>>(x, n);
```
Use instead:
```cuda
kernel<<<(n + 127) / 128, 128>>>(x, n);
```

## Fix safety
No automatic fix: the grid size and the kernel's indexing usually depend on the block size.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

WAVEFRONT = 64


@rule(
    id="RP118",
    name="block-size-not-multiple-of-64",
    severity=Severity.WARNING,
    language=Language.CUDA,
    triggers=("<<<", "Launch"),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for _offset, _kind, (start, end) in src.launch_configs():
        expr = code[start:end].strip()
        threads = src.block_threads(expr)
        if threads is None or threads <= 0 or threads % WAVEFRONT == 0:
            continue
        waves = -(-threads // WAVEFRONT)
        idle = waves * WAVEFRONT - threads
        suggestion = waves * WAVEFRONT
        yield src.finding(
            start + code[start:end].index(expr),
            f"block of {threads} threads (`{expr}`) fills "
            f"{waves} wavefront{'s' if waves > 1 else ''} of 64 with {idle} idle lanes",
            src.hint(
                f"Use a multiple of 64 threads, e.g. {suggestion}, and size the grid to match"
            ),
        )
