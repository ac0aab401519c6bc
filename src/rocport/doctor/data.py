"""Load the doctor's data tables (support matrix, GPU targets, override advice)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from packaging.version import InvalidVersion, Version

from rocport.errors import InputError

TABLES = ("rocm_releases.json", "gpus.json", "gfx_overrides.json")


@cache
def load(name: str) -> dict[str, Any]:
    """Return one table from ``rocport/doctor/data``; it must carry ``"schema": 1``."""
    text = resources.files("rocport.doctor").joinpath("data", name).read_text(encoding="utf-8")
    table = json.loads(text)
    if table.get("schema") != 1:
        raise ValueError(f"{name}: unsupported schema {table.get('schema')!r}")
    return table


def releases() -> dict[str, dict[str, Any]]:
    return load("rocm_releases.json")["releases"]


def install_facts() -> dict[str, Any]:
    return load("rocm_releases.json")["install"]


def newest_release() -> str:
    return max(releases(), key=Version)


def resolve_release(spec: str | None) -> str:
    """Map ``None``, ``"6.4"`` or ``"6.4.1"`` to a release key of the support matrix."""
    if spec is None:
        return newest_release()
    try:
        version = Version(spec)
    except InvalidVersion:
        raise InputError(f"--rocm {spec!r} is not a version such as 6.4") from None
    key = f"{version.major}.{version.minor}"
    if key not in releases():
        known = ", ".join(sorted(releases(), key=Version))
        raise InputError(f"no support data for ROCm {spec} (known releases: {known})")
    return key


def gpu_by_target() -> dict[str, list[dict[str, Any]]]:
    table: dict[str, list[dict[str, Any]]] = {}
    for gpu in load("gpus.json")["gpus"]:
        table.setdefault(gpu["gfx"], []).append(gpu)
    return table


def supported_targets(release: str) -> set[str]:
    return set(load("gpus.json")["supported_targets"].get(release, ()))


def override_for(gfx: str) -> dict[str, Any] | None:
    for row in load("gfx_overrides.json")["overrides"]:
        if row["gfx"] == gfx:
            return row
    return None
