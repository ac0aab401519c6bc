"""RP112 architecture-specific: a Hopper- or Ampere-only CUDA feature.

## What it does
Flags CUDA features that exist only on recent NVIDIA architectures: thread block clusters
(`__cluster_dims__`, `this_cluster()`), TMA tensor maps, asynchronous copies
(`cuda::memcpy_async`, `__pipeline_memcpy_async`, `cuda::pipeline`), `nvcuda::wmma`, and the
`__nv_fp8_*` types. (PTX forms such as `wgmma` and `cp.async` inside `asm` are reported by
RP110.)

## Why is this bad?
Most have no HIP name to map to, so the port fails to compile; where a similar AMD feature
exists (rocWMMA for WMMA) it has a different API. The FP8 types do have HIP names, and
`rocport port` renames them to HIP's OCP types (`__hip_fp8_e4m3`, the encoding CUDA uses), but
AMD GPUs differ in FP8 encoding (OCP on gfx950/gfx12, FNUZ on gfx942), so the choice of type is
a design decision per target.

## Example
```cuda
__global__ void __cluster_dims__(2, 1, 1) k(float* x) { ... }
__nv_fp8_e4m3 q = __nv_fp8_e4m3(v);
```
Use instead:
```cuda
__global__ void k(float* x) { ... }
__hip_fp8_e4m3_fnuz q = __hip_fp8_e4m3_fnuz(v);   // gfx942 (MI300)
```

## Fix safety
No automatic fix: each feature needs a different design on AMD GPUs. The message names the
closest HIP facility.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from rocport._diagnostics import Finding, Severity
from rocport.scan import tables
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule


@cache
def _features() -> dict[str, dict]:
    return {row["pattern"]: row for row in tables.architecture_features()}


#: every table pattern contains one of these (tests/scan/test_data.py checks it); the longest
#: piece that patterns share, as a longer needle is looked for faster (most files hold none)
ARCH_TRIGGERS = (
    "__nv_fp8",
    "__pipeline_",  # __pipeline_commit, __pipeline_memcpy_async
    "luster",  # __cluster_dims__, this_cluster, cluster_group, ...ClusterDimension
    "memcpy_async",  # memcpy_async, __pipeline_memcpy_async
    "cuda::",  # cuda::pipeline, cuda::barrier, nvcuda::wmma
    "ensorMap",  # CUtensorMap, cuTensorMapEncodeTiled
)


@rule(
    id="RP112",
    name="architecture-specific",
    severity=Severity.ERROR,
    language=Language.CUDA,
    triggers=ARCH_TRIGGERS,
)
def check(src: CudaSource) -> Iterator[Finding]:
    rows = _features()
    seen: set[tuple[int, str]] = set()
    for start, name in src.whole_literals(tuple(rows), ARCH_TRIGGERS):
        if not src.starts_word(start):
            continue
        row = rows[name]
        line = src.location(start).line
        if (line, name) in seen:
            continue
        seen.add((line, name))
        yield src.finding(
            start,
            f"`{name}` ({row['feature']}) is specific to recent NVIDIA GPUs",
            src.hint(row["hint"][0].upper() + row["hint"][1:]),
        )
