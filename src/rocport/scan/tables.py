"""The data tables that scan rules share, loaded once from ``rocport/scan/data``."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files


@cache
def load(name: str) -> dict:
    """The parsed JSON table ``data/<name>.json``."""
    return json.loads((files("rocport.scan") / "data" / f"{name}.json").read_text("utf-8"))


def python_packages() -> dict[str, dict]:
    """Module name -> ROCm status, alternative and install hint."""
    return load("python_packages")["packages"]


def cudnn_settings() -> dict[str, dict]:
    """``torch.backends.cudnn`` attribute -> what it means on MIOpen."""
    return load("torch_backends")["cudnn"]


def ptx_instructions() -> list[dict]:
    return load("cuda_features")["ptx_instructions"]


def architecture_features() -> list[dict]:
    return load("cuda_features")["architecture_features"]


def nvidia_tools() -> dict:
    """NVIDIA-only programs (and the NVIDIA kernel modules) -> what they are on AMD."""
    return load("nvidia_tools")
