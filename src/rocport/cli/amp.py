"""``rocport amp-check``: is mixed precision healthy for this model on this device?"""

from __future__ import annotations

import json
from pathlib import Path

import click

from rocport.cli._console import report_console
from rocport.cli._report_path import check_report_path
from rocport.cli._torch import require_torch
from rocport.errors import InputError


def _shape(value: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in value.split(","))
    except ValueError:
        raise InputError(f"--input-shape {value!r}: expected integers such as 3,224,224") from None
    if not shape or min(shape) < 1:
        raise InputError(f"--input-shape {value!r}: sizes must be positive")
    return shape


@click.command()
@click.option(
    "--model",
    "model",
    default="resnet50",
    show_default=True,
    help="resnet18/34/50/101, package.module:function or file.py:function returning an nn.Module.",
)
@click.option("--precisions", default="fp16,bf16", show_default=True, help="fp16 and/or bf16.")
@click.option("--device", default="auto", show_default=True, help="cuda:N, cpu or auto.")
@click.option("--steps", type=click.IntRange(2), default=20, show_default=True)
@click.option("--batch", type=click.IntRange(1), default=32, show_default=True)
@click.option("--input-shape", default="3,224,224", show_default=True, help="One sample's shape.")
@click.option("--num-classes", type=click.IntRange(2), default=1000, show_default=True)
@click.option("--lr", type=float, default=0.01, show_default=True)
@click.option(
    "--rtol", type=float, default=0.05, show_default=True, help="Loss curve tolerance vs fp32."
)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="An ImageFolder tree to train on instead of synthetic data.",
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the full report as JSON.",
)
def command(
    model: str,
    precisions: str,
    device: str,
    steps: int,
    batch: int,
    input_shape: str,
    num_classes: int,
    lr: float,
    rtol: float,
    data: Path | None,
    json_out: Path | None,
) -> None:
    """Train a few steps in fp32 and in fp16/bf16 autocast; report overflow, skips and drift.

    Exit status 1 when a precision fails, 0 when all pass.
    """
    require_torch("rocport amp-check")
    check_report_path(json_out, option="--json")
    from rich.console import Console
    from rich.table import Table

    from rocport._fs import atomic_write
    from rocport.amp.check import CheckConfig, run_check
    from rocport.amp.factory import load_factory
    from rocport.bench.device import resolve_device

    chosen = [p.strip() for p in precisions.split(",") if p.strip()]
    cfg = CheckConfig(
        steps=steps,
        batch=batch,
        input_shape=_shape(input_shape),
        num_classes=num_classes,
        lr=lr,
        rtol=rtol,
        data=data,
    )
    dev = resolve_device(device)
    console = Console(stderr=True)
    report = run_check(
        load_factory(model),
        chosen,
        cfg,
        dev,
        progress=lambda p: console.print(f"[dim]amp-check: {model} {p} on {dev}…[/]"),
    )
    report["model"] = model
    table = Table(title=f"rocport amp-check: {model} on {dev}, {steps} steps of {batch}")
    for col in (
        "precision",
        "scaler",
        "skipped",
        "inf/nan grad steps",
        "scale first→last",
        "loss vs fp32",
        "first overflow",
        "verdict",
    ):
        table.add_column(col)
    for name, r in report["precisions"].items():
        scales = [s for s in r["scale_history"] if s is not None]
        table.add_row(
            name,
            "GradScaler" if r["scaler"] else "none",
            str(len(r["skipped_steps"])),
            str(len(r["nonfinite_grad_steps"])),
            f"{scales[0]:g}→{scales[-1]:g}" if scales else "—",
            "reference"
            if name == "fp32"
            else ("—" if r["loss_max_rel_diff"] is None else f"≤ {r['loss_max_rel_diff']:.2%}"),
            f"{r['overflow']['layer']} ({r['overflow']['kind']}), step {r['overflow']['step']}"
            if r["overflow"]
            else "none",
            "[green]pass[/]" if r["verdict"] == "pass" else "[red]FAIL[/]",
        )

    out = report_console()
    out.print(table)
    for name, r in report["precisions"].items():
        for line in r["notes"]:
            out.print(f"{name}: {line}")
        for line in r["reasons"]:
            out.print(f"[red]{name}: {line}[/]")
    if json_out is not None:
        atomic_write(json_out, json.dumps(report, indent=2) + "\n")
    raise SystemExit(0 if report["passed"] else 1)
