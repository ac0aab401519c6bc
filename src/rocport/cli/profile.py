"""``rocport profile``: where the time goes (rocprofv3, rocprof, nsys, ncu, torch.profiler)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from rocport.cli._console import report_console


def _fmt_ns(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.0f} ns"


def render(table, top: int):
    """The rich table of the ``top`` kernels."""
    from rich.table import Table

    out = Table(
        title=f"top kernels ({table.tool}, {len(table.kernels)} kernels, "
        f"{_fmt_ns(table.total_ns)} total)",
        caption=f"profiled: {table.scope}" if table.scope else None,
    )
    out.add_column("#", justify="right")
    out.add_column("kernel", overflow="fold", max_width=70)
    for col in ("calls", "total", "mean", "share"):
        out.add_column(col, justify="right")
    counters = table.has_counters
    if counters:
        for col in ("GB/s", "L2 hit %", "SM/VALU %"):
            out.add_column(col, justify="right")
    for i, k in enumerate(table.top(top), 1):
        row = [
            str(i),
            k.name,
            f"{k.calls:,}",
            _fmt_ns(k.total_ns),
            _fmt_ns(k.mean_ns),
            "—" if k.share is None else f"{100 * k.share:.1f}%",
        ]
        if counters:
            row += [
                "—" if v is None else f"{v:,.1f}"
                for v in (k.bandwidth_gbs, k.cache_hit_pct, k.utilization_pct)
            ]
        out.add_row(*row)
    return out


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option(
    "--tool",
    type=click.Choice(["auto", "rocprofv3", "rocprof", "nsys", "ncu", "torch"]),
    default="auto",
    show_default=True,
)
@click.option(
    "--python",
    "python_script",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Run this Python script under torch.profiler (any backend).",
)
@click.option(
    "--skip-steps",
    type=click.IntRange(0),
    default=2,
    show_default=True,
    help="--python: optimizer steps left out as warm-up (cuDNN autotuning happens there).",
)
@click.option(
    "--counters", is_flag=True, help="Also collect bandwidth, L2 hit rate and SM/VALU utilization."
)
@click.option("--top", type=click.IntRange(1), default=20, show_default=True)
@click.option(
    "--timeout", type=click.FloatRange(1), default=600, show_default=True, help="Seconds."
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("rocport-profile"),
    show_default=True,
    help="Where the profiler's files go.",
)
@click.option(
    "--kernel",
    "kernel_regex",
    default=None,
    help="ncu: only kernels whose name matches this regex.",
)
@click.option(
    "--launch-skip",
    type=click.IntRange(0),
    default=0,
    show_default=True,
    help="ncu: launches to skip.",
)
@click.option(
    "--launch-count",
    type=click.IntRange(1),
    default=20,
    show_default=True,
    help="ncu: launches to profile.",
)
@click.option(
    "--parse",
    "parse_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Parse existing profiler output instead of running anything (repeatable).",
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the kernel table as JSON.",
)
@click.argument("command_args", nargs=-1, type=click.UNPROCESSED)
def command(
    tool,
    python_script,
    skip_steps,
    counters,
    top,
    timeout,
    output_dir,
    kernel_regex,
    launch_skip,
    launch_count,
    parse_files,
    json_out,
    command_args,
) -> None:
    """Profile ``-- COMMAND…`` (or ``--python script.py ARGS…``) and rank its kernels.

    Picks rocprofv3, rocprof, nsys or ncu, whichever is installed first in that order.
    """

    from rocport._fs import atomic_write
    from rocport.cli._report_path import check_report_path
    from rocport.profile import ProfileRequest, parse_file, run
    from rocport.profile.model import KernelTable, merge

    check_report_path(
        json_out, inputs=[p for p in (python_script, *parse_files) if p], option="--json"
    )
    if parse_files:
        tables = [parse_file(p) for p in parse_files]
        table = KernelTable(
            " + ".join(sorted({t.tool for t in tables})),
            [s for t in tables for s in t.sources],
            merge([k for t in tables for k in t.kernels]),
            [n for t in tables for n in t.notes],
        )
    else:
        args = list(command_args)
        if args[:1] == ["--"]:
            args = args[1:]
        table = run(
            ProfileRequest(
                command=args,
                tool=tool,
                python_script=python_script,
                skip_steps=skip_steps,
                counters=counters,
                output_dir=output_dir,
                timeout=timeout,
                kernel_regex=kernel_regex,
                launch_skip=launch_skip,
                launch_count=launch_count,
            )
        )

    console = report_console()
    console.print(render(table, top))
    for note in table.notes:
        console.print(f"note: {note}")
    if json_out:
        atomic_write(json_out, json.dumps(table.to_dict(), indent=2) + "\n")
