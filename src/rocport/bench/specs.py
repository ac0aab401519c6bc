"""Peak rates of known GPUs, read from ``data/gpu_specs.json``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

#: precision of a measurement -> the keys of ``tflops`` tried in order for its peak
PEAK_KEYS: dict[str, tuple[str, ...]] = {
    "fp32": ("fp32_matrix", "fp32_vector"),
    "tf32": ("tf32",),
    "fp16": ("fp16",),
    "bf16": ("bf16",),
}


@dataclass(frozen=True)
class GpuSpec:
    """One row of the spec table, with rates per device (a package split into its dies)."""

    key: str
    name: str
    vendor: str
    memory_bandwidth_gbs: float
    tflops: dict[str, float | None]
    devices_per_package: int
    source: str

    def peak_tflops(self, precision: str) -> tuple[str, float] | None:
        """The ``(key, TFLOP/s)`` peak for ``precision`` on one device, or None."""
        for key in PEAK_KEYS.get(precision, ()):
            value = self.tflops.get(key)
            if value:
                return key, value / self.devices_per_package
        return None

    def peak_bandwidth_gbs(self) -> float:
        """Peak memory bandwidth of one device in GB/s."""
        return self.memory_bandwidth_gbs / self.devices_per_package


@cache
def load_table() -> dict[str, Any]:
    """The parsed spec table."""
    text = (resources.files("rocport.bench") / "data" / "gpu_specs.json").read_text("utf-8")
    return json.loads(text)


def all_specs() -> list[GpuSpec]:
    """Every row of the table."""
    return [_to_spec(row) for row in load_table()["gpus"]]


def lookup(device_name: str | None) -> GpuSpec | None:
    """The row whose longest ``match`` pattern is found in ``device_name``, or None."""
    if not device_name:
        return None
    best: tuple[int, dict[str, Any]] | None = None
    for row in load_table()["gpus"]:
        for pattern in row["match"]:
            if re.search(pattern, device_name, re.IGNORECASE) and (
                best is None or len(pattern) > best[0]
            ):
                best = (len(pattern), row)
    return _to_spec(best[1]) if best else None


def _to_spec(row: dict[str, Any]) -> GpuSpec:
    return GpuSpec(
        key=row["key"],
        name=row["name"],
        vendor=row["vendor"],
        memory_bandwidth_gbs=float(row["memory_bandwidth_gbs"]),
        tflops=dict(row["tflops"]),
        devices_per_package=int(row.get("devices_per_package", 1)),
        source=row["source"],
    )
