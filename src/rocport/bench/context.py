"""What every workload needs: the device, its peaks, the timing settings and a progress bar."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rocport.bench.device import DeviceInfo
from rocport.bench.specs import GpuSpec
from rocport.bench.timing import Timing, measure

#: assumed last-level cache when the device does not report one (CPU)
DEFAULT_CACHE_BYTES = 64 * 2**20


@dataclass
class Context:
    """Shared state of one suite run."""

    device: str
    info: DeviceInfo
    spec: GpuSpec | None
    warmup: int
    repeats: int
    console: Console = field(default_factory=lambda: Console(stderr=True))
    quiet: bool = False
    log_lines: bool = False  # one plain line per timed item (for logs of unattended runs)
    _progress: Progress | None = None

    @property
    def is_gpu(self) -> bool:
        return self.device.startswith("cuda")

    @property
    def cache_bytes(self) -> int:
        return self.info.l2_cache_bytes or DEFAULT_CACHE_BYTES

    @contextmanager
    def progress(self) -> Iterator[None]:
        """Show one rich progress bar per timed item while the suite runs."""
        if self.quiet:
            yield
            return
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        ) as progress:
            self._progress = progress
            try:
                yield
            finally:
                self._progress = None

    def time(
        self,
        label: str,
        fn: Callable[[int], object],
        *,
        warmup: int | None = None,
        repeats: int | None = None,
        inner: int = 1,
    ) -> Timing:
        """Time ``fn`` with the suite's settings, advancing a progress bar per repeat."""
        repeats = repeats or self.repeats
        warmup = self.warmup if warmup is None else warmup
        advance: Callable[[], None] | None = None
        task = None
        if self._progress is not None:
            task = self._progress.add_task(label, total=repeats)
            progress = self._progress

            def advance() -> None:
                progress.advance(task)

        started = time.perf_counter()
        timing = measure(
            fn, self.device, warmup=warmup, repeats=repeats, inner=inner, on_repeat=advance
        )
        if task is not None and self._progress is not None:
            self._progress.update(task, completed=repeats)
        if self.log_lines:
            self.console.print(
                f"[{time.perf_counter() - started:6.1f} s] {label}: median "
                f"{timing.median_s * 1e3:.4g} ms "
                f"[{timing.min_s * 1e3:.4g}–{timing.max_s * 1e3:.4g}]",
                highlight=False,
            )
        return timing

    def peak_tflops(self, precision: str) -> dict[str, Any] | None:
        """The peak record for a result in TFLOP/s, or None off the spec table."""
        if self.spec is None:
            return None
        found = self.spec.peak_tflops(precision)
        if found is None:
            return None
        key, value = found
        return {"key": key, "value": value, "unit": "TFLOP/s", "source": self.spec.source}

    def peak_bandwidth(self) -> dict[str, Any] | None:
        """The peak record for a result in GB/s, or None off the spec table."""
        if self.spec is None:
            return None
        return {
            "key": "memory_bandwidth_gbs",
            "value": self.spec.peak_bandwidth_gbs(),
            "unit": "GB/s",
            "source": self.spec.source,
        }
