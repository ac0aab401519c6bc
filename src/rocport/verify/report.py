"""The text report of ``rocport verify``: one line per program, then what differs and why."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rocport.verify.model import Status, VerifyReport

_STYLE = {
    Status.SAME: "green",
    Status.DIFFERS: "red",
    Status.BUILD_FAILED: "red",
    Status.RUN_FAILED: "red",
    Status.NOT_JUDGED: "yellow",
    Status.NOT_COVERED: "yellow",
}


def print_report(report: VerifyReport, console: Console) -> None:
    table = Table(show_edge=False)
    for column in ("program", "result", "path", "compared with"):
        table.add_column(column)
    for program in report.programs:
        style = _STYLE[program.status]
        table.add_row(
            escape(program.name),
            f"[{style}]{program.status.value}[/]",
            program.path,
            escape(program.reference),
        )
    console.print(table)
    for program in report.programs:
        lines = []
        if program.reason:
            lines.append(program.reason)
        if program.difference is not None:
            d = program.difference
            lines.append(f"first difference in {d.where()}:")
            lines.append(f"  reference: {d.reference}")
            lines.append(f"  port:      {d.ported}")
        for limit in program.outside_limits:
            lines.append(f"  not judged: kernel {limit.kernel} (line {limit.line}): {limit.reason}")
        if program.unstable:
            lines.append(f"ignored {len(program.unstable)} unstable line(s) of the reference:")
            lines += [f"  {line}" for line in program.unstable[:5]]
        lines += program.notes
        if lines:
            console.print(
                f"[bold]{escape(program.name)}[/]: " + escape("\n".join(lines)), highlight=False
            )
    counts: dict[str, int] = {}
    for program in report.programs:
        counts[program.status.value] = counts.get(program.status.value, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in counts.items())
    console.print(f"{len(report.programs)} program(s): {summary}", highlight=False)
