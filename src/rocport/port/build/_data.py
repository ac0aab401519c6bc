"""Load the build-system mapping tables shipped under ``data/``."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def table(name: str) -> dict:
    """The parsed ``data/<name>.json`` table (checked for ``"schema": 1``)."""
    path = resources.files("rocport.port.build") / "data" / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("schema") != 1:
        raise ValueError(f"{path}: unsupported schema {data.get('schema')!r}")
    return data


@cache
def nvcc_flag_index() -> dict[str, tuple[str, dict]]:
    """Every nvcc spelling (canonical and aliases) -> (canonical spelling, row)."""
    index: dict[str, tuple[str, dict]] = {}
    for canonical, row in table("nvcc_flags")["flags"].items():
        for spelling in (canonical, *row.get("aliases", ())):
            index[spelling] = (canonical, row)
    return index
