"""``rocport port``: translate a CUDA file or source tree to HIP."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rocport.cli._console import report_console
from rocport.cli._report_path import check_report_path


def _rocm(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None or value == "auto":
        return value
    from rocport.errors import InputError
    from rocport.port.releases import resolve_release

    try:
        resolve_release(value)
    except InputError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


class _Bar:
    """A rich progress bar on stderr, shown only on a terminal and only for big trees."""

    def __init__(self, minimum: int) -> None:
        self.minimum = minimum
        self.progress = None
        self.task = None

    def __call__(self, done: int, total: int) -> None:
        if self.progress is None:
            if total < self.minimum:
                return
            from rich.console import Console
            from rich.progress import Progress

            self.progress = Progress(console=Console(stderr=True), transient=True)
            self.progress.start()
            self.task = self.progress.add_task("translating", total=total)
        self.progress.update(self.task, completed=done)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


@click.command("port")
@click.argument("src", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path),
    help="Output folder (or file); default: SRC-hip beside SRC.",
)
@click.option(
    "--in-place", is_flag=True, help="Rewrite the files where they are, keeping FILE.orig backups."
)
@click.option("--no-backup", is_flag=True, help="With --in-place: keep no backups.")
@click.option(
    "--force",
    is_flag=True,
    help="Write into an existing output folder that is not empty and not an earlier output of SRC.",
)
@click.option("--examine", is_flag=True, help="Report what would change; write nothing.")
@click.option(
    "--json", "json_path", metavar="REPORT", help="Write the JSON report to REPORT ('-': stdout)."
)
@click.option(
    "--csv", "csv_path", metavar="REPORT", help="Write the CSV report to REPORT ('-': stdout)."
)
@click.option(
    "--rocm",
    callback=_rocm,
    metavar="VERSION|auto",
    help="Target ROCm release (e.g. 6.4 or 6.4.3; 5.2 and 5.7 to 7.2 are known), or 'auto' "
    "for the installed one; default: the newest with verified mappings.",
)
@click.option(
    "--blas", type=click.Choice(["hipblas", "rocblas"]), help="BLAS target (default hipblas)."
)
@click.option(
    "--launch",
    type=click.Choice(["keep", "ggl"]),
    help="Keep <<<...>>> launches (default) or write hipLaunchKernelGGL.",
)
@click.option(
    "--map",
    "map_file",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Project mapping/config file (default: rocport.toml at the root of SRC).",
)
@click.option(
    "--include", multiple=True, metavar="GLOB", help="Translate only matching paths (repeatable)."
)
@click.option(
    "--exclude", multiple=True, metavar="GLOB", help="Never translate matching paths (repeatable)."
)
@click.option(
    "--compile-commands",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Translate the files of this compile_commands.json and the headers they include.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Compile the output with hipcc (rocport check); exit 1 if a file fails.",
)
@click.option(
    "--offload-arch",
    multiple=True,
    metavar="GFX",
    help="AMD GPU target for build files and --check (repeatable; default gfx90a and gfx942).",
)
@click.option(
    "--warp-sync",
    type=click.Choice(["mask-free", "keep"]),
    help="__shfl_*_sync and friends: HIP's mask-free forms (default) or keep the _sync forms.",
)
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: CPU count)."
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Files listed in the text report.",
)
def command(
    src: Path,
    out: Path | None,
    in_place: bool,
    no_backup: bool,
    force: bool,
    examine: bool,
    json_path: str | None,
    csv_path: str | None,
    rocm: str | None,
    blas: str | None,
    launch: str | None,
    map_file: Path | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    compile_commands: Path | None,
    check: bool,
    offload_arch: tuple[str, ...],
    warp_sync: str | None,
    jobs: int | None,
    top: int,
) -> None:
    """Translate the CUDA file or tree SRC to HIP.

    The output mirrors SRC with the same file names (so #include "x.cuh" still resolves);
    non-source files are copied untouched, and outputs that would not change are not rewritten.
    """

    from rocport.errors import InputError
    from rocport.port import api, report, tree
    from rocport.port.config import find_config

    if json_path == "-" and csv_path == "-":
        raise InputError("--json - and --csv - cannot both write to stdout")
    check_report_path(json_path, inputs=[src], option="--json")
    check_report_path(csv_path, inputs=[src], option="--csv")
    if not src.exists():
        raise InputError(f"{src}: no such file or directory")
    root = src if src.is_dir() else src.parent
    config = find_config(root, map_file)
    options = api.resolve_options(
        config, rocm=rocm, blas=blas, launch=launch, warp_sync=warp_sync, offload_arch=offload_arch
    )
    bar = _Bar(minimum=tree.PARALLEL_MIN_FILES) if sys.stderr.isatty() else None
    try:
        result = api.port_tree(
            src,
            out,
            in_place=in_place,
            backup=not no_backup,
            examine=examine,
            options=options,
            config=config,
            include=include,
            exclude=exclude,
            compile_commands=compile_commands,
            jobs=jobs,
            check=check,
            progress=bar,
            force=force,
        )
    finally:
        if bar is not None:
            bar.close()
    if json_path:
        report.write_json(result, json_path)
    if csv_path:
        report.write_csv(result, csv_path)
    to_stdout = "-" in (json_path, csv_path)
    report.render(result, report_console(stderr=to_stdout), top=top)
    if result.failed_checks:
        sys.exit(1)
