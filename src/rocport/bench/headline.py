"""The ResNet headline of one run: the guide's loop as written, against what the suite found.

The baseline is the migration guide's loop exactly as written: fp32, NCHW, batch 64, with
PyTorch's default math settings (which let cuDNN convolutions use TF32). Beside it: the same
loop in strict fp32 (TF32 off everywhere), the best eager configuration, the best
``torch.compile`` one, the best with CUDA/HIP graphs, and the best of everything. Works on
result dicts (the JSON form), so the report and the run's checks share it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: the guide's loop, by its parameters (the batch comes from the run's settings)
GUIDE = {"precision": "fp32", "memory_format": "contiguous", "torch_defaults": True}


@dataclass(frozen=True)
class Row:
    """One line of the headline: a label, the result it picked and its ratio to the guide."""

    label: str
    result: dict[str, Any]
    ratio: float | None


def _kind(params: dict[str, Any]) -> str:
    if params.get("compile"):
        return "compiled"
    if params.get("graphs"):
        return "graphs"
    return "eager"


def rows(results: Iterable[dict[str, Any]], mode: str) -> list[Row]:
    """The headline rows for ``mode`` ("inference" or "training"); empty without a guide loop."""
    resnets = [r for r in results if r["workload"] == "resnet" and r["params"].get("mode") == mode]
    guide = next(
        (r for r in resnets if all(r["params"].get(k) == v for k, v in GUIDE.items())), None
    )
    if guide is None:
        return []
    base = guide["value"]

    def row(label: str, result: dict[str, Any] | None) -> Row | None:
        if result is None:
            return None
        return Row(label, result, result["value"] / base if base else None)

    same = {k: guide["params"][k] for k in ("arch", "batch", "resolution", "memory_format")}
    strict = next(
        (
            r
            for r in resnets
            if r["params"].get("precision") == "fp32"
            and not r["params"].get("torch_defaults")
            and _kind(r["params"]) == "eager"
            and all(r["params"].get(k) == v for k, v in same.items())
        ),
        None,
    )

    def best(kind: str | None) -> dict[str, Any] | None:
        pool = [r for r in resnets if kind is None or _kind(r["params"]) == kind]
        return max(pool, key=lambda r: r["value"], default=None)

    picked = [
        row("guide loop as written (fp32, PyTorch default math: cuDNN may use TF32)", guide),
        row("strict fp32 (TF32 off), same loop", strict),
        row("best eager configuration", best("eager")),
        row("best torch.compile configuration", best("compiled")),
        row("best with CUDA/HIP graphs", best("graphs")),
        row("best of everything run", best(None)),
    ]
    return [r for r in picked if r is not None]
