"""The header patterns of the warp model start with a literal and check where they start in
Python (a ``^`` or ``\\b`` in front makes a regex try every character): they must find what
the anchored patterns find."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rocport.scan.rules.cuda import _warp_model

PIECES = [
    "#define WARP_SIZE 32\n",
    "  # define kWarpSize (64)\n",
    "x #define NOT_A_DIRECTIVE 1\n",
    '#include "common.cuh"\n',
    '  #include "a/b.h"\n',
    'y#include "no.h"\n',
    "#define __shfl_down_sync(mask, v, d) __shfl_down(v, d)\n",
    "#define __ballot_sync(m, p) __ballot(p & m)\n",
    "__device__ int __any_sync(unsigned mask, int p) { return __any(p); }\n",
    "my__all_sync(unsigned mask, int p) { return p; }\n",
    "static int __all_sync(uint32_t m, int p) { return m & p; }\n",
    "__shfl_xor_sync(unsigned m, float v, int l) {",
    "__a_sync_b_sync(int m, int p) { return p; }",
    "___sync(unsigned m, int p) {",
    "__syncthreads();",
    "__a_sync\u00e9_sync(int m, int p) { return p; }",
    "\u00e9",
    "(",
    ",",
    "}",
    "\n",
    " ",
    "\t",
    "#",
    "_",
    "x",
]

ANCHORED = {
    "_INCLUDE": re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.MULTILINE),
    "_DEFINE_VALUE": re.compile(
        r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*?)[ \t]*$", re.MULTILINE
    ),
    "_MASK_MACRO": re.compile(
        r"^[ \t]*#[ \t]*define[ \t]+(__\w+_sync)\(\s*(\w+)\s*,([^)]*)\)([^\n]*)$", re.MULTILINE
    ),
    "_MASK_FUNCTION": re.compile(
        r"\b(__\w+_sync)\s*\(\s*(?:const\s+)?(?:unsigned(?:\s+int)?|int|uint32_t|uint64_t|"
        r"unsigned\s+long\s+long|[A-Z]\w*)\s+(\w+)\s*,[^)]*\)\s*\{([^{}]*)\}"
    ),
}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_literal_first_patterns_find_what_the_anchored_ones_find(pieces):
    text = "".join(pieces)
    for name in ("_INCLUDE", "_DEFINE_VALUE", "_MASK_MACRO"):  # directives
        found = [m.groups() for m in _warp_model._found(getattr(_warp_model, name), text)]
        assert found == [m.groups() for m in ANCHORED[name].finditer(text)], name
    # the mask-free function definitions, tried only at words that hold "_sync"
    sync = [m.groups() for m in _warp_model._sync_definitions(text)]
    assert sync == [m.groups() for m in ANCHORED["_MASK_FUNCTION"].finditer(text)]


def test_the_header_facts_of_a_project_header(tmp_path):
    header = tmp_path / "warp.cuh"
    header.write_text(
        '#include "other.cuh"\n'
        "  #  define WARP_SIZE 32  // lanes\n"
        "#define __shfl_down_sync(mask, v, d) __shfl_down(v, d)\n"
        "x #define kWarpSize 64\n"
    )
    values, mask_free, includes = _warp_model._header(str(header))
    assert values == {"WARP_SIZE": {"32"}}
    assert mask_free == {"__shfl_down_sync"}
    assert includes == ["other.cuh"]
