"""The warp model's header facts: the mask-free function definitions are found with a pattern
that starts with a literal, tried where a word that ends in ``_sync`` starts (a ``\\b`` in
front makes a regex try every character), and the macros and includes from the directives the
preprocessor finds. Both must find what anchored patterns over the text find."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rocport.scan.blank import blank_non_code
from rocport.scan.preprocessor import directives
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
    "#define\n",
    "#define (x) 1\n",
    "__shfl_sync(0xffffffff, v, 1);",
    "__ballot_sync(FULL_MASK, p);",
    "__any_sync (mask, p)",
    "__all_sync(unsigned long long m, int p) { return p; }",
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


def _anchored_facts(text: str):
    """The facts as anchored patterns over the text find them (a macro's value up to a
    ``//``; an empty value is no width)."""
    values: dict[str, set[str]] = {}
    for name, value in (m.groups() for m in ANCHORED["_DEFINE_VALUE"].finditer(text)):
        value = value.split("//")[0].strip()
        if value and _warp_model._is_warp_size_name(name):
            values.setdefault(name, set()).add(value)
    mask_free = {
        m.group(1)
        for m in ANCHORED["_MASK_MACRO"].finditer(text)
        if not re.search(rf"\b{m.group(2)}\b", m.group(3) + m.group(4))
    } | {
        m.group(1)
        for m in ANCHORED["_MASK_FUNCTION"].finditer(text)
        if not re.search(rf"\b{m.group(2)}\b", m.group(3))
    }
    includes = [m.group(1) for m in ANCHORED["_INCLUDE"].finditer(text)]
    return values, mask_free, includes


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_the_facts_are_what_anchored_patterns_find(pieces):
    text = "".join(pieces)
    # the mask-free function definitions, tried only at words that end in "_sync"
    sync = [m.groups() for m in _warp_model._sync_definitions(text)]
    assert sync == [m.groups() for m in ANCHORED["_MASK_FUNCTION"].finditer(text)]
    # with no comments or line splices, the directives' facts are the anchored patterns'
    found = _warp_model._facts_of(text, directives(blank_non_code(text)))
    assert found == _anchored_facts(text)


def test_directives_see_what_one_line_patterns_missed(tmp_path):
    """A macro continued on the next line, and directives inside a block comment."""
    header = tmp_path / "spliced.cuh"
    header.write_text(
        "#define WARP_SIZE \\\n  64\n"
        "#define __shfl_xor_sync(mask, v, d) \\\n  __shfl_xor_masked(mask, v, d)\n"
        '/*\n#define kWarpSize 32\n#include "old.cuh"\n*/\n'
    )
    values, mask_free, includes = _warp_model._header(str(header))
    assert values == {"WARP_SIZE": {"64"}}
    assert mask_free == set()  # the mask is used on the continued line
    assert includes == []


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
