"""Timing that device work cannot fool: warm-up, device events, many repeats, median.

On a GPU (CUDA, or HIP on ROCm builds, both ``torch.cuda``) each repeat is bracketed by
``torch.cuda.Event`` pairs recorded on the current stream and read after one final
synchronize. On the CPU each repeat is bracketed by ``time.perf_counter``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Timing:
    """Seconds per call of the timed function, one sample per repeat."""

    samples_s: tuple[float, ...]

    @property
    def median_s(self) -> float:
        return statistics.median(self.samples_s)

    @property
    def min_s(self) -> float:
        return min(self.samples_s)

    @property
    def max_s(self) -> float:
        return max(self.samples_s)

    def to_dict(self) -> dict[str, Any]:
        return {
            "median_ms": self.median_s * 1e3,
            "min_ms": self.min_s * 1e3,
            "max_ms": self.max_s * 1e3,
            "repeats": len(self.samples_s),
        }


def synchronize(device: Any) -> None:
    """Wait for all work queued on ``device`` (a no-op on the CPU)."""
    import torch

    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def measure(
    fn: Callable[[int], object],
    device: Any,
    *,
    warmup: int,
    repeats: int,
    inner: int = 1,
    on_repeat: Callable[[], None] | None = None,
) -> Timing:
    """Time ``fn(i)`` (``i`` counts calls, for rotating inputs); seconds per call.

    ``inner`` calls run between one pair of timestamps, which amortises the event
    resolution for calls of a few microseconds. ``on_repeat`` runs after each repeat
    outside the timed region (a progress bar's ``advance``).
    """
    import torch

    if repeats < 1 or warmup < 0 or inner < 1:
        raise ValueError("repeats and inner must be >= 1, warmup >= 0")
    device = torch.device(device)
    calls = 0
    for _ in range(warmup):
        fn(calls)
        calls += 1
    synchronize(device)
    if device.type == "cuda":
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(repeats)]
        for start, end in zip(starts, ends, strict=True):
            start.record()
            for _ in range(inner):
                fn(calls)
                calls += 1
            end.record()
            if on_repeat:
                on_repeat()
        torch.cuda.synchronize(device)
        samples = [s.elapsed_time(e) / 1e3 / inner for s, e in zip(starts, ends, strict=True)]
    else:
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn(calls)
                calls += 1
            synchronize(device)
            samples.append((time.perf_counter() - t0) / inner)
            if on_repeat:
                on_repeat()
    return Timing(tuple(samples))


def rotation_count(bytes_per_set: int, cache_bytes: int, *, limit: int = 16) -> int:
    """How many input sets to rotate through so that the working set is 4x the cache."""
    if bytes_per_set <= 0:
        return 1
    return max(1, min(limit, -(-4 * cache_bytes // bytes_per_set)))
