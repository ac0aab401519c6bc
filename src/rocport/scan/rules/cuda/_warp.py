"""Patterns shared by the warp-size rules."""

from __future__ import annotations

import re

#: Warp intrinsics whose first argument is a lane mask (CUDA names; HIP 6.2+ uses the same).
MASKED_CALL = re.compile(
    r"(__(?:shfl(?:_up|_down|_xor)?_sync|ballot_sync|any_sync|all_sync|uni_sync|"
    r"match_any_sync|match_all_sync|syncwarp|reduce_(?:add|min|max|and|or|xor)_sync))"
    r"\s*\("
)
#: what a MASKED_CALL match starts with (all in CudaSource's index of ``__`` words)
MASKED_CALL_STARTS = (
    "__shfl",
    "__ballot",
    "__any_sync",
    "__all_sync",
    "__uni_sync",
    "__match_",
    "__syncwarp",
    "__reduce_",
)
#: A full 32-lane mask written as a literal.
FULL_MASK_32 = re.compile(r"0[xX][fF]{8}[uU]?[lL]{0,2}|~0[uU]?|-1|4294967295[uU]?[lL]{0,2}")
#: A 32-bit (at most 8 hex digits) lane-mask literal.
MASK_LITERAL_32 = re.compile(r"0[xX][0-9a-fA-F]{1,8}[uU]?[lL]{0,2}")
FULL_MASK_64 = "0xffffffffffffffffULL"

#: Intrinsics that return a lane mask (64 bits wide in HIP).
MASK_PRODUCER = (
    r"(?:__activemask|__ballot_sync|__ballot|__match_any_sync|__match_all_sync|"
    r"__lanemask_(?:lt|gt|le|ge|eq))"
)

#: Names that say "the warp width".
WARP_SIZE_NAME = re.compile(
    r"(?i)^(?:k_?|c_?)?(?:warp_?size|warp_?sz|warp_?width|warp_?len|lanes?_?per_?warp|"
    r"threads?_?per_?warp|num_?lanes|n_?lanes|wave_?size|wavefront_?size)$"
)

#: Shuffles: warp intrinsics and cooperative-groups methods.
SHUFFLE = re.compile(r"__shfl|\.shfl(?:_up|_down|_xor)?\s*\(")


_BRACKET = re.compile(r"[(\[{\]}]")


def first_argument(code: str, open_paren: int) -> tuple[int, int]:
    """Span of the first argument of the call whose ``(`` is at ``open_paren``."""
    limit = min(len(code), open_paren + 2000)
    comma, close = code.find(",", open_paren + 1, limit), code.find(")", open_paren + 1, limit)
    end = min(comma, close) if comma != -1 and close != -1 else max(comma, close)
    if end != -1 and not _BRACKET.search(code, open_paren + 1, end):
        return _strip(code, open_paren + 1, end)  # no brackets before the first , or )
    depth = 0
    for index in range(open_paren + 1, limit):
        char = code[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return _strip(code, open_paren + 1, index)
            depth -= 1
        elif char == "," and depth == 0:
            return _strip(code, open_paren + 1, index)
    return open_paren + 1, open_paren + 1


def _strip(code: str, start: int, end: int) -> tuple[int, int]:
    while start < end and code[start].isspace():
        start += 1
    while end > start and code[end - 1].isspace():
        end -= 1
    return start, end
