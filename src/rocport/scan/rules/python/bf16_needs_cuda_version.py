"""RP310 bf16-needs-cuda-version: a bf16 switch that is off without `torch.version.cuda` (ROCm).

## What it does
Flags a test of `torch.version.cuda` (`is not None`, its truth, a version comparison) that bf16
depends on: assigned to a name or keyword with `bf16`/`bfloat16` in it
(`use_bf16 = torch.version.cuda is not None and ...`, `TrainingArguments(bf16=...)`), choosing
between bf16 and another type (`torch.bfloat16 if torch.version.cuda else torch.float16`), or
the condition of an `if` or `return` in a function with `bf16` in its name (the old
`is_torch_bf16_gpu_available()` of Transformers). A test that also accepts `torch.version.hip`,
or sits in a function that tests `torch.version.hip`, is not reported. Tests built at run time
(`getattr(torch.version, name)`) are not seen.

## Why is this bad?
ROCm builds of PyTorch set `torch.version.hip` and leave `torch.version.cuda` as `None`, while
`torch.cuda` itself works. A bf16 switch that requires a CUDA version is therefore always off
on AMD GPUs, though MI100 and later (and RDNA3) compute in bf16: training silently runs in
fp32 (slower, twice the memory) or falls back to fp16 with loss scaling, whose smaller range
overflows where bf16 would not. Nothing fails, so the slowdown is easy to miss.

## Example
```python
use_bf16 = torch.version.cuda is not None and torch.cuda.is_bf16_supported()
```
Use instead:
```python
use_bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()
```

## Fix safety
No automatic fix: a version comparison (`int(torch.version.cuda.split(".")[0]) >= 11`) needs a
ROCm counterpart, not a rename; `torch.cuda.is_bf16_supported()` answers for both platforms.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from rocport._diagnostics import Finding, Severity
from rocport.scan.context import PythonSource
from rocport.scan.registry import Language, rule

_CUDA = "torch.version.cuda"
_HIP = re.compile(r"version\.hip|\bis_hip\b|\bhip\b", re.IGNORECASE)
_BF16 = re.compile(r"bf16|bfloat16", re.IGNORECASE)
_CHAIN = (ast.Attribute, ast.Call, ast.Subscript, ast.Starred)


@rule(
    id="RP310",
    name="bf16-needs-cuda-version",
    severity=Severity.WARNING,
    language=Language.PYTHON,
    triggers=("version",),
    gate=lambda src: src.has("cuda") and bool(_BF16.search(src.text)),
)
def check(src: PythonSource) -> Iterator[Finding]:
    parents = {child: node for node in src.nodes for child in ast.iter_child_nodes(node)}
    reported: set[int] = set()
    for node in src.of_type(ast.Attribute):
        if node.attr != "cuda" or src.qualname(node) != _CUDA:
            continue
        decision = _decision(node, parents)
        if decision is None or id(decision[0]) in reported:
            continue
        top, context, needs_cuda = decision
        if _HIP.search(src.source_of(top)) or not _about_bf16(
            src, top, context, needs_cuda, parents
        ):
            continue
        scope = _scope(context, parents)
        if scope is not None and _HIP.search(src.source_of(scope)):
            continue
        outer = [src.source_of(a.test) for a in _ancestors(context, parents, ast.If)]
        if any(_HIP.search(test) or "version.cuda" in test for test in outer):
            continue  # a ROCm branch, or inside a CUDA test that is reported itself
        reported.add(id(top))
        yield src.node_finding(
            node,
            "bf16 is off when `torch.version.cuda` is None, as it is on ROCm builds of PyTorch "
            "(they set `torch.version.hip`): AMD GPUs that compute in bf16 run in fp32 or "
            "fp16 instead",
            src.hint(
                "Test `torch.cuda.is_bf16_supported()`, which answers on ROCm too, or also "
                "accept `torch.version.hip`"
            ),
        )


def _decision(node: ast.AST, parents: dict) -> tuple[ast.AST, ast.AST, bool] | None:
    """(the whole condition the CUDA test is part of, the node that uses it, whether the
    condition is true only with a CUDA version), when a missing CUDA version decides the
    condition; None otherwise."""
    test, needs_cuda = node, True
    parent = parents.get(test)
    while isinstance(parent, _CHAIN) and not _is_bool(parent):
        test, parent = parent, parents.get(parent)  # torch.version.cuda.split(".")[0], int(...)
    if isinstance(parent, ast.Compare):
        if len(parent.ops) != 1:
            return None
        other = parent.comparators[0] if parent.left is test else parent.left
        none = isinstance(other, ast.Constant) and other.value is None
        if none and isinstance(parent.ops[0], ast.Is | ast.Eq):
            needs_cuda = False
        elif none and not isinstance(parent.ops[0], ast.IsNot | ast.NotEq):
            return None
        test = parent
    elif test is not node:
        return None  # a call on the version that is not compared: not a test
    while True:
        parent = parents.get(test)
        if _is_bool(parent):
            pass  # bool(torch.version.cuda) is its truth
        elif isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            needs_cuda = not needs_cuda
        elif isinstance(parent, ast.BoolOp):
            # "cuda and x" needs CUDA; "cuda is None or x" is true without it
            if isinstance(parent.op, ast.And) != needs_cuda:
                return None
        else:
            break
        test = parent
    if parent is None:
        return None
    if isinstance(parent, ast.Call) and test in parent.args:
        return None  # passed on (print(...), bool(...)): not a decision this rule follows
    return test, parent, needs_cuda


def _is_bool(node: ast.AST | None) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "bool"
        and len(node.args) == 1
    )


def _about_bf16(
    src: PythonSource, top: ast.AST, context: ast.AST, needs_cuda: bool, parents: dict
) -> bool:
    """Whether the condition ``top`` turns bf16 off without a CUDA version."""
    if isinstance(context, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = context.targets if isinstance(context, ast.Assign) else [context.target]
        if any(_BF16.search(src.source_of(t)) for t in targets):
            return True
    elif isinstance(context, ast.keyword):
        if context.arg and _BF16.search(context.arg):
            return True
    elif isinstance(context, ast.IfExp) and context.test is top:
        if _BF16.search(src.source_of(context.body if needs_cuda else context.orelse)):
            return True
    elif isinstance(context, ast.If) and context.test is top:
        with_cuda = context.body if needs_cuda else context.orelse
        if any(_BF16.search(src.source_of(stmt)) for stmt in with_cuda):
            return True
    scope = _scope(context, parents)
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) or not _BF16.search(
        scope.name
    ):
        return False
    if isinstance(context, ast.Return):
        return True  # the answer of a bf16 function
    # an `if` whose branches return: the answer of the function depends on the CUDA version
    return isinstance(context, ast.If) and any(
        isinstance(node, ast.Return)
        for stmt in [*context.body, *context.orelse]
        for node in ast.walk(stmt)
    )


def _ancestors(node: ast.AST, parents: dict, kind: type) -> Iterator[ast.AST]:
    while (node := parents.get(node)) is not None:
        if isinstance(node, kind):
            yield node


def _scope(node: ast.AST, parents: dict) -> ast.AST | None:
    return next(_ancestors(node, parents, ast.FunctionDef | ast.AsyncFunctionDef), None)
