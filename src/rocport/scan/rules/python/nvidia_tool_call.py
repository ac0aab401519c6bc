"""RP309 nvidia-tool-call: Python that runs an NVIDIA-only tool (`ncu`, `nsys`, `modprobe nvidia`).

## What it does
Flags `subprocess`/`os` calls that run an NVIDIA profiler or binary tool (`ncu`, `nsys`,
`nvprof`, `compute-sanitizer`, `cuobjdump`, `nvdisasm`, ...) or load and unload the NVIDIA
kernel driver (`modprobe nvidia_uvm`, `rmmod nvidia`, `nvidia-modprobe`), as an argument list,
in a shell string (`sudo modprobe nvidia && ...`, `bash -c "nsys profile ..."`) or through a
variable assigned in the same file, and `shutil.which(...)` look-ups of those tools. The tools
and their AMD counterparts live in `rocport/scan/data/nvidia_tools.json`. `nvcc` and
`nvidia-smi` have their own rules (RP306, RP307).
Calls under an `if` that tests the platform (`torch.version.hip`, `torch.version.cuda`, a ROCm
flag), or after such an `if` that returns, are taken as handled and not reported.

## Why is this bad?
None of these programs exists on an AMD machine, and there is no NVIDIA driver to load: the
profiling step, the benchmark harness or the setup script fails there, or, where the error is
caught, silently skips its work (no profile, "no GPU"). ROCm has its own tools for each job:
`rocprofv3` (counters, traces, kernel statistics), `rocprof-compute` and `rocprof-sys-run`, and
the `amdgpu` kernel module, which the kernel loads by itself.

## Example
```python
subprocess.run(["ncu", "--set", "full", "-o", "report", "./train"], check=True)
os.system("sudo modprobe nvidia_uvm")
```
Use instead:
```python
if torch.version.hip:
    profiler = ["rocprofv3", "--kernel-trace", "--stats", "--"]
else:
    profiler = ["ncu", "--set", "full", "-o", "report"]
subprocess.run([*profiler, "./train"], check=True)
```

## Fix safety
No automatic fix: the AMD tools take other options and write other reports.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan import tables
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule
from rocport.scan.rules.python._process import candidate_calls, commands, which_target

_TOOLS = tables.nvidia_tools()


@rule(
    id="RP309",
    name="nvidia-tool-call",
    severity=Severity.WARNING,
    language=Language.PYTHON,
    triggers=(*_TOOLS["programs"], _TOOLS["module_tools"]["prefix"]),
)
def check(src: PythonSource) -> Iterator[Finding]:
    programs, modules = _TOOLS["programs"], _TOOLS["module_tools"]
    for call in candidate_calls(src):
        looked_up = which_target(src, call)
        if looked_up in programs:
            row = programs[looked_up]
            yield src.node_finding(
                call,
                f"looks up `{looked_up}` ({row['what']}), which AMD machines do not have",
                src.hint(f"Also look for the AMD tool: {row['alternative']}"),
            )
            continue
        for command in commands(src, call):
            program, args = command[0], command[1:]
            if program in programs:
                row = programs[program]
                yield src.node_finding(
                    call,
                    f"runs `{program}` ({row['what']}), which AMD machines do not have",
                    src.hint(f"On ROCm use {row['alternative']}"),
                )
                break
            if program in modules["programs"] and any(
                a.startswith(modules["prefix"]) for a in args
            ):
                yield src.node_finding(
                    call,
                    f"`{program}` of {modules['what']}, which AMD machines do not have",
                    src.hint(f"On ROCm: {modules['alternative']}"),
                )
                break
