"""Compiles per ROCm release: CUDA samples ported by rocport and by hipify-perl, then compiled.

The samples (``examples/cuda`` and ``tests/check/samples``) are ported by ``rocport port`` once
per target release (``--rocm 5.2`` and ``--rocm 6.4``) and by hipify-perl once (it has no release
option), and every port is compiled with ``rocport check`` in the same run:

- ROCm 5.2 = Debian 12's hipcc (HIP 5.2.3, clang 15) for gfx90a;
- ROCm 6.4 = the Debian sid root's hipcc 7.0 (HIP 6.4.3, clang 21) for gfx90a and gfx942.

hipify-perl's output is compiled with both toolchains; its count is the anchor. A sample that
includes a library the toolchain does not have (no hipBLAS, hipFFT, hipCUB or rocThrust in the
Debian 12 packages) is "unavailable" for that release, not counted as compiling or failing.

    python3 benchmarks/release_matrix.py [--jobs N] [--json FILE] [--markdown FILE]

``--markdown`` replaces the ``## Compiles per ROCm release`` section of that file.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rocport._fs import atomic_write
from rocport.check import CheckReport, Status, UnitResult, check_tree, find_toolchain, find_units

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _anchors import hipify_perl  # noqa: E402
from _markdown import check_outputs, write_section  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DIRS = {
    "examples": REPO / "examples" / "cuda",
    "check-samples": REPO / "tests" / "check" / "samples",
}
#: release -> GPU targets its compiler is asked for
RELEASES = {"5.2": ("gfx90a",), "6.4": ("gfx90a", "gfx942")}
HEADING = "## Compiles per ROCm release"
_SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp", ".hh", ".inl"}


def gather_samples(into: Path) -> Path:
    """Copy every sample folder under ``into/<name>``; return ``into``."""
    for name, folder in SAMPLE_DIRS.items():
        if folder.is_dir():
            shutil.copytree(folder, into / name, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    return into


def port_with_rocport(cuda: Path, out: Path, release: str) -> None:
    from rocport.port.api import port_tree
    from rocport.port.model import PortOptions

    port_tree(cuda, out, options=PortOptions(rocm=release))


def port_with_hipify(cuda: Path, out: Path, hipify: Path) -> None:
    """hipify-perl each source file (it translates one file per call); copy the rest."""
    for path in sorted(p for p in cuda.rglob("*") if p.is_file()):
        dest = out / path.relative_to(cuda)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix in _SOURCE_SUFFIXES:
            proc = subprocess.run(
                ["perl", str(hipify), "-quiet-warnings", str(path)],
                capture_output=True,
                text=True,
                check=True,
            )
            dest.write_text(proc.stdout)
        else:
            shutil.copy2(path, dest)


@dataclass
class Column:
    """One tool's port compiled with one release's toolchain."""

    tool: str
    release: str
    archs: tuple[str, ...]
    report: CheckReport | None = None
    reused: int = 0  # units whose port was byte-identical to rocport's: result shared
    units: dict[str, UnitResult] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.tool} → ROCm {self.release}"

    def count(self, status: Status) -> int:
        return sum(u.status is status for u in self.units.values())


def _same_inputs(a: Path, b: Path, rel: str) -> bool:
    """Unit ``rel`` and every header beside it are byte-identical in trees ``a`` and ``b``."""
    folder = Path(rel).parent
    names = {p.name for t in (a, b) for p in (t / folder).iterdir() if p.is_file()}
    for name in names:
        pa, pb = a / folder / name, b / folder / name
        if (pa.suffix in _SOURCE_SUFFIXES or name == Path(rel).name) and (
            not pa.is_file() or not pb.is_file() or pa.read_bytes() != pb.read_bytes()
        ):
            return False
    return True


def run_matrix(work: Path, *, jobs: int | None = None, log=print) -> tuple[list[str], list[Column]]:
    """Port the samples every way and compile each port; return (units, columns)."""
    cuda = gather_samples(work / "cuda")
    hipify = hipify_perl()
    toolchains = {release: find_toolchain(rocm=release) for release in RELEASES}
    trees = {("hipify-perl", None): work / "hipify-perl"}
    started = time.perf_counter()
    port_with_hipify(cuda, trees[("hipify-perl", None)], hipify)
    for release in RELEASES:
        trees[("rocport", release)] = work / f"rocport-{release}"
        port_with_rocport(cuda, trees[("rocport", release)], release)
    log(f"ported {len(find_units(cuda))} samples 3 ways in {time.perf_counter() - started:.1f} s")
    units = find_units(cuda)
    columns = []
    for release, archs in RELEASES.items():
        ours = Column("rocport", release, archs)
        ours.report = check_tree(
            trees[("rocport", release)],
            toolchain=toolchains[release],
            offload_arch=archs,
            jobs=jobs,
            cuda_root=cuda,
        )
        ours.units = {u.path: u for u in ours.report.units}
        anchor = Column("hipify-perl", release, archs)
        tree = trees[("hipify-perl", None)]
        fresh = [u for u in units if not _same_inputs(tree, trees[("rocport", release)], u)]
        anchor.units = {u: ours.units[u] for u in units if u not in fresh}
        anchor.reused = len(anchor.units)
        if fresh:
            anchor.report = check_tree(
                tree,
                toolchain=toolchains[release],
                offload_arch=archs,
                jobs=jobs,
                units=fresh,
                cuda_root=cuda,
            )
            anchor.units.update({u.path: u for u in anchor.report.units})
        for column in (ours, anchor):
            seconds = column.report.seconds if column.report else 0.0
            log(
                f"{column.label}: {column.count(Status.PASSED)}/{len(units)} compile "
                f"({seconds:.0f} s, {column.reused} shared with rocport)"
            )
        columns += [ours, anchor]
    return units, columns


_MARK = {Status.PASSED: "✓", Status.FAILED: "✗", Status.UNAVAILABLE: "n/a"}


def markdown(units: list[str], columns: list[Column], toolchains: dict[str, str]) -> str:
    """The section for docs/benchmarks.md: totals, then one row per sample."""
    lines = [
        HEADING,
        "",
        "The project's CUDA samples (`examples/cuda`, `tests/check/samples`) ported by "
        "`rocport port --rocm RELEASE` and by hipify-perl 7.0.2 (the anchor; it has no release "
        "option), each port "
        "compiled by `rocport check` (`hipcc -x hip -c -std=c++17`) in one run of "
        "`python3 benchmarks/release_matrix.py`. Toolchains: "
        + "; ".join(f"ROCm {r}: {t}" for r, t in toolchains.items())
        + ". "
        "*n/a*: the sample includes a library that the toolchain does not have (the Debian 12 "
        "packages have no hipBLAS, hipFFT, hipCUB or rocThrust), so it proves nothing either way.",
        "",
        "| port → toolchain | GPU targets | compile | fail | n/a | of |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for c in columns:
        lines.append(
            f"| {c.label} | {', '.join(c.archs)} | **{c.count(Status.PASSED)}** | "
            f"{c.count(Status.FAILED)} | {c.count(Status.UNAVAILABLE)} | {len(units)} |"
        )
    lines += [
        "",
        "| sample | " + " | ".join(c.label for c in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for unit in units:
        cells = [_MARK[c.units[unit].status] for c in columns]
        lines.append(f"| `{unit}` | " + " | ".join(cells) + " |")
    failures = [
        (c, c.units[u])
        for c in columns
        if c.tool == "rocport"
        for u in units
        if c.units[u].status is Status.FAILED
    ]
    if failures:
        lines += ["", "First error of each rocport port that does not compile:", ""]
        for column, unit in failures:
            error = unit.errors[0] if unit.errors else None
            text = f"`{error.file}:{error.line}`: {error.message}" if error else "no diagnostic"
            lines.append(f"- ROCm {column.release}, `{unit.path}`: {text.replace('|', '/')}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=None, help="parallel compiles (default: CPUs)")
    parser.add_argument("--json", type=Path, help="write every unit's result to this file")
    parser.add_argument("--markdown", type=Path, help="replace the section in this Markdown file")
    args = parser.parse_args(argv)
    check_outputs(parser, args.json, args.markdown)
    from rich.console import Console
    from rich.table import Table

    with tempfile.TemporaryDirectory(prefix="rocport-matrix-", dir="/tmp") as tmp:
        started = time.perf_counter()
        units, columns = run_matrix(
            Path(tmp), jobs=args.jobs, log=lambda m: print(m, file=sys.stderr)
        )
        seconds = time.perf_counter() - started
    table = Table(title=f"Files compiling per tool and ROCm release ({seconds:.0f} s)")
    table.add_column("sample", no_wrap=True)
    for column in columns:
        table.add_column(column.label, justify="center")
    for unit in units:
        table.add_row(unit, *(_MARK[c.units[unit].status] for c in columns))
    table.add_row(
        "[bold]compile", *(f"[bold]{c.count(Status.PASSED)}/{len(units)}" for c in columns)
    )
    Console().print(table)
    toolchains = {}
    for c in columns:
        if c.report is not None:
            tc = c.report.toolchain
            toolchains[c.release] = (
                f"hipcc {tc['hip_version']}, clang {tc['clang_version']} ({tc['name']})"
            )
    if args.json:
        data = {
            "seconds": round(seconds, 1),
            "units": units,
            "columns": [
                {
                    "tool": c.tool,
                    "release": c.release,
                    "offload_arch": list(c.archs),
                    "units": {u: c.units[u].to_dict() for u in units},
                }
                for c in columns
            ],
        }
        atomic_write(args.json, json.dumps(data, indent=2) + "\n")
    if args.markdown:
        write_section(args.markdown, markdown(units, columns, toolchains))
    ours = [c for c in columns if c.tool == "rocport"]
    return 0 if all(c.count(Status.FAILED) == 0 for c in ours) else 1


if __name__ == "__main__":
    sys.exit(main())
