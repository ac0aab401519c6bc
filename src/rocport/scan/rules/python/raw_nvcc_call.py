"""RP306 raw-nvcc-call: a Python script that runs `nvcc` itself.

## What it does
Flags `subprocess`/`os` calls that run `nvcc` (an argument list, a command string, also past
`sudo`/`env` and inside `bash -c`, or a variable assigned in the same file),
and `shutil.which("nvcc")` / `find_executable("nvcc")` look-ups, typically in `setup.py` or
build helpers.
Calls under an `if` that tests the platform (`torch.version.hip`, `torch.version.cuda`, a ROCm
flag), or after such an `if` that returns, are taken as handled and not reported.

## Why is this bad?
There is no `nvcc` on a ROCm machine, so the build stops (or, with a `which` check, silently
skips the GPU code). The HIP compiler is `hipcc` (or `amdclang++ -x hip`), with different flags
(`--offload-arch=gfx90a` instead of `-arch=sm_80`).

## Example
```python
subprocess.check_call(["nvcc", "-O3", "-arch=sm_80", "-c", "kernel.cu"])
```
Use instead:
```python
compiler = "hipcc" if torch.version.hip else "nvcc"
arch = ["--offload-arch=gfx90a"] if torch.version.hip else ["-arch=sm_80"]
subprocess.check_call([compiler, "-O3", *arch, "-c", "kernel.cu"])
```

## Fix safety
No automatic fix: the flags that follow `nvcc` need translating as well.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule
from rocport.scan.rules.python._process import candidate_calls, runs, which_target

PROGRAM = "nvcc"


@rule(id="RP306", name="raw-nvcc-call", severity=Severity.WARNING, language=Language.PYTHON)
def check(src: PythonSource) -> Iterator[Finding]:
    if PROGRAM not in src.text:
        return
    for call in candidate_calls(src):
        if runs(src, call, PROGRAM):
            yield src.node_finding(
                call,
                "runs `nvcc`, which does not exist on ROCm machines",
                src.hint(
                    "Run `hipcc` with `--offload-arch=gfx...` when `torch.version.hip` "
                    "is set, or build through torch.utils.cpp_extension"
                ),
            )
        elif which_target(src, call) == PROGRAM:
            yield src.node_finding(
                call,
                "looks up `nvcc`, which ROCm machines do not have: the GPU build is "
                "skipped or fails",
                src.hint("Also look for `hipcc`"),
            )
