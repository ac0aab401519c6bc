"""Parse ``nvidia-smi --query-gpu=... --format=csv,noheader,nounits``.

Format reference: ``nvidia-smi --help-query-gpu`` and the nvidia-smi(1) manual
(https://docs.nvidia.com/deploy/nvidia-smi/index.html): one CSV line per GPU, fields in the
order queried, separated by ``", "``; unavailable values print as ``[N/A]`` or
``[Not Supported]``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from typing import Any

#: the fields ``rocport doctor`` queries, in order
QUERY_FIELDS = (
    "index",
    "name",
    "driver_version",
    "memory.total",
    "memory.used",
    "temperature.gpu",
    "utilization.gpu",
    "compute_cap",
)


@dataclass(frozen=True)
class NvidiaGpu:
    index: int
    name: str
    driver_version: str | None
    memory_total_mib: int | None
    memory_used_mib: int | None
    temperature_c: float | None
    utilization_percent: float | None
    compute_capability: str | None

    @property
    def sm(self) -> str | None:
        """``"9.0"`` -> ``"sm_90"``."""
        if not self.compute_capability or "." not in self.compute_capability:
            return None
        major, minor = self.compute_capability.split(".", 1)
        return f"sm_{major}{minor}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "sm": self.sm}


def _value(text: str) -> str | None:
    text = text.strip()
    return None if not text or text.startswith("[") else text


def _int(text: str) -> int | None:
    value = _value(text)
    try:
        return int(float(value)) if value is not None else None
    except ValueError:
        return None


def _float(text: str) -> float | None:
    value = _value(text)
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def parse_nvidia_smi_csv(text: str) -> list[NvidiaGpu]:
    gpus = []
    for row in csv.reader(io.StringIO(text), skipinitialspace=True):
        if len(row) < len(QUERY_FIELDS) or not row[0].strip().isdigit():
            continue
        gpus.append(
            NvidiaGpu(
                index=int(row[0]),
                name=row[1].strip(),
                driver_version=_value(row[2]),
                memory_total_mib=_int(row[3]),
                memory_used_mib=_int(row[4]),
                temperature_c=_float(row[5]),
                utilization_percent=_float(row[6]),
                compute_capability=_value(row[7]),
            )
        )
    return gpus
