"""``// rocport: …`` control comments and the leading comment block of a file.

- ``rocport: off`` … ``rocport: on`` leaves the region between them untouched;
- ``rocport: skip-file`` in the comments that open a file leaves the whole file untouched.

The control word must open the comment or one of its lines: a comment that merely mentions
"rocport: off" in a sentence does not count.
"""

from __future__ import annotations

import re

#: a control word opening a comment, or one of its lines ("// rocport: off", " * rocport: on")
_CONTROL = re.compile(r"(?:^|//|/\*|\n)[ \t*/]*rocport:[ \t]*(off|on|skip-file)\b")
_BLOCK = r"/\*(?:[^*]|\*(?!/))*\*/"
_LEADING = re.compile(rf"(?:\s+|//[^\n]*|{_BLOCK})*")
_HEADER_ITEM = re.compile(
    rf"[ \t]*(?://[^\n]*|(?:{_BLOCK}[ \t]*)+|\#[ \t]*pragma[ \t]+once\b[^\n]*)[ \t]*(?:\n|\Z)"
)
_BLANK_LINE = re.compile(r"[ \t]*\n")


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
    """Offset of the line start after the leading comment block and any ``#pragma once``."""
    pos = 0
    end = 0
    while True:
        item = _HEADER_ITEM.match(text, pos)
        if item is not None and item.end() > pos:
            pos = end = item.end()
            continue
        blank = _BLANK_LINE.match(text, pos)
        if blank is None:
            return end
        pos = blank.end()
