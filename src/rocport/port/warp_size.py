"""``warpSize`` where C++ needs a constant, for releases where it is read at run time.

HIP up to 6.4 declares ``static constexpr int warpSize``; HIP 7 declares it as a device object
whose value comes from ``__builtin_amdgcn_wavefrontsize()`` (``hip/amd_detail/
amd_warp_functions.h`` of 7.2), so an array bound, a template argument, ``static_assert``, a
``constexpr`` initializer, ``__launch_bounds__`` or a case label that uses it no longer
compiles. CUDA's ``warpSize`` was never a constant (nvcc rejects all of these), so such uses
come from code written for HIP (an AMD branch) and keep their text; the port reports each one.
No ported form is written: the right constant depends on the GPU target, and the host pass,
which compiles for all targets at once, has none (rocPRIM's ``arch::wavefront::max_size()`` is
64 there and the target's size in device code: right for an upper bound only).
"""

from __future__ import annotations

import re

from rocport.port.releases import warp_size_form

#: object-like macros whose body uses warpSize: ``#define WARP_SIZE warpSize``
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]*\bwarpSize\b[^\n]*)$", re.M)
#: what comes before a use in a constant context, from the start of its statement (the
#: text after the last ``;``, ``{`` or ``}``): an array bound in a declaration, static_assert,
#: a constexpr initializer, a case label
_STATEMENT = re.compile(
    r"\s*(?:(?:static|const|volatile|extern|inline|__device__|__shared__|__constant__)\s+)*"
    r"(?:(?P<bound>(?!(?:return|delete|throw|case|else|goto|co_return)\b)"
    r"(?:[\w:]+(?:\s*<[^;{}]*>)?[\s*&]+)+\w+\s*(?:\[[^\];]*\]\s*)*\[[^\];{}]*)"
    r"|static_assert\s*\([^;]*"
    r"|constexpr\b[^;{}()]*=[^;{}]*"
    r"|case\b[^:;]*)\Z"
)
#: after an array bound: the declaration goes on (``];``, ``] =``, ``][``)
_BOUND_END = re.compile(r"[^\];{}]*\]\s*[;={,\[]")
#: what comes before a use in the middle of a statement, with what must follow it
_INSIDE = (
    (re.compile(r"__launch_bounds__\s*\([^)]*\Z"), None),
    # a template argument: Lanes<W>::n, f<W>(...)
    (
        re.compile(r"\w\s*<[^<>;(){}&|?]*\Z"),
        re.compile(r"[^<>;(){}&|?]*>\s*(?:\(|::|\{|\w)"),
    ),
)
#: how far back a context may start, and a block comment around a use
_WINDOW = 400
_COMMENT_WINDOW = 2000


def runtime_reason(line: str) -> str | None:
    """Why ``warpSize`` is no constant in ROCm ``line``, or None where it is one (up to 6.4)."""
    form = warp_size_form(line)
    if form == "constexpr":
        return None
    if form is None and tuple(int(p) for p in line.split(".")) < (7, 0):
        return None
    where = "ROCm 7 reads warpSize at run time"
    if form is None:
        where += " (7.2's headers declare it so; the releases between 6.4 and 7.2 were not read)"
    return (
        f"{where}, so it is no constant expression here; use a constant chosen per GPU target "
        "(64 on gfx9, else 32) or, for an upper bound, rocprim::arch::wavefront::max_size()"
    )


def constant_uses(text: str) -> list[tuple[int, str]]:
    """Offsets and spellings of ``warpSize`` (or a macro standing for it) in a constant
    context of ``text``; uses in comments and string literals are left out."""
    names = ["warpSize", *(m.group(1) for m in _MACRO.finditer(text))]
    name = re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")
    found = []
    for use in name.finditer(text):
        at = use.start()
        line = text.rfind("\n", max(0, at - _COMMENT_WINDOW), at) + 1  # 0: a long line
        before = text[line or max(0, at - _COMMENT_WINDOW) : at]
        if before.lstrip().startswith("#") or _not_code(text, before, at):
            continue
        lo = max(0, at - _WINDOW)
        start = max(text.rfind(";", lo, at), text.rfind("{", lo, at), text.rfind("}", lo, at))
        head = text[max(lo, start + 1) : at]
        if "#" in head:  # the statement starts after a preprocessor line before it
            lines = head.split("\n")
            directive = [i for i, t in enumerate(lines[:-1]) if t.lstrip().startswith("#")]
            if directive:
                head = "\n".join(lines[directive[-1] + 1 :])
        statement = _STATEMENT.match(head)
        end = use.end() + _WINDOW  # how far the rest of a context may go
        if (
            statement
            and (not statement["bound"] or _BOUND_END.match(text, use.end(), end))
            or any(
                before.search(head) and (after is None or after.match(text, use.end(), end))
                for before, after in _INSIDE
            )
        ):
            found.append((at, use.group()))
    return found


def _not_code(text: str, line_before: str, at: int) -> bool:
    """Whether ``at`` is in a comment or a string literal (judged on its line, and on the
    block comments of the few thousand characters before it)."""
    if "//" in line_before or line_before.count('"') % 2:
        return True
    lo = max(0, at - _COMMENT_WINDOW)
    return text.rfind("/*", lo, at) > text.rfind("*/", lo, at)
