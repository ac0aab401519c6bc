"""Helpers the workloads share: dtypes, precision flags and fresh random inputs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch

DTYPES = {
    "fp32": torch.float32,
    "tf32": torch.float32,
    "fp16": torch.float16,
    "bf16": torch.bfloat16,
}


@contextmanager
def precision_flags(precision: str) -> Iterator[None]:
    """Allow TF32 matrix and convolution math only for ``tf32`` and the autocast precisions."""
    allow = precision != "fp32"
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = allow
    torch.backends.cudnn.allow_tf32 = allow
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def randn(
    shape: tuple[int, ...], dtype: torch.dtype, device: str, generator: torch.Generator
) -> torch.Tensor:
    """Normal random values drawn on ``device`` (never zeros: they can run faster)."""
    return torch.randn(shape, dtype=dtype, device=device, generator=generator)


def generator(device: str, seed: int = 0) -> torch.Generator:
    """A seeded generator on ``device``."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen
