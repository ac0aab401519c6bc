"""Kernel launches: parse ``kernel<<<grid, block[, shmem[, stream]]>>>(args)`` and turn it
into ``hipLaunchKernelGGL`` edits.

``<<<…>>>`` is valid HIP, so the translator keeps it unless asked for the macro form. The macro
form is written over the same lines: every newline of the original launch survives, so compiler
diagnostics still point at the right input line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rocport.port.arguments import skip_space, split_call, trim
from rocport.port.scanner import LITERALS

_CONFIG_TOKEN = re.compile("|".join([*LITERALS, r"(?P<p>[()\[\]{}]|>>[ \t]*>|,)"]), re.MULTILINE)
#: the opening of a launch: ``<<<`` or, as nvcc also accepts, ``<< <``
_OPEN = re.compile(r"<<[ \t]*<")
_NAME_CHAR = re.compile(r"[\w:]")
#: _CONFIG_TOKEN's tokens and the openings of other launches
_CONFIG_SCAN = re.compile(
    "|".join([*LITERALS, r"(?P<p>[()\[\]{}]|>>[ \t]*>|,)", r"(?P<launch><<[ \t]*<)"]), re.MULTILINE
)


@dataclass(frozen=True, slots=True)
class Launch:
    """Offsets of the parts of one launch (all into the same text)."""

    kernel: tuple[int, int]  # the kernel expression, template arguments included
    templated: bool
    open: int  # offset of "<<<"
    config: tuple[tuple[int, int], ...]  # trimmed grid, block[, shmem[, stream]]
    close: int  # offset of ">>>"
    args_open: int  # offset of the "(" of the kernel arguments
    args: tuple[tuple[int, int], ...]  # trimmed arguments
    args_close: int  # offset of the matching ")"


def launch_config(
    text: str, open_: int, failed: set[int] | None = None
) -> tuple[list[tuple[int, int]], int] | None:
    """The trimmed configuration spans and the ``>>>`` offset of the ``<<<`` at ``open_``;
    None when no ``>>>`` closes it (``operator<<<int>`` is not a launch)."""
    if text.endswith("operator", 0, open_):
        return None  # operator<< <T>(...): explicit template arguments, not a launch
    return _config_after(text, _open_end(text, open_), failed)


def _open_end(text: str, open_: int) -> int:
    match = _OPEN.match(text, open_)
    return match.end() if match else open_ + 3


def spaced_edits(
    text: str, open_: int, config: tuple[list[tuple[int, int]], int] | None = None
) -> list[tuple[int, int, str]]:
    """Edits that write ``<< <grid, block>> >`` (valid for nvcc, not for clang) as
    ``<<<grid, block>>>``; none for a launch already written that way. ``config``: the
    launch's :func:`launch_config`, when known."""
    end = _open_end(text, open_)
    if config is None:
        config = _config_after(text, end)
    if config is None:
        return []
    close = config[1]
    close_end = _CONFIG_TOKEN.match(text, close).end()
    edits = []
    if end - open_ != 3:
        edits.append((open_, end, "<<<"))
    if close_end - close != 3:
        edits.append((close, close_end, ">>>"))
    return edits


def parse_launch(text: str, open_: int, unmatched: set[int] | None = None) -> Launch | None:
    """Parse the launch whose ``<<<`` is at ``open_``; None if it is not a well-formed launch.

    ``unmatched``, shared by the calls on one text, holds the ends of template argument lists
    found unbalanced (see :func:`_kernel_before`)."""
    kernel = _kernel_before(text, open_, unmatched)
    if kernel is None:
        return None
    start, end, templated = kernel
    config = _config_after(text, _open_end(text, open_))
    if config is None:
        return None
    spans, close = config
    if not 2 <= len(spans) <= 4 or any(s == e for s, e in spans):
        return None
    args_open = skip_space(text, _CONFIG_TOKEN.match(text, close).end())
    if args_open >= len(text) or text[args_open] != "(":
        return None
    call = split_call(text, args_open)
    if call is None:
        return None
    args, args_close = call
    return Launch(
        kernel=(start, end),
        templated=templated,
        open=open_,
        config=tuple(spans),
        close=close,
        args_open=args_open,
        args=tuple(trim(text, a) for a in args),
        args_close=args_close,
    )


def ggl_edits(text: str, launch: Launch) -> list[tuple[int, int, str]]:
    """Edits ``(start, end, replacement)`` that rewrite ``launch`` as ``hipLaunchKernelGGL``."""
    kstart, kend = launch.kernel
    head = "hipLaunchKernelGGL(" + ("HIP_KERNEL_NAME(" if launch.templated else "")
    grid, block, *rest = launch.config
    has_args = bool(launch.args)
    after_args_open = launch.args_open + 1
    gaps: list[tuple[int, int, str]] = [
        (kend, grid[0], (")" if launch.templated else "") + ", dim3("),
        (grid[1], block[0], "), dim3("),
    ]
    tail = ", " if has_args else ""
    if len(rest) == 2:
        shmem, stream = rest
        gaps += [(block[1], shmem[0], "), "), (shmem[1], stream[0], ", ")]
        gaps.append((stream[1], after_args_open, tail))
    elif len(rest) == 1:
        (shmem,) = rest
        gaps.append((block[1], shmem[0], "), "))
        gaps.append((shmem[1], after_args_open, ", 0" + tail))
    else:
        gaps.append((block[1], after_args_open, "), 0, 0" + tail))
    if has_args:
        # Whitespace between "(" and the first argument was swallowed above; keep its newlines.
        last = gaps.pop()
        gaps.append((last[0], launch.args[0][0], last[2]))
    edits = [(kstart, kstart, head)]
    for start, end, replacement in gaps:
        edits.append((start, end, _keep_layout(text, start, end, replacement)))
    return edits


_GAP_SYNTAX = re.compile(r"<<[ \t]*<|>>[ \t]*>|[,(]")


def _keep_layout(text: str, start: int, end: int, replacement: str) -> str:
    """``replacement`` for ``text[start:end]``, keeping the comments and line breaks found
    there (only the launch syntax goes: ``<<<``, ``>>>``, commas, the opening parenthesis).
    A break goes after the replacement's last comma, where a person would break the line."""
    kept = []
    pos = start
    for match in _CONFIG_TOKEN.finditer(text, start, end):
        if match.lastgroup == "comment":
            kept.append(_GAP_SYNTAX.sub("", text[pos : match.start()]))
            kept.append(match.group())
            pos = match.end()
    kept.append(_GAP_SYNTAX.sub("", text[pos:end]))
    layout = "".join(kept)
    if not layout.strip(" \t"):
        return replacement
    cut = replacement.rfind(",") + 1
    return replacement[:cut] + layout + replacement[cut:].lstrip()


def _kernel_before(
    text: str, open_: int, unmatched: set[int] | None = None
) -> tuple[int, int, bool] | None:
    """The kernel expression before ``open_``, with its template arguments if any.

    A scan back for the ``<`` of template arguments that reaches an end in ``unmatched``
    (one found unbalanced) fails at once: brackets still open there stay open past it. So many
    unbalanced ``>`` on one line cost linear time."""
    pos = open_
    while pos > 0 and text[pos - 1] in " \t":
        pos -= 1
    end = pos
    templated = False
    if pos > 0 and text[pos - 1] == ">":
        if unmatched is not None and end in unmatched:
            return None
        depth = 0
        while pos > 0:
            if depth and unmatched is not None and pos in unmatched:
                break
            pos -= 1
            char = text[pos]
            if char in ">)]":
                depth += 1
            elif char in "<([":
                depth -= 1
                if depth == 0:
                    break
        if depth != 0:
            if unmatched is not None:
                unmatched.add(end)
            return None
        templated = True
        while pos > 0 and text[pos - 1] in " \t":
            pos -= 1
    name_end = pos
    while pos > 0 and _NAME_CHAR.match(text[pos - 1]):
        pos -= 1
    if pos == name_end or text[pos].isdigit():
        return None
    return pos, end, templated


def _config_after(
    text: str, start: int, failed: set[int] | None = None
) -> tuple[list[tuple[int, int]], int] | None:
    """The trimmed spans and the ``>>>`` offset of the launch configuration from ``start``.

    ``failed``, shared by the calls on one text, holds the starts known to fail: a scan that
    fails adds the other ``<<<`` it passed at its own depth (they would fail the same way), so
    that many unclosed ``<<<`` cost one scan of the text instead of one each."""
    if failed is not None and start in failed:
        return None
    depth = 0
    spans: list[tuple[int, int]] = []
    arg_start = start
    level = [start]  # the ends of the "<<<" passed at depth 0
    for match in _CONFIG_SCAN.finditer(text, start):
        group = match.lastgroup
        if group == "launch":
            if depth == 0:
                level.append(match.end())
            continue
        if group != "p":
            continue
        token = match.group()
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
            if depth < 0:
                break
        elif depth > 0:
            continue
        elif token == ",":
            spans.append(trim(text, (arg_start, match.start())))
            arg_start = match.end()
        else:  # ">>>"
            spans.append(trim(text, (arg_start, match.start())))
            return spans, match.start()
    if failed is not None:
        failed.update(level)
    return None
