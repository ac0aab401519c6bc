"""RP102 warp-mask-truncated: a 64-bit lane mask stored in or passed as 32 bits.

## What it does
Flags the result of `__activemask()`, `__ballot_sync()`, `__ballot()`, `__match_*_sync()` or a
`__lanemask_*()` call stored in a 32-bit variable (`unsigned`, `int`, `uint32_t`), and those
results counted or searched with the 32-bit `__popc`/`__ffs`/`__clz`, also through a cast
(`__popc((unsigned)__ballot(p))`), and a cast of such a result to 32 bits.

## Why is this bad?
In HIP these intrinsics return `unsigned long long`: one bit per lane of a 64-lane wavefront.
Storing the value in 32 bits silently drops lanes 32-63, so vote counts, leader election
(`__ffs(mask) - 1`) and "all lanes agree" tests are wrong on CDNA GPUs while still correct on
NVIDIA GPUs and RDNA (wave32).

## Example
```cuda
unsigned mask = __ballot_sync(0xffffffff, pred);
int votes = __popc(__activemask());
```
Use instead:
```cuda
unsigned long long mask = __ballot_sync(0xffffffffffffffffULL, pred);
int votes = __popcll(__activemask());
```

## Fix safety
`__popc`/`__ffs`/`__clz` of a mask become `__popcll`/`__ffsll`/`__clzll`: safe, the 64-bit
versions give the same answer for a 32-bit value (`__clzll` counts from bit 63, so the
replacement for `__clz` is unsafe). Widening a variable to `unsigned long long` is unsafe: later
code may shift, compare or pass the variable in ways that still assume 32 bits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Applicability, Edit, Finding, Fix, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import FixAvailability, Language, rule
from rocport.scan.rules.cuda._warp import MASK_PRODUCER

_PRODUCER_CALL = re.compile("(" + MASK_PRODUCER + r")\s*\(")
#: ``type name =`` right before a mask-producing call (searched backwards from the call)
_DECLARATION = re.compile(
    r"(?<![\w])(?P<type>(?:unsigned\s+int|unsigned(?!\s+(?:long|char|short))|uint32_t|uint|int32_t|"
    r"(?<!long\s)int))\s+(?P<name>[A-Za-z_]\w*)\s*=\s*$"
)
_NARROW = r"\(\s*(?:unsigned(?:\s+int)?|uint32_t|uint|int|int32_t)\s*\)\s*"
#: ``__popc(`` (and maybe a cast to 32 bits) right before the call
_NARROW_BIT_OP = re.compile(rf"(?<![\w])(?P<op>__popc|__ffs|__clz)\s*\(\s*(?P<cast>{_NARROW})?$")
#: a cast to 32 bits right before the call
_CAST = re.compile(rf"(?P<cast>{_NARROW})$")
_WIDE = {
    "__popc": ("__popcll", Applicability.SAFE),
    "__ffs": ("__ffsll", Applicability.SAFE),
    "__clz": ("__clzll", Applicability.UNSAFE),
}


@rule(
    id="RP102",
    name="warp-mask-truncated",
    severity=Severity.ERROR,
    language=Language.CUDA,
    fix=FixAvailability.ALWAYS,
    triggers=("__activemask", "__ballot", "__match_", "__lanemask"),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for call in _PRODUCER_CALL.finditer(code):
        if not src.starts_word(call.start()):
            continue
        name = call.group(1)
        window = max(0, call.start() - 80)
        match = _DECLARATION.search(code, window, call.start())
        if match:
            yield src.finding(
                match.start("type"),
                f"`{name}()` returns a 64-bit lane mask in HIP; "
                f"`{match.group('type')} {match.group('name')}` keeps only lanes 0-31",
                src.replace(
                    *match.span("type"),
                    "unsigned long long",
                    f"Declare `{match.group('name')}` as `unsigned long long`",
                    Applicability.UNSAFE,
                ),
            )
        match = _NARROW_BIT_OP.search(code, window, call.start())
        if match:
            wide, applicability = _WIDE[match.group("op")]
            edits = [Edit(*match.span("op"), wide)]
            cast = match.group("cast")
            if cast:
                edits.append(Edit(*match.span("cast"), ""))
            via = f" through the cast `{cast.strip()}`" if cast else ""
            title = f"Use `{wide}`" + (" without the cast" if cast else "")
            yield src.finding(
                match.start("op"),
                f"`{match.group('op')}` reads 32 bits of the 64-bit lane mask from `{name}()`{via}",
                Fix(title, tuple(edits), applicability),
            )
            continue
        match = _CAST.search(code, window, call.start())
        if match:
            yield src.finding(
                match.start("cast"),
                f"`{match.group('cast').strip()}` truncates the 64-bit lane mask from "
                f"`{name}()` to lanes 0-31",
                src.hint("Keep the mask as `unsigned long long`"),
            )
