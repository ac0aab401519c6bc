"""Port speed: rocport vs hipify-perl vs torch's hipify on one generated CUDA tree, in one run.

Each tool translates the same tree (``benchmarks/corpus.py``, about 21 MB):

- rocport: ``python -m rocport port CORPUS -o OUT --jobs 2``, and with ``--jobs 1``
  (MB/s per core); the wall time includes the interpreter start. rocport's modules are
  compiled to bytecode first, as ``pip install`` does and as torch's are (a checkout run under
  ``PYTHONDONTWRITEBYTECODE`` would compile them again at every start);
- hipify-perl (``$ROCPORT_HIPIFY_PERL``, else ``.cache/anchors/hipify-perl``): one call with
  every source file, ``-inplace -quiet-warnings`` on a copy of the tree (copy not timed);
- ``torch.utils.hipify.hipify_python.hipify(CORPUS, output_directory=OUT)``: only the call is
  timed (``import torch`` is not), in a fresh interpreter.

Wall and CPU seconds are both reported: on a shared machine the wall time depends on the load,
the CPU time (user + system, summed over worker processes) much less. ``rocport --jobs 1`` and
torch's hipify run ``--repeats`` times, alternating, each into a new folder; the table shows each
tool's best run (fewest CPU seconds, as ``timeit`` advises), and the ratio of the two is given
for the best runs and for the medians. Both tools create a file per input, and the system time
of a file creation varies several-fold from run to run on some file systems (see
``docs/benchmarks.md``): one run each would compare the machine's moods, not the tools.

Then every tool's output is scanned the same way: rocport's lexer finds the identifiers in code
(not in comments, strings or ``#include`` lines) and the mapping's ``is_cuda_like`` decides which
still look like CUDA (see :class:`Leftovers` for the two exceptions); ``#include`` lines naming
a CUDA header that has a HIP counterpart are counted apart.

Usage: ``python benchmarks/port_speed.py [--size-mb 21] [--seed 2024] [--repeats 3]
[--workdir DIR]``.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

import rocport

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _anchors  # noqa: E402
from corpus import generate  # noqa: E402

from rocport.lexer import compile_scanner  # noqa: E402
from rocport.port.mapping import load_mapping  # noqa: E402
from rocport.port.tree import SOURCE_SUFFIXES  # noqa: E402

TORCH_RUN = """
import json, sys, time
from torch.utils.hipify.hipify_python import hipify
start, cpu = time.perf_counter(), time.process_time()
result = hipify(project_directory=sys.argv[1], output_directory=sys.argv[2], show_progress=False)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
files = {path: (r.hipified_path or path) for path, r in result.items()}
json.dump({"seconds": seconds, "cpu": cpu, "files": files}, open(sys.argv[3], "w"))
"""


def sources(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES)


def timed(argv: list[str]) -> tuple[float, float]:
    """:func:`_anchors.timed`, ending the benchmark where the command fails."""
    try:
        return _anchors.timed(argv)
    except RuntimeError as exc:
        sys.exit(f"port_speed: {exc}")


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)


class Leftovers:
    """Counts the CUDA identifiers and CUDA ``#include``s left in code, the same way for every tool.

    Not counted: names that HIP keeps as they are (the mapping's entry maps the name to itself,
    e.g. ``__shfl_down_sync``, the NCCL names of RCCL), and macros the tree defines itself
    (``CUDA_CHECK``): those are the project's names, not API references.
    """

    def __init__(self, tree: list[Path]) -> None:
        self.mapping = load_mapping()
        self.scanner = compile_scanner()
        self.own = {
            name for path in tree for name in _DEFINE.findall(path.read_text(encoding="utf-8"))
        }

    def left(self, name: str) -> bool:
        if name in self.own or not self.mapping.is_cuda_like(name):
            return False
        entry = self.mapping.lookup(name)
        return entry is None or entry.hip != name

    def count(self, files: list[Path]) -> tuple[Counter[str], int]:
        names: Counter[str] = Counter()
        includes = 0
        left, include = self.left, self.mapping.include
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in self.scanner.finditer(text):
                kind = match.lastgroup
                if kind == "ident":
                    name = match.group()
                    if left(name):
                        names[name] += 1
                elif kind == "include":
                    header = match.group("ipath")[1:-1]
                    entry = include(header)
                    if entry is not None and entry.hip != header:
                        includes += 1
        return names, includes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=21.0)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of rocport --jobs 1 and torch, alternating"
    )
    parser.add_argument(
        "--workdir", type=Path, help="keep the trees here (default: a temporary folder)"
    )
    args = parser.parse_args()
    try:
        perl_path = _anchors.hipify_perl()
    except FileNotFoundError as exc:
        sys.exit(f"port_speed: {exc}")
    console = Console(width=150)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="rocport-port-speed-"))
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    corpus = work / "corpus"
    nfiles, _ = generate(corpus, args.size_mb, args.seed)
    inputs = sources(corpus)
    megabytes = sum(p.stat().st_size for p in inputs) / 1e6
    console.print(
        f"corpus: {len(inputs)} source files ({nfiles} generated), {megabytes:.1f} MB, "
        f"seed {args.seed}"
    )

    compileall.compile_dir(Path(rocport.__file__).parent, quiet=1)  # as pip install does
    runs: dict[str, tuple[float, float]] = {}  # tool -> (wall s, CPU s) of its best run
    cpus: dict[str, list[float]] = {}  # tool -> CPU s of each run
    outputs: dict[str, list[Path]] = {}

    def rocport_run(jobs: int, out: Path) -> tuple[float, float]:
        return timed(
            [sys.executable, "-m", "rocport", "port", str(corpus), "-o", str(out),
             "--jobs", str(jobs), "--json", f"{out}.json"]
        )  # fmt: skip

    def torch_run(out: Path) -> tuple[float, float]:
        result_json = out.with_suffix(".json")
        timed([sys.executable, "-c", TORCH_RUN, str(corpus), str(out), str(result_json)])
        result = json.loads(result_json.read_text())
        if "torch hipify" not in outputs:
            outputs["torch hipify"] = sorted(
                Path(p)
                for p in result["files"].values()
                if Path(p).suffix in (*SOURCE_SUFFIXES, ".hip")
            )
        return result["seconds"], result["cpu"]

    def record(tool: str, run: tuple[float, float]) -> None:
        cpus.setdefault(tool, []).append(run[1])
        if tool not in runs or run[1] < runs[tool][1]:
            runs[tool] = run
        console.print(f"{tool}: {run[0]:.1f} s, {run[1]:.2f} CPU s")

    record("rocport --jobs 2", rocport_run(2, work / "rocport-j2"))
    outputs["rocport --jobs 2"] = [work / "rocport-j2" / p.relative_to(corpus) for p in inputs]
    # rocport --jobs 1 and torch's hipify alternate, each into a new folder (nothing is deleted
    # meanwhile: see docs/benchmarks.md on file creation after deletes)
    for repeat in range(args.repeats):
        record("rocport --jobs 1", rocport_run(1, work / f"rocport-j1-{repeat}"))
        record("torch hipify", torch_run(work / f"torch-{repeat}"))
    outputs["rocport --jobs 1"] = [work / "rocport-j1-0" / p.relative_to(corpus) for p in inputs]

    differ = [
        a for a, b in zip(outputs["rocport --jobs 2"], outputs["rocport --jobs 1"], strict=True)
        if a.read_bytes() != b.read_bytes()
    ]  # fmt: skip
    if differ:
        console.print(f"[red]warning: --jobs 2 and --jobs 1 outputs differ in {len(differ)} files")

    perl_tree = work / "hipify-perl"
    shutil.copytree(corpus, perl_tree)
    perl_files = [perl_tree / p.relative_to(corpus) for p in inputs]
    record(
        "hipify-perl",
        timed(["perl", str(perl_path), "-inplace", "-quiet-warnings", *map(str, perl_files)]),
    )
    outputs["hipify-perl"] = perl_files
    runs = {tool: runs[tool] for tool in ("rocport --jobs 2", "rocport --jobs 1", "hipify-perl",
                                          "torch hipify")}  # fmt: skip

    leftovers = Leftovers(inputs)
    before, before_includes = leftovers.count(inputs)
    perl = runs["hipify-perl"][0]
    title = f"Translating {megabytes:.1f} MB of CUDA ({len(inputs)} files)"
    table = Table(title=title, title_justify="left")
    columns = ("tool", "wall s", "CPU s", "MB/s", "MB per CPU s", "time / hipify-perl",
               "CUDA identifiers left", "CUDA #includes left")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "tool" else "right")
    table.add_row("(input)", "", "", "", "", "", f"{sum(before.values())}", f"{before_includes}")
    worst: dict[str, list[tuple[str, int]]] = {}
    for tool, (seconds, cpu) in runs.items():
        names, includes = leftovers.count(outputs[tool])
        worst[tool] = names.most_common(5)
        table.add_row(
            tool, f"{seconds:.1f}", f"{cpu:.1f}", f"{megabytes / seconds:.2f}",
            f"{megabytes / cpu:.2f}", f"{seconds / perl:.3f}", f"{sum(names.values())}",
            f"{includes}",
        )  # fmt: skip
    console.print(table)
    for tool, names in worst.items():
        console.print(f"  most left by {tool}: " + ", ".join(f"{n} ({c})" for n, c in names))
    ours, theirs = cpus["rocport --jobs 1"], cpus["torch hipify"]
    console.print(
        f"torch hipify / rocport --jobs 1, CPU s: {min(theirs) / min(ours):.2f}x (best runs), "
        f"{statistics.median(theirs) / statistics.median(ours):.2f}x (medians of "
        f"{len(ours)}); rocport --jobs 1 CPU s: {', '.join(f'{c:.2f}' for c in ours)}; torch: "
        f"{', '.join(f'{c:.2f}' for c in theirs)}"
    )
    console.print(
        f"hipify-perl / rocport --jobs 2: {perl / runs['rocport --jobs 2'][0]:.1f}x the time; "
        f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    if args.workdir is None:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
