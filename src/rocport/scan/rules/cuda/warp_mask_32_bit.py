"""RP101 warp-mask-32-bit: a 32-lane mask passed to a warp intrinsic.

## What it does
Flags full masks written for 32-lane warps (`0xffffffff`, `0xFFFFFFFFu`, `~0u`, `-1`, or a macro
or constant with that value) passed to `__shfl*_sync`, `__ballot_sync`, `__any_sync`,
`__all_sync`, `__match_*_sync`, `__reduce_*_sync` and `__syncwarp`, and other 32-bit mask
literals passed to them.

## Why is this bad?
AMD CDNA GPUs (MI100, MI200, MI300) run wavefronts of 64 lanes, and HIP's `*_sync` intrinsics
take a 64-bit mask. A 32-bit full mask names only lanes 0-31: lanes 32-63 are left out of the
shuffle or vote, and HIP 6.2+ rejects a mask whose type is not 64 bits wide
(`static_assert(sizeof(MaskT) == 8)`). Where the code compiles, the reduction silently drops half
of the wavefront.

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
    for call in src.matches_from(MASKED_CALL, starts):
        if not src.starts_word(call.start()):
            continue
        start, end = first_argument(code, call.end() - 1)
        mask = code[start:end]
        if not mask:
            continue
        intrinsic = call.group(1)
        if FULL_MASK_32.fullmatch(mask):
            yield src.finding(
                start,
                f"`{intrinsic}` gets the 32-lane mask `{mask}`; lanes 32-63 of a 64-wide "
                "wavefront are left out",
                src.replace(start, end, FULL_MASK_64, f"Use the 64-bit full mask `{FULL_MASK_64}`"),
            )
        elif MASK_LITERAL_32.fullmatch(mask):
            yield src.finding(
                start,
                f"`{intrinsic}` gets the 32-bit lane mask `{mask}`; HIP masks are 64 bits wide",
                src.hint("Rewrite the mask for 64 lanes as an `unsigned long long`"),
            )
        elif mask.isidentifier() and mask not in fixed_names:
            definition = src.defines.get(mask)
            constant = src.constants.get(mask)
            if definition is not None and FULL_MASK_32.fullmatch(definition.group(2)):
                fixed_names.add(mask)
                yield src.finding(
                    start,
                    f"`{intrinsic}` gets `{mask}` = `{definition.group(2)}`, a 32-lane "
                    "mask; lanes 32-63 of a 64-wide wavefront are left out",
                    src.replace(
                        *definition.span(2), FULL_MASK_64, f"Define `{mask}` as `{FULL_MASK_64}`"
                    ),
                )
            elif constant is not None and FULL_MASK_32.fullmatch(constant.group(2).strip()):
                fixed_names.add(mask)
                yield src.finding(
                    start,
                    f"`{intrinsic}` gets the constant `{mask}` = "
                    f"`{constant.group(2).strip()}`, a 32-lane mask",
                    src.hint(f"Declare `{mask}` as `unsigned long long` = `{FULL_MASK_64}`"),
                )
