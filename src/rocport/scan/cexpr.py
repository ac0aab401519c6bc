"""Evaluate simple C integer constant expressions (array sizes, launch bounds, block sizes).

Only literals, names with a known constant value, ``sizeof`` of built-in types and the integer
operators are understood; anything else gives ``None`` rather than a guess.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import lru_cache

_SIZEOF = {
    "char": 1,
    "signed char": 1,
    "unsigned char": 1,
    "bool": 1,
    "int8_t": 1,
    "uint8_t": 1,
    "short": 2,
    "unsigned short": 2,
    "int16_t": 2,
    "uint16_t": 2,
    "half": 2,
    "__half": 2,
    "__nv_bfloat16": 2,
    "hip_bfloat16": 2,
    "__hip_bfloat16": 2,
    "_Float16": 2,
    "int": 4,
    "unsigned": 4,
    "unsigned int": 4,
    "float": 4,
    "int32_t": 4,
    "uint32_t": 4,
    "half2": 4,
    "__half2": 4,
    "char4": 4,
    "uchar4": 4,
    "long": 8,
    "unsigned long": 8,
    "long long": 8,
    "unsigned long long": 8,
    "double": 8,
    "int64_t": 8,
    "uint64_t": 8,
    "size_t": 8,
    "float2": 8,
    "int2": 8,
    "float4": 16,
    "int4": 16,
    "uint4": 16,
    "double2": 16,
    "float3": 12,
    "int3": 12,
    "double4": 32,
}

_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F']+|\d[\d']*)(?:[uUlL]{0,3})(?![\w.])"
    r"|(?P<sizeof>sizeof\s*\(\s*(?P<type>[A-Za-z_][\w\s]*?)\s*\))"
    r"|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op><<|>>|[-+*/%&|^~()]))"
)

_BINOPS: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: int(a / b),  # C division truncates toward zero
    ast.Mod: lambda a, b: a - int(a / b) * b,
    ast.LShift: lambda a, b: a << b,
    ast.RShift: lambda a, b: a >> b,
    ast.BitAnd: lambda a, b: a & b,
    ast.BitOr: lambda a, b: a | b,
    ast.BitXor: lambda a, b: a ^ b,
}


def sizeof(type_name: str) -> int | None:
    """Size in bytes of a built-in or common CUDA/HIP vector type (``None`` if unknown)."""
    size = _SIZEOF.get(type_name)
    return size if size is not None else _SIZEOF.get(" ".join(type_name.split()))


def _integer(literal: str) -> int | None:
    """The value of a C integer literal without suffix: hex, octal (leading 0) or decimal."""
    digits = literal.replace("'", "")
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16)
    if digits.startswith("0") and len(digits) > 1:
        return int(digits, 8) if digits.isdigit() and not set(digits) & {"8", "9"} else None
    return int(digits)


def evaluate(expr: str, lookup: Callable[[str], str | None], _depth: int = 0) -> int | None:
    """Value of the C constant expression ``expr``; ``lookup`` gives the text behind a name."""
    if _depth > 16:
        return None
    tokens = _tokens(expr.strip())
    if tokens is None:
        return None
    parts: list[str] = []
    for text, is_name in tokens:
        if is_name:
            body = lookup(text)
            value = None if body is None else evaluate(body, lookup, _depth + 1)
            if value is None:
                return None
            parts.append(f"({value})")
        else:
            parts.append(text)
    if len(parts) == 1 and parts[0].strip("()").isdigit():
        return int(parts[0].strip("()"))  # a number, or a name that stands for one
    return _arithmetic(" ".join(parts))


@lru_cache(maxsize=4096)
def _tokens(expr: str) -> tuple[tuple[str, bool], ...] | None:
    """``expr`` as Python arithmetic tokens, each with whether it is a name still to resolve
    (None when something in it is not a constant expression); the same in every file."""
    tokens: list[tuple[str, bool]] = []
    pos = 0
    while pos < len(expr):
        match = _TOKEN.match(expr, pos)
        if match is None or match.end() == pos:
            return None
        pos = match.end()
        if match.group("num"):
            value = _integer(match.group("num"))
            if value is None:
                return None
            tokens.append((str(value), False))
        elif match.group("sizeof"):
            size = sizeof(match.group("type"))
            if size is None:
                return None
            tokens.append((str(size), False))
        elif match.group("name"):
            tokens.append((match.group("name"), True))
        else:
            op = match.group("op")
            tokens.append(("//" if op == "/" else op, False))
    return tuple(tokens)


@lru_cache(maxsize=4096)
def _arithmetic(expr: str) -> int | None:
    """Value of numbers and operators written as Python (names are resolved by then, so the
    same text has the same value in every file: sizes like ``32 * (32 + 1)`` repeat)."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return None
    return _eval_node(tree.body)


def _eval_node(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Invert):
        value = _eval_node(node.operand)
        if value is None:
            return None
        return (
            -value
            if isinstance(node.op, ast.USub)
            else ~value
            if isinstance(node.op, ast.Invert)
            else value
        )
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval_node(node.left), _eval_node(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.FloorDiv | ast.Mod) and right == 0:
            return None
        if isinstance(node.op, ast.LShift) and not 0 <= right < 64:
            return None
        return _BINOPS[type(node.op)](left, right)
    return None
