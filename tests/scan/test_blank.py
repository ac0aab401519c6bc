"""The scanner's fast blanking gives exactly what the shared lexer gives."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rocport import lexer
from rocport.scan.blank import blank_non_code

# Characters that matter to the lexer: comment and literal openers, escapes, prefixes, digits.
PIECES = st.sampled_from(
    [
        "/",
        "*",
        "//",
        "/*",
        "*/",
        '"',
        "'",
        "\\",
        "\n",
        " ",
        "R",
        'R"',
        'R"x(',
        ')x"',
        "(",
        ")",
        "u8",
        "u",
        "L",
        "U",
        "1",
        "0x1f",
        "1'000",
        "e+",
        ".",
        "a",
        "_",
        "x",
        "int",
        "$",
        "\t",
        "é",
    ]
)
SAMPLES = Path(__file__).parent / "fixtures"


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=60).map("".join))
def test_same_as_lexer_on_token_soup(text: str) -> None:
    assert blank_non_code(text) == lexer.blank_non_code(text)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_same_as_lexer_on_any_text(text: str) -> None:
    assert blank_non_code(text) == lexer.blank_non_code(text)


def test_same_as_lexer_on_fixtures() -> None:
    for path in sorted(SAMPLES.rglob("*.cu")):
        text = path.read_text("utf-8")
        assert blank_non_code(text) == lexer.blank_non_code(text), path


def test_digit_separators_and_raw_strings() -> None:
    text = "int n = 1'000'000; char c = 'a'; auto r = R\"x(/* \"no\" */)x\"; // tail\n"
    blanked = blank_non_code(text)
    assert blanked == lexer.blank_non_code(text)
    assert "1'000'000" in blanked and "tail" not in blanked and "no" not in blanked
