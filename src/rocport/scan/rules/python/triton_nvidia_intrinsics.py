"""RP308 triton-nvidia-intrinsics: a Triton kernel that uses NVIDIA-only intrinsics.

## What it does
In files that import Triton, flags `tl.inline_asm_elementwise(...)` whose assembly is PTX, and
uses of the CUDA-specific `triton.language.extra.cuda` module (`libdevice`, `globaltimer`,
`smid`, `convert_custom_float8`, ...).

## Why is this bad?
Triton itself runs on ROCm (the AMD backend compiles to AMDGPU), but PTX inside
`inline_asm_elementwise` only assembles for NVIDIA GPUs, and the `extra.cuda` helpers call
CUDA's libdevice or PTX special registers. The kernel fails to compile on AMD GPUs.

## Example
```python
from triton.language.extra.cuda import libdevice
y = tl.inline_asm_elementwise("cvt.rn.f16.f32 $0, $1;", "=h,r", [x], dtype=tl.float16,
                              is_pure=True, pack=1)
```
Use instead:
```python
from triton.language.extra import libdevice   # dispatches to the HIP or CUDA library
y = x.to(tl.float16)
```

## Fix safety
No automatic fix for inline assembly. The `extra.cuda` import is reported with the portable
module path as a hint only: not every helper in it has a portable counterpart.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule

_PTX = re.compile(
    r"\b[a-z]+(?:\.[a-z0-9]+)*\.(?:[usbf](?:8|16|32|64)|pred)\b|%(?:laneid|smid|"
    r"clock|globaltimer)|\$\d+.*;|\bmov\.|\bcvt\."
)
_CUDA_EXTRA = "triton.language.extra.cuda"


@rule(
    id="RP308", name="triton-nvidia-intrinsics", severity=Severity.ERROR, language=Language.PYTHON
)
def check(src: PythonSource) -> Iterator[Finding]:
    if "triton" not in src.text:
        return
    for node in src.of_type(ast.ImportFrom, ast.Import):
        modules = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [a.name for a in node.names]
        )
        if any(m == _CUDA_EXTRA or m.startswith(_CUDA_EXTRA + ".") for m in modules):
            yield src.node_finding(
                node,
                f"`{_CUDA_EXTRA}` holds NVIDIA-only helpers (CUDA libdevice, PTX "
                "registers); it does not compile for AMD GPUs",
                src.hint("Import `libdevice` from `triton.language.extra` (portable)"),
            )
    for node in src.of_type(ast.Attribute):
        name = src.qualname(node)
        if name == _CUDA_EXTRA and not isinstance(getattr(node, "ctx", None), ast.Store):
            yield src.node_finding(
                node,
                f"`{src.source_of(node)}` is NVIDIA-only; it does not compile for AMD GPUs",
                src.hint("Use `triton.language.extra.libdevice` (portable)"),
            )
    for call in src.of_type(ast.Call):
        name = src.qualname(call.func) or ""
        if not name.endswith("inline_asm_elementwise") or not call.args:
            continue
        asm = call.args[0]
        if isinstance(asm, ast.Constant) and isinstance(asm.value, str) and _PTX.search(asm.value):
            yield src.node_finding(
                call,
                f"`inline_asm_elementwise` with PTX `{asm.value.strip()[:40]}` only "
                "assembles for NVIDIA GPUs",
                src.hint(
                    "Express it with `tl` operations, or guard it with the AMD target "
                    "and AMDGPU assembly"
                ),
            )
