"""Properties of the lexer and the translator over generated text (hypothesis)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocport.lexer import Kind, blank_non_code, tokenize
from rocport.port.mapping import load_mapping
from rocport.port.model import PortOptions
from rocport.port.scanner import compile_scanner
from rocport.port.translator import _plan, translate

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
#: the promises of the port (comments and literals untouched, idempotence, any bytes): a few
#: thousand examples each
PROMISE = settings(SETTINGS, max_examples=2000)

CUDA_NAMES = [
    "cudaMalloc",
    "cudaFree",
    "cudaMemcpy",
    "cudaMemcpyHostToDevice",
    "cudaStream_t",
    "cudaError_t",
    "cudaSuccess",
    "cudaMemcpyToSymbol",
    "cudaGetSymbolAddress",
    "__shfl_down_sync",
    "__ballot_sync",
    "cublasSgemm",
    "CUBLAS_OP_N",
    "cufftExecC2C",
    "curandState",
    "cuMemAlloc",
    "CUdeviceptr",
    "cub",
    "cudaNoSuchApi",
    "__global__",
    "warpSize",
    "threadIdx",
]
PLAIN_NAMES = [
    "x",
    "n",
    "count",
    "cudaish",
    "my_cudaMalloc",
    "hipMalloc",
    "float4",
    "std",
    "R",
    "u8",
]
PLAIN_PIECES = [
    " ",
    "\n",
    "\t",
    "(",
    ")",
    ",",
    ";",
    "{",
    "}",
    "<",
    "::",
    "=",
    "+",
    "*",
    "&",
    "0",
    # literals after a space: an identifier glued to a quote is no valid C++, and the two
    # lexers recover from it differently
    " 1'000",
    " 0xff",
    " 1e-5f",
    " 'a'",
    " '\\''",
    " u8'c'",
    '"a string"',
    '"esc \\" quote"',
    'R"d(raw ) " text)d"',
    "// line comment\n",
    "/* block\n comment */",
    # directives start a line (a "#" inside a line is no directive, for either lexer)
    "\n#include <vector>\n",
    '\n#include "local.h"\n',
    "\n#define N 4\n",
    "\\\n",
]
CUDA_PIECES = [
    "<<<",
    ">>>",
    "<<<g, b>>>",
    "k<<<1, 2, 0, s>>>(a, b)",
    "f<T, 4><<<n, 64>>>()",
    "\n#include <cuda_runtime.h>\n",
    '\n#include "cublas_v2.h"\n',
    "// rocport: off\n",
    "// rocport: on\n",
    "// continued \\\n",
    "// continued, spaces after \\  \n",
    "\ufeff",
    "/* one */ ",
    "\n#pragma once\n",
    "FULL /* all lanes */",
    "__shfl_down_sync(FULL /* all */, v, 1)",
    "__shfl_xor_sync(// mask\n0xffffffff, v, 1)",
    "/* cudaMalloc in a comment */",
    '"cudaFree in a string"',
    "cudaMemcpyToSymbol(sym, h, 4)",
    "__shfl_down_sync(0xffffffff, v, 1)",
    "cub::DeviceReduce::Sum(",
    "\n#if __has_include(<cuda_fp16.h>)\n",
    '__has_include("nvml.h")',
]
#: names of the branches that a text without their literal is scanned without
NEEDLED = [
    "thrust::cuda::par",
    "thrust::cuda",
    " thrust :: cuda",
    "make_cuComplex(1, 2)",
    "make_cudaExtent",
    "libraryPropertyType_t",
    "// thrust::cuda in a comment\n",
    '"make_cuDoubleComplex in a string"',
    "cuda::std",
]

plain_text = st.lists(st.sampled_from(PLAIN_PIECES + PLAIN_NAMES), max_size=40).map("".join)
cuda_text = st.lists(
    st.sampled_from(PLAIN_PIECES + PLAIN_NAMES + CUDA_NAMES + CUDA_PIECES), max_size=60
).map("".join)
options = st.builds(
    PortOptions,
    rocm=st.sampled_from(["5.2", "6.4"]),
    launch=st.sampled_from(["keep", "ggl"]),
    warp_sync=st.sampled_from(["mask-free", "keep"]),
)


@pytest.fixture(scope="module")
def mappings():
    return {rocm: load_mapping(rocm=rocm) for rocm in ("5.2", "6.4")}


def port(text, mappings, opts):
    return translate(text, path="p.cu", mapping=mappings[opts.rocm], options=opts)


@SETTINGS
@given(text=st.text())
def test_lexer_never_crashes_and_blanking_keeps_length(text):
    tokens = list(tokenize(text))
    assert all(0 <= t.start <= t.end <= len(text) for t in tokens)
    blanked = blank_non_code(text)
    assert len(blanked) == len(text)
    assert blanked.count("\n") == text.count("\n")


@SETTINGS
@given(text=st.one_of(st.text(), cuda_text), opts=options)
def test_translator_never_crashes_and_keeps_lines(mappings, text, opts):
    result = port(text, mappings, opts)
    assert result.text.count("\n") == text.count("\n") + len(result.inserted_lines)
    for ref in result.references:
        assert ref.line >= 1 and ref.column >= 1


@pytest.mark.parametrize("rocm", ["5.2", "6.4"])
@pytest.mark.parametrize("warp_sync", ["mask-free", "keep"])
def test_a_member_of_a_cuda_namespace_is_ported_once(mappings, rocm, warp_sync):
    """``cub::__shfl_down_sync`` becomes ``hipcub::__shfl_down_sync``; a second port must not
    then drop the mask of what is now hipCUB's member (found by the property below)."""
    opts = PortOptions(rocm=rocm, launch="keep", warp_sync=warp_sync)
    once = port("cub::__shfl_down_sync(m, v, 1);", mappings, opts).text
    assert once.endswith("hipcub::__shfl_down_sync(m, v, 1);")
    assert port(once, mappings, opts).text == once


@SETTINGS
@given(text=plain_text, opts=options)
def test_text_without_cuda_names_is_unchanged(mappings, text, opts):
    result = port(text, mappings, opts)
    assert result.text is text
    assert result.references == []


@PROMISE
@given(text=cuda_text, opts=options)
def test_translating_twice_equals_translating_once(mappings, text, opts):
    once = port(text, mappings, opts).text
    assert port(once, mappings, opts).text == once


@SETTINGS
@given(text=cuda_text)
def test_scanner_sees_the_lexers_code_identifiers(mappings, text):
    """The translator's fast scanner and the shared lexer agree on where CUDA names start in
    code (the scanner reads ``ns::Name`` as one token, the lexer as two; a header name in
    ``__has_include(<...>)`` is a header, not identifiers)."""
    plan = _plan(mappings["6.4"], PortOptions())
    tokens = list(plan.scanner_for(text).finditer(text))
    fast = {m.span() for m in tokens if m.lastgroup is None and plan.rule(m.group()) is not None}
    lexed = {
        t.start
        for t in tokenize(text)
        if t.kind is Kind.IDENT and plan.rule(text[t.start : t.end]) is not None
    }
    # a name inside a qualified token (``cub::cudaMalloc``) is the token's, not its own
    covering = fast | {m.span() for m in tokens if m.lastgroup == "has_include"}
    lexed -= {at for at in lexed if any(start < at < end for start, end in covering)}
    assert {start for start, _ in fast} == lexed


#: ASCII text with the control characters that ``\s`` reads differently under ``re.ASCII``
ascii_text = st.lists(
    st.sampled_from(
        [*PLAIN_PIECES, *PLAIN_NAMES, *CUDA_NAMES, *CUDA_PIECES, "\x1c", "\x1f", 'R"\x1c(']
    ),
    max_size=60,
).map(lambda pieces: "".join(pieces).replace("\ufeff", ""))


@SETTINGS
@given(text=ascii_text)
def test_the_ascii_scanner_reads_ascii_text_the_same(mappings, text):
    """The scanner compiled for ASCII text (``re.ASCII``) finds the tokens of the one for any
    text."""
    plan = _plan(mappings["6.4"], PortOptions())
    tokens = [(m.lastgroup, m.span()) for m in compile_scanner(plan.branches).finditer(text)]
    ascii_scanner = compile_scanner(plan.branches, ascii=True)
    assert [(m.lastgroup, m.span()) for m in ascii_scanner.finditer(text)] == tokens


@SETTINGS
@given(
    text=st.lists(
        st.sampled_from([*PLAIN_PIECES, *CUDA_NAMES, *CUDA_PIECES, *NEEDLED]), max_size=60
    ).map("".join)
)
def test_the_scanner_chosen_for_a_text_finds_what_the_full_one_finds(mappings, text):
    """Leaving out the branches whose literal a text lacks changes none of its tokens."""
    plan = _plan(mappings["6.4"], PortOptions())
    assert plan.needles  # else this test tests nothing
    tokens = [(m.lastgroup, m.span()) for m in compile_scanner(plan.branches).finditer(text)]
    assert [(m.lastgroup, m.span()) for m in plan.scanner_for(text).finditer(text)] == tokens


def _wheel_headers() -> list:
    """The CUDA library headers that come with the torch wheel (nvidia/*/include)."""
    try:
        import nvidia
    except ImportError:
        return []
    roots = [Path(p) for p in nvidia.__path__]
    suffixes = (".h", ".hpp", ".cuh")
    return sorted(f for r in roots for f in r.glob("*/include/**/*") if f.suffix in suffixes)


@pytest.mark.slow
def test_real_cuda_headers_keep_lines_and_are_idempotent(mappings):
    """NVIDIA's own headers (cuBLAS, cuFFT, cuRAND, cuSPARSE, cuDNN, NCCL...): real-world
    text in bulk. Lines stay 1:1 and a second translation changes nothing."""
    headers = _wheel_headers()
    if not headers:
        pytest.skip("no CUDA headers from the nvidia wheels (pip install torch)")
    options = PortOptions(rocm="6.4", launch="ggl")
    for header in headers:
        text = header.read_text(errors="replace")
        once = port(text, mappings, options)
        assert once.text.count("\n") == text.count("\n") + len(once.inserted_lines), header
        assert port(once.text, mappings, options).text == once.text, header


LITERAL_KINDS = (Kind.COMMENT, Kind.STRING, Kind.RAW_STRING, Kind.CHAR)


def _literals(text: str, kinds=LITERAL_KINDS) -> list[str]:
    return [text[t.start : t.end] for t in tokenize(text) if t.kind in kinds]


def _is_subsequence(part: list[str], whole: list[str]) -> bool:
    rest = iter(whole)
    return all(any(item == other for other in rest) for item in part)


@PROMISE
@given(text=cuda_text, opts=options)
def test_comments_and_literals_come_out_byte_identical(mappings, text, opts):
    """Every comment of the input is in the output as it was, in order; string and character
    literals too, except those inside a warp mask the port drops (code that goes)."""
    out = port(text, mappings, opts).text
    assert _literals(out, (Kind.COMMENT,)) == _literals(text, (Kind.COMMENT,))
    before, after = _literals(text), _literals(out)
    if "_sync" in text and opts.warp_sync == "mask-free":
        assert _is_subsequence(after, before)
    else:
        assert after == before


def _inserted_removed(result) -> str:
    lines = result.text.splitlines(keepends=True)
    for number in reversed(result.inserted_lines):
        del lines[number - 1]
    return "".join(lines)


#: bytes that are never part of valid UTF-8 (continuation bytes alone, 0xf8-0xff)
_NOT_UTF8 = st.binary(min_size=1, max_size=3).map(
    lambda b: bytes(0x80 + (x % 0x40) if x % 2 else 0xF8 + (x % 8) for x in b)
)
byte_pieces = st.lists(
    st.one_of(
        st.sampled_from(PLAIN_PIECES + PLAIN_NAMES + CUDA_NAMES + CUDA_PIECES).map(
            lambda piece: (False, piece.encode())
        ),
        _NOT_UTF8.map(lambda piece: (True, piece)),
    ),
    max_size=40,
)
PLACEHOLDER = "\x01"  # neither a word character nor C syntax, like an escaped byte


def _port_bytes(data: bytes, mappings, opts) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    return port(text, mappings, opts).text.encode("utf-8", "surrogateescape")


def _escaped(text: str) -> list[str]:
    return [c for c in text if 0xDC80 <= ord(c) <= 0xDCFF]


@PROMISE
@given(data=st.binary(max_size=200), opts=options)
def test_any_bytes_go_in_and_out(mappings, data, opts):
    """Any byte string (NULs, lone UTF-8 continuation bytes, ...) is translated without a
    crash, and text without CUDA names comes out byte for byte."""
    out = _port_bytes(data, mappings, opts)
    text = data.decode("utf-8", "surrogateescape")
    if port(text, mappings, opts).references == []:
        assert out == data


@PROMISE
@given(pieces=byte_pieces, opts=options)
def test_bytes_that_are_not_utf8_change_nothing_else(mappings, pieces, opts):
    """Bytes that are not UTF-8 go out as they came in, and the translation around them is the
    one of the same text with a neutral character in their place."""
    data = b"".join(piece for _, piece in pieces)
    neutral = "".join(
        PLACEHOLDER * len(piece) if binary else piece.decode() for binary, piece in pieces
    )
    out = _port_bytes(data, mappings, opts).decode("utf-8", "surrogateescape")
    expected = port(neutral, mappings, opts).text
    assert "".join(PLACEHOLDER if _escaped(c) else c for c in out) == expected
    before = _escaped(data.decode("utf-8", "surrogateescape"))
    assert _is_subsequence(_escaped(out), before)
    if "_sync" not in neutral:  # nothing dropped: every such byte is still there
        assert _escaped(out) == before


@PROMISE
@given(text=cuda_text, opts=options)
def test_inserted_lines_are_lines_of_their_own(mappings, text, opts):
    """Each inserted line is a preprocessor line of its own: the line before it does not end
    in a backslash, it is not inside a comment or literal, and removing it gives the text
    back (only the inserted lines differ from what an insertion-free port writes)."""
    result = port(text, mappings, opts)
    if not result.inserted_lines:
        return
    lines = result.text.splitlines(keepends=True)
    first = result.inserted_lines[0] - 1
    before = "".join(lines[:first])
    assert not before[:-1].rstrip(" \t\f\v\r").endswith("\\"), "a spliced line"
    assert all(t.end <= len(before) or t.start >= len(before) for t in tokenize(result.text)), (
        "an inserted line starts inside a comment or literal"
    )
    assert before in ("", "\ufeff") or before.endswith("\n")
    assert _inserted_removed(result).count("\n") == text.count("\n")
