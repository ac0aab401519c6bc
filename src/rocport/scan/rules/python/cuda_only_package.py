"""RP301 cuda-only-package: an import of a CUDA-only Python package.

## What it does
Flags `import` and `from ... import` statements of packages whose PyPI builds target NVIDIA GPUs
only (flash-attn, xformers, bitsandbytes, apex, cupy, pycuda, cuda-python, pynvml /
nvidia-ml-py, `numba.cuda`, tensorrt, torch-tensorrt, transformer-engine, DALI, RAPIDS, ...),
and names the ROCm counterpart and how to install it. The table lives in
`rocport/scan/data/python_packages.json`, with a source for every row.

## Why is this bad?
`pip install flash-attn` (or `cupy-cuda12x`, `nvidia-ml-py`, ...) on a ROCm machine either fails
to build or installs CUDA binaries that fail at import or at the first kernel launch. Most of
these packages have a ROCm build, fork or replacement, but under another name, index or build
flag.

## Example
```python
from flash_attn import flash_attn_func
import pynvml
```
Use instead:
```python
from flash_attn import flash_attn_func   # built from ROCm/flash-attention
import amdsmi
```

## Fix safety
No automatic fix: the change is in how the environment is installed, and replacement packages
(amdsmi for pynvml, HIP Python for pycuda) have different APIs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan import tables
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule

_SEVERITY = {
    "unsupported": Severity.WARNING,
    "replacement": Severity.WARNING,
    "rocm-fork": Severity.WARNING,
    "rocm-build": Severity.NOTE,
}


def _lookup(module: str) -> tuple[str, dict] | None:
    packages = tables.python_packages()
    parts = module.split(".")
    for length in range(len(parts), 0, -1):
        name = ".".join(parts[:length])
        if name in packages:
            return name, packages[name]
    return None


@rule(id="RP301", name="cuda-only-package", severity=Severity.WARNING, language=Language.PYTHON)
def check(src: PythonSource) -> Iterator[Finding]:
    for node in src.of_type(ast.Import, ast.ImportFrom):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif node.module and not node.level:
            # `from numba import cuda` imports the module numba.cuda
            modules = [f"{node.module}.{alias.name}" for alias in node.names] or [node.module]
        else:
            continue
        seen: set[str] = set()
        for module in modules:
            found = _lookup(module)
            if found is None or found[0] in seen:
                continue
            name, row = found
            seen.add(name)
            status = row["status"]
            what = {
                "unsupported": "has no ROCm build",
                "replacement": "is NVIDIA-only; use",
                "rocm-fork": "is CUDA-only on PyPI; ROCm has",
                "rocm-build": "needs its ROCm build:",
            }[status]
            alternative = row["alternative"].split(";")[0].split(" (")[0]
            message = (
                f"`{name}` ({row['distribution']}) {what} {alternative}"
                if status != "unsupported"
                else f"`{name}` ({row['distribution']}) {what}; consider {alternative}"
            )
            yield src.node_finding(
                node,
                message,
                src.hint(f"Install: {row['install']}"),
                severity=_SEVERITY[status],
                status=status,
                alternative=row["alternative"],
                install=row["install"],
                source=row["source"],
            )
