"""RP115 managed-memory-in-loop: `cudaMallocManaged` inside a loop.

## What it does
Flags `cudaMallocManaged` and `hipMallocManaged` calls inside a `for`, `while` or `do` loop.

## Why is this bad?
Allocating managed memory maps and registers pages on every call, which is expensive on any GPU.
On AMD GPUs it costs more: unless the process runs with XNACK enabled (`HSA_XNACK=1` on a GPU
and kernel that support it), managed memory does not migrate on GPU page faults, so every
allocation made in a hot loop is also accessed at bus speed, and the allocations fragment the
address space.

## Example
```cuda
for (int step = 0; step < steps; ++step) {
    cudaMallocManaged(&buf, bytes);
    kernel<<<g, b>>>(buf);
    cudaFree(buf);
}
```
Use instead:
```cuda
cudaMalloc(&buf, bytes);                 // once, before the loop
for (int step = 0; step < steps; ++step) kernel<<<g, b>>>(buf);
cudaFree(buf);
```

## Fix safety
No automatic fix: moving an allocation out of a loop changes lifetimes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

#: matched where ``MallocManaged`` follows ``cuda`` or ``hip`` (CudaSource.prefixed_matches)
_CALL = re.compile(r"((?:cuda|hip)MallocManaged)\s*\(")


@rule(
    id="RP115",
    name="managed-memory-in-loop",
    severity=Severity.WARNING,
    language=Language.CUDA,
    triggers=("MallocManaged",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    for match in src.prefixed_matches("MallocManaged", _CALL):
        loop = src.enclosing_loop(match.start())
        if loop is None:
            continue
        line = src.location(loop.start).line
        yield src.finding(
            match.start(),
            f"`{match.group(1)}` inside the `{loop.keyword}` loop at line {line}: "
            "a managed allocation per iteration, which AMD GPUs without XNACK do not migrate",
            src.hint(
                "Allocate once before the loop (`hipMalloc`, or `hipMallocManaged` with "
                "`HSA_XNACK=1`) and reuse the buffer"
            ),
        )
