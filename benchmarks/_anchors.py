"""The anchor tools the benchmarks compare rocport with, and how one is timed."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def hipify_perl() -> Path:
    """hipify-perl: ``$ROCPORT_HIPIFY_PERL``, else ``.cache/anchors/hipify-perl`` (where
    ``.ci/run`` puts what ``../shared/tools/get-hipify-perl`` fetches)."""
    path = Path(
        os.environ.get("ROCPORT_HIPIFY_PERL") or REPO / ".cache" / "anchors" / "hipify-perl"
    )
    if not path.is_file():
        raise FileNotFoundError(f"hipify-perl not found at {path} (set ROCPORT_HIPIFY_PERL)")
    return path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, with every process it started) of one command,
    its output dropped; RuntimeError, with the end of its stderr, where it fails."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return seconds, cpu
