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


def amd_pytorch_page(release: str) -> tuple[str, str] | None:
    """(excerpt name, its ``pip3 install`` line) of AMD's PyTorch page for ``release``: the
    page of the newest excerpted point release of its line not after it."""
    v = Version(release)
    pages = [
        (Version(path.name.split("-")[1]), path.name)
        for path in SOURCES.glob("rocm-*-pytorch-install.rst")
    ]
    line = [(p, name) for p, name in pages if p.release[:2] == v.release[:2] and p <= v]
    if not line:
        return None
    name = max(line)[1]
    return name, next(x.strip() for x in text(name).splitlines() if "pip3 install" in x)


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


def current_table_gpu_columns(name: str) -> dict[str, list[str]]:
    """GPU rows of a current-table excerpt: column header ("7.2.2/7.2.1") -> gfx targets."""
    lines = text(name).splitlines()
    header = next(line for line in lines if ':header: "ROCm Version"' in line)
    columns = [c.strip().strip('"') for c in header.split(":header:", 1)[1].split(",")][1:]
    out: dict[str, list[str]] = {c: [] for c in columns}
    gpu_rows = False
    table = [line.strip() for line in lines if re.match(r" {6}(,|:doc:|:ref:)", line)]
    for row in csv.reader(table):
        if row[0]:
            gpu_rows = "GPU / LLVM target" in row[0]
        for column, cell in zip(columns, row[1:], strict=False):
            if gpu_rows and re.fullmatch(r"gfx[0-9a-f]+", cell.strip()):
                out[column].append(cell.strip())
    return out
