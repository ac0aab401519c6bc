"""RP110 inline-ptx: inline PTX assembly.

## What it does
Flags `asm(...)`, `asm volatile(...)` and `__asm__(...)` statements whose template is PTX
(instruction suffixes such as `.u32`/`.f32`, `.reg`, `%laneid`, `mma.sync`, `cp.async`, ...)
and names the HIP replacement for the instruction it recognises.

## Why is this bad?
PTX is NVIDIA's virtual ISA. The AMD GPU compiler cannot assemble it, so the file fails to build
for any `gfx` target; hipify tools leave these statements untouched.

## Example
```cuda
unsigned lane;
asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
```
Use instead:
```cuda
unsigned lane = __lane_id();
```

## Fix safety
No automatic fix: each PTX sequence needs a hand-written equivalent (a HIP intrinsic, a
`__builtin_amdgcn_*` builtin or a library call). The message names one where the instruction is
known.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from rocport._diagnostics import Finding, Severity
from rocport.scan import tables
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

_ASM = re.compile(r"asm(?:__)?\s*(?:volatile\b|__volatile__\b)?\s*\(")
_SYMBOL = re.compile(r"[\w.$]+")
_PTX = re.compile(
    r"\b[a-z][a-z0-9]*(?:\.[a-z0-9]+)*\.(?:[usbf](?:8|16|32|64)|pred|b128)\b|\.reg\b|\.shared\b|"
    r"\.global\b|%%?(?:laneid|warpid|clock|clock64|globaltimer|tid|ntid|ctaid|smid)\b|"
    r"\b(?:mma|wgmma|ldmatrix|cp\.async|shfl|vote|bar|membar|prmt)\b"
)


@cache
def _known() -> list[tuple[re.Pattern[str], dict]]:
    """The PTX hint table, each pattern anchored at the start of an instruction or register."""
    return [
        (re.compile(r"(?<![\w.])" + re.escape(row["pattern"])), row)
        for row in tables.ptx_instructions()
    ]


@rule(
    id="RP110",
    name="inline-ptx",
    severity=Severity.ERROR,
    language=Language.CUDA,
    triggers=("asm",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for match in _ASM.finditer(code):
        begin = (
            match.start() - 2 if code[match.start() - 2 : match.start()] == "__" else match.start()
        )
        if not src.starts_word(begin):
            continue
        close = src.paren_end(match.end() - 1)
        if close < 0:
            continue
        template = src.text[match.end() : close]  # the literal text, not blanked
        strings = "".join(re.findall(r'"([^"]*)"', template))
        if _SYMBOL.fullmatch(strings) and ":" not in code[match.end() : close]:
            continue  # an asm label naming a symbol (`__asm("llvm.amdgcn.cos.f32")`)
        if not _PTX.search(template):
            continue
        known = next((row for pattern, row in _known() if pattern.search(template)), None)
        first = " ".join(re.findall(r'"([^"]*)"', template)).strip() or template.strip()
        first = first.split(";")[0].strip()[:60]
        if known:
            message = f"inline PTX `{first}` ({known['feature']}) does not assemble for AMD GPUs"
            fix = src.hint(known["hint"][0].upper() + known["hint"][1:])
        else:
            message = f"inline PTX `{first}` does not assemble for AMD GPUs"
            fix = src.hint("Replace the PTX with a HIP intrinsic or `__builtin_amdgcn_*` builtin")
        yield src.finding(begin, message, fix)
