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
#: argument spans and the offset of the closing parenthesis
Call = tuple[list[tuple[int, int]], int]


def split_call(
    text: str, open_paren: int, memo: dict[int, Call | None] | None = None
) -> Call | None:
    """Split the call whose ``(`` is at ``open_paren`` into top-level argument spans.

    Returns ``(spans, close)`` where ``spans`` are ``[start, end)`` offsets of each argument
    (untrimmed; an empty call gives ``[]``) and ``close`` the offset of the matching ``)``.
    Returns None when the parentheses are unbalanced.

    ``memo``, shared by the calls on one text, receives the result of every ``(`` the scan
    passes (a scan from there would see the same tokens): calls nested in a call already
    split, and the calls after an unclosed one, are answered without scanning again, so that
    many unbalanced calls cost one scan of the text instead of one each.
    """
    if memo is not None and open_paren in memo:
        return memo[open_paren]
    # one frame per open bracket: [closing bracket, offset, argument spans, argument start]
    frames: list[list] = [[")", open_paren, [], open_paren + 1]]
    for match in _SIGNIFICANT.finditer(text, open_paren + 1):
        if match.lastgroup != "p":
            continue
        char = match.group()
        pos = match.start()
        if char in _OPEN:
            frames.append([_OPEN[char], pos, [], pos + 1])
        elif char in _CLOSE:
            closer, start, spans, arg_start = frames.pop()
            if char != closer:
                frames.append([closer, start])
                break
            if closer != ")":
                continue
            if spans or text[arg_start:pos].strip():
                spans.append((arg_start, pos))
            if memo is not None:
                memo[start] = (spans, pos)
            if not frames:
                return spans, pos
        else:  # a comma of the innermost bracket
            frame = frames[-1]
            frame[2].append((frame[3], pos))
            frame[3] = pos + 1
    if memo is not None:  # unclosed or mismatched: so is every call still open
        for frame in frames:
            if frame[0] == ")":
                memo[frame[1]] = None
    return None


def comments_and_newlines(text: str, start: int, end: int) -> str:
    """What stays of ``text[start:end]``, code that a rewrite drops (a warp mask): its
    comments, each as it was, and its newlines, so that lines still correspond 1:1."""
    kept = []
    pos = start
    for match in _SIGNIFICANT.finditer(text, start, end):
        if match.lastgroup != "comment":
            continue
        kept.append("\n" * text.count("\n", pos, match.start()))
        kept.append(match.group())
        pos = match.end()
    if pos == start:
        return "\n" * text.count("\n", start, end)
    return "".join(kept) + ("\n" * text.count("\n", pos, end) or " ")


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
