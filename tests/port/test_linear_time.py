"""Translation time grows linearly with the input, also when it is all on one line.

Each case repeats a unit on one line at two lengths (4x apart, at least 400 KB: shorter lines
fit caches that longer ones do not, which alone bent the ratio) and compares the best of five
CPU times: linear work gives a ratio near 4, work that grows with the square of the line length
near 16. The bound (8) leaves room for a busy machine.
"""

from __future__ import annotations

import gc
import time

import pytest

from rocport.port.mapping import load_mapping
from rocport.port.model import PortOptions
from rocport.port.translator import translate

SMALL = 400_000  # characters; LARGE is 4x
RATIO_BOUND = 8.0

#: case -> (unit, launch option, length of the shorter line); the line of references must be
#: long for a search back to each line start (fast, in C) to outweigh the linear work
UNITS = {
    "references": ("cudaMalloc(&p, 4); x = y + 1; ", "keep", 4 * SMALL),
    "unclosed calls": ("cudaMemcpyToSymbol(s, ", "keep", SMALL),
    "unclosed masks": ("__shfl_down_sync(m, ", "keep", SMALL),
    "unclosed launches": ("a<<<b ", "keep", SMALL),
    "unbalanced template brackets": ("a>><<<1, 2>>>(b); ", "ggl", SMALL),
    "includes": ("#include <cuda_runtime.h> ", "keep", SMALL),
}


@pytest.fixture(scope="module")
def mapping():
    return load_mapping(rocm="6.4")


def _cpu_time(text: str, mapping, options: PortOptions) -> float:
    """Best of five, with the cyclic collector paused: its passes walk every object the earlier
    tests of a run left alive, so their cost grows with the run, not with the line."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            start = time.process_time()
            translate(text, path="long.cu", mapping=mapping, options=options)
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


@pytest.mark.parametrize("case", list(UNITS))
def test_one_long_line_takes_linear_time(mapping, case):
    unit, launch, length = UNITS[case]
    options = PortOptions(launch=launch)
    translate("cudaFree(0);", path="warm.cu", mapping=mapping, options=options)
    head = "__global__ void f();\n"
    small = head + unit * (length // len(unit))
    large = head + unit * (4 * length // len(unit))
    ratio = _cpu_time(large, mapping, options) / max(_cpu_time(small, mapping, options), 1e-4)
    assert ratio < RATIO_BOUND, f"{case}: 4x the line took {ratio:.1f}x the time"
