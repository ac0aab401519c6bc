"""Read the excerpts of AMD's and PyTorch's pages kept under ``fixtures/sources``."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from packaging.version import Version

SOURCES = Path(__file__).parent / "fixtures" / "sources"


def text(name: str) -> str:
    return (SOURCES / name).read_text(encoding="utf-8")


def folder(release: str) -> str:
    """repo.radeon.com folder of a release: X.Y for X.Y.0 (conf.py rocm_multi_versions)."""
    v = Version(release)
    return f"{v.major}.{v.minor}" if v.micro == 0 else release


def templates(name: str) -> list[str]:
    """The repository lines of a package-manager page excerpt, stripped."""
    return [line.strip() for line in text(name).splitlines() if "repo.radeon.com/" in line]


def pytorch_pairs() -> list[tuple[str, str]]:
    pairs, torch = [], None
    for line in text("pytorch-previous-versions.txt").splitlines():
        if line.startswith("### v"):
            torch = line[5:]
        match = re.search(r"--index-url (\S+)", line)
        if match:
            pairs.append((torch, match[1]))
    return pairs


def matrix_columns() -> dict[str, dict[str, list[str]]]:
    """Historical matrix excerpt: release -> {"os": cells, "gfx": cells, "pytorch": cells}."""
    lines = [line for line in text("compatibility-matrix-historical-6.0.csv").splitlines()]
    rows = list(csv.reader([line for line in lines if not line.startswith("#")]))
    releases = [c.strip() for c in rows[0][1:]]
    out = {r: {"os": [], "gfx": [], "pytorch": []} for r in releases}
    kind = None
    for row in rows[1:]:
        label = row[0]
        if "Operating systems" in label:
            kind = "os"
        elif "GPU / LLVM target" in label:
            kind = "gfx"
        elif "PyTorch" in label:
            kind = "pytorch"
        elif label.strip():
            kind = None
        for release, cell in zip(releases, row[1:], strict=False):
            cell = re.sub(r"\s*\[#[^\]]*\]_", "", cell).strip()
            if kind and cell and not cell.startswith(".."):
                out[release][kind].append(cell)
    return out
