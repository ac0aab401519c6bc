"""RP114 texture-reference: a legacy texture or surface reference.

## What it does
Flags `texture<...>` and `surface<...>` reference declarations and the reference-binding calls
`cudaBindTexture`, `cudaBindTexture2D`, `cudaBindTextureToArray`, `cudaBindSurfaceToArray`,
`cudaUnbindTexture` and their `hip*` counterparts.

## Why is this bad?
Texture and surface references were removed in CUDA 12 and are deprecated in HIP; on AMD GPUs
they are emulated on top of texture objects and some forms (for instance `tex1Dfetch` on a
bound linear reference with an offset) behave differently. Texture objects
(`cudaTextureObject_t` / `hipTextureObject_t`) are the supported API on both platforms.

## Example
```cuda
texture<float, 1, cudaReadModeElementType> tex;
cudaBindTexture(nullptr, tex, d_data, bytes);
```
Use instead:
```cuda
cudaTextureObject_t tex;   // cudaCreateTextureObject(&tex, &resDesc, &texDesc, nullptr)
```

## Fix safety
No automatic fix: moving to texture objects changes kernel signatures and set-up code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import CudaSource
from rocport.scan.registry import Language, rule

_REFERENCE = re.compile(
    r"(?P<decl>texture|surface)\s*<[^;<>]*>\s*[A-Za-z_]\w*|"
    r"(?P<call>(?:cuda|hip)(?:BindTexture(?:2D|ToArray|ToMipmappedArray)?|"
    r"BindSurfaceToArray|UnbindTexture))\s*\("
)


def _declared(code: str, at: int) -> bool:
    """Whether the call-like text at ``at`` is a declaration (a return type comes first)."""
    before = code[max(0, at - 60) : at].rstrip()
    if not before or not (before[-1].isalnum() or before[-1] in "_*&"):
        return False
    return not before.endswith("return")


def _starts(src: CudaSource) -> list[int]:
    """Where a ``_REFERENCE`` match can begin: at ``texture`` or ``surface``, or at the
    ``cuda``/``hip`` before ``Bind``/``Unbind``."""
    starts = set(src.find_all("texture") + src.find_all("surface"))
    for word in ("Bind", "Unbind"):
        for at in src.find_all(word):
            starts.update((at - 4, at - 3))
    return sorted(start for start in starts if start >= 0)


@rule(
    id="RP114",
    name="texture-reference",
    severity=Severity.WARNING,
    language=Language.CUDA,
    # every _REFERENCE match has texture, Texture, surface or Surface in it
    triggers=("exture", "urface"),
)
def check(src: CudaSource) -> Iterator[Finding]:
    code = src.code
    for match in src.matches_from(_REFERENCE, _starts(src)):
        at = match.start()
        if not src.starts_word(at) or (at and code[at - 1] in ":."):
            continue
        if match.group("call") and _declared(code, at):
            continue
        if match.group("decl"):
            message = f"{match.group('decl')} reference: removed in CUDA 12, deprecated in HIP"
        else:
            message = (
                f"`{match.group('call')}` binds a texture reference: removed in CUDA 12, "
                "deprecated in HIP"
            )
        yield src.finding(
            match.start(), message, src.hint("Use a texture object (`hipTextureObject_t`)")
        )
