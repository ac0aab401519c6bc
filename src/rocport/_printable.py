"""File names and other untrusted text made safe to print on a terminal.

A file name may hold escape sequences (``\\x1b[2J`` clears the screen, ``\\x1b]8;;`` makes a
link), other control characters, bidirectional overrides that reorder what is shown, and bytes
that are not UTF-8 (Python keeps them as lone surrogates, which cannot even be encoded). Text
reports show such characters as escapes, ``\\x1b``, ``\\u202e``; a byte that is not UTF-8 as
``\\xNN``. JSON and SARIF reports keep the names as they are (their encoders escape them).
"""

from __future__ import annotations

import re

from rich.markup import escape

#: C0 and C1 controls, DEL, bidirectional embeddings/overrides/isolates, lone surrogates
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every character that could change or hide what a terminal shows escaped."""
    return _UNPRINTABLE.sub(_escape, text)


def markup(text: str) -> str:
    """:func:`printable` ``text``, also escaped for rich markup (``[red]`` stays literal)."""
    return escape(printable(text))
