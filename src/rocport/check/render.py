"""Text output of ``rocport check``: a rich table per unit, then each error with its CUDA origin."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from rocport._printable import markup as escape  # file names may hold escape sequences
from rocport.check.model import CheckReport, Diagnostic, Site, Status
from rocport.check.toolchain import Toolchain

_STYLE = {Status.PASSED: "green", Status.FAILED: "bold red", Status.UNAVAILABLE: "yellow"}


def origin(diag: Diagnostic) -> str | None:
    """``from CUDA a.cu:12 (cudaFree -> hipFree)``, or None when the origin is unknown."""
    if diag.cuda_file is None:
        return None
    if diag.inserted:
        return f"line inserted by the port (no line of {diag.cuda_file})"
    names = [diag.at_column] if diag.at_column else diag.changed
    changes = ", ".join(
        f"{n.cuda} -> {n.hip}" if n.hip else f"{n.cuda} ({n.outcome})" for n in names
    )
    where = f"from CUDA {diag.cuda_file}:{diag.cuda_line}"
    return f"{where} ({changes})" if changes else f"{where} (unchanged by the port)"


def site_text(site: Site) -> str:
    """``in macro CU_CHECK at a.cu:18, CUDA a.cu:18 (cuGetErrorName -> hipGetErrorName)``."""
    what = f"in macro {site.detail}" if site.kind == "macro" else site.detail
    text = f"{what} at {site.file}:{site.line}"
    if site.cuda_line is not None:
        text += f", CUDA {site.cuda_file}:{site.cuda_line}"
    if (n := site.at_column) is not None:
        text += f" ({n.cuda} -> {n.hip})" if n.hip else f" ({n.cuda}: {n.outcome})"
    return text


def print_report(report: CheckReport, console: Console, *, warnings: bool = False) -> None:
    """Per-unit table, the errors (and warnings if asked), and a one-line summary."""
    tc = report.toolchain
    table = Table(
        title=f"hipcc {tc['hip_version']} (ROCm {tc['release']}, clang {tc['clang_version']}, "
        f"{tc['name']}) for {', '.join(report.offload_arch)}",
        title_justify="left",
    )
    for column, justify in (
        ("file", "left"),
        ("status", "left"),
        ("mode", "left"),
        ("errors", "right"),
        ("warnings", "right"),
        ("seconds", "right"),
    ):
        table.add_column(column, justify=justify)
    for unit in report.units:
        table.add_row(
            escape(unit.path),
            f"[{_STYLE[unit.status]}]{unit.status.value}[/]",
            unit.mode.value,
            str(len(unit.errors)),
            str(len(unit.warnings)),
            f"{unit.seconds:.1f}",
        )
    console.print(table)
    for unit in report.units:
        shown = [d for d in unit.diagnostics if d.severity == "error" or warnings]
        if unit.status is Status.UNAVAILABLE:
            console.print(
                f"[yellow]{escape(unit.path)}[/]: not in this toolchain: "
                f"{escape(', '.join(unit.missing_headers))}"
            )
            continue
        for diag in shown:
            where = ":".join(str(p) for p in (diag.file, diag.line, diag.column) if p is not None)
            passes = f" [dim]({', '.join(diag.passes)})[/]" if diag.passes else ""
            label = "red" if diag.severity == "error" else "magenta"
            prefix = f"{escape(where)}: " if where else ""
            console.print(f"{prefix}[{label}]{diag.severity}[/]: {escape(diag.message)}{passes}")
            if (text := origin(diag)) is not None:
                console.print(f"    [cyan]{escape(text)}[/]")
            if (site := diag.site) is not None:
                console.print(f"    [cyan]{escape(site_text(site))}[/]")
    found = sorted({d for unit in report.units for d in unit.include_dirs_found})
    if found:
        console.print(
            "[dim]include folders found in the tree (headers the -I folders did not reach): "
            f"{escape(', '.join(found))}[/]"
        )
    counts = report.counts
    verdict = "[green]all compiled[/]" if report.ok else "[bold red]not all compiled[/]"
    console.print(
        f"{verdict}: {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['unavailable']} unavailable of {counts['units']} units in {report.seconds:.1f} s "
        f"({report.jobs} jobs)"
    )


def print_toolchains(toolchains: list[Toolchain], console: Console) -> None:
    table = Table(title="HIP toolchains found", title_justify="left")
    for column in ("name", "origin", "HIP", "ROCm", "clang", "gfx9 targets"):
        table.add_column(column)
    for tc in toolchains:
        gfx9 = ", ".join(sorted(a for a in tc.offload_archs if a.startswith("gfx9")))
        table.add_row(
            escape(tc.name), tc.origin, tc.hip_version, tc.release, tc.clang_version, gfx9
        )
    console.print(table)
