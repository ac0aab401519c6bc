"""Reviewed findings of ``rocport scan`` on real trees, and its recall against a real port.

Scans ggml's CUDA backend and llm.c from the corpus (``../shared/corpus``, or
``$ROCPORT_CORPUS``) with ``rocport scan`` as a user runs it, and joins every error and
warning finding with its verdict in ``benchmarks/data/scan_review.json``: true or false
positive, and why. A verdict is keyed by tree, file, rule, the finding's line text (blanks
collapsed) and, where that line text repeats, its occurrence, so that it survives edits
elsewhere in the file. Prints, per tree, the precision of errors and warnings (true / all) and
the table of findings.

Recall: llm.c-amd, a community ROCm port of the same llm.c, shows which llm.c lines had to
change for 64-lane wavefronts. The data file lists those spots (each with why, checked here
against a diff of the two trees, or against the HIP layer header that replaced them) and
classifies every other difference of the two trees' sources, so that no warp-related edit is
left out; recall is the share of spots that the scan reports on the spot's line.

Usage: ``python benchmarks/scan_review.py [--write] [--stubs] [--json OUT]``. ``--write``
puts the tables into ``docs/scan.md`` (the section after the rule reference); ``--stubs``
prints a data row for each finding without a verdict, to review and add.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("ROCPORT_CORPUS", REPO.parent / "shared" / "corpus"))
DATA = REPO / "benchmarks" / "data" / "scan_review.json"
DOCS = REPO / "docs" / "scan.md"
#: precision of errors and warnings each tree must reach
GOAL = 0.90
SOURCE_SUFFIXES = (".h", ".hpp", ".cuh", ".cu", ".cpp", ".c", ".cc")

sys.path.insert(0, str(REPO / "src"))
from rocport.scan.docgen import REVIEW_MARKER, split  # noqa: E402


def _norm(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Finding:
    tree: str
    file: str
    line: int
    rule: str
    severity: str
    message: str
    text: str
    n: int = 1

    @property
    def key(self) -> tuple:
        return (self.tree, self.file, self.rule, self.text, self.n)


@dataclass
class TreeReview:
    name: str
    folder: str
    #: errors and warnings, which are reviewed
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)
    verdicts: dict[tuple, dict] = field(default_factory=dict)

    @property
    def missing(self) -> list[Finding]:
        return [f for f in self.findings if f.key not in self.verdicts]

    def counts(self) -> tuple[int, int]:
        """(true positives, false positives) among the reviewed findings."""
        verdicts = [self.verdicts[f.key]["verdict"] for f in self.findings if f.key in self]
        return verdicts.count("true"), verdicts.count("false")

    def __contains__(self, key: tuple) -> bool:
        return key in self.verdicts

    @property
    def precision(self) -> float:
        true, false = self.counts()
        return true / (true + false) if true + false else 1.0


def load_data(path: Path = DATA) -> dict:
    return json.loads(path.read_text("utf-8"))


def scan_tree(tree: str, root: Path, args: list[str]) -> list[Finding]:
    """The findings of ``rocport scan`` run in ``root`` (the checkout's rocport, paths
    relative to the tree); occurrences are counted among errors and warnings."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    with tempfile.TemporaryDirectory(prefix="rocport-review-") as tmp:
        out = Path(tmp) / "report.json"
        command = [sys.executable, "-c", "from rocport.cli.main import main; main()", "scan"]
        command += [".", "--format", "json", "-o", str(out), "-j", "1", *args]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        if done.returncode not in (0, 1) or not out.exists():
            raise SystemExit(f"rocport scan failed in {root}: {done.stderr.strip()[-2000:]}")
        report = json.loads(out.read_text("utf-8"))
    lines: dict[str, list[str]] = {}
    seen: Counter = Counter()
    found = []
    for item in report["findings"]:
        path = item["path"].removeprefix("./")
        if path not in lines:
            lines[path] = (root / path).read_text("utf-8", "replace").splitlines()
        text = _norm(lines[path][item["line"] - 1])
        if item["severity"] in ("error", "warning"):
            seen[(path, item["rule"], text)] += 1
        found.append(
            Finding(
                tree,
                path,
                item["line"],
                item["rule"],
                item["severity"],
                item["message"],
                text,
                seen[(path, item["rule"], text)],
            )
        )
    return found


def review(data: dict, corpus: Path = CORPUS) -> list[TreeReview]:
    reviews = []
    for name, tree in data["trees"].items():
        entry = TreeReview(name, tree["folder"])
        found = scan_tree(name, corpus / tree["folder"], tree.get("scan_args", []))
        entry.findings = [f for f in found if f.severity != "note"]
        entry.notes = [f for f in found if f.severity == "note"]
        for row in data["verdicts"]:
            if row["tree"] == name:
                key = (name, row["file"], row["rule"], _norm(row["text"]), row.get("n", 1))
                entry.verdicts[key] = row
        reviews.append(entry)
    return reviews


def stale(data: dict, reviews: list[TreeReview]) -> list[dict]:
    """Verdict rows that match no current finding."""
    current = {f.key for r in reviews for f in r.findings}
    return [
        row
        for row in data["verdicts"]
        if (row["tree"], row["file"], row["rule"], _norm(row["text"]), row.get("n", 1))
        not in current
    ]


# ---------------------------------------------------------------------------- recall


def source_hunks(original: Path, port: Path) -> list[dict]:
    """Every difference of the two trees' C/C++/CUDA sources: file, the first line it
    changes (of the original, or of the port where it only adds), its kind."""
    hunks = []
    for path in sorted(original.rglob("*")):
        rel = path.relative_to(original).as_posix()
        other = port / rel
        if not path.is_file() or not path.name.endswith(SOURCE_SUFFIXES) or not other.is_file():
            continue
        a = path.read_text("utf-8", "replace").splitlines()
        b = other.read_text("utf-8", "replace").splitlines()
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            changed = [_norm(t) for t in a[i1:i2] if t.strip()]
            added = [_norm(t) for t in b[j1:j2] if t.strip()]
            hunks.append({"file": rel, "line": i1 + 1, "text": (changed or added or [""])[0]})
    return hunks


def unclassified_hunks(data: dict, corpus: Path = CORPUS) -> list[dict]:
    """Differences between llm.c and llm.c-amd that the data file does not classify."""
    port = data["port"]
    known = {(row["file"], _norm(row["text"])) for row in port["differences"]}
    hunks = source_hunks(corpus / port["original"], corpus / port["port"])
    return [h for h in hunks if (h["file"], h["text"]) not in known]


def check_spots(data: dict, corpus: Path = CORPUS) -> list[str]:
    """Problems with the listed spots: a line not in llm.c, an edit the diff does not show,
    a HIP-layer replacement that the port's header does not define."""
    port = data["port"]
    original, ported = corpus / port["original"], corpus / port["port"]
    differences = {(row["file"], _norm(row["text"])) for row in port["differences"]}
    problems = []
    for spot in port["spots"]:
        lines = [_norm(t) for t in (original / spot["file"]).read_text("utf-8").splitlines()]
        if _norm(spot["text"]) not in lines:
            problems.append(f"{spot['file']}: no line {spot['text']!r}")
        if "edit" in spot and (spot["file"], _norm(spot["edit"])) not in differences:
            problems.append(f"{spot['file']}: edit {spot['edit']!r} is not a listed difference")
        if "replaced_by" in spot:
            header, name = spot["replaced_by"]["file"], spot["replaced_by"]["defines"]
            if name not in (ported / header).read_text("utf-8"):
                problems.append(f"{header} does not define {name}")
    return problems


def recall(data: dict, reviews: list[TreeReview], corpus: Path = CORPUS) -> dict:
    """Which of the spots llm.c-amd changed the scan reports, on the spot's line."""
    port = data["port"]
    tree = next(r for r in reviews if r.folder == port["original"])
    rows = []
    for spot in port["spots"]:
        text = _norm(spot["text"])
        lines = (corpus / port["original"] / spot["file"]).read_text("utf-8").splitlines()
        for number in [i + 1 for i, t in enumerate(lines) if _norm(t) == text]:
            here = [
                f for f in tree.findings + tree.notes if f.file == spot["file"] and f.line == number
            ]
            rows.append(
                {**spot, "line": number, "found": sorted({(f.rule, f.severity) for f in here})}
            )
    found = sum(1 for row in rows if any(sev != "note" for _, sev in row["found"]))
    noted = sum(1 for row in rows if row["found"])
    return {
        "spots": rows,
        "found": found,
        "noted": noted,
        "recall": found / len(rows) if rows else 1.0,
    }


# ---------------------------------------------------------------------------- output


def _cell(text: str) -> str:
    return text.replace("|", "&#124;").replace("\n", " ")


def render(data: dict, reviews: list[TreeReview], recalled: dict) -> str:
    out = [
        REVIEW_MARKER,
        "",
        "## Reviewed findings on real trees",
        "",
        "Every error and warning that `rocport scan` reports on two real trees of the corpus",
        "(`../shared/corpus`), read and judged by hand. A true positive is code in a branch that",
        "an AMD build compiles which, as written, fails to build, computes wrong results or pays",
        "the cost the finding names (idle lanes) on a 64-lane AMD GPU; a false positive is code",
        "where the finding's claim does not hold. Produced by",
        "`python benchmarks/scan_review.py --write` from the verdicts in",
        "`benchmarks/data/scan_review.json`; `tests/scan/test_review.py` fails when a finding",
        f"has no verdict or a tree's precision is below {GOAL:.0%}.",
        "",
        "| tree | scanned as | errors + warnings | true | false | precision |",
        "|---|---|---|---|---|---|",
    ]
    for r in reviews:
        true, false = r.counts()
        command = " ".join(["rocport scan .", *data["trees"][r.name].get("scan_args", [])])
        out.append(
            f"| {r.name} (`{r.folder}`) | `{command}` | {len(r.findings)} "
            f"| {true} | {false} | {r.precision:.0%} |"
        )
    for r in reviews:
        out += ["", f"### {r.name}", ""]
        if not r.findings:
            out.append("No error or warning findings.")
            continue
        out += ["| file:line | rule | severity | verdict | why |", "|---|---|---|---|---|"]
        groups: dict[tuple, list[int]] = {}  # findings of one file, rule and reason share a row
        for f in r.findings:
            row = r.verdicts.get(f.key)
            verdict = "unreviewed" if row is None else f"{row['verdict']} positive"
            why = "" if row is None else row["why"]
            groups.setdefault((f.file, f.rule, f.severity, verdict, why), []).append(f.line)
        for (file, rule, severity, verdict, why), lines in groups.items():
            where = f"`{file}:{lines[0]}`" + "".join(f", {n}" for n in lines[1:])
            out.append(f"| {where} | {rule} | {severity} | {verdict} | {_cell(why)} |")
    gone = Counter((row["tree"], row["rule"], row["verdict"]) for row in stale(data, reviews))
    if gone:
        out += [
            "",
            "Reviewed findings that the scan no longer reports (their verdicts stay in the data "
            "file): "
            + ", ".join(
                f"{tree} {rule} x{count} ({verdict} positive{'s' if count > 1 else ''})"
                for (tree, rule, verdict), count in sorted(gone.items())
            )
            + ".",
        ]
    port = data["port"]
    out += [
        "",
        f"### Recall against {port['port']}",
        "",
        _cell(port["about"]),
        "",
        f"The scan reports {recalled['found']} of {len(recalled['spots'])} spots as an error or "
        f"warning on the spot's line (recall {recalled['recall']:.0%}), and "
        f"{recalled['noted']} of {len(recalled['spots'])} with notes counted.",
        "",
        "| spot | what the port did | reported as |",
        "|---|---|---|",
    ]
    for spot in sorted(recalled["spots"], key=lambda s: (s["file"], s["line"])):
        reported = ", ".join(f"{rule} ({sev})" for rule, sev in spot["found"]) or "not reported"
        out.append(f"| `{spot['file']}:{spot['line']}` | {_cell(spot['why'])} | {reported} |")
    kinds = Counter(row["kind"] for row in port["differences"])
    out += [
        "",
        "All differences of the two trees' sources, by kind: "
        + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        + " (each classified, with why, in the data file).",
    ]
    unscored = port.get("unscored", [])
    if unscored:
        out += ["", "Not scored:", ""]
        out += [f"- `{u['file']}`: {_cell(u['why'])}" for u in unscored]
    return "\n".join(out) + "\n"


def write_docs(section: str, docs: Path = DOCS) -> None:
    from rocport._fs import write_if_changed

    reference, _ = split(docs.read_text("utf-8"))
    write_if_changed(docs, reference + "\n" + section)


def stub(f: Finding) -> dict:
    row = {"tree": f.tree, "file": f.file, "rule": f.rule, "text": f.text}
    if f.n > 1:
        row["n"] = f.n
    return {**row, "line": f.line, "message": f.message, "verdict": "?", "why": "?"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update the section in docs/scan.md")
    parser.add_argument("--stubs", action="store_true", help="print rows for unreviewed findings")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        raise SystemExit(f"no corpus at {CORPUS} (set ROCPORT_CORPUS)")
    data = load_data()
    reviews = review(data)
    recalled = recall(data, reviews)
    problems = check_spots(data) + [
        f"unclassified difference {h['file']}:{h['line']} {h['text']!r}"
        for h in unclassified_hunks(data)
    ]
    section = render(data, reviews, recalled)
    print(section)
    for row in stale(data, reviews):
        print(f"stale verdict (no such finding now): {row['tree']} {row['file']} {row['rule']}")
    for problem in problems:
        print(f"data problem: {problem}")
    missing = [f for r in reviews for f in r.missing]
    if args.stubs:
        print(json.dumps([stub(f) for f in missing], indent=2))
    if args.write:
        write_docs(section)
    if args.json:
        figures = {
            r.name: {"findings": len(r.findings), "true": r.counts()[0], "false": r.counts()[1]}
            for r in reviews
        }
        figures["recall"] = {
            "found": recalled["found"],
            "noted": recalled["noted"],
            "spots": len(recalled["spots"]),
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    if missing or problems:
        raise SystemExit(f"{len(missing)} findings without a verdict, {len(problems)} problems")


if __name__ == "__main__":
    main()
