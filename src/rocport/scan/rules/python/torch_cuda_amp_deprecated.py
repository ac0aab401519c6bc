"""RP302 torch-cuda-amp-deprecated: `torch.cuda.amp.*` instead of `torch.amp.*`.

## What it does
Flags uses of `torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler`,
`torch.cuda.amp.custom_fwd` and `torch.cuda.amp.custom_bwd` (directly, through an alias, or
imported with `from torch.cuda.amp import ...`).

## Why is this bad?
These names are deprecated since PyTorch 2.4 (they emit a `FutureWarning` on every call) in
favour of the device-generic `torch.amp` API. On ROCm, `"cuda"` is still the device type (HIP
devices appear as `cuda`), so the generic spelling is the same on both platforms and survives
the removal of the old names.

## Example
```python
scaler = torch.cuda.amp.GradScaler()
with torch.cuda.amp.autocast(dtype=torch.bfloat16):
    loss = model(x)
```
Use instead:
```python
scaler = torch.amp.GradScaler("cuda")
with torch.amp.autocast("cuda", dtype=torch.bfloat16):
    loss = model(x)
```

## Fix safety
Safe for calls through the full `torch.cuda.amp.` path: `GradScaler(...)` gains a leading
`"cuda"` (its other arguments keep their positions), `autocast(...)` and `custom_fwd(...)` /
`custom_bwd` gain `"cuda"` / `device_type="cuda"`, but only when they have no positional
arguments (`torch.cuda.amp.autocast(True)` means `enabled=True`, while the second positional
parameter of `torch.amp.autocast` is `dtype`). Names imported with `from torch.cuda.amp import`
are reported without a fix, because every use would change too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rocport._diagnostics import Applicability, Edit, Finding, Fix, Severity
from rocport.scan.context import PythonSource
from rocport.scan.registry import FixAvailability, Language, rule

_NAMES = ("autocast", "GradScaler", "custom_fwd", "custom_bwd")
_OLD = "torch.cuda.amp"


@rule(
    id="RP302",
    name="torch-cuda-amp-deprecated",
    severity=Severity.WARNING,
    language=Language.PYTHON,
    fix=FixAvailability.SOMETIMES,
)
def check(src: PythonSource) -> Iterator[Finding]:
    if "amp" not in src.text:
        return
    for node in src.of_type(ast.ImportFrom):
        if node.module == _OLD and not node.level:
            names = ", ".join(alias.name for alias in node.names)
            yield src.node_finding(
                node,
                f"`from torch.cuda.amp import {names}` uses deprecated names; use "
                '`torch.amp` with device type "cuda"',
                src.hint('Import from `torch.amp` and pass "cuda" to each use'),
            )
    calls = {id(node.func): node for node in src.of_type(ast.Call)}
    decorators = {
        id(d) for f in src.of_type(ast.FunctionDef, ast.AsyncFunctionDef) for d in f.decorator_list
    }
    for node in src.of_type(ast.Attribute):
        name = src.qualname(node)
        if name is None or not name.startswith(_OLD + ".") or name.count(".") != 3:
            continue
        attr = node.attr
        if attr not in _NAMES:
            continue
        fix = _fix(src, node, calls.get(id(node)), id(node) in decorators)
        replacement = "torch.amp." + attr
        yield src.node_finding(
            node,
            f'`{name}` is deprecated; use `{replacement}` with device type "cuda"',
            fix or src.hint(f'Use `{replacement}` and pass "cuda"'),
        )


def _fix(
    src: PythonSource, node: ast.Attribute, call: ast.Call | None, bare_decorator: bool
) -> Fix | None:
    if src.source_of(node).replace(" ", "") != f"{_OLD}.{node.attr}":
        return None  # reached through an alias: rewriting the path is not a plain replacement
    start, end = src.span(node)
    attr = node.attr
    path = Edit(start, end, f"torch.amp.{attr}")
    title = f"Use `torch.amp.{attr}`"
    if call is None:
        if bare_decorator and attr in ("custom_fwd", "custom_bwd"):
            return Fix(
                title,
                (Edit(start, end, f'torch.amp.{attr}(device_type="cuda")'),),
                Applicability.SAFE,
            )
        return None
    open_paren = src.text.index("(", end)
    if attr == "GradScaler":
        sep = ", " if call.args or call.keywords else ""
        insert = Edit(open_paren + 1, open_paren + 1, f'"cuda"{sep}')
        return Fix(title, (path, insert), Applicability.SAFE)
    if call.args:
        return None
    argument = '"cuda"' if attr == "autocast" else 'device_type="cuda"'
    sep = ", " if call.keywords else ""
    insert = Edit(open_paren + 1, open_paren + 1, argument + sep)
    return Fix(title, (path, insert), Applicability.SAFE)
