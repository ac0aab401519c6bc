"""RP303 cudnn-backend-setting: a `torch.backends.cudnn` setting, which drives MIOpen on ROCm.

## What it does
Flags assignments to `torch.backends.cudnn.benchmark`, `.deterministic`, `.enabled`,
`.allow_tf32` and `.benchmark_limit`, and calls of `torch.backends.cudnn.version()` and
`torch.backends.cudnn.flags(...)`, and says what the value set does on an AMD GPU: a literal
`True` or `False` gets the meaning of that value, any other expression the meaning of each.
Values that keep the default and mean the same on MIOpen (`enabled = True`,
`deterministic = False`) are not reported. The meanings live in
`rocport/scan/data/torch_backends.json`.

## Why is this bad?
On ROCm builds of PyTorch the `cudnn` backend is MIOpen. The flags still work but mean
something else: `benchmark=True` runs MIOpen's exhaustive Find for every new shape, and with
`benchmark=False` MIOpen still runs a quicker Find and compiles kernels for each new shape;
`allow_tf32` has no effect either way; `enabled=False` turns MIOpen off entirely; and
`version()` returns MIOpen's version number, which breaks cuDNN version checks.

## Example
```python
torch.backends.cudnn.benchmark = True
if torch.backends.cudnn.version() >= 8900:
    ...
```
Use instead:
```python
torch.backends.cudnn.benchmark = fixed_input_shapes
if torch.version.hip is None and torch.backends.cudnn.version() >= 8900:
    ...
```

## Fix safety
No automatic fix: whether the MIOpen behaviour is wanted depends on the workload.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan import tables
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule

_PREFIX = "torch.backends.cudnn."


@rule(id="RP303", name="cudnn-backend-setting", severity=Severity.NOTE, language=Language.PYTHON)
def check(src: PythonSource) -> Iterator[Finding]:
    if "cudnn" not in src.text:
        return
    settings = tables.cudnn_settings()
    for node in src.of_type(ast.Assign, ast.AnnAssign, ast.Call):
        if isinstance(node, ast.Call):
            targets = [node.func]
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            name = src.qualname(target) if isinstance(target, ast.Attribute) else None
            if name is None or not name.startswith(_PREFIX):
                continue
            attr = name[len(_PREFIX) :]
            row = settings.get(attr)
            if row is None or (isinstance(node, ast.Call) != (attr in ("version", "flags"))):
                continue
            if isinstance(node, ast.Call):
                shown, meaning = f"{name}()", (row["meaning"], row["hint"])
            elif node.value is None:
                continue  # a bare annotation sets nothing
            else:
                shown = f"{name} = {src.source_of(node.value)}"
                meaning = _meaning(row, node.value)
                if meaning is None:
                    continue
            text, hint = meaning
            yield src.node_finding(
                target, f"`{shown}`: {text}", src.hint(hint[0].upper() + hint[1:])
            )


def _meaning(row: dict, value: ast.expr) -> tuple[str, str] | None:
    """(what the assigned value does on MIOpen, what to do), or None when it changes nothing
    there: the meaning of a literal truth value, or of each value for an expression."""
    values = row.get("values")
    if values is None:
        return row["meaning"], row["hint"]
    if isinstance(value, ast.Constant) and isinstance(value.value, bool | int):
        chosen = values["true" if value.value else "false"]
        return None if chosen is None else (chosen["meaning"], chosen["hint"])
    parts = [(key, row) for key, row in values.items() if row is not None]
    text = "; ".join(f"when {key}, {row['meaning']}" for key, row in parts)
    hint = "; ".join(f"if {key}: {row['hint']}" for key, row in parts)
    return text, hint
