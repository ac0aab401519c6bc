"""RP307 nvidia-smi-call: a hard-coded `nvidia-smi` call.

## What it does
Flags `subprocess`/`os` calls that run `nvidia-smi` (an argument list, a shell string such as
`watch -n 1 nvidia-smi` or `free -g; nvidia-smi`, `sudo nvidia-smi`, `bash -c "..."`, or a
variable assigned in the same file), and `shutil.which("nvidia-smi")`.
Calls under an `if` that tests the platform (`torch.version.hip`, `torch.version.cuda`, a ROCm
flag), or after such an `if` that returns, are taken as handled and not reported.

## Why is this bad?
`nvidia-smi` does not exist on AMD machines, so GPU discovery, memory checks and monitoring
code fail (or report "no GPU") even though the GPUs work. The AMD tools are `amd-smi`
(`amd-smi list`, `amd-smi metric --json`) and the older `rocm-smi`, and from Python `amdsmi`;
for device count and memory, `torch.cuda.device_count()` and `torch.cuda.mem_get_info()` work
on both platforms.

## Example
```python
out = subprocess.check_output(["nvidia-smi", "--query-gpu=memory.used", "--format=csv"])
```
Use instead:
```python
free, total = torch.cuda.mem_get_info()
```

## Fix safety
No automatic fix: `amd-smi` prints different fields in a different format.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule
from rocport.scan.rules.python._process import candidate_calls, runs, which_target

PROGRAM = "nvidia-smi"


@rule(id="RP307", name="nvidia-smi-call", severity=Severity.WARNING, language=Language.PYTHON)
def check(src: PythonSource) -> Iterator[Finding]:
    if PROGRAM not in src.text:
        return
    for call in candidate_calls(src):
        if runs(src, call, PROGRAM) or which_target(src, call) == PROGRAM:
            yield src.node_finding(
                call,
                "calls `nvidia-smi`, which AMD machines do not have",
                src.hint(
                    "Use `amd-smi` (or `rocm-smi`), the `amdsmi` module, or "
                    "`torch.cuda.device_count()` / `torch.cuda.mem_get_info()`"
                ),
            )
