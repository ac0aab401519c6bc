"""The shared C/C++ lexer and the translator's fast scanner built on the same token rules."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocport import lexer
from rocport.lexer import Kind, blank_non_code, tokenize
from rocport.port.scanner import (
    GENERIC_MIN,
    branch_needles,
    compile_scanner,
    identifier_branches,
    split_alternatives,
    without_needled,
)


def kinds(text: str) -> list[tuple[Kind, str]]:
    return [(t.kind, text[t.start : t.end]) for t in tokenize(text)]


def test_lexer_token_kinds():
    text = (
        "#include <cuda_runtime.h>\n#define N 4\nint x = 0x1F; // note\n"
        'char c = \'a\'; auto s = u8"s"; /* b */ auto r = R"d(r)d";\n'
    )
    assert kinds(text) == [
        (Kind.INCLUDE, "#include <cuda_runtime.h>"),
        (Kind.DIRECTIVE, "#define"),
        (Kind.IDENT, "N"),
        (Kind.NUMBER, "4"),
        (Kind.IDENT, "int"),
        (Kind.IDENT, "x"),
        (Kind.NUMBER, "0x1F"),
        (Kind.COMMENT, "// note"),
        (Kind.IDENT, "char"),
        (Kind.IDENT, "c"),
        (Kind.CHAR, "'a'"),
        (Kind.IDENT, "auto"),
        (Kind.IDENT, "s"),
        (Kind.STRING, 'u8"s"'),
        (Kind.COMMENT, "/* b */"),
        (Kind.IDENT, "auto"),
        (Kind.IDENT, "r"),
        (Kind.RAW_STRING, 'R"d(r)d"'),
    ]


def test_lexer_recovers_from_unterminated_literals():
    assert kinds('"open\nx') == [(Kind.STRING, '"open'), (Kind.IDENT, "x")]
    assert kinds("/* never closed\ncudaFree") == [(Kind.COMMENT, "/* never closed\ncudaFree")]
    assert kinds("'\ny") == [(Kind.CHAR, "'"), (Kind.IDENT, "y")]


def test_blank_non_code_keeps_positions():
    text = 'a("x//y") /* c\n d */ b // e\n'
    blanked = blank_non_code(text)
    assert len(blanked) == len(text)
    assert blanked == 'a("    ")     \n      b     \n'


@pytest.fixture(scope="module")
def scanner():
    branches = identifier_branches(["cuda[A-Z]", "CU_", "cub::"], ["__shfl_down_sync", "warpSize"])
    return compile_scanner(tuple(branches))


def scan(scanner, text: str) -> list[tuple[str | None, str]]:
    return [(m.lastgroup, m.group()) for m in scanner.finditer(text)]


def test_scanner_finds_only_candidate_identifiers(scanner):
    text = "cudaMalloc(p); mycudaMalloc(); cudaMallocX; CU_X; cube; warpSize; cub::Foo"
    assert [t for k, t in scan(scanner, text) if k is None] == [
        "cudaMalloc",
        "cudaMallocX",
        "CU_X",
        "warpSize",
        "cub::Foo",
    ]


def test_scanner_literals(scanner):
    text = (
        "int n = 1'000'000; cudaA;\n"
        "char q = '\\''; cudaB; auto w = L'x'; cudaC;\n"
        'auto r = u8R"(cudaD)"; auto s = "cudaE"; // cudaF\n'
        "k<<<1, 1>>>(cudaG);\n"
    )
    tokens = scan(scanner, text)
    assert [t for k, t in tokens if k is None] == ["cudaA", "cudaB", "cudaC", "cudaG"]
    assert ("char", "'\\''") in tokens
    assert ("char", "'x'") in tokens  # L'x': the match starts at the quote
    assert ("launch", "<<<") in tokens
    [raw] = [t for k, t in tokens if k == "raw"]
    assert raw == '"(cudaD)"'  # a raw string match starts at its quote


def test_scanner_include_path(scanner):
    match = next(scanner.finditer('  #  include "cuda_runtime.h"  // x\n'))
    assert match.lastgroup == "include"
    assert match.group("ipath") == '"cuda_runtime.h"'


@pytest.mark.parametrize(
    ("pattern", "parts"),
    [
        ("(?:a|b[|]|c(?:d|e))", ["a", "b[|]", "c(?:d|e)"]),
        ("x|\\||y", ["x", "\\|", "y"]),
        ("(?:a)(?:b)", ["(?:a)(?:b)"]),
    ],
)
def test_split_alternatives(pattern, parts):
    assert split_alternatives(pattern) == parts


def test_shipped_mapping_keeps_the_scanner_literal_first():
    """Every top-level alternative of the translator's scanner starts with a literal character,
    so that ``re`` can skip to candidate positions in C (the source of its speed)."""
    import re._compiler as compiler  # the same analysis re.compile does
    import re._parser as parser

    from rocport.port.mapping import load_mapping
    from rocport.port.model import PortOptions
    from rocport.port.translator import _plan

    plan = _plan(load_mapping(), PortOptions())
    for branches in (plan.branches, plan.lean_branches):  # the scanner with and without needles
        parsed = parser.parse(compile_scanner(branches).pattern, re.MULTILINE)
        assert compiler._get_charset_prefix(parsed, re.MULTILINE) is not None


def test_branch_needles_are_the_long_literals_every_match_starts_with():
    prefixes = ["make_cu[A-Z]", "make_cuda[A-Z]", "thrust::cuda\\b", "cu[A-Z]", "abcdefgh?ij"]
    names = ["libraryPropertyType", "libraryPropertyType_t", "cudaFoo"]
    needles = branch_needles(prefixes, names)
    # "c" has "cu" only; the "h" of "abcdefgh?" is optional, so "abcdefg" is all "a" has
    assert needles == {
        "m": "make_cu",
        "t": "thrust::cuda",
        "l": "libraryPropertyType",
        "a": "abcdefg",
    }
    branches = tuple(identifier_branches(prefixes, names))
    assert [b[0] for b in without_needled(branches, needles)] == ["c"]


def test_many_names_of_one_stem_share_a_generic_branch():
    """More than GENERIC_MIN names that all start with ``__`` become one ``__\\w*`` branch: it
    finds every word the trie found, with the same bounds, and other ``__`` words besides
    (which the translator's rules skip); a qualified name keeps the trie."""
    names = [f"__n{i}" for i in range(GENERIC_MIN + 1)]
    generic = identifier_branches(["__nv_", "__shfl\\w*_sync\\b"], names)
    assert generic == ["_(?<![\\w$].)_\\w*+(?!\\$)"]
    trie_only = identifier_branches(["__nv_"], names[:GENERIC_MIN])
    text = "__n7 x__n8 __n9$ __nv_x __shfl_down_sync __restrict__ __n100 a.__n3"
    found = [m.group() for m in compile_scanner(tuple(generic)).finditer(text)]
    before = [m.group() for m in compile_scanner(tuple(trie_only)).finditer(text)]
    assert found == ["__n7", "__nv_x", "__shfl_down_sync", "__restrict__", "__n100", "__n3"]
    assert set(before) <= set(found)
    assert len(identifier_branches(["cub::"], ["c::x", *[f"c{i}" for i in range(200)]])[0]) > 200


#: the lexer's patterns before they took runs of characters in one step
PLAIN = {
    "comment": r"//(?:[^\n\\]|\\(?:[ \t\f\v\r]*\n|.|\Z))*|/\*(?s:.*?)(?:\*/|\Z)",
    "string": r'(?:u8|u|U|L)?"(?:[^"\\\n]|\\(?:[ \t\f\v\r]*\n|.|\Z))*"?',
    "char": r"(?:u8|u|U|L)?'(?:[^'\\\n]|\\(?:[ \t\f\v\r]*\n|.|\Z))*'?",
}
_PIECES = ["/", "*", "\\", "\n", " ", "\t", "\r", "a", "//", "/*", "*/", "**", '"', "'", "u8", "L"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_the_lexers_comment_and_literal_patterns_match_like_the_plain_ones(
    pieces: list[str],
) -> None:
    text = "".join(pieces)
    parts = dict(lexer._PARTS)
    for kind, plain in PLAIN.items():
        slow, fast = re.compile(plain), re.compile(parts[kind])
        for at in range(len(text)):
            a, b = slow.match(text, at), fast.match(text, at)
            assert (a and a.span()) == (b and b.span()), (kind, text, at)
