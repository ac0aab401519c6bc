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


#: PyTorch's math settings as this process found them, read before the suite changes any
#: (in a fresh process they are PyTorch's defaults: cuDNN may use TF32, matmul may not)
TORCH_DEFAULTS = {
    "tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
    "tf32_cudnn": torch.backends.cudnn.allow_tf32,
    "cudnn_benchmark": torch.backends.cudnn.benchmark,
}


def current_flags() -> dict[str, bool]:
    """The math settings in force now (recorded beside each ResNet result)."""
    return {
        "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
        "tf32_cudnn": bool(torch.backends.cudnn.allow_tf32),
        "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
    }


@contextmanager
def torch_default_flags() -> Iterator[None]:
    """Run with :data:`TORCH_DEFAULTS` (the guide's loop as written sets nothing)."""
    saved = current_flags()
    torch.backends.cuda.matmul.allow_tf32 = TORCH_DEFAULTS["tf32_matmul"]
    torch.backends.cudnn.allow_tf32 = TORCH_DEFAULTS["tf32_cudnn"]
    torch.backends.cudnn.benchmark = TORCH_DEFAULTS["cudnn_benchmark"]
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved["tf32_matmul"]
        torch.backends.cudnn.allow_tf32 = saved["tf32_cudnn"]
        torch.backends.cudnn.benchmark = saved["cudnn_benchmark"]


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
