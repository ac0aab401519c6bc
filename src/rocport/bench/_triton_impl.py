"""Triton kernels: vector add two ways and a tiled matrix product (import via triton_kernels)."""

from __future__ import annotations

import os

import torch
import triton
import triton.language as tl

INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"

#: naive: one fp32 element per thread (BLOCK = 32 lanes x NAIVE_WARPS warps)
NAIVE_WARPS = 4
NAIVE_BLOCK = 32 * NAIVE_WARPS
#: vectorized: ROWS x VEC tile per program, VEC contiguous elements (16 bytes of fp32) per row
VEC = 4
ROWS = 1024
VEC_WARPS = 8


@triton.jit
def _add_naive(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def _add_vec(
    x_ptr, y_ptr, out_ptr, start, n, ROWS: tl.constexpr, VEC: tl.constexpr, MASKED: tl.constexpr
):
    base = start + tl.program_id(0).to(tl.int64) * (ROWS * VEC)
    offs = base + tl.arange(0, ROWS)[:, None] * VEC + tl.arange(0, VEC)[None, :]
    if MASKED:
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x + y, mask=mask)
    else:
        x = tl.load(x_ptr + offs)
        y = tl.load(y_ptr + offs)
        tl.store(out_ptr + offs, x + y)


def add_naive(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """``out = x + y``, one element per thread, every access masked."""
    n = x.numel()
    _add_naive[(triton.cdiv(n, NAIVE_BLOCK),)](
        x, y, out, n, BLOCK=NAIVE_BLOCK, num_warps=NAIVE_WARPS
    )
    return out


def add_vectorized(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """``out = x + y`` in VEC-wide vectors: full tiles unmasked, then one masked tail tile."""
    n = x.numel()
    tile = ROWS * VEC
    full = n // tile
    if full:
        _add_vec[(full,)](x, y, out, 0, n, ROWS=ROWS, VEC=VEC, MASKED=False, num_warps=VEC_WARPS)
    if n - full * tile:
        _add_vec[(1,)](
            x, y, out, full * tile, n, ROWS=ROWS, VEC=VEC, MASKED=True, num_warps=VEC_WARPS
        )
    return out


def _matmul_configs() -> list[triton.Config]:
    if INTERPRETED:
        return [triton.Config({"BM": 32, "BN": 32, "BK": 32, "GROUP": 4}, num_warps=4)]
    stages = 2 if torch.version.hip else 3
    shapes = [
        (128, 256, 64, 8, stages),
        (256, 128, 64, 8, stages),
        (128, 128, 64, 4, stages + 1),
        (128, 256, 32, 8, stages + 1),
        (64, 256, 32, 4, stages + 1),
    ]
    return [
        triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8}, num_warps=w, num_stages=s)
        for bm, bn, bk, w, s in shapes
    ]


@triton.autotune(configs=_matmul_configs(), key=["M", "N", "K"])
@triton.jit
def _matmul(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    grid_m = (M + BM - 1) // BM
    grid_n = (N + BN - 1) // BN
    # grouped ordering: GROUP row-blocks share B tiles while they are still in L2
    in_group = GROUP * grid_n
    first_m = (pid // in_group) * GROUP
    group_m = min(grid_m - first_m, GROUP)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + (rm[:, None] % M) * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + (rn[None, :] % N) * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, (K + BK - 1) // BK):
        k_left = K - k * BK
        a = tl.load(a_ptrs, mask=rk[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """``out = a @ b`` (fp16/bf16 in, fp32 accumulate), autotuned over a few tile shapes."""
    m, k = a.shape
    _, n = b.shape

    def grid(meta: dict[str, int]) -> tuple[int]:
        return (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)

    _matmul[grid](
        a, b, out, m, n, k,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0), out.stride(1),
    )  # fmt: skip
    return out
