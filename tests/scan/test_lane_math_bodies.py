"""RP103's lane arithmetic is searched in the function bodies only (``device_code``) and
matched again in the code: it must find what a search of the whole code, kept where a
function body holds it, finds."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rocport.scan.context import CudaSource
from rocport.scan.rules.cuda import _lane_math

PIECES = [
    "__global__ void k(int* x) {",
    "__device__ int f(int t) {",
    "int host(int tid) {",
    "{",
    "}",
    "tid % 32",
    "lane & 31",
    "threadIdx.x >> 5",
    "t / 32u",
    "x && 31",
    "w & 0x1F",
    "% 32.0",
    "%=",
    "threadIdx.x",
    "tid",
    " ",
    "\n",
    ";",
    "(",
    ")",
    "%",
    "/",
    "&",
    ">>",
    "32",
    "31",
    "5",
    "=",
    "// lane % 32\n",
    '"tid % 32"',
]


def _whole_code(src: CudaSource) -> list[tuple]:
    code = src.code
    hits = sorted(
        (m for p in _lane_math._OP_CONSTANTS.values() for m in p.finditer(code)), key=re.Match.start
    )
    found = []
    for match in hits:
        at = match.start()
        if (code[at] == "&" and code[at - 1 : at] == "&") or src.function_at(at) is None:
            continue
        lhs_start, lhs_end = _lane_math._left_operand(code, at)
        lhs = code[lhs_start:lhs_end]
        if lhs_start >= 0 and _lane_math._INDEX_NAME.search(lhs):
            found.append((match.span(), match.group("op", "num"), lhs.strip(), lhs_start))
    return found


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
@example(["__global__ void k(int* x) {", "tid % 32", ";", "}", "int host(int tid) {", "tid % 32"])
@example(["__device__ int f(int t) {", "}", "\n", "__global__ void k(int* x) {", "t / 32u", "}"])
def test_the_bodies_hold_what_the_whole_code_holds(pieces):
    src = CudaSource("k.cu", "".join(pieces))
    found = [
        (i.match.span(), i.match.group("op", "num"), i.lhs, i.lhs_start)
        for i in _lane_math.lane_math(src)
    ]
    assert found == _whole_code(src)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*PIECES, "warpSize", "warpSize)", " warpSize"]), max_size=30))
@example(["__global__ void k(int* x) {", "}", "__device__ int f(int t) {", "warpSize", "}"])
def test_a_literal_in_the_bodies_is_where_the_whole_code_has_it_inside_one(pieces):
    src = CudaSource("k.cu", "".join(pieces))
    inside = [at for at in src.find_all("warpSize") if src.function_at(at) is not None]
    assert src.find_in_bodies("warpSize") == inside
