"""Matrix products: TFLOP/s of ``torch.matmul`` and of rocport's Triton kernel."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch

from rocport.bench import triton_kernels
from rocport.bench.context import Context
from rocport.bench.results import Result, Skipped
from rocport.bench.timing import rotation_count
from rocport.bench.workloads._common import DTYPES, generator, precision_flags, randn

#: relative Frobenius error a product may have against a float64 reference
TOLERANCE = {"fp32": 1e-4, "tf32": 5e-3, "fp16": 1e-2, "bf16": 3e-2}


@dataclass(frozen=True)
class GemmShape:
    """``C[m, n] = A[m, k] @ B[k, n]``, with a label (``square`` or what it models)."""

    m: int
    n: int
    k: int
    label: str

    @property
    def name(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"


def run(
    ctx: Context, shapes: list[GemmShape], precisions: list[str], triton: bool
) -> Iterator[Result | Skipped]:
    """Time every shape in every precision; the Triton kernel for fp16/bf16 when asked."""
    reason = triton_kernels.available() if triton else None
    kernels = None
    if triton and reason is None:
        if ctx.is_gpu:
            kernels = triton_kernels.load()
        else:
            verdict = triton_kernels.interpreter_check()["matmul_float16"]
            reason = (
                f"CPU: checked under the Triton interpreter, fp16, relative error "
                f"{verdict['max_error']:.1e} ({'ok' if verdict['ok'] else 'WRONG'}); "
                "interpreted speed is not a measurement"
            )
    for shape in shapes:
        for precision in precisions:
            yield from _torch_matmul(ctx, shape, precision)
            if precision in ("fp16", "bf16") and triton:
                if kernels is None:
                    yield Skipped(
                        f"gemm/triton/{precision}/{shape.name}", reason or "triton missing"
                    )
                else:
                    yield from _triton_matmul(ctx, kernels, shape, precision)


def _operands(
    ctx: Context, shape: GemmShape, precision: str
) -> tuple[list[torch.Tensor], list[torch.Tensor], torch.Tensor]:
    dtype = DTYPES[precision]
    gen = generator(ctx.device, seed=shape.m * 31 + shape.n)
    size = torch.finfo(dtype).bits // 8
    sets = rotation_count((shape.m * shape.k + shape.k * shape.n) * size, ctx.cache_bytes)
    a = [randn((shape.m, shape.k), dtype, ctx.device, gen) for _ in range(sets)]
    b = [randn((shape.k, shape.n), dtype, ctx.device, gen) for _ in range(sets)]
    return a, b, torch.empty((shape.m, shape.n), dtype=dtype, device=ctx.device)


def _relative_error(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> float:
    ref = a.double() @ b.double()
    return float(torch.linalg.norm(c.double() - ref) / torch.linalg.norm(ref))


def _result(
    ctx: Context, impl: str, shape: GemmShape, precision: str, timing, error: float
) -> Result:
    flops = 2.0 * shape.m * shape.n * shape.k
    return Result(
        id=f"gemm/{'triton' if impl.startswith('triton') else 'torch'}/{precision}/{shape.name}",
        workload="gemm",
        unit="TFLOP/s",
        value=flops / timing.median_s / 1e12,
        implementation=impl,
        params={
            "m": shape.m,
            "n": shape.n,
            "k": shape.k,
            "shape": shape.label,
            "precision": precision,
            "relative_error": error,
        },
        timing=timing,
        peak=ctx.peak_tflops(precision),
    )


def _torch_matmul(ctx: Context, shape: GemmShape, precision: str) -> Iterator[Result | Skipped]:
    with precision_flags(precision):
        a, b, c = _operands(ctx, shape, precision)
        torch.matmul(a[0], b[0], out=c)
        error = _relative_error(a[0], b[0], c)
        if not error <= TOLERANCE[precision]:
            yield Skipped(
                f"gemm/torch/{precision}/{shape.name}", f"wrong result: relative error {error:.2e}"
            )
            return
        sets = len(a)
        timing = ctx.time(
            f"gemm torch {precision} {shape.name}",
            lambda i: torch.matmul(a[i % sets], b[i % sets], out=c),
        )
    yield _result(ctx, "torch.matmul (vendor BLAS)", shape, precision, timing, error)


def _triton_matmul(
    ctx: Context, kernels, shape: GemmShape, precision: str
) -> Iterator[Result | Skipped]:
    a, b, c = _operands(ctx, shape, precision)
    c.fill_(float("nan"))
    kernels.matmul(a[0], b[0], c)  # also runs the autotuner, outside the timed region
    error = _relative_error(a[0], b[0], c)
    name = f"gemm/triton/{precision}/{shape.name}"
    if not error <= TOLERANCE[precision]:
        yield Skipped(name, f"wrong result: relative error {error:.2e}")
        return
    sets = len(a)
    timing = ctx.time(
        f"gemm triton {precision} {shape.name}",
        lambda i: kernels.matmul(a[i % sets], b[i % sets], c),
    )
    yield _result(ctx, "triton tiled matmul (rocport)", shape, precision, timing, error)
