"""Load the doctor's data tables (release matrix, install recipe, GPU targets, override advice)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from packaging.version import InvalidVersion, Version

from rocport.errors import InputError

#: table -> the schema number it must carry
TABLES = {
    "rocm_releases.json": 2,
    "install_recipe.json": 1,
    "gpus.json": 1,
    "gfx_overrides.json": 1,
}


@cache
def load(name: str) -> dict[str, Any]:
    """Return one table from ``rocport/doctor/data``, checking its ``schema`` number."""
    text = resources.files("rocport.doctor").joinpath("data", name).read_text(encoding="utf-8")
    table = json.loads(text)
    if table.get("schema") != TABLES[name]:
        raise ValueError(f"{name}: unsupported schema {table.get('schema')!r}")
    return table


def releases() -> dict[str, dict[str, Any]]:
    """Every known release by its full version (``"6.4.2"``), oldest first."""
    return load("rocm_releases.json")["releases"]


def read_date() -> str:
    return load("rocm_releases.json")["read"]


def driver_matrix() -> dict[str, Any]:
    """AMD's user/kernel-space support matrix: ``{"source", "rows": [{driver, user_space}]}``."""
    return load("rocm_releases.json").get("driver_matrix") or {"source": None, "rows": []}


def install_facts() -> dict[str, Any]:
    return load("install_recipe.json")


def newest_release() -> str:
    return max(releases(), key=Version)


def nearest(spec: Version, count: int = 2, *, with_torch: bool = False) -> list[str]:
    """The known releases just below and just above ``spec`` (``with_torch``: of those that
    PyTorch's stable indexes serve)."""
    known = sorted(
        (r for r, rel in releases().items() if rel["pytorch"] or not with_torch), key=Version
    )
    below = [r for r in known if Version(r) < spec][-count:]
    above = [r for r in known if Version(r) > spec][:count]
    return below + above


def newest_torch_index(rel: dict[str, Any]) -> dict[str, Any]:
    """The stable PyTorch index entry of release ``rel`` that serves the newest torch."""
    return max(rel["pytorch"], key=lambda i: Version(i["torch"][-1]))


def resolve_release(spec: str | None) -> str:
    """``None`` -> newest; ``"6.4"`` -> newest known 6.4.x; ``"6.4.1"`` -> exactly 6.4.1.

    A release the data lacks is an :class:`InputError` naming the nearest known ones; it is
    never mapped to another point release.
    """
    if spec is None:
        return newest_release()
    try:
        version = Version(spec)
    except InvalidVersion:
        raise InputError(f"--rocm {spec!r} is not a version such as 6.4 or 6.4.1") from None
    parts = len(version.release)
    if parts == 2:
        line = [r for r in releases() if r.startswith(f"{version.major}.{version.minor}.")]
        if line:
            return max(line, key=Version)
    elif parts == 3 and str(version) in releases():
        return str(version)
    near = ", ".join(nearest(version))
    raise InputError(f"no release data for ROCm {spec}; nearest known releases: {near}")


def release_of(version_text: str) -> str | None:
    """The known release an installed ``7.0.2-56`` / ``6.4.43483`` version string names."""
    try:
        version = Version(version_text.split("-", 1)[0])
    except InvalidVersion:
        return None
    key = f"{version.major}.{version.minor}.{version.micro if version.micro < 100 else 0}"
    return key if key in releases() else None


def gpu_by_target() -> dict[str, list[dict[str, Any]]]:
    table: dict[str, list[dict[str, Any]]] = {}
    for gpu in load("gpus.json")["gpus"]:
        table.setdefault(gpu["gfx"], []).append(gpu)
    return table


def supported_targets(release: str) -> set[str]:
    return set(releases()[release]["gfx"])


def override_for(gfx: str) -> dict[str, Any] | None:
    for row in load("gfx_overrides.json")["overrides"]:
        if row["gfx"] == gfx:
            return row
    return None
