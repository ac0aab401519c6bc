"""RP305 cuda-extension-build: a `CUDAExtension` build, and nvcc-only flags given to it.

## What it does
Flags `torch.utils.cpp_extension.CUDAExtension(...)` (and `load(..., extra_cuda_cflags=...)`)
and, inside their `extra_compile_args["nvcc"]` / `extra_cuda_cflags`, flags that only nvcc
understands: `-arch=sm_*`, `-gencode`, `-code=sm_*`, `--use_fast_math`, `-Xptxas`,
`--ptxas-options`, `--expt-relaxed-constexpr`, `--expt-extended-lambda`, `-lineinfo`,
`--maxrregcount`.

## Why is this bad?
`CUDAExtension` does work on ROCm: PyTorch hipifies the sources at build time and compiles them
with hipcc (clang). But the `nvcc` flag list is passed to hipcc as is, and clang rejects PTX
architecture and ptxas options, so the build fails with "unsupported option". The extension's
`.cu` files are also hipified into new files, which matters for code that includes them by path.

## Example
```python
CUDAExtension("ops", ["ops.cu"],
              extra_compile_args={"nvcc": ["-O3", "-gencode", "arch=compute_80,code=sm_80"]})
```
Use instead:
```python
nvcc_flags = ["-O3"]
if torch.version.hip is None:
    nvcc_flags += ["-gencode", "arch=compute_80,code=sm_80"]
CUDAExtension("ops", ["ops.cu"], extra_compile_args={"nvcc": nvcc_flags})
```
(set `PYTORCH_ROCM_ARCH=gfx90a;gfx942` to choose AMD targets)

## Fix safety
No automatic fix: which flags to keep for the CUDA build is the project's choice.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule

_NVCC_ONLY = re.compile(
    r"^(?:-arch(?:=|\s+)?(?:sm|compute)_\w+|--gpu-architecture\S*|-gencode\S*|--generate-code\S*|"
    r"arch=compute_\w+.*|-code=\S+|--use_fast_math|-use_fast_math|-Xptxas\S*|"
    r"--ptxas-options\S*|--expt-relaxed-constexpr|--expt-extended-lambda|-lineinfo|"
    r"--maxrregcount\S*|-maxrregcount\S*)$"
)


@rule(id="RP305", name="cuda-extension-build", severity=Severity.NOTE, language=Language.PYTHON)
def check(src: PythonSource) -> Iterator[Finding]:
    if "CUDAExtension" not in src.text and "extra_cuda_cflags" not in src.text:
        return
    for call in src.of_type(ast.Call):
        name = src.qualname(call.func) or ""
        last = name.rsplit(".", 1)[-1]
        if last == "CUDAExtension":
            yield src.node_finding(
                call,
                "`CUDAExtension` builds on ROCm through hipify and hipcc; its `nvcc` "
                "flags are passed to hipcc",
                src.hint(
                    "Build with PYTORCH_ROCM_ARCH set to the AMD targets; keep nvcc-only "
                    "flags out of the ROCm build"
                ),
            )
            flags = _nvcc_flags(_keyword(call, "extra_compile_args"))
        elif last in ("load", "load_inline") and "cpp_extension" in name:
            flags = _list(_keyword(call, "extra_cuda_cflags"))
        else:
            continue
        for flag in flags:
            if _NVCC_ONLY.match(flag.value.strip()):
                yield src.node_finding(
                    flag,
                    f"nvcc-only flag `{flag.value}` reaches hipcc in a ROCm build and fails there",
                    src.hint("Add it only when `torch.version.hip is None`"),
                    severity=Severity.WARNING,
                )


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _nvcc_flags(node: ast.AST | None) -> list[ast.Constant]:
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "nvcc":
                return _list(value)
    return []


def _list(node: ast.AST | None) -> list[ast.Constant]:
    if isinstance(node, ast.List | ast.Tuple):
        return [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _list(node.left) + _list(node.right)
    return []
