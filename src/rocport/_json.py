"""JSON text as ``json.dumps(value, indent=2)`` writes it, in about half the time; with
``inline_from``, the containers at that depth and below each on one line, as
``json.dumps(container)`` writes them in C (a report's file entries: one line per file, a
tenth of the time).

With ``indent``, :mod:`json` encodes in Python through nested generators; this writes the same
text with one list of pieces and one call per container, the strings escaped by :mod:`json`'s
own C function (a test compares the two on random documents).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _string

_CONSTANTS = {None: "null", True: "true", False: "false"}
_CONTAINERS = (dict, list, tuple)
#: ``json.dumps(value)``: no indent, so the C encoder writes it
_inline = json.JSONEncoder().encode


def dumps(value: object, *, inline_from: int | None = None) -> str:
    """``json.dumps(value, indent=2)``, except that containers nested ``inline_from`` deep
    (the top level is 0) are written on one line."""
    parts: list[str] = []
    _encode(value, parts, "\n", -1 if inline_from is None else inline_from)
    return "".join(parts)


def _encode(value: object, parts: list[str], indent: str, inline_in: int) -> None:
    """``inline_in``: how many levels down containers go on one line (negative: never)."""
    if inline_in == 0:
        parts.append(_inline(value))
    elif isinstance(value, dict):
        if not value:
            parts.append("{}")
            return
        inner = indent + "  "
        separator = "{"
        for key, item in value.items():
            parts.append(f"{separator}{inner}{_key(key)}: ")
            separator = ","
            if isinstance(item, _CONTAINERS):
                _encode(item, parts, inner, inline_in - 1)
            else:
                parts.append(_scalar(item))
        parts.append(indent + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            parts.append("[]")
            return
        inner = indent + "  "
        separator = "["
        for item in value:
            parts.append(separator + inner)
            separator = ","
            if isinstance(item, _CONTAINERS):
                _encode(item, parts, inner, inline_in - 1)
            else:
                parts.append(_scalar(item))
        parts.append(indent + "]")
    else:
        parts.append(_scalar(value))


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None or value is True or value is False:
        return _CONSTANTS[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key(key: object) -> str:
    if isinstance(key, str):
        return _string(key)
    if isinstance(key, (int, float)) or key is None:  # bool is an int
        return _string(_scalar(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)
