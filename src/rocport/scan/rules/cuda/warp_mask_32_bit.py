"""RP101 warp-mask-32-bit: a 32-lane mask passed to a warp intrinsic.

## What it does
Flags full masks written for 32-lane warps (`0xffffffff`, `0xFFFFFFFFu`, `~0u`, `-1`, or a macro
or constant with that value) passed to `__shfl*_sync`, `__ballot_sync`, `__any_sync`,
`__all_sync`, `__match_*_sync`, `__reduce_*_sync` and `__syncwarp`, and other 32-bit mask
literals passed to them.

## Why is this bad?
HIP's `*_sync` intrinsics take a 64-bit mask, one bit per lane of a 64-lane wavefront, and
HIP 6.2 and later reject any other mask type at compile time: `static_assert(sizeof(MaskT) ==
8, "The mask must be a 64-bit integer. ...")` in `hip/amd_detail/amd_warp_sync_functions.h`
(HIP 6.2-6.4 declare these intrinsics only with `-DHIP_ENABLE_WARP_SYNC_BUILTINS`; HIP 7 by
default). A mask that a project's own HIP header drops (a vendor header that defines
`__shfl_sync(mask, ...)` as the mask-free `__shfl(...)`) is not reported.

## Example
```cuda
v += __shfl_down_sync(0xffffffff, v, offset);
```
Use instead:
```cuda
v += __shfl_down_sync(0xffffffffffffffffULL, v, offset);
```

## Fix safety
Replacing a full 32-bit mask by `0xffffffffffffffffULL` is safe: it still means "every lane" on
a 32-lane warp (CUDA converts it to `0xffffffff`; nvcc notes the conversion with warning 69-D,
"integer conversion resulted in truncation") and becomes every lane of a 64-lane wavefront.
A partial mask (for instance `0x0000ffff`) has no mechanical fix: which lanes it should name on
a 64-lane wavefront depends on the algorithm.
"""

from __future__ import annotations

from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import FixAvailability, Language, rule
from rocport.scan.rules.cuda._warp import (
    FULL_MASK_32,
    FULL_MASK_64,
    MASK_LITERAL_32,
    MASKED_CALL,
    MASKED_CALL_STARTS,
    first_argument,
)
from rocport.scan.rules.cuda._warp_model import tree_facts


@rule(
    id="RP101",
    name="warp-mask-32-bit",
    severity=Severity.ERROR,
    language=Language.CUDA,
    fix=FixAvailability.SOMETIMES,
    triggers=("_sync",),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    fixed_names: set[str] = set()
    starts: list[int] = []
    for word in MASKED_CALL_STARTS:
        starts += src.find_all(word)
    starts.sort()
    dropped: frozenset[str] | None = None
    for call in src.matches_from(MASKED_CALL, starts):
        if not src.starts_word(call.start()):
            continue
        if dropped is None:
            dropped = tree_facts(src).mask_free
        if call.group(1) in dropped:
            continue
        start, end = first_argument(code, call.end() - 1)
        mask = code[start:end]
        if not mask:
            continue
        intrinsic = call.group(1)
        if FULL_MASK_32.fullmatch(mask):
            yield src.finding(
                start,
                f"`{intrinsic}` gets the 32-bit mask `{mask}`; HIP 6.2+ takes a 64-bit mask "
                "and rejects this one at compile time",
                src.replace(start, end, FULL_MASK_64, f"Use the 64-bit full mask `{FULL_MASK_64}`"),
            )
        elif MASK_LITERAL_32.fullmatch(mask):
            yield src.finding(
                start,
                f"`{intrinsic}` gets the 32-bit lane mask `{mask}`; HIP 6.2+ takes a 64-bit "
                "mask and rejects this one at compile time",
                src.hint("Rewrite the mask for 64 lanes as an `unsigned long long`"),
            )
        elif mask.isidentifier() and mask not in fixed_names:
            definition = src.defines.get(mask)
            constant = src.constants.get(mask)
            if definition is not None and FULL_MASK_32.fullmatch(definition.group(2)):
                fixed_names.add(mask)
                yield src.finding(
                    start,
                    f"`{intrinsic}` gets `{mask}` = `{definition.group(2)}`, a 32-bit mask; "
                    "HIP 6.2+ takes a 64-bit mask and rejects this one at compile time",
                    src.replace(
                        *definition.span(2), FULL_MASK_64, f"Define `{mask}` as `{FULL_MASK_64}`"
                    ),
                )
            elif constant is not None and FULL_MASK_32.fullmatch(constant.group(2).strip()):
                fixed_names.add(mask)
                yield src.finding(
                    start,
                    f"`{intrinsic}` gets the constant `{mask}` = "
                    f"`{constant.group(2).strip()}`, a 32-bit mask; HIP 6.2+ rejects it at "
                    "compile time",
                    src.hint(f"Declare `{mask}` as `unsigned long long` = `{FULL_MASK_64}`"),
                )
