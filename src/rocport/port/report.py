"""Reports of ``rocport port``: a rich text summary, JSON and CSV.

- JSON: the whole :class:`TreeReport` (``"schema": 1``), every file with its counts per API
  family and each reference that was not translated (file:line:column, CUDA name, note);
- CSV: one row per file and API family (a file without CUDA references gets one row with an
  empty family), ready for a spreadsheet's pivot table;
- text: totals, the files with the most references, the families, and the references that were
  not translated, each list cut to a readable length with a count of what was left out.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from rocport import __version__, _json
from rocport._fs import atomic_write
from rocport._printable import markup, printable
from rocport.port.mapping import available_releases
from rocport.port.model import FileReport, FileStatus, TreeReport, total_counts
from rocport.port.releases import target

SCHEMA = 1
CSV_FIELDS = (
    "path",
    "kind",
    "status",
    "output",
    "written",
    "converted",
    "compiled",
    "family",
    "found",
    "translated",
    "unsupported",
    "unknown",
)
_COUNT_KEYS = ("found", "translated", "unsupported", "unknown")


def _release(rocm: str | None) -> dict[str, str | None]:
    """The release the port used and where its facts came from (rocport.port.releases)."""
    return target(rocm, available_releases()[-1])


def to_dict(report: TreeReport) -> dict:
    """The JSON document of a report."""
    options = report.options
    files = [f.to_dict() for f in report.files]
    return {
        "schema": SCHEMA,
        "tool": "rocport",
        "version": __version__,
        "source": report.source,
        "output": report.output,
        "mode": report.mode,
        "options": {
            "rocm": options.rocm,
            "blas": options.blas,
            "launch": options.launch,
            "warp_sync": options.warp_sync,
            "offload_arch": list(options.offload_arch),
            "names": dict(options.extra_names),
            "local_names": sorted(options.local_names),
        },
        "release": _release(options.rocm),
        "jobs": report.jobs,
        "seconds": round(report.seconds, 4),
        "check": report.check,
        "totals": {
            "files": len(files),
            "converted": sum(f["converted"] for f in files),
            "written": sum(f.written for f in report.files),
            "statuses": report.statuses,
            "counts": total_counts(f["counts"] for f in files),
            "families": report.families,
        },
        "files": files,
    }


def _emit(text: str, destination: str | Path) -> None:
    if str(destination) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        atomic_write(Path(destination), text)


def write_json(report: TreeReport, destination: str | Path) -> None:
    """Write the JSON report to a file (atomically), or to stdout for ``-``."""
    _emit(_json.dumps(to_dict(report), inline_from=3) + "\n", destination)


def csv_rows(report: TreeReport) -> list[dict]:
    rows = []
    for file in report.files:
        common = {
            "path": file.path,
            "kind": file.kind,
            "status": file.status.value,
            "output": file.output or "",
            "written": int(file.written),
            "converted": int(file.converted),
            "compiled": "" if file.compiled is None else int(file.compiled),
        }
        families = sorted(file.families.items()) or [("", dict.fromkeys(_COUNT_KEYS, 0))]
        for family, counts in families:
            rows.append({**common, "family": family, **{k: counts[k] for k in _COUNT_KEYS}})
    return rows


def write_csv(report: TreeReport, destination: str | Path) -> None:
    """Write the CSV report to a file (atomically), or to stdout for ``-``."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_rows(report))
    _emit(buffer.getvalue(), destination)


# -- text --------------------------------------------------------------------------------------

_STATUS_STYLE = {
    FileStatus.TRANSLATED: "green",
    FileStatus.UNCHANGED: "dim",
    FileStatus.ALREADY_HIP: "dim",
    FileStatus.COPIED: "dim",
    FileStatus.EXCLUDED: "yellow",
    FileStatus.BINARY: "yellow",
    FileStatus.SYMLINK: "dim",
    FileStatus.SKIPPED: "yellow",
    FileStatus.ADDED: "cyan",
}


def _written(file: FileReport, mode: str) -> str:
    if mode == "examine":
        return "-"
    if file.written:
        return "written"
    return "same" if file.on_disk else "-"


def _state(file: FileReport, counts: dict[str, int]) -> Text:
    if file.compiled is False:
        return Text("does not compile", style="bold red")
    if file.converted_with(counts):
        return Text("converted", style="green")
    if counts["unsupported"] or counts["unknown"]:
        return Text("partial", style="yellow")
    if file.partial_include:
        return Text(f"partial: includes {file.partial_include}", style="yellow")
    if file.status is FileStatus.TRANSLATED and not file.on_disk:
        return Text("not written", style="yellow")
    return Text(file.status.value, style=_STATUS_STYLE[file.status])


def _more(console: Console, left: int, what: str) -> None:
    if left > 0:
        console.print(f"  … and {left} more {what} (see --json or --csv for all)", style="dim")


def render(report: TreeReport, console: Console, *, top: int = 20, max_issues: int = 50) -> None:
    """Print the text report: totals, top files, API families and the untranslated uses."""
    files = report.files
    file_counts = [f.counts for f in files]  # summed once: the lists below all use them
    counts = total_counts(file_counts)
    where = f"{report.source} → {report.output}" if report.output else report.source
    where = markup(where)
    mode = "examine: nothing written" if report.mode == "examine" else report.mode
    console.print(
        f"[bold]rocport port[/bold] {where} ({mode}; {len(files)} files, "
        f"{report.seconds:.2f} s, {report.jobs} job{'s' if report.jobs != 1 else ''})"
    )
    statuses = ", ".join(f"{n} {name}" for name, n in report.statuses.items() if n)
    converted = sum(map(FileReport.converted_with, files, file_counts))
    written = sum(f.written for f in files)
    release = _release(report.options.rocm)
    note = f"; {release['note']}" if release["note"] else ""
    console.print(f"  target: {release['text']}{note}")
    console.print(f"  files: {statuses or 'none'}; {converted} fully converted, {written} written")
    console.print(
        f"  CUDA references: {counts['found']} found, {counts['translated']} translated, "
        f"[{'red' if counts['unsupported'] else 'green'}]{counts['unsupported']} unsupported[/], "
        f"[{'yellow' if counts['unknown'] else 'green'}]{counts['unknown']} unknown[/]"
    )

    if report.check is not None:
        tool = report.check["toolchain"]
        unit_counts = report.check["counts"]
        summary = ", ".join(f"{n} {k}" for k, n in unit_counts.items() if k != "units" and n)
        console.print(
            f"  check: {unit_counts.get('units', 0)} translation units "
            f"({summary or 'none compiled'}) "
            f"with HIP {tool.get('release', '?')} for {', '.join(report.check['offload_arch'])}"
        )

    with_refs = sorted(
        ((f, c) for f, c in zip(files, file_counts, strict=True) if f.families),
        key=lambda fc: (-fc[1]["found"], fc[0].path),
    )
    if with_refs:
        table = Table(title="Files with CUDA references", title_justify="left", box=None)
        table.add_column("file", overflow="fold")
        for key in _COUNT_KEYS:
            table.add_column(key, justify="right")
        table.add_column("result")
        table.add_column("output")
        for file, c in with_refs[:top]:
            table.add_row(
                Text(printable(file.path)),
                *(str(c[k]) for k in _COUNT_KEYS),
                _state(file, c),
                _written(file, report.mode),
            )
        console.print(table)
        _more(console, len(with_refs) - top, "files")

    families = report.families
    if families:
        table = Table(title="API families", title_justify="left", box=None)
        table.add_column("family")
        for key in _COUNT_KEYS:
            table.add_column(key, justify="right")
        for name, c in families.items():
            table.add_row(name, *(str(c[k]) for k in _COUNT_KEYS))
        console.print(table)

    issues = report.issues
    if issues:
        table = Table(title="Not translated", title_justify="left", box=None)
        table.add_column("location", no_wrap=True)
        table.add_column("CUDA name", overflow="fold")
        table.add_column("outcome", no_wrap=True)
        table.add_column("note", overflow="ellipsis", no_wrap=True)
        for file, ref in issues[:max_issues]:
            style = "red" if ref.outcome.value == "unsupported" else "yellow"
            table.add_row(
                Text(printable(f"{file.path}:{ref.line}:{ref.column}")),
                Text(ref.name),
                Text(ref.outcome.value, style=style),
                Text(ref.note or ""),
            )
        console.print(table)
        _more(console, len(issues) - max_issues, "uses")

    untouched = [
        f
        for f in files
        if f.status in (FileStatus.BINARY, FileStatus.SKIPPED)
        or (f.kind == "build" and f.status is FileStatus.COPIED)
        or (f.status is FileStatus.TRANSLATED and f.message)
    ]
    for file in untouched[:top]:
        console.print(f"  [yellow]{markup(file.path)}[/]: {markup(file.message or '')}")
    _more(console, len(untouched) - top, "files copied, skipped or left as they are")
    _backups(report, console)

    for file in report.failed_checks[:top]:
        message = markup(file.check_message or "")
        console.print(f"  [bold red]{markup(file.path)}[/]: does not compile: {message}")
    _more(console, len(report.failed_checks) - top, "files that do not compile")


def _backups(report: TreeReport, console: Console) -> None:
    """Where the originals of an in-place port are: FILE.orig, or FILE.orig.N when an earlier
    backup holds other bytes (a backup is never overwritten)."""
    backups = [f.backup for f in report.files if f.backup]
    if not backups:
        return
    numbered = [b for b in backups if not b.endswith(".orig")]
    plural = "s" if len(backups) != 1 else ""
    line = f"  backups: {len(backups)} original{plural} kept as FILE.orig"
    if numbered:
        first = markup(numbered[0])
        line += (
            f"; {len(numbered)} numbered FILE.orig.N instead (e.g. {first}) because "
            "FILE.orig already held other bytes"
        )
    console.print(line)
