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
#: ``blockIdx.x * blockDim.x + threadIdx.x;`` in its four orders, as two patterns that each
#: start with a literal (fast to search for; no two match at the same place)
_BLOCK_OFFSET = r"block(?:Idx\.x\s*\*\s*blockDim|Dim\.x\s*\*\s*blockIdx)\.x"
_GLOBAL_INDEX = (
    re.compile(_BLOCK_OFFSET + r"\s*\+\s*threadIdx\.x\s*;"),
    re.compile(r"threadIdx\.x\s*\+\s*" + _BLOCK_OFFSET + r"\s*;"),
)
#: ``name =`` (optionally with a cast) right before the global index expression
_ASSIGNED = re.compile(r"([A-Za-z_]\w*)\s*=\s*(?:\(\s*\w+\s*\)\s*)?$")
_SUBSCRIPT = re.compile(r"\b([A-Za-z_]\w*)\s*\[([^\[\]]*)\]")
#: what makes a kernel more than element-wise: vector types, casts, shared memory, shuffles,
#: atomics, barriers, loops and nested subscripts
_DISQUALIFY_LITERALS = tuple(f"{base}{n}" for base in ("float", "int") for n in "234") + (
    "double2",
    "half2",
    "reinterpret_cast",
    "__shared__",
    "__shfl",
    "atomic",
    "__syncthreads",
)
_LOOP_WORD = (re.compile(r"for\b"), re.compile(r"while\b"))
_NESTED_SUBSCRIPT = re.compile(r"\[[^\]\[;]*\[")


def _first_global_index(code: str, start: int, end: int) -> int:
    """Offset of the first global index expression in ``code[start:end]`` (-1: none). One
    can't reach past a ``{`` or ``}``, so a function body holds whole ones."""
    first = -1
    for pattern in _GLOBAL_INDEX:
        match = pattern.search(code, start, end)
        if match is not None and (first == -1 or match.start() < first):
            first = match.start()
    return first


def _disqualified(body: str) -> bool:
    for literal in _DISQUALIFY_LITERALS:
        if literal in body:
            return True
    for pattern in _LOOP_WORD:
        for match in pattern.finditer(body):
            at = match.start()
            if not at or not (body[at - 1].isalnum() or body[at - 1] == "_"):
                return True
    return _NESTED_SUBSCRIPT.search(body) is not None


@rule(
    id="RP120",
    name="scalar-elementwise-kernel",
    severity=Severity.NOTE,
    language=Language.CUDA,
    triggers=("blockIdx",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for function in src.functions:
        # a finding needs two scalar pointer parameters, so two `*` in the parameters
        if not function.is_kernel or code.count("*", *function.params) < 2:
            continue
        start, end = function.body
        first = _first_global_index(code, start, end + 1)
        if first == -1:
            continue
        body = code[start : end + 1]
        if _disqualified(body):
            continue
        index = _ASSIGNED.search(code, max(start, first - 60), first)
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
