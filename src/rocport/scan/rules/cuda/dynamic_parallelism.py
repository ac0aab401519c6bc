"""RP113 dynamic-parallelism: a kernel launched from device code.

## What it does
Flags `<<<...>>>` launches, `cudaLaunchKernel`, `hipLaunchKernelGGL` and `hipLaunchKernel`
calls inside the body of a `__global__` or `__device__` function.

## Why is this bad?
CUDA dynamic parallelism (a kernel launching kernels) is not supported by HIP on AMD GPUs: the
device-side launch does not compile. The work has to be restructured: launch the child kernels
from the host (possibly captured in a HIP graph), or fold the child work into the parent kernel.

## Example
```cuda
__global__ void parent(int* data) {
    child<<<1, 64>>>(data);
}
```
Use instead:
```cuda
parent<<<grid, block>>>(data);
child<<<1, 64>>>(data);   // from the host, same stream
```

## Fix safety
No automatic fix: removing a device-side launch changes the program's structure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

_LAUNCH = re.compile(
    r"(?:cudaLaunchKernel|hipLaunchKernelGGL|hipLaunchKernel|"
    r"cudaLaunchCooperativeKernel)\s*\("
)


@rule(
    id="RP113",
    name="dynamic-parallelism",
    severity=Severity.ERROR,
    language=Language.CUDA,
    triggers=("<<<", "Launch"),
)
def check(src: CudaSource) -> Iterator[Finding]:
    launches = [(at, "a `<<<...>>>` launch") for at in src.find_all("<<<")]
    launches += [  # the search for Launch is shared with RP118
        (match.start(), f"`{match.group().rstrip('( ')}`")
        for match in src.prefixed_matches("Launch", _LAUNCH)
    ]
    launches.sort()
    for at, what in launches:
        function = src.function_at(at)
        if function is None:
            continue
        kind = "kernel" if function.is_kernel else "device function"
        yield src.finding(
            at,
            f"{what} inside {kind} `{function.name}`: dynamic parallelism "
            "is not supported on AMD GPUs",
            src.hint(
                f"Launch the child kernel from the host, or merge its work into `{function.name}`"
            ),
        )
