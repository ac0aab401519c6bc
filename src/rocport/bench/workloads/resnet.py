"""ResNet (torchvision, untrained weights, synthetic data): inference and training steps."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import asdict, dataclass

import torch

from rocport.bench.context import Context
from rocport.bench.results import Result, Skipped
from rocport.bench.workloads._common import (
    DTYPES,
    current_flags,
    generator,
    precision_flags,
    torch_default_flags,
)
from rocport.errors import InputError

#: input batches cycled through, so that no step reuses the previous step's images
INPUT_SETS = 4
ARCHS = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152")


@dataclass(frozen=True)
class ResnetConfig:
    """One point of the sweep."""

    arch: str
    mode: str  # "inference" or "training"
    precision: str  # fp32 (strict), tf32, fp16 or bf16 (autocast)
    memory_format: str  # "contiguous" (NCHW) or "channels_last" (NHWC)
    batch: int
    resolution: int
    compile: bool = False
    graphs: bool = False  # the step captured once in a CUDA/HIP graph, then replayed
    torch_defaults: bool = False  # PyTorch's own math settings, as a loop that sets none

    @property
    def id(self) -> str:
        tail = (
            ("/torch-defaults" if self.torch_defaults else "")
            + ("/compiled" if self.compile else "")
            + ("/graphs" if self.graphs else "")
        )
        return (
            f"resnet/{self.arch}/{self.mode}/{self.precision}/{self.memory_format}/"
            f"b{self.batch}/r{self.resolution}{tail}"
        )


def build_model(arch: str, device: str, memory_format: str) -> torch.nn.Module:
    """An untrained torchvision ResNet on ``device`` in ``memory_format``."""
    import torchvision

    if arch not in ARCHS:
        raise InputError(f"unknown ResNet {arch!r} (choose from {', '.join(ARCHS)})")
    model = getattr(torchvision.models, arch)(weights=None).to(device)
    if memory_format == "channels_last":
        model = model.to(memory_format=torch.channels_last)
    return model


def make_step(
    cfg: ResnetConfig, device: str, model: torch.nn.Module | None = None
) -> tuple[Callable[[int], object], torch.nn.Module]:
    """A function ``step(i)`` that runs one inference or training step on batch ``i``."""
    model = model if model is not None else build_model(cfg.arch, device, cfg.memory_format)
    fmt = torch.channels_last if cfg.memory_format == "channels_last" else torch.contiguous_format
    gen = generator(device, seed=cfg.batch)
    shape = (cfg.batch, 3, cfg.resolution, cfg.resolution)
    images = [
        torch.randn(shape, device=device, generator=gen).contiguous(memory_format=fmt)
        for _ in range(INPUT_SETS)
    ]
    labels = [
        torch.randint(0, 1000, (cfg.batch,), device=device, generator=gen)
        for _ in range(INPUT_SETS)
    ]
    device_type = torch.device(device).type
    autocast = cfg.precision in ("fp16", "bf16")

    def amp():
        return (
            torch.autocast(device_type, dtype=DTYPES[cfg.precision]) if autocast else nullcontext()
        )

    if cfg.graphs:
        return _graphed_step(cfg, model, images, labels, device_type, DTYPES[cfg.precision])
    runner = torch.compile(model) if cfg.compile else model
    if cfg.mode == "inference":
        model.eval()

        def step(i: int) -> object:
            with torch.inference_mode(), amp():
                return runner(images[i % INPUT_SETS])

        return step, model

    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler(device_type, enabled=cfg.precision == "fp16")

    def train_step(i: int) -> object:
        optimizer.zero_grad(set_to_none=True)
        with amp():
            loss = loss_fn(runner(images[i % INPUT_SETS]), labels[i % INPUT_SETS])
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    return train_step, model


class GraphsUnavailable(Exception):
    """This configuration cannot be captured in a CUDA/HIP graph (the reason is the message)."""


def _graphed_step(
    cfg: ResnetConfig,
    model: torch.nn.Module,
    images: list[torch.Tensor],
    labels: list[torch.Tensor],
    device_type: str,
    dtype: torch.dtype,
) -> tuple[Callable[[int], object], torch.nn.Module]:
    """The step captured once in a ``torch.cuda.CUDAGraph`` (CUDA, or HIP on ROCm builds).

    Follows PyTorch's "whole network capture" recipe: static input tensors, three warm-up
    steps on a side stream (cuDNN autotuning happens there), gradients set to None before
    the capture, autocast with its cache off. Each replay first copies the next batch into
    the static input, so the figure holds that copy too.
    """
    if device_type != "cuda":
        raise GraphsUnavailable("CUDA/HIP graphs need a GPU")
    if cfg.mode == "training" and cfg.precision == "fp16":
        raise GraphsUnavailable("GradScaler reads its inf check on the host: it cannot be captured")
    static_x, static_y = images[0].clone(), labels[0].clone()
    autocast = cfg.precision in ("fp16", "bf16")

    def amp():
        if not autocast:
            return nullcontext()
        return torch.autocast(device_type, dtype=dtype, cache_enabled=False)

    if cfg.mode == "inference":
        model.eval()

        def body() -> object:
            with torch.no_grad(), amp():
                return model(static_x)
    else:
        model.train()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        loss_fn = torch.nn.CrossEntropyLoss()

        def body() -> object:
            with amp():
                loss = loss_fn(model(static_x), static_y)
            loss.backward()
            optimizer.step()
            return loss

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model.zero_grad(set_to_none=True)
            body()
    torch.cuda.current_stream().wait_stream(side)
    model.zero_grad(set_to_none=True)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = body()

    def step(i: int) -> object:
        static_x.copy_(images[i % INPUT_SETS])
        static_y.copy_(labels[i % INPUT_SETS])
        graph.replay()
        return out

    return step, model


def count_flops(cfg: ResnetConfig, device: str) -> float:
    """Floating-point operations of one step, counted by ``torch.utils.flop_counter``."""
    from torch.utils.flop_counter import FlopCounterMode

    step, _ = make_step(ResnetConfig(**{**asdict(cfg), "compile": False, "graphs": False}), device)
    counter = FlopCounterMode(display=False)
    with counter:
        step(0)
    return float(counter.get_total_flops())


def run(ctx: Context, configs: list[ResnetConfig]) -> Iterator[Result | Skipped]:
    """Time every configuration; images/s with ms/step, and model TFLOP/s against the peak.

    cuDNN's benchmark mode is on (autotuning happens in the warm-up), except for the guide's
    loop as written, which runs with PyTorch's defaults (:data:`TORCH_DEFAULTS`).
    """
    torch.backends.cudnn.benchmark = True
    flops_cache: dict[tuple, float] = {}
    for cfg in configs:
        flags_used: dict[str, bool] = {}
        try:
            flags = torch_default_flags() if cfg.torch_defaults else precision_flags(cfg.precision)
            with flags:
                flags_used = current_flags()
                key = (cfg.arch, cfg.mode, cfg.batch, cfg.resolution)
                if key not in flops_cache:
                    flops_cache[key] = count_flops(cfg, ctx.device)
                step, model = make_step(cfg, ctx.device)
                timing = ctx.time(_label(cfg), step)
        except GraphsUnavailable as exc:
            yield Skipped(cfg.id, str(exc))
            continue
        except torch.OutOfMemoryError:
            torch.cuda.empty_cache()
            yield Skipped(cfg.id, "out of device memory")
            continue
        except RuntimeError as exc:  # an op without a kernel for this dtype/device
            yield Skipped(cfg.id, f"failed: {str(exc).splitlines()[0]}")
            continue
        finally:
            if ctx.is_gpu:
                torch.cuda.empty_cache()
        flops = flops_cache[key]
        peak = ctx.peak_tflops(cfg.precision)
        result = Result(
            id=cfg.id,
            workload="resnet",
            unit="images/s",
            value=cfg.batch / timing.median_s,
            implementation=_implementation(cfg),
            params={
                **asdict(cfg),
                **flags_used,
                "flops_per_step": flops,
                "model_tflops": flops / timing.median_s / 1e12,
            },
            timing=timing,
        )
        if peak:
            # % of peak from the model's counted FLOP rate; the headline value stays images/s
            result.peak = {
                **peak,
                "value": peak["value"] * 1e12 / flops * cfg.batch,
                "unit": "images/s",
                "key": f"{peak['key']} (at {flops / cfg.batch / 1e9:.2f} GFLOP per image)",
            }
        del model, step
        yield result


def _label(cfg: ResnetConfig) -> str:
    extra = [
        name
        for name, on in (
            ("torch defaults", cfg.torch_defaults),
            ("compiled", cfg.compile),
            ("graphs", cfg.graphs),
        )
        if on
    ]
    return f"{cfg.arch} {cfg.mode} {cfg.precision} {cfg.memory_format} b{cfg.batch}" + "".join(
        f" {e}" for e in extra
    )


def _implementation(cfg: ResnetConfig) -> str:
    text = "torchvision " + cfg.arch
    if cfg.torch_defaults:
        text += ", the guide's loop as written (PyTorch default math settings)"
    if cfg.compile:
        text += " + torch.compile"
    if cfg.graphs:
        text += " + CUDA/HIP graph replay"
    return text
