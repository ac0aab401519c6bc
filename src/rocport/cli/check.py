"""``rocport check``: compile a ported tree for AMD GPUs and map errors back to the CUDA source."""

from __future__ import annotations

import sys
from pathlib import Path

import click


def _archs(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    archs = tuple(dict.fromkeys(a.strip() for v in value for a in v.split(",") if a.strip()))
    for arch in archs:
        if not arch.startswith("gfx"):
            raise click.BadParameter(f"{arch!r} is not an AMD GPU target (gfx90a, gfx942, ...)")
    return archs or ("gfx90a",)


@click.command("check")
@click.argument("tree", type=click.Path(path_type=Path), required=False)
@click.option(
    "--offload-arch",
    "offload_arch",
    multiple=True,
    callback=_archs,
    metavar="GFX[,GFX]",
    help="AMD GPU targets, comma-separated or repeated (default gfx90a).",
)
@click.option(
    "--hipcc",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="The hipcc to use (default: /opt/rocm/bin, then PATH, then the project's roots).",
)
@click.option(
    "--rocm", metavar="VERSION", help="Use a toolchain of this ROCm release (e.g. 5.2, 6.4)."
)
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), help="Parallel compiles (default: CPU count)."
)
@click.option(
    "--json", "json_path", metavar="FILE", help="Write the JSON report to FILE ('-': stdout)."
)
@click.option(
    "-D",
    "--define",
    "defines",
    multiple=True,
    metavar="NAME[=VALUE]",
    help="Preprocessor definition for every unit (repeatable).",
)
@click.option(
    "-I",
    "include_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Include folder for every unit (repeatable); the tree's root is always searched.",
)
@click.option(
    "--std",
    default="c++17",
    show_default=True,
    metavar="STD",
    help="C++ standard (nvcc's default is c++17; 'none' leaves hipcc's own default).",
)
@click.option(
    "--mode",
    type=click.Choice(["auto", "full", "device-only"]),
    default="auto",
    show_default=True,
    help="auto: full, then device-only where that stops at a header of a library absent from "
    "the toolchain.",
)
@click.option(
    "--source-map",
    type=click.Path(path_type=Path),
    metavar="REPORT.json",
    help="A `rocport port --json` report, to map errors back to the CUDA files.",
)
@click.option(
    "--cuda-root",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="The CUDA tree the port came from (same relative paths), to map errors back.",
)
@click.option("--warnings", "show_warnings", is_flag=True, help="Print warnings too.")
@click.option("--list-toolchains", is_flag=True, help="List the HIP toolchains found, and exit.")
def command(
    tree: Path | None,
    offload_arch: tuple[str, ...],
    hipcc: Path | None,
    rocm: str | None,
    jobs: int | None,
    json_path: str | None,
    defines: tuple[str, ...],
    include_dirs: tuple[Path, ...],
    std: str,
    mode: str,
    source_map: Path | None,
    cuda_root: Path | None,
    show_warnings: bool,
    list_toolchains: bool,
) -> None:
    """Compile every translation unit of TREE (a ported tree or file) with hipcc for AMD GPUs.

    Exit status: 0 when every unit compiled, 1 when one did not, 2 for bad input or no toolchain.
    """
    import json

    from rich.console import Console

    from rocport._fs import atomic_write
    from rocport.check import check_tree, discover
    from rocport.check.render import print_report, print_toolchains
    from rocport.cli._report_path import check_report_path
    from rocport.errors import InputError

    console = Console(stderr=json_path == "-")
    if list_toolchains:
        print_toolchains(discover(), console)
        return
    if tree is None:
        raise InputError("missing TREE (the ported tree or file to compile)")
    if source_map is not None and cuda_root is not None:
        raise InputError("--source-map and --cuda-root are alternatives; give one")
    check_report_path(json_path, inputs=[tree], option="--json")
    report = check_tree(
        tree,
        offload_arch=offload_arch,
        hipcc=hipcc,
        rocm=rocm,
        jobs=jobs,
        defines=defines,
        include_dirs=include_dirs,
        std=None if std == "none" else std,
        mode=mode,
        source_map=source_map,
        cuda_root=cuda_root,
        progress=console.is_terminal,
    )
    if json_path is not None:
        payload = json.dumps(report.to_dict(), indent=2) + "\n"
        if json_path == "-":
            sys.stdout.write(payload)
        else:
            atomic_write(Path(json_path), payload)
    if json_path != "-":
        print_report(report, console, warnings=show_warnings)
    sys.exit(0 if report.ok else 1)
