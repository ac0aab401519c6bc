"""What the 64-lane CPU path (HIP-CPU) cannot judge, read statically from the port's source.

HIP-CPU runs each GPU thread as a fiber; its cross-lane functions (shuffles, ballots, votes)
meet at a barrier of the whole block and assume that every thread of the block calls them. So:

- a cross-lane call under a **lane-dependent branch** (a condition that uses ``threadIdx`` or a
  value computed from it, or after such a branch returned early) gives wrong and unstable
  results, and can corrupt later kernels of the same program;
- a shuffle **width below 64** reads the wrong lanes for the upper sub-warps;
- a **multi-dimensional block** (the kernel reads ``threadIdx.y``/``.z`` or ``blockDim.y``/``.z``)
  is numbered z fastest by HIP-CPU (``extrude`` in its ``detail/types.hpp``) and x fastest by
  AMD, so HIP-CPU's wavefronts hold other threads than an AMD GPU's.

A kernel is outside the limits when it has any of these, itself or through the ``__device__``
functions it calls. The analysis is lexical (comment-blanked text, brace matching, a taint of
local variables assigned from ``threadIdx``); it misses lane-dependence that flows through
function parameters, pointers or macros it does not expand.

:func:`libraries` names the GPU libraries a program includes, which neither the HIP-CPU path
nor (without their NVIDIA builds) the NVIDIA path provides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rocport.lexer import blank_non_code
from rocport.verify.model import KernelLimit

_CROSS_LANE = re.compile(
    r"(?:\b(__shfl(?:_up|_down|_xor)?(?:_sync)?|__ballot(?:_sync)?|__any(?:_sync)?|"
    r"__all(?:_sync)?|__match_(?:any|all)_sync|__reduce_\w+_sync)|"
    r"\.(shfl(?:_up|_down|_xor)?|ballot|any|all))\s*\("
)
_FUNCTION = re.compile(
    r"\b(?P<kind>__global__|__device__)\b[^;{}()]*?\b(?P<name>[A-Za-z_]\w*)\s*\(", re.S
)
_CONTROL = re.compile(r"\b(if|while|for|switch)\s*\(")
_ELSE = re.compile(r"\s*else\b")
_RETURN = re.compile(r"\breturn\b")
_ASSIGN = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(?:[-+*/%&|^]|<<|>>)?=(?!=)([^;]*);")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_LANE_SOURCES = {"threadIdx", "hipThreadIdx_x", "hipThreadIdx_y", "hipThreadIdx_z", "__lane_id"}
_MULTI_DIM = re.compile(
    r"\b(?:(?:threadIdx|blockDim)\s*\.\s*[yz]|hip(?:ThreadIdx|BlockDim)_[yz])\b"
)
_FULL_WIDTH = {"warpSize", "64", "WARP_SIZE_64", "__AMDGCN_WAVEFRONT_SIZE"}

#: include-path prefixes of libraries, with the name reported
LIBRARY_HEADERS = {
    "hipblas": "hipBLAS",
    "rocblas": "rocBLAS",
    "hipfft": "hipFFT",
    "rocfft": "rocFFT",
    "hiprand": "hipRAND",
    "rocrand": "rocRAND",
    "hipsparse": "hipSPARSE",
    "hipsolver": "hipSOLVER",
    "hipcub": "hipCUB",
    "rocprim": "rocPRIM",
    "miopen": "MIOpen",
    "rccl": "RCCL",
    "thrust/": "Thrust",
    "cublas": "cuBLAS",
    "cufft": "cuFFT",
    "curand": "cuRAND",
    "cusparse": "cuSPARSE",
    "cusolver": "cuSOLVER",
    "cub/": "CUB",
    "cudnn": "cuDNN",
    "nccl": "NCCL",
}
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def libraries(text: str) -> list[str]:
    """The GPU libraries ``text`` includes, in first-seen order."""
    found: dict[str, None] = {}
    for header in _INCLUDE.findall(text):
        lowered = header.lower()
        for prefix, name in LIBRARY_HEADERS.items():
            if lowered.startswith(prefix):
                found[name] = None
    return list(found)


@dataclass(slots=True)
class _Function:
    name: str
    kernel: bool
    start: int  # offset of the body's "{"
    end: int  # offset after its "}"


def _match(code: str, start: int, open_: str, close: str) -> int:
    """Offset after the bracket that closes the one at ``start`` (the end of text if none)."""
    depth = 0
    for i in range(start, len(code)):
        if code[i] == open_:
            depth += 1
        elif code[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(code)


def _statement_end(code: str, start: int) -> int:
    """End of the statement that starts at ``start``: a braced block or up to its ``;``."""
    parens = braces = 0
    for i in range(start, len(code)):
        c = code[i]
        if c == "(":
            parens += 1
        elif c == ")":
            parens -= 1
        elif c == "{":
            braces += 1
        elif c == "}":
            braces -= 1
            if braces <= 0 and parens == 0:
                return i + 1
        elif c == ";" and parens == 0 and braces == 0:
            return i + 1
    return len(code)


def _functions(code: str) -> list[_Function]:
    found = []
    for match in _FUNCTION.finditer(code):
        close = _match(code, match.end() - 1, "(", ")")
        rest = re.match(r"[^;{]*\{", code[close:])
        if rest is None or ";" in code[close : close + rest.end()]:
            continue  # a declaration, not a definition
        body = close + rest.end() - 1
        found.append(
            _Function(
                match["name"], match["kind"] == "__global__", body, _match(code, body, "{", "}")
            )
        )
    return found


def _tainted(body: str) -> set[str]:
    tainted = set(_LANE_SOURCES)
    changed = True
    while changed:
        changed = False
        for match in _ASSIGN.finditer(body):
            if match[1] not in tainted and tainted & set(_IDENT.findall(_balanced(match[2]))):
                tainted.add(match[1])
                changed = True
    return tainted


def _balanced(text: str) -> str:
    """``text`` up to its first unbalanced ``)`` (the step of ``for (...; i /= 2)`` ends there)."""
    depth = 0
    for i, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return text[:i]
    return text


def _divergent_spans(body: str, tainted: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, condition) of the code that runs under a lane-dependent condition."""
    spans = []
    for match in _CONTROL.finditer(body):
        close = _match(body, match.end() - 1, "(", ")")
        condition = body[match.end() : close - 1]
        if match[1] == "for":
            parts = condition.split(";")
            condition = parts[1] if len(parts) == 3 else condition
        if not tainted & set(_IDENT.findall(condition)):
            continue
        label = f"{match[1]} ({' '.join(condition.split())})"
        end = _statement_end(body, close)
        spans.append((close, end, label))
        if match[1] == "if" and (else_ := _ELSE.match(body, end)):
            spans.append((else_.end(), _statement_end(body, else_.end()), label + " else"))
        if match[1] == "if" and _RETURN.search(body, close, end):
            spans.append((end, len(body), f"after `{label} return`"))
    return spans


def _line(code: str, offset: int) -> int:
    return code.count("\n", 0, offset) + 1


def outside_limits(text: str) -> list[KernelLimit]:
    """Kernels of ``text`` whose cross-lane code HIP-CPU does not run correctly (see module)."""
    code = blank_non_code(text)
    functions = _functions(code)
    by_name = {f.name: f for f in functions if not f.kernel}
    # problems of each function: (offset, reason); and whether it crosses lanes at all
    problems: dict[str, list[tuple[int, str]]] = {}
    crossing: dict[str, set[int]] = {}  # function -> body offsets of its cross-lane calls
    for function in functions:
        body = code[function.start : function.end]
        crossing[function.name] = set()
        problems[function.name] = []
        for call in _CROSS_LANE.finditer(body):
            crossing[function.name].add(call.start())
            name = call[1] or call[2]
            width = _width(body, call.end() - 1, name)
            if width is not None:
                problems[function.name].append(
                    (function.start + call.start(), f"{name} with width {width} (below 64)")
                )
    changed = True
    while changed:  # a call of a crossing device function is a cross-lane call too
        changed = False
        for function in functions:
            body = code[function.start : function.end]
            for callee in by_name:
                if callee == function.name or not crossing[callee]:
                    continue
                for call in re.finditer(rf"\b{re.escape(callee)}\b", body):
                    if call.start() not in crossing[function.name]:
                        crossing[function.name].add(call.start())
                        changed = True
    for function in functions:
        body = code[function.start : function.end]
        multi_dim = _MULTI_DIM.search(body) if crossing[function.name] else None
        if multi_dim:
            problems[function.name].append(
                (
                    function.start + multi_dim.start(),
                    f"cross-lane calls in a multi-dimensional block ({multi_dim[0]}): HIP-CPU "
                    "numbers its threads z fastest, AMD x fastest",
                )
            )
        spans = _divergent_spans(body, _tainted(body))
        for at in sorted(crossing[function.name]):
            for start, end, label in spans:
                if start <= at < end:
                    called = _IDENT.match(body, at) or re.match(r"\.(\w+)", body[at:])
                    problems[function.name].append(
                        (function.start + at, f"{called[0]} under a lane-dependent branch: {label}")
                    )
                    break
    limits = []
    for function in functions:
        if not function.kernel:
            continue
        found = list(problems[function.name])
        seen = {function.name}
        queue = [function.name]
        while queue:  # problems of the device functions it calls, directly or not
            body = (
                code[by_name[queue[0]].start : by_name[queue[0]].end] if queue[0] in by_name else ""
            )
            if queue[0] == function.name:
                body = code[function.start : function.end]
            queue.pop(0)
            for callee in by_name:
                if callee not in seen and re.search(rf"\b{re.escape(callee)}\b", body):
                    seen.add(callee)
                    queue.append(callee)
                    found.extend((at, f"{reason} (in {callee})") for at, reason in problems[callee])
        for at, reason in found:
            limits.append(KernelLimit(function.name, _line(code, at), reason))
    return limits


def _width(body: str, open_paren: int, name: str) -> str | None:
    """The width argument of a shuffle call when it is given and not 64, else None."""
    if not name.lstrip("_.").startswith("shfl"):
        return None
    close = _match(body, open_paren, "(", ")")
    args = _split_args(body[open_paren + 1 : close - 1])
    position = 3 if name.endswith("_sync") else 2
    if len(args) <= position:
        return None
    width = " ".join(args[position].split())
    return None if width in _FULL_WIDTH else width


def _split_args(text: str) -> list[str]:
    args, depth, current = [], 0, []
    for c in text:
        if c in "([{<" and c != "<":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(current))
            current = []
        else:
            current.append(c)
    args.append("".join(current))
    return args
