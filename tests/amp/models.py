"""Small models for the amp tests (loaded through amp-check's ``file.py:function`` factory)."""

from __future__ import annotations

import torch
from torch import nn

IN_FEATURES = 16
CLASSES = 4


def healthy() -> nn.Module:
    """A plain MLP whose activations stay far inside fp16's range."""
    return nn.Sequential(nn.Linear(IN_FEATURES, 32), nn.ReLU(), nn.Linear(32, CLASSES))


class Overflowing(nn.Module):
    """An MLP with one layer whose weights are so large that its fp16 output overflows."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(IN_FEATURES, 32)
        self.act = nn.ReLU()
        self.amplifier = nn.Linear(32, 32)
        self.head = nn.Linear(32, CLASSES)
        with torch.no_grad():
            self.amplifier.weight.mul_(1e6)  # |output| ~ 1e5..1e6 > 65504: fine in fp32 and bf16

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.amplifier(self.act(self.embed(x)))
        return self.head(h / 1e5)


def overflowing() -> nn.Module:
    return Overflowing()


def not_a_module() -> object:
    return "nope"
