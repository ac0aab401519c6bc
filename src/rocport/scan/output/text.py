"""Human-readable report: one rich table per file, then a summary line."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rocport._printable import printable
from rocport.scan.engine import ScanReport

_STYLE = {"error": "bold red", "warning": "yellow", "note": "cyan"}


def render(report: ScanReport, console: Console, *, show_fixes: bool = True) -> None:
    """Print the findings grouped by file, the notes and a summary."""
    findings = sorted(
        report.findings, key=lambda f: (f.location.path, f.location.line, f.location.column, f.rule)
    )
    for path, group in groupby(findings, key=lambda f: f.location.path):
        table = Table(
            title=Text(printable(path), style="bold"),
            title_justify="left",
            show_lines=False,
            expand=False,
            pad_edge=False,
        )
        table.add_column("line:col", justify="right", no_wrap=True)
        table.add_column("rule", no_wrap=True)
        table.add_column("severity", no_wrap=True)
        table.add_column("message")
        if show_fixes:
            table.add_column("fix")
        for finding in group:
            label = finding.severity.label
            row = [
                f"{finding.location.line}:{finding.location.column}",
                finding.rule,
                Text(label, style=_STYLE[label]),
                Text(finding.message),
            ]
            if show_fixes:
                fix = finding.fix
                row.append(
                    Text(
                        ""
                        if fix is None
                        else f"{fix.title} ({fix.applicability.value})"
                        if fix.edits
                        else fix.title
                    )
                )
            table.add_row(*row)
        console.print(table)
    for note in report.notes:
        console.print(Text(printable(f"{note.path}: {note.message}"), style="dim"))
    counts = report.counts()
    if report.findings:
        parts = ", ".join(
            f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}"
            for s in ("error", "warning", "note")
            if counts[s]
        )
        console.print(
            f"Found {len(report.findings)} finding"
            f"{'s' if len(report.findings) != 1 else ''} ({parts}) in {report.files} "
            f"file{'s' if report.files != 1 else ''}."
        )
    else:
        console.print(f"No findings in {report.files} file{'s' if report.files != 1 else ''}.")
    if report.outside_build:
        count = report.outside_build
        console.print(
            f"{count} C/C++/CUDA file{'s' if count != 1 else ''} not in the AMD build "
            "(compile_commands.json): not scanned as AMD code."
        )
