"""RP120 scalar-elementwise-kernel: an element-wise kernel that moves one scalar per thread.

## What it does
Flags kernels that compute one global index (`blockIdx.x * blockDim.x + threadIdx.x`), read and
write two or more pointer parameters of 1-, 2- or 4-byte scalar types only at that index, and
use no vector types, shared memory, shuffles or atomics.

## Why is this bad?
This is a performance hint. Such kernels are bound by memory bandwidth, and on AMD GPUs a
16-byte load per lane (`float4`, `global_load_dwordx4`) moves four times the data per memory
instruction of a 4-byte load; vectorized element-wise kernels usually get noticeably closer to
peak HBM bandwidth on MI200/MI300.

## Example
```cuda
__global__ void scale(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
```
Use instead:
```cuda
__global__ void scale(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        reinterpret_cast<float4*>(y)[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
    }
    if (i < n - 4 * n4) y[4 * n4 + i] = a * x[4 * n4 + i];   // tail
}
```

## Fix safety
No automatic fix: vectorizing needs 16-byte aligned pointers, a tail loop for `n % 4`, and a
grid sized for `n / 4`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan import cexpr
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

_SCALAR_POINTER = re.compile(
    r"(?:const\s+)?\b(float|__half|half|__nv_bfloat16|__hip_bfloat16|hip_bfloat16|int|"
    r"unsigned(?:\s+int)?|int32_t|uint32_t|int16_t|uint16_t|int8_t|uint8_t|char|"
    r"unsigned\s+char|short)\s*(?:const\s*)?\*\s*(?:const\s+)?(?:__restrict__\s+|__restrict\s+)?"
    r"([A-Za-z_]\w*)"
)
_GLOBAL_INDEX = re.compile(
    r"(?:blockIdx\.x\s*\*\s*blockDim\.x\s*\+\s*threadIdx\.x|"
    r"blockDim\.x\s*\*\s*blockIdx\.x\s*\+\s*threadIdx\.x|"
    r"threadIdx\.x\s*\+\s*blockIdx\.x\s*\*\s*blockDim\.x|"
    r"threadIdx\.x\s*\+\s*blockDim\.x\s*\*\s*blockIdx\.x)\s*;"
)
#: ``name =`` (optionally with a cast) right before the global index expression
_ASSIGNED = re.compile(r"([A-Za-z_]\w*)\s*=\s*(?:\(\s*\w+\s*\)\s*)?$")
_SUBSCRIPT = re.compile(r"\b([A-Za-z_]\w*)\s*\[([^\[\]]*)\]")
_DISQUALIFY = re.compile(
    r"float[234]|int[234]|double2|half2|reinterpret_cast|__shared__|"
    r"__shfl|atomic|__syncthreads|\bfor\b|\bwhile\b|\[[^\]\[;]*\["
)


@rule(
    id="RP120",
    name="scalar-elementwise-kernel",
    severity=Severity.NOTE,
    language=Language.CUDA,
    triggers=("blockIdx",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    if "blockIdx" not in code:
        return
    for function in src.functions:
        if not function.is_kernel:
            continue
        body = code[function.body[0] : function.body[1] + 1]
        found = _GLOBAL_INDEX.search(body)
        if found is None or _DISQUALIFY.search(body):
            continue
        index = _ASSIGNED.search(body, max(0, found.start() - 60), found.start())
        if index is None:
            continue
        pointers = {
            name: type_
            for type_, name in _SCALAR_POINTER.findall(
                code[function.params[0] : function.params[1]]
            )
        }
        subscripts = _SUBSCRIPT.findall(body)
        if not subscripts:
            continue
        bases = {base for base, _ in subscripts}
        if (
            any(inner.strip() != index.group(1) for _, inner in subscripts)
            or not bases <= pointers.keys()
            or len(bases) < 2
        ):
            continue
        element = pointers[sorted(bases)[0]]
        factor = 16 // (cexpr.sizeof(element) or 4)
        yield src.finding(
            code.find(function.name, function.start),
            f"element-wise kernel `{function.name}` "
            f"moves one `{element}` per thread and array; 16-byte vector loads move {factor} "
            "times more per memory instruction",
            src.hint("Vectorize with `float4`-style loads and stores plus a scalar tail"),
        )
