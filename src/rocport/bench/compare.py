"""Side-by-side comparison of results files: a rich table with ratios and a PNG bar chart."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from rocport._fs import atomic_write


@dataclass(frozen=True)
class Row:
    """One result id across all files: values (None where one lacks it), ratios to the first."""

    id: str
    unit: str
    higher_is_better: bool
    values: tuple[float | None, ...]

    @property
    def ratios(self) -> tuple[float | None, ...]:
        base = self.values[0]
        return tuple(None if (v is None or not base) else v / base for v in self.values)


def label(document: dict[str, Any], path: Path) -> str:
    """A short column title: file stem and device name."""
    return f"{path.stem} ({document['metadata']['device']['name']})"


def rows(documents: list[dict[str, Any]]) -> list[Row]:
    """Every result id of any file, in first-seen order."""
    order: dict[str, dict[str, Any]] = {}
    for doc in documents:
        for result in doc["results"]:
            order.setdefault(result["id"], result)
    out = []
    for rid, first in order.items():
        values = tuple(
            next((r["value"] for r in d["results"] if r["id"] == rid), None) for d in documents
        )
        out.append(Row(rid, first["unit"], first["higher_is_better"], values))
    return out


def table(documents: list[dict[str, Any]], labels: list[str]) -> Table:
    """The rich table: one value column per file, one ratio column per file after the first."""
    tbl = Table(title="rocport bench compare", show_lines=False)
    tbl.add_column("result", overflow="fold")
    tbl.add_column("unit")
    for name in labels:
        tbl.add_column(name, justify="right")
    for name in labels[1:]:
        tbl.add_column(f"{name} / {labels[0].split(' ')[0]}", justify="right")
    for row in rows(documents):
        cells = [row.id, row.unit]
        cells += ["—" if v is None else f"{v:,.4g}" for v in row.values]
        for ratio in row.ratios[1:]:
            if ratio is None:
                cells.append("—")
                continue
            better = ratio >= 1 if row.higher_is_better else ratio <= 1
            cells.append(f"[{'green' if better else 'red'}]{ratio:.3f}x[/]")
        tbl.add_row(*cells)
    return tbl


def chart(documents: list[dict[str, Any]], labels: list[str], out: Path) -> None:
    """A horizontal grouped bar chart of each file's value relative to the first file's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = [r for r in rows(documents) if r.values[0]]
    height = max(3.0, 0.35 * len(data) * max(1, len(documents) - 0.5) + 1.5)
    fig, ax = plt.subplots(figsize=(10, height))
    bar = 0.8 / len(documents)
    for j, name in enumerate(labels):
        ys = [i + j * bar for i in range(len(data))]
        ax.barh(ys, [r.ratios[j] or 0.0 for r in data], height=bar, label=name)
    ax.set_yticks([i + bar * (len(documents) - 1) / 2 for i in range(len(data))])
    ax.set_yticklabels([f"{r.id} [{r.unit}]" for r in data], fontsize=7)
    ax.invert_yaxis()
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"value relative to {labels[0]}")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    atomic_write(out, buf.getvalue())
