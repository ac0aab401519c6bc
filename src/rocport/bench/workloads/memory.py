"""Memory-bound workloads: device-to-device copy and vector add three ways.

Bandwidth counts the bytes a kernel must move: a copy reads N and writes N elements,
``out = x + y`` reads 2N and writes N.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import torch

from rocport.bench import triton_kernels
from rocport.bench.context import Context
from rocport.bench.results import Result, Skipped
from rocport.bench.timing import rotation_count
from rocport.bench.workloads._common import generator, randn


def _buffers(ctx: Context, n: int, count: int, seed: int) -> list[list[torch.Tensor]]:
    gen = generator(ctx.device, seed)
    sets = rotation_count(n * 4 * count, ctx.cache_bytes)
    return [
        [randn((n,), torch.float32, ctx.device, gen) for _ in range(count)] for _ in range(sets)
    ]


def _bandwidth_result(
    ctx: Context, rid: str, workload: str, impl: str, n: int, bytes_moved: int, timing
) -> Result:
    return Result(
        id=rid,
        workload=workload,
        unit="GB/s",
        value=bytes_moved / timing.median_s / 1e9,
        implementation=impl,
        params={"elements": n, "dtype": "fp32", "bytes_moved": bytes_moved},
        timing=timing,
        peak=ctx.peak_bandwidth(),
    )


def copy(ctx: Context, n: int) -> Iterator[Result | Skipped]:
    """``dst.copy_(src)``: the device's measured copy bandwidth, the ceiling for vector add."""
    sets = _buffers(ctx, n, 1, seed=1)
    dst = torch.empty(n, dtype=torch.float32, device=ctx.device)
    dst.copy_(sets[0][0])
    if not torch.equal(dst, sets[0][0]):
        yield Skipped("copy/torch/fp32", "copy_ returned wrong data")
        return
    timing = ctx.time(f"copy {n:,} fp32", lambda i: dst.copy_(sets[i % len(sets)][0]))
    yield _bandwidth_result(
        ctx,
        "copy/torch/fp32",
        "copy",
        "torch Tensor.copy_ (runtime copy kernel)",
        n,
        2 * n * 4,
        timing,
    )


def vector_add(ctx: Context, n: int, triton: bool) -> Iterator[Result | Skipped]:
    """``out = x + y`` through ``torch.add`` and rocport's naive and vectorized Triton kernels."""
    sets = _buffers(ctx, n, 2, seed=2)
    out = torch.empty(n, dtype=torch.float32, device=ctx.device)
    variants: list[tuple[str, str, Callable]] = [
        ("library", "torch.add (ATen elementwise kernel)", lambda x, y, o: torch.add(x, y, out=o)),
    ]
    reason = triton_kernels.available() if triton else None
    if triton and reason is None and ctx.is_gpu:
        kernels = triton_kernels.load()
        variants += [
            ("naive", "triton, one element per thread (rocport)", kernels.add_naive),
            (
                "vectorized",
                f"triton, {kernels.VEC}-wide vectors + masked tail (rocport)",
                kernels.add_vectorized,
            ),
        ]
    elif triton and reason is None:
        verdicts = triton_kernels.interpreter_check()
        for variant in ("naive", "vectorized"):
            verdict = verdicts[f"add_{variant}"]
            yield Skipped(
                f"vector_add/{variant}/fp32",
                f"CPU: checked under the Triton interpreter at sizes {verdict['sizes']}, max error "
                f"{verdict['max_error']:g} ({'ok' if verdict['ok'] else 'WRONG'}); "
                "interpreted speed is not a measurement",
            )
    elif triton:
        for variant in ("naive", "vectorized"):
            yield Skipped(f"vector_add/{variant}/fp32", reason or "triton missing")
    x0, y0 = sets[0]
    for variant, impl, fn in variants:
        rid = f"vector_add/{variant}/fp32"
        out.fill_(float("nan"))
        fn(x0, y0, out)
        if not torch.equal(out, x0 + y0):
            yield Skipped(rid, "wrong result (output differs from x + y)")
            continue
        timing = ctx.time(
            f"vector add {variant} {n:,}",
            lambda i, fn=fn: fn(sets[i % len(sets)][0], sets[i % len(sets)][1], out),
        )
        yield _bandwidth_result(ctx, rid, "vector_add", impl, n, 3 * n * 4, timing)
