"""A small, fast C/C++/CUDA lexer shared by ``port`` and ``scan``.

It is regex-driven on purpose: one compiled pattern finds comments, string and character
literals (raw strings too), ``#include`` directives, other preprocessor keywords, numbers and
identifiers, and :func:`re.Pattern.finditer` skips whitespace and punctuation in C. That keeps
the rewrite at tens of MB/s, where a per-character Python loop manages a few.

Two entry points cover both users:

- :func:`compile_scanner` builds the pattern with a caller-chosen identifier sub-pattern (the
  translator passes one that matches only CUDA-looking names, so it never visits the others);
- :func:`blank_non_code` returns text of the same length in which comments and literal contents
  are spaces, so that line/column positions still hold and regex rules see only code.

Malformed input never raises: an unterminated comment runs to the end of the text, and an
unterminated string or character literal ends at the end of its line.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

#: An identifier: a letter, ``_`` (or any Unicode letter), then word characters.
GENERIC_IDENT = r"[^\W\d]\w*"

_ENCODING_PREFIX = r"(?:u8|u|U|L)?"
#: the start of a line, or of the first line after a byte order mark
_LINE_START = "(?:^|(?<=\\A\ufeff))"

#: a line comment (to the first newline no backslash splices away) or a block comment (to the
#: first ``*/``, or the end of the text); this one and the literals below are written as runs
#: that ``re`` takes in one step and never gives back (``tests/port/test_lexer.py`` compares
#: each with the plain form, one character per step, that it replaced)
_COMMENT = (
    r"//(?:[^\n\\]++|\\(?:[ \t\f\v\r]*\n|.|\Z))*+"
    r"|/\*[^*]*+(?:\*++[^*/][^*]*+)*+(?:\*++/|\*++\Z|\Z)"
)

_PARTS = (
    ("comment", _COMMENT),
    ("raw", _ENCODING_PREFIX + r'R"(?P<delim>[^()\\\s"]{0,16})\((?s:.*?)(?:\)(?P=delim)"|\Z)'),
    ("string", _ENCODING_PREFIX + r'"(?:[^"\\\n]++|\\(?:[ \t\f\v\r]*\n|.|\Z))*+"?'),
    ("char", _ENCODING_PREFIX + r"'(?:[^'\\\n]++|\\(?:[ \t\f\v\r]*\n|.|\Z))*+'?"),
    (
        "include",
        _LINE_START
        + r"[ \t]*\#[ \t]*(?:include_next|include|import)[ \t]*(?P<ipath><[^>\n]*>|\"[^\"\n]*\")",
    ),
    ("directive", _LINE_START + r"[ \t]*\#[ \t]*\w*"),
    ("number", r"(?<![\w$])\.?\d(?:[\w.]|'(?=\w)|[eEpP][+-])*"),
)


class Kind(enum.Enum):
    """Token kinds that the lexer reports."""

    COMMENT = "comment"
    RAW_STRING = "raw"
    STRING = "string"
    CHAR = "char"
    INCLUDE = "include"
    DIRECTIVE = "directive"
    NUMBER = "number"
    IDENT = "ident"


_KIND_BY_GROUP = {kind.value: kind for kind in Kind}


class Token(NamedTuple):
    """One lexeme: its kind and its ``[start, end)`` character offsets."""

    kind: Kind
    start: int
    end: int


@cache
def compile_scanner(ident: str = GENERIC_IDENT) -> re.Pattern[str]:
    """Compile the lexer with ``ident`` as the identifier alternative.

    Named groups: ``comment``, ``raw``, ``string``, ``char``, ``include`` (with ``ipath``, the
    path including its ``<>`` or ``""``), ``directive``, ``number`` and ``ident``. ``ident`` is
    anchored on word boundaries, so it never matches inside a longer identifier.
    """
    alternatives = [f"(?P<{name}>{body})" for name, body in _PARTS]
    alternatives.append(rf"(?P<ident>(?<![\w$])(?:{ident})(?![\w$]))")
    return re.compile("|".join(alternatives), re.MULTILINE)


def tokenize(text: str) -> Iterator[Token]:
    """Yield the comments, literals, directives, numbers and identifiers of ``text`` in order."""
    for match in compile_scanner().finditer(text):
        yield Token(_KIND_BY_GROUP[match.lastgroup], match.start(), match.end())


_NON_CODE = re.compile(
    "|".join(
        f"(?P<{name}>{body})" for name, body in _PARTS if name not in ("include", "directive")
    ),
    re.MULTILINE,
)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(match: re.Match[str]) -> str:
    text = match.group()
    if match.lastgroup == "number":  # matched only so that digit separators are not quotes
        return text
    if match.lastgroup == "comment":
        return _NOT_NEWLINE.sub(" ", text)
    # Keep the quotes (and any prefix) so that rules can still see that a literal is there.
    quote = text.find('"') if match.lastgroup in ("string", "raw") else text.find("'")
    closing = 1 if len(text) > quote + 1 and text[-1] == text[quote] else 0
    inner = text[quote + 1 : len(text) - closing]
    return text[: quote + 1] + _NOT_NEWLINE.sub(" ", inner) + text[len(text) - closing :]


def blank_non_code(text: str) -> str:
    """Return ``text`` with comments and literal contents replaced by spaces (same length)."""
    return _NON_CODE.sub(_blank, text)


def at_line_start(text: str | bytes, offset: int) -> bool:
    """Whether only spaces and tabs precede ``offset`` on its line (``text`` str or bytes): where
    a directive found by a literal-first search (``#...``) may start."""
    newline, blanks = ("\n", " \t") if isinstance(text, str) else (b"\n", b" \t")
    return not text[text.rfind(newline, 0, offset) + 1 : offset].strip(blanks)
