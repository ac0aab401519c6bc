"""Finding a literal in code by the faster of ``str.find`` and a compiled regex.

Which one is faster depends on how CPython was built. An unoptimized build (pyenv's default)
finds a short needle faster with sre, which scans for its first character in a tight loop, than
with ``str.find``, which can skip at most one character more than the needle is long; the
optimized builds of Debian and Ubuntu are the other way round, at every length. So the choice
is measured once per process, on a small piece of blanked CUDA, in about two milliseconds, and
applies to needles of 2 to 6 characters: single characters (``memchr``) and longer needles
always go to ``str.find``. ``benchmarks/literal_search.py`` measures both ways on a large tree.
"""

from __future__ import annotations

import re
import time
from functools import cache

#: needle lengths whose search may go to a regex
SHORT_NEEDLES = range(2, 7)
#: blanked CUDA as the scan sees it (comments and literal contents are spaces)
_SAMPLE = (
    "template <typename T>\n__device__ __forceinline__ T warp_sum(T v) {\n"
    "    for (int offset = 16; offset > 0; offset /= 2)\n"
    "        v += __shfl_down_sync(0xffffffff, v, offset);\n    return v;\n}\n\n"
    "__global__ void scale_kernel(const float* __restrict__ in, float* out, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;" + " " * 30 + "\n"
    "    __shared__ float tile[256];\n    if (i < n) tile[threadIdx.x] = in[i] * 2.0f;\n"
    "    __syncthreads();\n    if (i < n) out[i] = tile[threadIdx.x] + 1.0f;\n}\n\n"
    "int main() {\n    float *d_in, *d_out;\n    cudaMalloc(&d_in, N * sizeof(float));\n"
    '    printf("      ", n);\n    scale_kernel<<<(N + 255) / 256, 256>>>(d_in, d_out, N);\n'
    "    CHECK(cudaDeviceSynchronize());\n    return 0;\n}\n"
) * 16
#: short literals absent from the sample, as most rule triggers are absent from most files
_PROBES = ("asm", "a::", "kPi", "cos", "async", "urface", "luster")


@cache
def regex_is_faster() -> bool:
    """Whether this interpreter finds a short literal faster with a compiled regex than with
    ``str.find`` (the best of five rounds of each, alternating). The two kinds of builds lie
    far apart (regex / ``str.find`` time about 0.85 and 1.5); near 1 either is as fast."""
    sample = _SAMPLE
    searches = [re.compile(re.escape(probe)).search for probe in _PROBES]
    best_find = best_regex = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(4):
            for probe in _PROBES:
                probe in sample  # noqa: B015 (the search is what is timed)
        middle = time.perf_counter()
        for _ in range(4):
            for search in searches:
                search(sample)
        end = time.perf_counter()
        best_find, best_regex = min(best_find, middle - start), min(best_regex, end - middle)
    return best_regex < best_find


@cache
def pattern_for(literal: str) -> re.Pattern[str] | None:
    """``literal`` as a compiled regex where searching with it is faster, else None."""
    if len(literal) in SHORT_NEEDLES and regex_is_faster():
        return re.compile(re.escape(literal))
    return None


@cache
def _overlaps_itself(literal: str) -> bool:
    """Whether two occurrences of ``literal`` can overlap (as the two ``>>`` of ``>>>``), which
    a regex search, resuming after each match, would not report."""
    return any(literal[:k] == literal[-k:] for k in range(1, len(literal)))


def contains(text: str, literal: str) -> bool:
    """``literal in text``, by the faster way."""
    pattern = pattern_for(literal)
    return literal in text if pattern is None else pattern.search(text) is not None


def offsets(text: str, literal: str) -> list[int]:
    """Offsets of every occurrence of ``literal`` in ``text`` (overlapping ones too)."""
    pattern = pattern_for(literal)
    if pattern is not None and not _overlaps_itself(literal):
        return [match.start() for match in pattern.finditer(text)]
    hits = []
    find = text.find
    pos = find(literal)
    while pos != -1:
        hits.append(pos)
        pos = find(literal, pos + 1)
    return hits
