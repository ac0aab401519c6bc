"""RP121 hand-written-gemm-fft: a GEMM or DFT loop written by hand in device code.

## What it does
In `__global__`/`__device__` functions, flags loops that accumulate a product of two different
arrays indexed by the loop variable at different positions (`acc += A[row*K + k] * B[k*N + col]`,
also with shared-memory tiles `As[ty][k] * Bs[k][tx]`), and loops that accumulate terms computed
with `sin`/`cos` of a multiple of pi (a direct DFT).

## Why is this bad?
This is a performance hint. rocBLAS and hipBLASLt GEMMs use the MFMA matrix cores of CDNA GPUs,
which a scalar FMA loop cannot reach; rocFFT/hipFFT run an O(n log n) FFT where a direct DFT is
O(n^2). Hand-tuned CUDA GEMM tiles are also tuned for 32-lane warps and NVIDIA shared-memory
banks.

## Example
```cuda
for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
```
Use instead:
```cuda
hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
```

## Fix safety
No automatic fix: replacing a kernel with a library call changes the host code around it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.literals import contains
from rocport.scan.registry import Language, rule

_LOOP_VAR = re.compile(r"\s*(?:[\w:<>]+\s+)*([A-Za-z_]\w*)\s*=")
_SUBSCRIPTED = r"([A-Za-z_]\w*)\s*((?:\[[^\[\];]*\]\s*)+)"
_PRODUCT_ACCUMULATE = re.compile(
    r"\b[A-Za-z_]\w*(?:\[[^\]]*\])*\s*\+=\s*" + _SUBSCRIPTED + r"\*\s*" + _SUBSCRIPTED
)
_TRIG = re.compile(r"\b(?:__)?(?:sin|cos|sincos)(?:f|pi|pif)?\s*\(")
_PI = re.compile(r"\bM_PI\w*|\bPI\b|\bpi\b|3\.14159|\bTWO_PI\b|\bkPi\b")


_FOR = re.compile(r"for\s*\(")


def _device_for_loops(src: CudaSource):
    """``for`` loops inside device functions that contain a ``+=``."""
    code = src.code
    for function in src.functions:
        start, end = function.body
        if code.find("+=", start, end) == -1:
            continue
        for head in _FOR.finditer(code, start, end):
            if src.starts_word(head.start()):
                loop = src.loop_at(head.start(), "for", head.end() - 1)
                if loop is not None:
                    yield loop


#: the part of ``_PRODUCT_ACCUMULATE`` from ``+=`` to the second subscript
_PRODUCT_TAIL = re.compile(r"\+=\s*" + _SUBSCRIPTED + r"\*\s*[A-Za-z_]\w*\s*\[")
#: what every ``_TRIG`` match contains, in two patterns that start with a literal (fast to
#: search for, where one alternation would be tried at every character)
_TRIG_CALLS = (
    re.compile(r"sin(?:cos)?(?:f|pi|pif)?\s*\("),
    re.compile(r"cos(?:f|pi|pif)?\s*\("),
)
#: literals that ``_PI`` matches contain
_PI_WORDS = ("PI", "pi", "3.14159", "kPi")


def _may_fire(src: CudaSource) -> bool:
    """A GEMM loop needs a ``+= a[..] * b[..]``, a DFT loop a sin/cos call and pi, all in
    device function bodies (searched as one text: a match across two of them only lets the
    rule run)."""
    bodies = src.device_code
    if _PRODUCT_TAIL.search(bodies) is not None:
        return True
    return any(pattern.search(bodies) for pattern in _TRIG_CALLS) and any(
        contains(bodies, word) for word in _PI_WORDS
    )


@rule(
    id="RP121",
    name="hand-written-gemm-fft",
    severity=Severity.NOTE,
    language=Language.CUDA,
    triggers=("+=",),
    gate=_may_fire,
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    if not src.functions:
        return
    if not any(src.in_device_code(pos) for pos in src.find_all("+=")):
        return
    reported: set[int] = set()
    for loop in _device_for_loops(src):
        if "+=" not in code[loop.body[0] : loop.body[1]]:
            continue
        function = src.function_at(loop.start)
        var = _LOOP_VAR.match(code, loop.header[0], loop.header[1])
        if var is None or function is None or function.body[0] in reported:
            continue
        body = code[loop.body[0] : loop.body[1]]
        name = var.group(1)
        uses = re.compile(rf"\b{re.escape(name)}\b")
        for product in _PRODUCT_ACCUMULATE.finditer(body):
            a, a_index, b, b_index = (part.strip() for part in product.groups())
            if a != b and a_index != b_index and uses.search(a_index) and uses.search(b_index):
                reported.add(function.body[0])
                yield src.finding(
                    loop.start,
                    f"hand-written GEMM loop in `{function.name}` "
                    f"(`{a}{a_index} * {b}{b_index}` over `{name}`)",
                    src.hint(
                        "Call rocBLAS/hipBLAS (`hipblasSgemm`) or hipBLASLt, which use "
                        "the MFMA matrix cores"
                    ),
                )
                break
        else:
            function_text = code[function.body[0] : function.body[1]]
            if _TRIG.search(body) and "+=" in body and _PI.search(function_text):
                reported.add(function.body[0])
                yield src.finding(
                    loop.start,
                    f"hand-written DFT loop in `{function.name}` (sin/cos "
                    "twiddles accumulated in a loop)",
                    src.hint("Use rocFFT/hipFFT (`hipfftExecC2C`): O(n log n) instead of O(n^2)"),
                )
