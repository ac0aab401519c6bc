"""Fast forms agree with the plain ones they replace: ``word_before_name`` reads backwards
what one regex found by trying every position of the 120 characters before a name; the
unrolled block-comment pattern and the literal-first macro-parameter and quoted-include
searches find what the character-by-character patterns found; the CUDA-looking words, one
alternative per first character, are those of one alternative per prefix; the report's JSON
writer writes what ``json.dumps(value, indent=2)`` writes (and the same document with deep
containers on one line); references placed on lines only
when asked are those of the full list; the unqualified math-call search finds what the regex
with a leading lookbehind found."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocport import _json
from rocport.port import directives, support
from rocport.port.includes import quoted_includes
from rocport.port.mapping import load_mapping
from rocport.port.model import Outcome, PortOptions, Translation
from rocport.port.scanner import (
    _cuda_like_words,
    _literal_head,
    declared_at,
    macro_parameters,
    split_alternatives,
    word_before_name,
)
from rocport.port.translator import _calls_unqualified, translate

#: the pattern the backwards reader replaced (a tag keyword, or a type word with one level of
#: template arguments, then spaces, ``*`` or ``&``, up to the name)
BEFORE_NAME = re.compile(
    r"(?:\b(?P<tag>struct|class|union|enum|namespace)|(?P<word>[A-Za-z_]\w*)"
    r"(?:\s*<[^<>;{}()]*>)?)[\s*&]+\Z"
)

_PIECES = st.sampled_from(
    [
        " ",
        "  ",
        "\t",
        "\n",
        "*",
        "&",
        "<",
        ">",
        "<int>",
        "< a, b >",
        "(",
        ")",
        ";",
        "{",
        "}",
        "=",
        ",",
        "struct",
        "class",
        "enum",
        "namespace",
        "using",
        "return",
        "cudaError_t",
        "int",
        "x9",
        "9",
        "_a",
        "é",
        "structure",
        "std::",
        "::",
    ]
)


def _reference(text: str, start: int):
    match = BEFORE_NAME.search(text, max(0, start - 120), start)
    if match is None:
        return None
    return (match["tag"], True) if match["tag"] else (match["word"], False)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=40))
def test_the_backwards_reader_agrees_with_the_regex(pieces: list[str]) -> None:
    text = "".join(pieces) + "cudaStat1"
    start = len(text) - len("cudaStat1")
    assert word_before_name(text, start) == _reference(text, start)


_NAME = re.compile(r"cuda(?:Stat1|Thing|Check|List|Alias|Foo|Bar|Baz)")


def test_declarations_and_uses() -> None:
    for text in (
        "cudaError_t cudaStat1 = 0;",
        "struct cudaThing {",
        "void cudaCheck(int e) {",
        "std::vector<int> *cudaList;",
        "using cudaAlias = int;",
    ):
        name = _NAME.search(text)
        assert declared_at(text, name.start(), name.end()), text
    for text in ("x = cudaFoo(1);", "return cudaBar;", "CHECK(cudaBaz(a));"):
        name = _NAME.search(text)
        assert not declared_at(text, name.start(), name.end()), text


_COMMENTY = st.lists(
    st.sampled_from(["/*", "*/", "*", "/", "a", " ", "\n", "**", "#"]), max_size=30
)


@settings(max_examples=3000, deadline=None)
@given(_COMMENTY)
def test_the_unrolled_block_comment_matches_like_the_plain_one(pieces: list[str]) -> None:
    text = "".join(pieces)
    plain = re.compile(r"/\*(?:[^*]|\*(?!/))*\*/")
    fast = re.compile(directives._BLOCK)
    for at in range(len(text)):
        a, b = plain.match(text, at), fast.match(text, at)
        assert (a and a.group()) == (b and b.group()), (text, at)


_DIRECTIVES = st.lists(
    st.sampled_from(
        [
            "#define F(a, b)",
            "# define G(c)",
            "x #define H(d)",
            "\t#define I(e)",
            "#define J",
            " ",
            "\n",
            "y",
        ]
    ),
    max_size=12,
)


@settings(max_examples=2000, deadline=None)
@given(_DIRECTIVES)
def test_macro_parameters_are_those_of_directives_at_line_starts(pieces: list[str]) -> None:
    text = "".join(pieces)
    plain = re.compile(r"^[ \t]*#[ \t]*define[ \t]+\w+\(([^)\n]*)\)", re.MULTILINE)
    expected = {p.strip() for params in plain.findall(text) for p in params.split(",")}
    assert macro_parameters(text) == expected


_INCLUDES = st.lists(
    st.sampled_from(
        ['#include "a.h"', '# include\t"b/c.cuh"', 'x #include "d.h"', "\t", " ", "\n", '"', "#"]
    ),
    max_size=12,
)


@settings(max_examples=2000, deadline=None)
@given(_INCLUDES)
def test_quoted_includes_are_those_of_directives_at_line_starts(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    plain = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
    assert quoted_includes(data) == plain.findall(data)


_WORDS = st.lists(
    st.sampled_from(
        [
            "cuda",
            "Malloc",
            "cudaMalloc",
            "cu",
            "CU_",
            "CUDA_",
            "cub::",
            "cuda::",
            "x",
            " ",
            "::",
            "_",
            "__",
            "$",
            "thrust::cuda",
            "__nv_bfloat16",
            "nccl",
            "nvtx",
            "é",
            "(",
            "9",
            "\n",
        ]
    ),
    max_size=16,
)


@settings(max_examples=2000, deadline=None)
@given(_WORDS)
def test_cuda_like_words_grouped_by_first_character_match_as_before(pieces: list[str]) -> None:
    text = "".join(pieces)
    pattern = load_mapping().cuda_like.pattern
    branches = []
    for alt in split_alternatives(pattern):  # one alternative per prefix, as before grouping
        head = _literal_head(alt)
        guard = f"{re.escape(head)}(?<![\\w$].)(?:{alt[1:]})" if head else f"(?<![\\w$]){alt}"
        branches.append(guard)
    plain = re.compile("(?:" + "|".join(branches) + r")\w*")
    fast = _cuda_like_words(pattern)
    assert [m.span() for m in fast.finditer(text)] == [m.span() for m in plain.finditer(text)]


_JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_JSON_KEYS = st.text() | st.integers() | st.floats() | st.booleans() | st.none()
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(_JSON_KEYS, inner),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(_JSON)
def test_the_report_json_is_that_of_json_dumps(value) -> None:
    assert _json.dumps(value) == json.dumps(value, indent=2)


def _read_back(text: str) -> str:
    """``text`` parsed and written again, objects as lists of pairs: keys that two types write
    alike (``1`` and ``"1"``, two NaN) are all kept, and NaN is written as json writes it."""
    return json.dumps(json.loads(text, object_pairs_hook=list))


def _pruned(value, depth: int):
    """``value`` with every container ``depth`` deep replaced by 0 (one line, as inlined)."""
    if isinstance(value, (dict, list, tuple)) and depth == 0:
        return 0
    if isinstance(value, dict):
        return {k: _pruned(v, depth - 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_pruned(v, depth - 1) for v in value]
    return value


@settings(max_examples=500, deadline=None)
@given(_JSON, st.integers(0, 3))
def test_the_report_json_inlines_deep_containers_and_reads_back_the_same(value, depth) -> None:
    text = _json.dumps(value, inline_from=depth)
    assert _read_back(text) == _read_back(json.dumps(value))
    # every container that deep is on one line; the levels above are laid out as indent=2
    lines = json.dumps(_pruned(value, depth), indent=2).splitlines()
    assert len(text.splitlines()) == len(lines)


CORPUS = Path(
    os.environ.get("ROCPORT_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus")
)


def test_references_placed_on_lines_only_when_asked_agree_with_the_full_list() -> None:
    """A port counts references from what the translator found and places only those not
    translated on lines: the same counts, and the same references as the full list, on real
    trees (every name at the line and column it is reported at)."""
    sources = sorted(
        p
        for project in ("llm.c", "llama.cpp-ggml", "rodinia")
        for p in (CORPUS / project).rglob("*")
        if p.suffix in (".cu", ".cuh", ".h") and p.is_file()
    )
    if not sources:
        pytest.fail(f"no corpus sources under {CORPUS} (see ../shared/corpus/README.md)")
    mapping, options = load_mapping(), PortOptions()
    checked = 0
    for path in sources:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        lazy = support.translate(
            text, base=translate, path=str(path), mapping=mapping, options=options
        )
        untranslated, families, counts = lazy.untranslated(), lazy.whats(), lazy.counts
        full = Translation(lazy.text, list(lazy.references), lazy.inserted_lines)
        translated = Outcome.TRANSLATED
        assert untranslated == [r for r in full.references if r.outcome is not translated]
        assert [w.family for w in families] == [r.family for r in full.references]
        assert counts == full.counts
        lines = text.split("\n")
        for ref in full.references:
            if ref.name != "<<<>>>":
                at = ref.column - 1
                assert lines[ref.line - 1][at : at + len(ref.name)] == ref.name, (path, ref)
        checked += len(full.references)
    assert checked > 1000


#: the regex that :func:`rocport.port.translator._calls_unqualified` replaced
UNQUALIFIED_CALL = re.compile(
    r"(?<![\w:.>$])(?:isfinite|isnan|isinf|isnormal|signbit|fpclassify)\s*\("
)


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "isnan",
                "isinf",
                "isinfinite",
                "signbit",
                "fpclassify",
                "isnormal",
                "(",
                " (",
                "\n(",
                "::",
                ".",
                "->",
                "$",
                "_",
                "x",
                "é",
                " ",
                ";",
                "f",
            ]
        ),
        max_size=20,
    )
)
def test_the_unqualified_math_call_search_agrees_with_the_regex(pieces: list[str]) -> None:
    text = "".join(pieces)
    names = ("isfinite", "isnan", "isinf", "isnormal", "signbit", "fpclassify")
    assert _calls_unqualified(text, names) == (UNQUALIFIED_CALL.search(text) is not None)
