"""RP103 lane-math-32: lane or warp index computed with the constant 32.

## What it does
In device code, flags `x % 32`, `x & 31` (or `& 0x1f`), `x / 32` and `x >> 5` where `x` is a
thread, lane or warp index (`threadIdx.x`, `tid`, `lane`, `blockDim.x`, `idx`, ...).

## Why is this bad?
These expressions compute "lane within the warp" and "warp within the block" for 32-lane warps.
On a 64-lane AMD wavefront, lanes 32-63 get the same lane ids as lanes 0-31 and two hardware
wavefronts' worth of threads are numbered as one, so per-warp shared-memory slots collide and
warp-level reductions combine the wrong values. Nothing fails to compile.

## Example
```cuda
int lane = threadIdx.x % 32;
int warp = threadIdx.x / 32;
```
Use instead:
```cuda
int lane = threadIdx.x % warpSize;
int warp = threadIdx.x / warpSize;
```

## Fix safety
`% 32`, `/ 32` and `& 31` become `% warpSize`, `/ warpSize` and `& (warpSize - 1)`: safe, since
`warpSize` is 32 on NVIDIA GPUs the result there is unchanged. `x >> 5` becomes `x / warpSize`
only where the expression stands alone (between `(`, `=`, `,`, `[` ... and `)`, `;`, `,`,
`]` ...), so that changing the operator cannot change the precedence; elsewhere the fix is shown
but not applied.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Applicability, Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import FixAvailability, Language, rule

#: the operator and constant; the left operand is found by searching backwards from it
_OP_CONSTANT = re.compile(r"(?P<op>%|&|>>|/)(?!=)\s*(?P<num>0[xX]1[fF]|32|31|5)[uU]?(?![\w.])")
_SPACE = " \t\r\n"
_VALID = {("%", "32"), ("/", "32"), ("&", "31"), ("&", "0x1f"), (">>", "5")}
_INDEX_NAME = re.compile(r"(?i)threadidx|blockdim|tid|lane|thread|warp|\bidx\b|\bt\b|_id\b")
_BEFORE_ISOLATED = re.compile(r"(?:[(=,;?:\[{]|\breturn)\s*$")
_AFTER_ISOLATED = re.compile(r"\s*[);,\]?:}]")


@rule(
    id="RP103",
    name="lane-math-32",
    severity=Severity.WARNING,
    language=Language.CUDA,
    fix=FixAvailability.SOMETIMES,
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    if not src.device_functions:
        return
    for match in _OP_CONSTANT.finditer(code):
        op, num = match.group("op"), match.group("num").lower()
        if (op, num) not in _VALID or (
            op == "&" and code[match.start() - 1 : match.start()] == "&"
        ):
            continue
        if not src.in_device_code(match.start()):
            continue
        lhs_start, lhs_end = _left_operand(code, match.start())
        if lhs_start < 0:
            continue
        lhs = code[lhs_start:lhs_end]
        if not _INDEX_NAME.search(lhs):
            continue
        yield _finding(src, match, op, num, lhs.strip(), lhs_start)


def _finding(
    src: CudaSource, match: re.Match[str], op: str, num: str, lhs: str, lhs_start: int
) -> Finding:
    op_start, num_end = match.start("op"), match.end()
    expr = f"{lhs} {op} {match.group('num')}"
    meaning = "lane index" if op in ("%", "&") else "warp index"
    message = f"`{expr}` computes a {meaning} for 32-lane warps; AMD wavefronts have 64 lanes"
    if op in ("%", "/"):
        fix = src.replace(match.start("num"), num_end, "warpSize", f"Use `{lhs} {op} warpSize`")
    elif op == "&":
        fix = src.replace(
            match.start("num"), num_end, "(warpSize - 1)", f"Use `{lhs} & (warpSize - 1)`"
        )
    else:
        code = src.code
        isolated = _BEFORE_ISOLATED.search(
            code, max(0, lhs_start - 12), lhs_start
        ) and _AFTER_ISOLATED.match(code, num_end)
        applicability = Applicability.SAFE
        fix = (
            src.replace(op_start, num_end, "/ warpSize", f"Use `{lhs} / warpSize`", applicability)
            if isolated
            else src.hint(f"Use `({lhs}) / warpSize`")
        )
    return src.finding(lhs_start, message, fix)


def _left_operand(code: str, op: int) -> tuple[int, int]:
    """Span of the operand before the operator at ``op``: ``a.b->c`` or ``( ... )``."""
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
    start = end
    while start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        start -= 1
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
