"""How fast ``rocport scan`` reads CUDA source: MB of source per second per core.

Scans the port benchmark's generated tree (``benchmarks/corpus.py``, about 21 MB) with every
CUDA rule in one process and reports, from the same run:

- the end-to-end rate (walk, read, decode, blank, all rules) in MB per CPU-second (one core)
  of the first scan in the process (what one ``rocport scan`` run pays: nothing is cached
  yet), and for the text report (what ``rocport scan`` prints) and for JSON/SARIF, which also
  fingerprint every finding; after one warm-up scan each runs ``--repeats`` times, the two
  alternating. The best (fastest) scan is the speed of the code on this CPU and is what the
  goal is judged by, as ``timeit`` advises: slower repeats come from other work on the
  machine, not from the scan (on shared machines they drift by 20% and more). The median is
  shown beside it;
- the same scan with every rule forced on (no triggers or gates), which must give the same
  findings, and the ratio of the two;
- the cost of each stage: reading the files, blanking comments and literals, deciding the
  ``#if`` branches an AMD build compiles (``rocport.scan.preprocessor``), each rule (its
  trigger test, and the rule with the views it builds first where the test lets it run);
- the anchor, in the same run: ``hipify-perl -examine`` (``$ROCPORT_HIPIFY_PERL``, else
  ``.cache/anchors/hipify-perl``) over the same files, its statistics of what a port of each
  file would change, with no output written: one run, CPU seconds of the process, and the
  ratio of the two rates (which a faster or slower machine moves much less than either rate).

Usage: ``python benchmarks/scan_speed.py [--size-mb 21] [--seed 2024] [--repeats 7]
[--json OUT]``. Goal: at least 15 MB/s per core (the scan before the warp model and the `#if`
walk, with fewer rules, had a goal of 20).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from _anchors import hipify_perl, timed  # noqa: E402
from corpus import generate  # noqa: E402

from rocport.scan.context import CudaSource  # noqa: E402
from rocport.scan.engine import (  # noqa: E402
    _cycle_collector_paused,
    iter_files,
    language_of,
    scan_paths,
)
from rocport.scan.preprocessor import AMD  # noqa: E402
from rocport.scan.registry import Language  # noqa: E402
from rocport.scan.rules import RULES  # noqa: E402

GOAL_MB_PER_S = 15.0


def _timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def _rates(tree: Path, rules, size: int, repeats: int) -> tuple[dict, dict, object]:
    """CPU seconds of ``repeats`` scans for the text report and for JSON/SARIF (best and
    median, as MB/s too), after one scan that warms the caches (its CPU seconds are returned
    too: what one ``rocport scan`` run pays); the two alternate, so that a drift of the
    machine's speed reaches both alike."""
    _, _, first = _timed(lambda: scan_paths([tree], rules, fingerprints=False))
    seconds: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(repeats):
        for fingerprints in (False, True):
            report, _, cpu = _timed(
                lambda f=fingerprints: scan_paths([tree], rules, fingerprints=f)
            )
            seconds[fingerprints].append(cpu)
    modes = [
        {
            "cpu_s": times,
            "best_mb_per_cpu_s": size / 1e6 / min(times),
            "median_mb_per_cpu_s": size / 1e6 / statistics.median(times),
        }
        for times in (seconds[False], seconds[True])
    ]
    return modes[0], modes[1], report, first


def anchor_rate(perl: Path, files: list[Path], size: int) -> dict:
    """CPU seconds and MB per CPU-second of one ``hipify-perl -examine`` over ``files``."""
    _, cpu = timed(["perl", str(perl), "-examine", "-quiet-warnings", *map(str, files)])
    return {"tool": "hipify-perl -examine", "cpu_s": cpu, "mb_per_cpu_s": size / 1e6 / cpu}


def measure(tree: Path, perl: Path, repeats: int = 7) -> dict:
    rules = [r for r in RULES if r.language is Language.CUDA]
    files = [p for p in iter_files([tree]) if language_of(p) is Language.CUDA]
    texts, read_wall, read_cpu = _timed(lambda: [p.read_bytes().decode("utf-8") for p in files])
    size = sum(len(t.encode("utf-8")) for t in texts)

    text_mode, full_mode, report, first = _rates(tree, rules, size, repeats)
    forced, _, forced_cpu = _timed(lambda: scan_paths([tree], rules, triggers=False))
    if [f.to_dict() for f in forced.findings] != [f.to_dict() for f in report.findings]:
        raise SystemExit("the scan with triggers differs from the scan with every rule on")

    # stage costs, measured on the texts already in memory
    sources = [CudaSource(str(p), t) for p, t in zip(files, texts, strict=True)]
    with _cycle_collector_paused():
        _, blank_wall, _ = _timed(lambda: [s.code for s in sources])
    branches = AMD.below([tree])
    with _cycle_collector_paused():
        pairs = list(zip(sources, map(str, files), strict=True))
        _, branches_wall, _ = _timed(lambda: [branches.dead(s, path) for s, path in pairs])
    per_rule, ran_on = {}, {}
    for rule in rules:  # each with the collector paused, as during a scan

        def run(rule=rule):
            ran = 0
            for src in sources:
                if not rule.may_fire(src):
                    continue
                ran += 1
                src.rule = rule
                for _ in rule.check(src):
                    pass
            return ran

        with _cycle_collector_paused():
            ran_on[rule.id], per_rule[rule.id], _ = _timed(run)
    return {
        "anchor": anchor_rate(perl, files, size),
        "files": len(files),
        "bytes": size,
        "findings": len(report.findings),
        "repeats": repeats,
        "first_scan_cpu_s": first,
        "first_scan_mb_per_cpu_s": size / 1e6 / first,
        "text_report": text_mode,
        "json_sarif": full_mode,
        "forced_cpu_s": forced_cpu,
        "forced_mb_per_cpu_s": size / 1e6 / forced_cpu,
        "read_s": read_wall,
        "blank_s": blank_wall,
        "branches_s": branches_wall,
        "rules_s": per_rule,
        "rules_files": ran_on,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=21.0)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeats", type=int, default=7, help="scans per mode (best, median)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    try:
        perl = hipify_perl()
    except FileNotFoundError as exc:
        sys.exit(f"scan_speed: {exc}")
    with tempfile.TemporaryDirectory(prefix="rocport-scan-speed-") as tmp:
        tree = Path(tmp) / "tree"
        generate(tree, args.size_mb, args.seed)
        try:
            result = measure(tree, perl, args.repeats)
        except RuntimeError as exc:
            sys.exit(f"scan_speed: {exc}")
    console = Console()
    console.print(
        f"Tree: {result['files']} CUDA files, {result['bytes'] / 1e6:.1f} MB "
        f"(benchmarks/corpus.py, seed {args.seed}); {result['findings']} findings"
    )
    total = min(result["text_report"]["cpu_s"])
    table = Table("stage", "files", "seconds", "share of the text-report scan")
    files = str(result["files"])
    table.add_row(
        "read + decode", files, f"{result['read_s']:.2f}", f"{result['read_s'] / total:.0%}"
    )
    table.add_row(
        "blank comments/literals",
        files,
        f"{result['blank_s']:.2f}",
        f"{result['blank_s'] / total:.0%}",
    )
    table.add_row(
        "#if branches of an AMD build",
        files,
        f"{result['branches_s']:.2f}",
        f"{result['branches_s'] / total:.0%}",
    )
    for rule_id, seconds in sorted(result["rules_s"].items(), key=lambda kv: -kv[1])[:6]:
        table.add_row(
            f"rule {rule_id} (trigger test + rule + views it builds)",
            str(result["rules_files"][rule_id]),
            f"{seconds:.2f}",
            f"{seconds / total:.0%}",
        )
    table.add_row("whole scan, text report (best CPU)", files, f"{total:.2f}", "100%")
    console.print(table)
    for label, key in (("text report", "text_report"), ("JSON/SARIF (fingerprints)", "json_sarif")):
        mode = result[key]
        best, median = mode["best_mb_per_cpu_s"], mode["median_mb_per_cpu_s"]
        console.print(
            f"Scan speed, {label}: best {best:.1f}, median {median:.1f} MB per CPU-second "
            f"(one core, {result['repeats']} scans); goal {GOAL_MB_PER_S:.0f} MB/s: "
            f"{'met' if best >= GOAL_MB_PER_S else 'NOT met'} by the best scan "
            f"({best / GOAL_MB_PER_S:.2f}x the goal; median {median / GOAL_MB_PER_S:.2f}x)"
        )
    console.print(
        f"First scan in this process (text report; what one `rocport scan` run pays, imports "
        f"aside): {result['first_scan_mb_per_cpu_s']:.1f} MB per CPU-second"
    )
    forced_ratio = result["forced_cpu_s"] / min(result["json_sarif"]["cpu_s"])
    console.print(
        f"With every rule forced on (same findings): {result['forced_mb_per_cpu_s']:.1f} MB per "
        f"CPU-second; triggers and gates make the scan {forced_ratio:.2f}x faster"
    )
    anchor = result["anchor"]
    console.print(
        f"Anchor, same run: {anchor['tool']} (what a port of each file would change, nothing "
        f"written) read the tree at {anchor['mb_per_cpu_s']:.2f} MB per CPU-second; the best "
        f"text-report scan is {anchor['cpu_s'] / total:.0f}x as fast"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
