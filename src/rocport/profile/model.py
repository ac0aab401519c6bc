"""One table of kernels, whatever profiler produced it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class KernelStat:
    """Time spent in one kernel (all its launches), with counters where the profiler gave them."""

    name: str
    calls: int
    total_ns: float
    share: float | None = None  # of the profiled kernel time, 0..1
    bandwidth_gbs: float | None = None  # DRAM/HBM bytes moved per second
    cache_hit_pct: float | None = None  # L2 hit rate
    utilization_pct: float | None = None  # SM (NVIDIA) or VALU/SIMD (AMD) busy
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def mean_ns(self) -> float:
        return self.total_ns / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "mean_ns": self.mean_ns}


@dataclass
class KernelTable:
    """The kernels of one profile, sorted by total time."""

    tool: str
    sources: list[str]
    kernels: list[KernelStat]
    notes: list[str] = field(default_factory=list)
    scope: str | None = None  # what part of the run was profiled, where the tool knows

    def __post_init__(self) -> None:
        self.kernels.sort(key=lambda k: k.total_ns, reverse=True)
        total = sum(k.total_ns for k in self.kernels)
        for k in self.kernels:
            if k.share is None and total:
                k.share = k.total_ns / total

    @property
    def total_ns(self) -> float:
        return sum(k.total_ns for k in self.kernels)

    @property
    def has_counters(self) -> bool:
        return any(
            k.bandwidth_gbs is not None
            or k.cache_hit_pct is not None
            or k.utilization_pct is not None
            for k in self.kernels
        )

    def top(self, n: int) -> list[KernelStat]:
        return self.kernels[:n]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "sources": self.sources,
            "total_ns": self.total_ns,
            "scope": self.scope,
            "notes": self.notes,
            "kernels": [k.to_dict() for k in self.kernels],
        }


def merge(stats: list[KernelStat]) -> list[KernelStat]:
    """Fold rows with the same kernel name; counters become time-weighted means."""
    by_name: dict[str, list[KernelStat]] = {}
    for s in stats:
        by_name.setdefault(s.name, []).append(s)
    out = []
    for name, rows in by_name.items():
        total = sum(r.total_ns for r in rows)

        def weighted(attr: str, rows=rows, total=total) -> float | None:
            pairs = [(getattr(r, attr), r.total_ns) for r in rows if getattr(r, attr) is not None]
            if not pairs:
                return None
            weight = sum(w for _, w in pairs)
            return (
                sum(v * w for v, w in pairs) / weight
                if weight
                else sum(v for v, _ in pairs) / len(pairs)
            )

        out.append(
            KernelStat(
                name,
                sum(r.calls for r in rows),
                total,
                None,
                weighted("bandwidth_gbs"),
                weighted("cache_hit_pct"),
                weighted("utilization_pct"),
            )
        )
    return out
