"""Balanced-bracket scanning of call arguments, starting from a position known to be code.

Comments and string or character literals inside the arguments are skipped as whole tokens,
so a ``(`` or ``,`` inside them never counts.
"""

from __future__ import annotations

import re

from rocport.port.scanner import LITERALS

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}
_SIGNIFICANT = re.compile("|".join([*LITERALS, r"(?P<p>[()\[\]{},])"]), re.MULTILINE)


def split_call(text: str, open_paren: int) -> tuple[list[tuple[int, int]], int] | None:
    """Split the call whose ``(`` is at ``open_paren`` into top-level argument spans.

    Returns ``(spans, close)`` where ``spans`` are ``[start, end)`` offsets of each argument
    (untrimmed; an empty call gives ``[]``) and ``close`` the offset of the matching ``)``.
    Returns None when the parentheses are unbalanced.
    """
    depth = 0
    spans: list[tuple[int, int]] = []
    start = open_paren + 1
    stack: list[str] = []
    for match in _SIGNIFICANT.finditer(text, open_paren + 1):
        if match.lastgroup != "p":
            continue
        char = match.group()
        pos = match.start()
        if char in _OPEN:
            stack.append(_OPEN[char])
            depth += 1
        elif char in _CLOSE:
            if not stack:
                if char != ")":
                    return None
                if spans or text[start:pos].strip():
                    spans.append((start, pos))
                return spans, pos
            if stack.pop() != char:
                return None
            depth -= 1
        elif depth == 0:  # a top-level comma
            spans.append((start, pos))
            start = pos + 1
    return None


_LEADING_COMMENT = re.compile(r"\s*(?:" + LITERALS[0] + ")", re.MULTILINE)


def trim(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """Shrink ``span`` past leading whitespace and comments and trailing whitespace."""
    start, end = span
    while (comment := _LEADING_COMMENT.match(text, start, end)) is not None:
        start = comment.end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def skip_space(text: str, pos: int) -> int:
    """The first offset at or after ``pos`` that is not whitespace."""
    end = len(text)
    while pos < end and text[pos].isspace():
        pos += 1
    return pos
