"""``// rocport: …`` control comments and the leading comment block of a file.

- ``rocport: off`` … ``rocport: on`` leaves the region between them untouched;
- ``rocport: skip-file`` in the comments that open a file leaves the whole file untouched.

The control word must open the comment or one of its lines: a comment that merely mentions
"rocport: off" in a sentence does not count.
"""

from __future__ import annotations

import re

from rocport.lexer import compile_scanner

#: a control word opening a comment, or one of its lines ("// rocport: off", " * rocport: on")
_CONTROL = re.compile(r"(?:^|//|/\*|\n)[ \t*/]*rocport:[ \t]*(off|on|skip-file)\b")
#: a backslash-newline, which joins two lines into one logical line before anything else is
#: read (clang and gcc accept spaces between the two, with a warning)
_SPLICE = r"\\[ \t\f\v\r]*\n"
#: (unrolled: runs of non-stars and of stars, no step per character and nothing given back)
_BLOCK = r"/\*[^*]*+\*++(?:[^/*][^*]*+\*++)*+/"
#: (possessive: the comment runs to the first newline no splice joins, so nothing is given back)
_LINE_COMMENT = rf"//(?:[^\n\\]++|{_SPLICE}|\\)*+"
_LEADING = re.compile(rf"(?:\s+|{_LINE_COMMENT}|{_BLOCK})*")
#: one line of the leading block: comments, or ``#pragma once`` and whatever follows it on its
#: logical line (comments, spliced lines), then a newline that ends the logical line
_HEADER_ITEM = re.compile(
    rf"[ \t\f\v]*(?:(?:{_BLOCK}[ \t\f\v]*)*{_LINE_COMMENT}|(?:{_BLOCK}[ \t\f\v]*)+"
    rf"|\#[ \t]*pragma[ \t]+once\b(?:{_BLOCK}|{_SPLICE}|[^\n\\/]|/(?![/*])|\\)*"
    rf"(?:{_LINE_COMMENT})?)[ \t\f\v\r]*(?:\n|\Z)"
)
_BLANK_LINE = re.compile(r"[ \t\f\v\r]*\n")
#: the whole leading block at once, up to the end of its last item (blank lines after it are
#: not part of it); where it mentions rocport, the item-by-item walk looks for ``off``
_HEADER_BLOCK = re.compile(rf"(?:(?:{_BLANK_LINE.pattern})*+{_HEADER_ITEM.pattern})*+")
BOM = "\ufeff"


def controls(comment: str) -> list[tuple[int, str]]:
    """The control words in ``comment`` (``"off"``, ``"on"``, ``"skip-file"``) with their
    offsets; a run of ``//`` lines may hold several."""
    return [(m.start(1), m.group(1)) for m in _CONTROL.finditer(comment)]


def skips_file(text: str) -> bool:
    """Whether the comments that open ``text`` contain ``rocport: skip-file``."""
    head = _LEADING.match(text)
    return head is not None and any(
        m.group(1) == "skip-file" for m in _CONTROL.finditer(text, 0, head.end())
    )


def header_end(text: str) -> int:
    """Offset of the line start after the leading comment block and any ``#pragma once``
    (after a byte order mark, at least): where a line inserted there is a line of its own for
    the preprocessor, neither spliced onto a line that ends in a backslash nor inside a
    comment, nor in a ``rocport: off`` region. Where that cannot be shown, the start of the
    text (after any byte order mark)."""
    start = pos = end = 1 if text.startswith(BOM) else 0
    block = _HEADER_BLOCK.match(text, start).end()
    if text.find("rocport", start, block) == -1:
        return block if is_line_start(text, block) else start
    while True:
        item = _HEADER_ITEM.match(text, pos)
        if item is not None and item.end() > pos:
            if any(state == "off" for _, state in controls(item.group())):
                break  # a region left untouched starts here: nothing goes into it
            pos = end = item.end()
            continue
        blank = _BLANK_LINE.match(text, pos)
        if blank is None:
            break
        pos = blank.end()
    return end if is_line_start(text, end) else start


def is_line_start(text: str, offset: int) -> bool:
    """Whether ``offset`` starts a logical line outside any comment or literal (the lexer's
    view): the text before ends in a newline not spliced away by a backslash."""
    if offset == 0 or (offset == 1 and text[0] == BOM):
        return True
    if text[offset - 1] != "\n":
        return False
    before = offset - 2
    while before >= 0 and text[before] in " \t\f\v\r":
        before -= 1
    if before >= 0 and text[before] == "\\":  # a spliced newline
        return False
    for token in compile_scanner().finditer(text):  # tokenize's tokens, without their tuples
        if token.start() >= offset:
            return True
        if token.end() > offset:
            return False
    return True
