"""The whole ``rocport bench`` suite: presets, the run, and the ratios checked in one run."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from rich.console import Console

from rocport.bench import headline
from rocport.bench.context import Context
from rocport.bench.device import describe, resolve_device, software_versions, spec_for
from rocport.bench.results import Check, Result, Skipped, build_document
from rocport.bench.workloads.gemm import GemmShape
from rocport.bench.workloads.resnet import ResnetConfig
from rocport.errors import InputError

WORKLOADS = ("calibration", "gemm", "copy", "vector_add", "resnet")
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
MODES = ("inference", "training")
MEMORY_FORMATS = ("contiguous", "channels_last")

#: LLM-shaped products (tokens x out-features x in-features), Llama-3-8B-like layers
LLM_SHAPES = (
    GemmShape(8192, 6144, 4096, "llm: fused QKV projection"),
    GemmShape(8192, 28672, 4096, "llm: MLP gate+up"),
    GemmShape(8192, 4096, 14336, "llm: MLP down"),
)


@dataclass
class SuiteConfig:
    """What to run and how long to time it."""

    workloads: tuple[str, ...] = WORKLOADS
    warmup: int = 10
    repeats: int = 50
    gemm_shapes: tuple[GemmShape, ...] = (
        GemmShape(4096, 4096, 4096, "square"),
        GemmShape(8192, 8192, 8192, "square"),
        *LLM_SHAPES,
    )
    gemm_precisions: tuple[str, ...] = PRECISIONS
    triton: bool = True
    copy_elements: int = 2**28  # 1 GiB of fp32 per buffer
    vector_add_elements: int = 2**28 + 3  # not a multiple of any tile: the tail runs
    resnet_arch: str = "resnet50"
    resnet_modes: tuple[str, ...] = MODES
    resnet_precisions: tuple[str, ...] = PRECISIONS
    resnet_memory_formats: tuple[str, ...] = MEMORY_FORMATS
    resnet_batches: tuple[int, ...] = (64, 128, 256)
    resnet_resolution: int = 224
    resnet_warmup: int = 5
    resnet_repeats: int = 20
    resnet_compile: bool = False
    resnet_graphs: bool = False
    #: the migration guide's loop (fp32, NCHW, this batch) runs as written and in strict fp32
    guide_batch: int = 64
    calibration_seconds: float = 0.02
    extra: dict[str, Any] = field(default_factory=dict)

    def resnet_configs(self) -> list[ResnetConfig]:
        """The sweep, the guide's loop (as written and strict), then compiled and graphed runs.

        ``torch.compile`` and graphs run the autocast precisions of the sweep in channels_last
        at its largest batch: where eager runs fastest, so that the best of them is searched
        over everything the run can do.
        """
        sweep = [
            ResnetConfig(self.resnet_arch, mode, precision, fmt, batch, self.resnet_resolution)
            for mode, precision, fmt, batch in itertools.product(
                self.resnet_modes,
                self.resnet_precisions,
                self.resnet_memory_formats,
                self.resnet_batches,
            )
        ]
        guide = []
        for mode in self.resnet_modes:
            strict = ResnetConfig(
                self.resnet_arch,
                mode,
                "fp32",
                "contiguous",
                self.guide_batch,
                self.resnet_resolution,
            )
            guide.append(replace(strict, torch_defaults=True))
            if strict not in sweep:
                guide.append(strict)
        showcase = [
            c
            for c in sweep
            if c.precision in ("bf16", "fp16")
            and c.memory_format == "channels_last"
            and c.batch == max(self.resnet_batches)
        ]
        configs = guide + sweep
        if self.resnet_graphs:
            configs += [replace(c, graphs=True) for c in showcase]
        if self.resnet_compile:  # last: compiling takes longest
            configs += [replace(c, compile=True) for c in showcase]
        return configs

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["gemm_shapes"] = [asdict(s) for s in self.gemm_shapes]
        return out


PRESETS: dict[str, SuiteConfig] = {
    "full": SuiteConfig(),
    "cpu": SuiteConfig(
        warmup=2,
        repeats=10,
        gemm_shapes=(
            GemmShape(1024, 1024, 1024, "square"),
            GemmShape(512, 1536, 1024, "llm: QKV-like, scaled down"),
        ),
        gemm_precisions=("fp32", "bf16"),
        copy_elements=2**24,
        vector_add_elements=2**16 + 3,
        resnet_precisions=("fp32", "bf16"),
        resnet_memory_formats=("contiguous", "channels_last"),
        resnet_batches=(8,),
        guide_batch=8,
        resnet_resolution=224,
        resnet_warmup=1,
        resnet_repeats=3,
    ),
    "tiny": SuiteConfig(
        warmup=1,
        repeats=3,
        gemm_shapes=(GemmShape(64, 64, 64, "square"), GemmShape(48, 96, 80, "llm-like, tiny")),
        gemm_precisions=("fp32", "bf16"),
        copy_elements=2**16,
        vector_add_elements=3 * 4096 + 5,
        resnet_modes=("inference", "training"),
        resnet_precisions=("fp32",),  # bf16 on a CPU without bf16 units is emulated: slow
        resnet_memory_formats=("contiguous",),
        resnet_batches=(2,),
        guide_batch=2,
        resnet_resolution=32,
        resnet_warmup=1,
        resnet_repeats=2,
        calibration_seconds=0.05,
    ),
}


def preset(name: str) -> SuiteConfig:
    """A fresh copy of a preset configuration."""
    try:
        return replace(PRESETS[name])
    except KeyError:
        raise InputError(f"unknown preset {name!r} (choose from {', '.join(PRESETS)})") from None


def run_suite(
    config: SuiteConfig,
    *,
    device: str | None = None,
    quiet: bool = False,
    console: Console | None = None,
    on_partial: Callable[[dict[str, Any]], None] | None = None,
    log_lines: bool = False,
) -> dict[str, Any]:
    """Run the workloads of ``config`` on ``device``; return the results document.

    ``on_partial`` receives the document so far after each result, so that a run
    stopped by a time limit still leaves its finished results behind.
    """
    import torch

    from rocport.bench.workloads import calibration, gemm, memory, resnet

    unknown = set(config.workloads) - set(WORKLOADS)
    if unknown:
        raise InputError(f"unknown workload(s): {', '.join(sorted(unknown))}")
    dev = resolve_device(device)
    info = describe(dev)
    ctx = Context(
        device=dev,
        info=info,
        spec=spec_for(info),
        warmup=config.warmup,
        repeats=config.repeats,
        quiet=quiet,
        log_lines=log_lines,
        **({"console": console} if console else {}),
    )
    records: list[Result | Skipped] = []

    def document() -> dict[str, Any]:
        results = [r for r in records if isinstance(r, Result)]
        return build_document(
            device={**info.to_dict(), "world_size": 1},
            software=software_versions(),
            settings={**config.to_dict(), "cpu_threads": torch.get_num_threads()},
            results=results,
            skipped=[r for r in records if isinstance(r, Skipped)],
            checks=derive_checks(results),
        )

    def workload_records(workload: str):
        if workload == "calibration":
            return calibration.run(ctx, config.calibration_seconds, max(5, config.repeats))
        if workload == "gemm":
            shapes, precisions = list(config.gemm_shapes), list(config.gemm_precisions)
            return gemm.run(ctx, shapes, precisions, config.triton)
        if workload == "copy":
            return memory.copy(ctx, config.copy_elements)
        if workload == "vector_add":
            return memory.vector_add(ctx, config.vector_add_elements, config.triton)
        rctx = replace(ctx, warmup=config.resnet_warmup, repeats=config.resnet_repeats)
        rctx._progress = ctx._progress
        return resnet.run(rctx, config.resnet_configs())

    with ctx.progress():
        for workload in config.workloads:
            for record in workload_records(workload):
                records.append(record)
                if on_partial is not None:
                    on_partial(document())
    return document()


def derive_checks(results: list[Result]) -> list[Check]:
    """The ratios that say whether the suite's own kernels and timer can be trusted."""
    by_id = {r.id: r for r in results}
    checks: list[Check] = []

    def ratio(
        name: str, num: str, den: str, minimum: float | None = None, maximum: float | None = None
    ) -> None:
        if num in by_id and den in by_id and by_id[den].value:
            checks.append(
                Check(name, by_id[num].value / by_id[den].value, num, den, minimum, maximum)
            )

    calib = by_id.get("calibration/sleep")
    if calib:
        checks.append(
            Check("timer vs known sleep", calib.value, calib.id, "nominal sleep", 0.95, 1.05)
        )
        wall = calib.params["wall_clock_ms_per_call"]
        # the calibration runs after a warm-up pass, so the loop's wall clock holds no
        # start-up cost and must agree both ways; means on both sides, so that one slow
        # repeat on a busy host counts in both
        samples = calib.timing.samples_s
        checks.append(
            Check(
                "timer vs the loop's wall clock",
                sum(samples) / len(samples) * 1e3 / wall,
                calib.id,
                "wall clock of the timed loop",
                0.95,
                1.05,
            )
        )
    ratio(
        "vector add vectorized / copy bandwidth",
        "vector_add/vectorized/fp32",
        "copy/torch/fp32",
        0.85,
    )
    ratio("vector add naive / copy bandwidth", "vector_add/naive/fp32", "copy/torch/fp32")
    ratio("vector add torch.add / copy bandwidth", "vector_add/library/fp32", "copy/torch/fp32")
    for r in results:
        if r.id.startswith("gemm/triton/"):
            ratio(
                f"triton GEMM / torch.matmul {r.params['precision']} {r.id.rsplit('/', 1)[1]}",
                r.id,
                r.id.replace("/triton/", "/torch/"),
                0.80,
            )
    dicts = [r.to_dict() for r in results]
    for mode in MODES:
        rows = headline.rows(dicts, mode)
        if not rows:
            continue
        guide = rows[0].result
        for row in rows[1:]:
            checks.append(
                Check(
                    f"ResNet {mode}: {row.label} / guide loop as written",
                    row.ratio or 0.0,
                    row.result["id"],
                    guide["id"],
                )
            )
    for r in results:
        if r.workload == "resnet" and (r.params.get("compile") or r.params.get("graphs")):
            what = "torch.compile" if r.params.get("compile") else "CUDA/HIP graphs"
            eager = r.id.removesuffix("/compiled").removesuffix("/graphs")
            ratio(f"ResNet {what} / eager, {eager.removeprefix('resnet/')}", r.id, eager)
    return checks
