"""``rocport amp-check``: the same short training run in fp32 and in fp16/bf16 autocast."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from rocport.amp.monitor import MixedPrecision
from rocport.amp.watch import FP16_MAX, ActivationWatch, first_overflow
from rocport.errors import InputError

DTYPES = {"fp32": None, "fp16": torch.float16, "bf16": torch.bfloat16}


@dataclass
class CheckConfig:
    """The run every precision repeats."""

    steps: int = 20
    batch: int = 32
    input_shape: tuple[int, ...] = (3, 224, 224)
    num_classes: int = 1000
    lr: float = 0.01
    rtol: float = 0.05  # loss curve vs fp32, relative, per step
    max_skip_fraction: float = 0.25
    seed: int = 0
    data: Path | None = None


@dataclass
class PrecisionReport:
    """What one precision's run showed."""

    precision: str
    losses: list[float]
    scaler: bool
    scale_history: list[float | None]
    nonfinite_grad_steps: list[int]
    skipped_steps: list[int]
    problems: list[dict[str, Any]]
    overflow: dict[str, Any] | None  # first layer whose activations overflowed, and at which step
    max_activation: dict[str, Any]  # the layer with the largest |activation| over the run
    loss_max_rel_diff: float | None = None  # vs fp32, over steps where both are finite
    settling_steps: int = 0  # leading steps skipped while the scaler lowered its scale
    verdict: str = "pass"
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def synthetic_batches(cfg: CheckConfig, device: str) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Fresh normal images and uniform labels, one batch per step, the same for every run."""
    gen = torch.Generator().manual_seed(cfg.seed)
    return [
        (
            torch.randn((cfg.batch, *cfg.input_shape), generator=gen).to(device),
            torch.randint(0, cfg.num_classes, (cfg.batch,), generator=gen).to(device),
        )
        for _ in range(cfg.steps)
    ]


def folder_batches(cfg: CheckConfig, device: str) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The first ``steps`` batches of an ImageFolder tree, resized to ``input_shape``."""
    from torchvision import datasets, transforms

    if cfg.data is None or not cfg.data.is_dir():
        raise InputError(f"--data {cfg.data}: not a folder of class sub-folders")
    if len(cfg.input_shape) != 3:
        raise InputError("--data needs a (channels, height, width) input shape")
    size = cfg.input_shape[1:]
    tf = transforms.Compose(
        [
            transforms.Resize(size),
            transforms.CenterCrop(size),
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ]
    )
    try:
        dataset = datasets.ImageFolder(str(cfg.data), transform=tf)
    except (FileNotFoundError, RuntimeError) as exc:
        raise InputError(f"--data {cfg.data}: {exc}") from exc
    if len(dataset.classes) > cfg.num_classes:
        raise InputError(
            f"--data has {len(dataset.classes)} classes, more than --num-classes {cfg.num_classes}"
        )
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=cfg.batch, shuffle=False, drop_last=True
    )
    batches = [
        (x.to(device), y.to(device)) for _, (x, y) in zip(range(cfg.steps), loader, strict=False)
    ]
    if len(batches) < cfg.steps:
        raise InputError(
            f"--data holds {len(batches)} full batches of {cfg.batch}; {cfg.steps} asked for"
        )
    return batches


def run_precision(
    model: torch.nn.Module, precision: str, batches, cfg: CheckConfig, device: str
) -> PrecisionReport:
    """Train ``model`` (already on ``device``) for ``len(batches)`` steps in ``precision``."""
    device_type = torch.device(device).type
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
    mp = MixedPrecision(
        model, optimizer, device_type=device_type, dtype=DTYPES[precision], on_problem="record"
    )
    watch = ActivationWatch(model)
    loss_fn = torch.nn.CrossEntropyLoss()
    overflow = None
    largest = {"layer": None, "kind": None, "value": 0.0, "step": None}
    model.train()
    try:
        for x, y in batches:
            with mp.autocast():
                out = model(x)
            loss = loss_fn(out.float(), y)
            record = mp.step(loss)
            stats = watch.collect()
            hit = first_overflow(stats)
            if hit and overflow is None:
                overflow = {
                    "step": record.step,
                    "layer": hit.name,
                    "kind": hit.kind,
                    "input_max": hit.input_max,
                }
            for s in stats:
                if (
                    s.output_max == s.output_max
                    and s.output_max != float("inf")
                    and s.output_max > largest["value"]
                ):
                    largest = {
                        "layer": s.name,
                        "kind": s.kind,
                        "value": s.output_max,
                        "step": record.step,
                    }
    finally:
        watch.close()
    return PrecisionReport(
        precision=precision,
        losses=[r.loss for r in mp.history],
        scaler=mp.uses_scaler,
        scale_history=[r.scale for r in mp.history],
        nonfinite_grad_steps=[r.step for r in mp.history if not r.grads_finite],
        skipped_steps=[r.step for r in mp.history if r.skipped],
        problems=[asdict(p) for p in mp.problems],
        overflow=overflow,
        max_activation=largest,
        settling_steps=_leading_skips(mp.history) if mp.uses_scaler else 0,
    )


def _leading_skips(history) -> int:
    """Skipped steps from step 0 on, before the first applied one (the scaler calibrating)."""
    count = 0
    for record in history:
        if not record.skipped or not (
            record.loss == record.loss and abs(record.loss) != float("inf")
        ):
            break
        count += 1
    return count


def _finite(x: float) -> bool:
    return x == x and abs(x) != float("inf")


def judge(report: PrecisionReport, reference: PrecisionReport, cfg: CheckConfig) -> None:
    """Fill in the verdict of ``report`` against the fp32 ``reference``."""
    pairs = [
        (a, b)
        for a, b in zip(report.losses, reference.losses, strict=True)
        if _finite(a) and _finite(b)
    ]
    if pairs:
        report.loss_max_rel_diff = max(abs(a - b) / max(abs(b), 1e-12) for a, b in pairs)
    if report.precision == "bf16":
        report.notes.append(
            "bf16 keeps fp32's 8-bit exponent: no loss scaling needed, GradScaler not used"
        )
    if report.precision == "fp16":
        report.notes.append(
            f"fp16 with torch.amp.GradScaler (initial scale {report.scale_history[0]:g})"
            if report.scale_history
            else "fp16 with torch.amp.GradScaler"
        )
        head = reference.max_activation
        if head["value"] > FP16_MAX:
            report.notes.append(
                f"fp32 run: {head['layer']} ({head['kind']}) reaches |x| = {head['value']:.3g}, "
                f"beyond fp16's {FP16_MAX:g}"
            )
    if report.overflow:
        o = report.overflow
        report.reasons.append(
            f"activations overflow first in {o['layer']} ({o['kind']}) at step {o['step']}"
        )
    bad_losses = [i for i, v in enumerate(report.losses) if not _finite(v)]
    if bad_losses:
        report.reasons.append(
            f"non-finite loss at {len(bad_losses)} step(s), first {bad_losses[0]}"
        )
    settling = report.settling_steps
    later = [s for s in report.skipped_steps if s >= settling]
    if report.scaler and settling == len(report.losses):
        report.reasons.append(f"all {settling} steps skipped: the loss scale never settled")
    elif len(later) > cfg.max_skip_fraction * max(1, len(report.losses) - settling):
        report.reasons.append(
            f"{len(later)} of {len(report.losses) - settling} steps skipped"
            + (" after the scaler settled" if settling else "")
        )
    if settling and report.scaler:
        report.notes.append(
            f"the first {settling} step(s) were skipped while GradScaler lowered "
            f"its scale to {report.scale_history[min(settling, len(report.scale_history) - 1)]:g} "
            "(expected; not counted against the skip limit)"
        )
    if report.scaler is False and report.nonfinite_grad_steps:
        report.reasons.append(
            f"non-finite gradients at steps {report.nonfinite_grad_steps[:5]} with no scaler"
        )
    if report.loss_max_rel_diff is not None and report.loss_max_rel_diff > cfg.rtol:
        report.reasons.append(
            f"loss differs from fp32 by up to {report.loss_max_rel_diff:.1%} "
            f"(tolerance {cfg.rtol:.0%})"
        )
    if not pairs:
        report.reasons.append("no step has a finite loss in both runs")
    report.verdict = "fail" if report.reasons else "pass"


def run_check(
    factory: Callable[[], torch.nn.Module],
    precisions: list[str],
    cfg: CheckConfig,
    device: str,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """fp32 first, then each of ``precisions``, all from the same weights and batches."""
    unknown = [p for p in precisions if p not in ("fp16", "bf16")]
    if unknown:
        raise InputError(f"precision(s) {', '.join(unknown)}: choose fp16 and/or bf16")
    torch.manual_seed(cfg.seed)
    model = factory()
    if not isinstance(model, torch.nn.Module):
        raise InputError(
            f"the model factory returned {type(model).__name__}, not a torch.nn.Module"
        )
    initial = copy.deepcopy(model.state_dict())
    batches = folder_batches(cfg, device) if cfg.data else synthetic_batches(cfg, device)
    reports: dict[str, PrecisionReport] = {}
    for precision in ["fp32", *precisions]:
        if progress:
            progress(precision)
        model.load_state_dict(initial)
        model.to(device)
        try:
            reports[precision] = run_precision(model, precision, batches, cfg, device)
        except RuntimeError as exc:
            raise InputError(f"{precision} run failed: {str(exc).splitlines()[0]}") from exc
    reference = reports["fp32"]
    for precision in precisions:
        judge(reports[precision], reference, cfg)
    ref_bad = [i for i, v in enumerate(reference.losses) if not _finite(v)]
    if ref_bad:
        reference.reasons.append(
            f"fp32 itself has a non-finite loss at step {ref_bad[0]}: the model, not precision"
        )
        reference.verdict = "fail"
    return {
        "schema": 1,
        "tool": "rocport amp-check",
        "device": device,
        "config": {**asdict(cfg), "data": str(cfg.data) if cfg.data else None},
        "precisions": {p: asdict(r) for p, r in reports.items()},
        "passed": all(r.verdict == "pass" for r in reports.values()),
    }
