"""``rocport bench``: run the validation suite; ``compare`` and ``report`` read its results."""

from __future__ import annotations

from pathlib import Path

import click

from rocport.cli._console import report_console
from rocport.cli._report_path import check_report_path
from rocport.cli._torch import require_torch
from rocport.errors import InputError

_WORKLOADS = ("calibration", "gemm", "copy", "vector_add", "resnet")


def _ints(value: str | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    try:
        out = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        raise InputError(f"expected comma-separated integers, got {value!r}") from None
    if not out or min(out) < 1:
        raise InputError(f"expected positive integers, got {value!r}")
    return out


def _words(value: str | None, allowed: tuple[str, ...], what: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    out = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [v for v in out if v not in allowed]
    if bad or not out:
        raise InputError(f"{what}: {', '.join(bad) or value!r} not in {', '.join(allowed)}")
    return out


def _arch(value: str | None) -> str | None:
    from rocport.bench.workloads.resnet import ARCHS

    return None if value is None else _words(value, ARCHS, "--arch")[0]


@click.group(invoke_without_command=True)
@click.option(
    "--preset",
    default=None,
    type=click.Choice(["tiny", "cpu", "full"]),
    help="Sizes and repeats [default: full on a GPU, cpu otherwise].",
)
@click.option("--device", default="auto", show_default=True, help="cuda:N, cpu or auto.")
@click.option(
    "--workloads", "workloads", default=None, help=f"Comma list of {', '.join(_WORKLOADS)}."
)
@click.option("--warmup", type=click.IntRange(0), default=None, help="Warm-up calls per item.")
@click.option("--repeats", type=click.IntRange(1), default=None, help="Timed repeats per item.")
@click.option(
    "--precisions", default=None, help="Comma list of fp32, tf32, fp16, bf16 (GEMM and ResNet)."
)
@click.option("--batches", default=None, help="ResNet batch sizes, e.g. 64,128,256.")
@click.option("--resolution", type=click.IntRange(16), default=None, help="ResNet image size.")
@click.option("--arch", default=None, help="torchvision ResNet (resnet18 … resnet152).")
@click.option("--modes", default=None, help="ResNet modes: inference,training.")
@click.option("--memory-formats", default=None, help="contiguous,channels_last.")
@click.option(
    "--compile/--no-compile", "compile_", default=None, help="Also time torch.compile'd ResNet."
)
@click.option(
    "--graphs/--no-graphs",
    default=None,
    help="Also time ResNet steps captured in CUDA/HIP graphs (torch.cuda.CUDAGraph).",
)
@click.option("--no-triton", is_flag=True, help="Skip rocport's Triton kernels.")
@click.option(
    "--nproc",
    type=click.IntRange(1),
    default=None,
    help="DDP ResNet training over N processes (one per GPU; gloo on CPU).",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the results JSON here.",
)
@click.option(
    "--threads",
    type=click.IntRange(1),
    default=None,
    help="CPU intra-op threads (torch.set_num_threads); 1 is steadiest on a busy host.",
)
@click.option("--quiet", is_flag=True, help="No progress bars.")
@click.option(
    "--plain-progress",
    is_flag=True,
    help="One line per timed item instead of progress bars (for logs).",
)
@click.pass_context
def command(
    ctx: click.Context,
    preset: str | None,
    device: str,
    workloads: str | None,
    warmup: int | None,
    repeats: int | None,
    precisions: str | None,
    batches: str | None,
    resolution: int | None,
    arch: str | None,
    modes: str | None,
    memory_formats: str | None,
    compile_: bool | None,
    graphs: bool | None,
    no_triton: bool,
    nproc: int | None,
    out: Path | None,
    threads: int | None,
    quiet: bool,
    plain_progress: bool,
) -> None:
    """Time ResNet, GEMM, copy and vector add, each against the device's peak.

    Under torchrun (RANK and WORLD_SIZE set) it runs the DDP benchmark in each process.
    """
    if ctx.invoked_subcommand is not None:
        return
    require_torch("rocport bench")
    check_report_path(out, option="--out")
    from rich.console import Console

    from rocport.bench import ddp, results, suite

    console = Console(stderr=True)
    if threads is not None:
        import torch

        torch.set_num_threads(threads)
    launched = ddp.torchrun_rank()
    if nproc is not None or launched is not None:
        cfg = _ddp_config(
            preset=preset,
            device=device,
            precisions=precisions,
            batches=batches,
            resolution=resolution,
            arch=arch,
            memory_formats=memory_formats,
            warmup=warmup,
            repeats=repeats,
        )
        if launched is not None:
            rank, world, local = launched
            raw = ddp.worker(rank, world, local, cfg)
            if raw is not None:
                _write_and_show(ddp.document(raw), out, console)
            ddp.end_process()
        document = ddp.document(ddp.spawn(cfg, nproc))
    else:
        import torch

        config = suite.preset(
            preset or ("full" if torch.cuda.is_available() and device != "cpu" else "cpu")
        )
        if workloads:
            config.workloads = _words(workloads, _WORKLOADS, "--workloads")
        if warmup is not None:
            config.warmup = config.resnet_warmup = warmup
        if repeats is not None:
            config.repeats = config.resnet_repeats = repeats
        if precisions:
            config.gemm_precisions = config.resnet_precisions = _words(
                precisions, suite.PRECISIONS, "--precisions"
            )
        config.resnet_batches = _ints(batches) or config.resnet_batches
        config.resnet_resolution = resolution or config.resnet_resolution
        config.resnet_arch = _arch(arch) or config.resnet_arch
        config.resnet_modes = _words(modes, suite.MODES, "--modes") or config.resnet_modes
        config.resnet_memory_formats = (
            _words(memory_formats, suite.MEMORY_FORMATS, "--memory-formats")
            or config.resnet_memory_formats
        )
        if compile_ is not None:
            config.resnet_compile = compile_
        if graphs is not None:
            config.resnet_graphs = graphs
        config.triton = not no_triton
        document = suite.run_suite(
            config,
            device=device,
            quiet=quiet or plain_progress,
            console=console,
            log_lines=plain_progress,
            on_partial=(lambda doc: results.write(doc, out)) if out is not None else None,
        )
    _write_and_show(document, out, console)


def _write_and_show(document: dict, out: Path | None, console) -> None:
    """Save the results document where asked and print its Markdown table."""
    from rocport.bench import results
    from rocport.bench.report import markdown

    if out is not None:
        results.write(document, out)
        console.print(f"wrote {out}")
    click.echo(markdown(document))


def _ddp_config(
    *,
    preset: str | None,
    device: str,
    precisions: str | None,
    batches: str | None,
    resolution: int | None,
    arch: str | None,
    memory_formats: str | None,
    warmup: int | None,
    repeats: int | None,
):
    """The DDP benchmark's settings: the preset's (tiny or full), overridden by the options."""
    from rocport.bench import ddp

    tiny = preset == "tiny"
    base = ddp.DdpConfig(
        arch="resnet18" if tiny else "resnet50",
        batch=2 if tiny else 256,
        resolution=32 if tiny else 224,
        warmup=1 if tiny else 5,
        repeats=3 if tiny else 20,
        allreduce_bytes=(1 if tiny else 256) * 2**20,
        allreduce_repeats=5 if tiny else 20,
        memory_format="contiguous" if tiny else "channels_last",
    )
    precision = _words(precisions, ("fp32", "tf32", "fp16", "bf16"), "--precisions")
    if precision and len(precision) != 1:
        raise InputError("--nproc takes one precision")
    return ddp.DdpConfig(
        arch=_arch(arch) or base.arch,
        precision=precision[0] if precision else ("fp32" if tiny else base.precision),
        memory_format=(
            _words(memory_formats, ("contiguous", "channels_last"), "--memory-formats")
            or (base.memory_format,)
        )[0],
        batch=(_ints(batches) or (base.batch,))[0],
        resolution=resolution or base.resolution,
        warmup=base.warmup if warmup is None else warmup,
        repeats=repeats or base.repeats,
        allreduce_bytes=base.allreduce_bytes,
        allreduce_repeats=base.allreduce_repeats,
        device="cpu" if device == "cpu" else ("cuda" if device.startswith("cuda") else "auto"),
    )


@command.command("compare")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--png",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Bar chart path [default: compare.png beside the first file].",
)
def compare_command(files: tuple[Path, ...], png: Path | None) -> None:
    """Side-by-side table of results files, ratios to the first, and a PNG bar chart."""

    from rocport.bench import compare, results

    if len(files) < 2:
        raise InputError("compare needs at least two results files")
    check_report_path(png or files[0].with_name("compare.png"), inputs=files, option="--png")
    documents = [results.load(f) for f in files]
    labels = [compare.label(d, f) for d, f in zip(documents, files, strict=True)]

    report_console().print(compare.table(documents, labels))
    png = png or files[0].with_name("compare.png")
    compare.chart(documents, labels, png)
    click.echo(f"wrote {png}", err=True)


@command.command("report")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Markdown path [default: stdout].",
)
def report_command(file: Path, output: Path | None) -> None:
    """Markdown summary of a results file."""
    from rocport._fs import atomic_write
    from rocport.bench import results
    from rocport.bench.report import markdown

    check_report_path(output, inputs=[file], option="--output")
    text = markdown(results.load(file))
    if output is None:
        click.echo(text, nl=False)
    else:
        atomic_write(output, text)
        click.echo(f"wrote {output}", err=True)
