"""``rocport scan``: portability hazards in CUDA/HIP and Python code, with fixes."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

import click

from rocport.cli._console import report_console

_SEVERITIES = ("note", "warning", "error")


def _split(values: tuple[str, ...]) -> list[str]:
    return [part for value in values for part in value.split(",") if part.strip()]


@click.command("scan")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "sarif"]),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report to this file instead of standard output.",
)
@click.option(
    "--fail-on",
    type=click.Choice(_SEVERITIES),
    default="warning",
    show_default=True,
    help="Exit with 1 when a finding of this severity or higher remains.",
)
@click.option(
    "--select",
    multiple=True,
    metavar="RULE",
    help="Only these rules (id, id prefix such as RP1, or name); repeatable.",
)
@click.option("--ignore", multiple=True, metavar="RULE", help="Skip these rules; repeatable.")
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip files and folders matching this glob; repeatable.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Processes to scan with; 0 means one per CPU (small trees always use one).",
)
@click.option(
    "--rocm",
    metavar="VERSION|auto",
    help="ROCm release of the AMD build (HIP_VERSION, __AMDGCN_WAVEFRONT_SIZE in #if); "
    "default: rocm in rocport.toml, else unknown.",
)
@click.option(
    "-D",
    "--define",
    "defines",
    multiple=True,
    metavar="NAME[=VALUE]",
    help="A macro the AMD build defines, as for the compiler; repeatable.",
)
@click.option(
    "-U",
    "--undefine",
    "undefines",
    multiple=True,
    metavar="NAME",
    help="A macro the AMD build does not define; repeatable.",
)
@click.option(
    "--compile-commands",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="An AMD build's compile_commands.json: scan only what it compiles and the headers "
    "those files include, with its -D options.",
)
@click.option(
    "--show-dead-branches",
    is_flag=True,
    help="Also report findings in #if branches an AMD build does not compile, marked so.",
)
@click.option("--fix", is_flag=True, help="Apply safe fixes (shows the diff first).")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff, also unsafe fixes.")
@click.option(
    "--diff",
    "diff_only",
    is_flag=True,
    help="Show the diff that --fix would apply, change nothing (exit 1 if non-empty).",
)
@click.option("--no-backup", is_flag=True, help="With --fix, do not keep <file>.orig copies.")
@click.option("--explain", metavar="RULE", help="Print the documentation of one rule and exit.")
@click.option("--list-rules", is_flag=True, help="List every rule and exit.")
def command(
    paths: tuple[Path, ...],
    output_format: str,
    output: Path | None,
    fail_on: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    exclude: tuple[str, ...],
    jobs: int,
    rocm: str | None,
    defines: tuple[str, ...],
    undefines: tuple[str, ...],
    compile_commands: Path | None,
    show_dead_branches: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff_only: bool,
    no_backup: bool,
    explain: str | None,
    list_rules: bool,
) -> None:
    """Report portability hazards for AMD GPUs in CUDA/HIP sources and Python code."""
    from rich.console import Console

    from rocport._diagnostics import Severity
    from rocport._fs import atomic_write
    from rocport.cli._report_path import check_report_path
    from rocport.errors import InputError
    from rocport.scan import fixer
    from rocport.scan.engine import language_of, scan_paths
    from rocport.scan.output import json as json_output
    from rocport.scan.output import sarif as sarif_output
    from rocport.scan.output import text as text_output
    from rocport.scan.rules import RULES, resolve

    def rules_for(selectors: list[str]) -> list:
        chosen = []
        for selector in selectors:
            try:
                chosen.extend(resolve(selector))
            except KeyError:
                raise InputError(
                    f"unknown rule {selector!r} (see `rocport scan --list-rules`)"
                ) from None
        return chosen

    console = report_console(highlight=False)
    if explain is not None:
        rule = rules_for([explain])[0]
        click.echo(
            f"{rule.id} {rule.name} ({rule.severity.label}, {rule.language.value}, "
            f"fix: {rule.fix.value})\n\n{rule.doc}"
        )
        return
    if list_rules:
        from rich.table import Table

        table = Table("id", "name", "severity", "language", "fix", "summary")
        for rule in RULES:
            table.add_row(
                rule.id,
                rule.name,
                rule.severity.label,
                rule.language.value,
                rule.fix.value,
                rule.summary,
            )
        console.print(table)
        return
    if not paths:
        raise InputError("no PATH given (try `rocport scan .`)")
    if (unsafe_fixes or no_backup) and not (fix or diff_only):
        raise InputError("--unsafe-fixes and --no-backup need --fix or --diff")
    if show_dead_branches and (fix or diff_only):
        raise InputError("--show-dead-branches only reports: it cannot go with --fix or --diff")
    check_report_path(
        output, inputs=paths, option="-o", reads=lambda path: language_of(path) is not None
    )

    selected = rules_for(_split(select)) if select else list(RULES)
    ignored = {rule.id for rule in rules_for(_split(ignore))}
    rules = [rule for rule in RULES if rule in selected and rule.id not in ignored]

    branches, build = _amd_build(
        list(paths), rocm, defines, undefines, compile_commands, show_dead_branches
    )
    jobs = jobs or os.cpu_count() or 1
    fingerprints = output_format in ("json", "sarif")  # the text report shows none
    options = {"fingerprints": fingerprints, "branches": branches, "build": build}
    with fixer.locked(list(paths)) if fix else contextlib.nullcontext():
        report = scan_paths(list(paths), rules, exclude, jobs, **options)
        if fix or diff_only:
            fixed = fixer.fix_report(report, rules, unsafe=unsafe_fixes)
            stream = sys.stdout if output_format == "text" or output is not None else sys.stderr
            for item in fixed:
                click.echo(item.diff(), file=stream, nl=False)
            if diff_only:
                total = sum(item.applied for item in fixed)
                click.echo(
                    f"Would fix {total} finding{'s' if total != 1 else ''} in {len(fixed)} "
                    f"file{'s' if len(fixed) != 1 else ''}.",
                    err=True,
                )
                sys.exit(1 if fixed else 0)
            outcomes = fixer.write(fixed, backup=not no_backup)
            for line in fixer.summary(outcomes):
                click.echo(line, err=True)
            if fixed:
                report = scan_paths(list(paths), rules, exclude, jobs, **options)

    if output_format == "text" and output is None:
        text_output.render(report, console)
    else:
        if output_format == "json":
            document = json_output.render(report)
        elif output_format == "sarif":
            document = sarif_output.render(report, rules)
        else:
            capture = Console(file=io.StringIO(), width=120, highlight=False)
            text_output.render(report, capture)
            document = capture.file.getvalue()
        if output is None:
            click.echo(document, nl=False)
        else:
            atomic_write(output, document)

    if report.unread:  # reported above; the scan is incomplete
        what = f"{len(report.unread)} path{'s' if len(report.unread) != 1 else ''}"
        click.echo(f"rocport: error: {what} could not be read; the scan is incomplete", err=True)
        sys.exit(2)
    threshold = Severity.parse(fail_on)
    sys.exit(1 if any(f.severity >= threshold for f in report.findings) else 0)


def _amd_build(
    paths: list[Path],
    rocm: str | None,
    defines: tuple[str, ...],
    undefines: tuple[str, ...],
    compile_commands: Path | None,
    show_dead: bool,
):
    """The branches settings and the build's files (or None) for the scan: ``--rocm``, ``-D``
    and ``-U`` over ``rocport.toml`` (``rocm``, ``[scan]``) of the first folder scanned."""
    from rocport.port.config import detect_rocm_release, find_config
    from rocport.port.releases import resolve_release
    from rocport.scan.amd_build import from_compile_commands, macro_options
    from rocport.scan.preprocessor import Branches, amd_setup

    folders = [p if p.is_dir() else p.parent for p in paths if p.exists()]
    config = find_config(folders[0]) if folders else None
    macros = []
    if config is not None:
        where = f"{config.path}: [scan]"
        macros = macro_options(config.scan_defines, config.scan_undefines, where)
        rocm = rocm or config.rocm
    macros += macro_options(defines, (), "-D") + macro_options((), undefines, "-U")
    release = None
    if rocm is not None:
        line = detect_rocm_release() if rocm == "auto" else resolve_release(rocm).line
        major, minor = line.split(".")[:2]
        release = (int(major), int(minor))
    if compile_commands is not None:
        setup, build = from_compile_commands(compile_commands, paths, release, macros)
        return Branches(setup, show_dead), build
    return Branches(amd_setup(release, macros), show_dead), None
