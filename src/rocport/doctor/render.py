"""Show a doctor report as a rich table or as JSON."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rocport._printable import markup, printable
from rocport.doctor.model import Report, Status

STYLES = {
    Status.PASS: "bold green",
    Status.WARN: "bold yellow",
    Status.FAIL: "bold red",
    Status.SKIP: "dim",
}


def render_table(report: Report, console: Console) -> None:
    table = Table(
        title=f"rocport doctor — ROCm {report.rocm_release} support matrix"
        + (f" — root {markup(str(report.root))}" if report.root else ""),
        show_lines=True,
        expand=False,
    )
    table.add_column("Status", no_wrap=True)
    table.add_column("Check", no_wrap=True)
    table.add_column("Found, and how to fix it")
    for r in report.results:
        # what was found comes from the examined machine (os-release, tool output): escape
        # sequences and other controls in it are shown escaped, never sent to the terminal
        cell = Text(printable(r.found))
        if r.fix and r.status in (Status.WARN, Status.FAIL):
            cell.append("\nfix: ", style="bold cyan").append(printable(r.fix), style="cyan")
        table.add_row(
            Text(r.status.value.upper(), style=STYLES[r.status]), Text(printable(r.id)), cell
        )
    console.print(table)
    counts = report.counts()
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    verdict = "not ready: fix the FAIL rows" if report.failed else "no failures"
    console.print(f"{summary} — {verdict}")


def render_json(report: Report, version: str) -> str:
    return json.dumps(report.to_dict(version), indent=2, ensure_ascii=False)
