"""``rocport doctor`` and ``rocport install-plan``.

Library code is imported inside the commands so that ``rocport --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rocport.cli._console import report_console

_ROOT = click.Path(exists=True, file_okay=False, path_type=Path)


@click.command("doctor")
@click.option(
    "--rocm",
    "rocm",
    metavar="VERSION",
    help="ROCm release whose support matrix applies, e.g. 6.4 or 6.4.1 (default: the installed "
    "release, else the newest known).",
)
@click.option(
    "--root",
    type=_ROOT,
    help="Examine the tree under DIR (its /etc, /sys, /proc, /dev, /opt and recorded tool "
    "outputs) instead of this machine.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--python",
    "python",
    metavar="PATH",
    help="Interpreter whose PyTorch/TensorFlow to inspect (default: this one).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=20.0,
    show_default=True,
    help="Seconds each tool probe may run.",
)
def command(
    rocm: str | None, root: Path | None, as_json: bool, python: str | None, timeout: float
) -> None:
    """Check whether this machine is ready for ROCm, and say how to fix what is not.

    Exit status: 0 when no check failed, 1 when any failed, 2 on bad usage.
    """

    from rocport import __version__
    from rocport.doctor.engine import run_doctor
    from rocport.doctor.render import render_json, render_table

    report = run_doctor(root=root, rocm=rocm, python=python, timeout=timeout)
    if as_json:
        click.echo(render_json(report, __version__))
    else:
        render_table(report, report_console())
    sys.exit(1 if report.failed else 0)


@click.command("install-plan")
@click.option(
    "--rocm",
    "rocm",
    metavar="VERSION",
    help="ROCm release to install: 6.4.1 exactly, or 6.4 for the newest known 6.4.x "
    "(default: newest known).",
)
@click.option(
    "--distro",
    default="auto",
    show_default=True,
    metavar="auto|NAME-VERSION",
    help="Target distribution, e.g. ubuntu-24.04, ubuntu-22.04, debian-12, rhel-9.6; "
    "auto reads /etc/os-release.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "sh"]),
    default="text",
    show_default=True,
    help="Commented command list, or a bash script.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (a script gets mode 0755) instead of stdout.",
)
@click.option("--root", type=_ROOT, help="With --distro auto, read DIR/etc/os-release.")
def install_plan_command(
    rocm: str | None, distro: str, fmt: str, output: Path | None, root: Path | None
) -> None:
    """Print the exact commands that install ROCm, its driver and PyTorch. Runs none of them."""
    from rocport._fs import atomic_write
    from rocport.doctor.host import Host
    from rocport.doctor.install_plan import (
        build_plan,
        detect_distro,
        parse_distro,
        render_sh,
        render_text,
    )

    if distro == "auto":
        host = Host(root)
        distro_id, version_id = detect_distro(
            host.read_text("/etc/os-release") or host.read_text("/usr/lib/os-release")
        )
    else:
        distro_id, version_id = parse_distro(distro)
    plan = build_plan(rocm, distro_id, version_id)
    text = render_sh(plan) if fmt == "sh" else render_text(plan)
    if output is None:
        click.echo(text, nl=False)
        return
    atomic_write(output, text, mode=0o755 if fmt == "sh" else 0o644)
    click.echo(f"wrote {output}", err=True)
