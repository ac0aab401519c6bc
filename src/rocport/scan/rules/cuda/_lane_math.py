"""Lane and warp index arithmetic with the constant 32 (``x % 32``, ``x & 31``, ``x / 32``,
``x >> 5`` on a thread, lane or warp index), shared by the warp rules and the warp model."""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import itemgetter

from rocport.scan.context import CudaSource, word_start

#: each operator with its constant, one pattern per operator so that each starts with the
#: operator (a pattern starting with an alternation is tried at every character); the left
#: operand is found by searching backwards from the operator
_OP_CONSTANTS = {
    op: re.compile(rf"(?P<op>{re.escape(op)})(?!=)\s*(?P<num>{num})[uU]?(?![\w.])")
    for op, num in (("%", "32"), ("/", "32"), ("&", "0[xX]1[fF]|31"), (">>", "5"))
}
_SPACE = " \t\r\n"
_INDEX_NAME = re.compile(r"(?i)threadidx|blockdim|tid|lane|thread|warp|\bidx\b|\bt\b|_id\b")
_BEFORE_ISOLATED = re.compile(r"(?:[(=,;?:\[{]|\breturn)\s*$")
_AFTER_ISOLATED = re.compile(r"\s*[);,\]?:}]")


@dataclass(slots=True)
class LaneMath:
    """One ``index OP constant`` in device code."""

    match: re.Match[str]
    op: str
    num: str  # lower case
    lhs: str
    lhs_start: int

    @property
    def end(self) -> int:
        return self.match.end()


def lane_math(src: CudaSource) -> list[LaneMath]:
    """Every ``index OP 32``-like expression inside a ``__global__``/``__device__`` body."""
    cached = getattr(src, "_rocport_lane_math", None)
    if cached is not None:
        return cached
    found: list[LaneMath] = []
    code = src.code
    if src.functions:
        # searched in the function bodies only (about a third of a file), where the same
        # matches lie, then matched again in the code at the same place
        device = src.device_code
        places = sorted(
            ((hit.start(), pattern) for pattern in _OP_CONSTANTS.values()
             for hit in pattern.finditer(device)),
            key=itemgetter(0),
        )  # fmt: skip
        for place, pattern in places:
            at = src.code_offset(place)
            if code[at] == "&" and code[at - 1 : at] == "&":
                continue
            match = pattern.match(code, at)
            lhs_start, lhs_end = _left_operand(code, at)
            if lhs_start < 0:
                continue
            lhs = code[lhs_start:lhs_end]
            if _INDEX_NAME.search(lhs):
                op, num = match.group("op", "num")
                found.append(LaneMath(match, op, num.lower(), lhs.strip(), lhs_start))
    src._rocport_lane_math = found
    return found


def is_isolated(src: CudaSource, item: LaneMath) -> bool:
    """Whether ``x >> 5`` stands alone, so that ``x / warpSize`` cannot change precedence."""
    code = src.code
    return bool(
        _BEFORE_ISOLATED.search(code, max(0, item.lhs_start - 12), item.lhs_start)
        and _AFTER_ISOLATED.match(code, item.end)
    )


#: how far back :func:`_left_operand` matches an ``a.b->c`` chain with one regex
_CHAIN_WINDOW = 160
#: an ``a.b->c`` chain and the blanks after it, backwards: each name is a whole word that
#: does not start with a digit
_NAME_BACKWARDS = r"\w*[^\W\d](?!\w)"
_CHAIN_BACKWARDS = re.compile(
    rf"[ \t\r\n]*({_NAME_BACKWARDS}(?:[ \t\r\n]*(?:\.|>-)[ \t\r\n]*{_NAME_BACKWARDS})*)"
)

#: characters before a chain (blanks, ``.``, the ``>`` of ``->``) after which it may go on
_MAY_CONTINUE = frozenset(" \t\r\n.>")
#: what the step-by-step walk looks at before a chain: blanks, a link, blanks, a word
_CONTINUATION = re.compile(r"[ \t\r\n]*(?:\.|>-?)?[ \t\r\n]*\w*")


def _left_operand(code: str, op: int) -> tuple[int, int]:
    """Span of the operand before the operator at ``op``: ``a.b->c`` or ``( ... )``."""
    low = max(0, op - _CHAIN_WINDOW)
    backwards = code[low:op][::-1]
    chain = _CHAIN_BACKWARDS.match(backwards)
    if chain is not None:
        end = chain.end()
        before = backwards[end : end + 1]
        if (
            low == 0
            or (before and before not in _MAY_CONTINUE)
            or _CONTINUATION.match(backwards, end).end() < len(backwards)
        ):  # what could continue the chain lies inside the window: it is the whole chain
            return op - end, op - chain.start(1)
    rest = backwards.lstrip(_SPACE)
    if chain is None and rest and not rest[0].isalnum() and not rest.startswith(("_", ")")):
        return -1, -1  # neither a name (maybe cut by the window) nor ( ... ) before it
    return _left_operand_by_steps(code, op)


def _left_operand_by_steps(code: str, op: int) -> tuple[int, int]:
    """:func:`_left_operand`, one step at a time (for ``( ... )`` and long chains)."""
    end = _skip_space_back(code, op)
    if end and code[end - 1] == ")":
        return _open_paren(code, end - 1), end
    start = _word_start(code, end)
    if start == end:
        return -1, -1
    while True:
        before = _skip_space_back(code, start)
        if code[before - 1 : before] == ".":
            link = before - 1
        elif code[before - 2 : before] == "->":
            link = before - 2
        else:
            return start, end
        previous_end = _skip_space_back(code, link)
        previous = _word_start(code, previous_end)
        if previous == previous_end:
            return start, end
        start = previous


def _skip_space_back(code: str, pos: int) -> int:
    while pos > 0 and code[pos - 1] in _SPACE:
        pos -= 1
    return pos


def _word_start(code: str, end: int) -> int:
    """Start of the identifier ending at ``end`` (``end`` itself when there is none)."""
    start = word_start(code, end)
    return end if start < end and code[start].isdigit() else start


def _open_paren(code: str, close: int) -> int:
    depth = 0
    for index in range(close, max(-1, close - 400), -1):
        if code[index] == ")":
            depth += 1
        elif code[index] == "(":
            depth -= 1
            if depth == 0:
                return index
    return -1
