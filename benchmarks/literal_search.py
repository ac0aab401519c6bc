"""Which finds a literal in C/C++/CUDA code faster: ``str.find`` or a compiled regex?

``rocport scan`` asks "is this literal in the code?" a few dozen times per file (rule
triggers) and lists every place of some literals (``CudaSource.find_all``). The answer depends
on how CPython was built: on optimized builds (Debian's ``python3.11``, Ubuntu's
``python3.12``) ``str.find`` is faster at every needle length, while an unoptimized build
(pyenv's default) finds needles of 2 to 6 characters faster with sre, which scans for the
first character in a tight loop. ``rocport.scan.literals`` measures which, once per process,
on a small sample. This script measures both ways, with the interpreter that runs it, on the
blanked code of the port benchmark's generated tree: with pieces of its identifiers as needles
(each in some files, absent from most, as a trigger is) and with the rules' own triggers, and
prints the ratios from one run (above 1: the regex is faster) and what rocport chose.

Usage: ``python benchmarks/literal_search.py [--size-mb 5] [--seed 2024]``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from corpus import generate  # noqa: E402

from rocport.scan.blank import blank_non_code  # noqa: E402
from rocport.scan.engine import iter_files, language_of  # noqa: E402
from rocport.scan.literals import SHORT_NEEDLES, regex_is_faster  # noqa: E402
from rocport.scan.registry import Language  # noqa: E402
from rocport.scan.rules import RULES  # noqa: E402

LENGTHS = range(1, 13)
NEEDLES_PER_LENGTH = 24
_WORD = re.compile(r"[A-Za-z_]\w*")


def _needles(codes: list[str], length: int, rng: random.Random) -> list[str]:
    """Pieces of identifiers of the tree, as rule triggers are: each is in some files, not in
    most."""
    words = sorted({w for code in codes for w in _WORD.findall(code) if len(w) >= length})
    needles = []
    for _ in range(NEEDLES_PER_LENGTH):
        word = rng.choice(words)
        start = rng.randrange(len(word) - length + 1)
        needles.append(word[start : start + length])
    return needles


def _cpu(func) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def measure(codes: list[str], seed: int) -> list[tuple[int, float, float]]:
    """For each needle length: how many times longer ``str.find`` takes than a regex over every
    file, to tell whether a needle is there and to list all its places."""
    rng = random.Random(seed)
    rows = []
    for length in LENGTHS:
        needles = _needles(codes, length, rng)
        patterns = [re.compile(re.escape(needle)) for needle in needles]
        found = _cpu(lambda n=needles: [needle in code for needle in n for code in codes])
        searched = _cpu(
            lambda p=patterns: [pattern.search(code) for pattern in p for code in codes]
        )
        listed = _cpu(
            lambda n=needles: [_find_loop(code, needle) for needle in n for code in codes]
        )
        iterated = _cpu(
            lambda p=patterns: [
                [match.start() for match in pattern.finditer(code)]
                for pattern in p
                for code in codes
            ]
        )
        rows.append((length, found / searched, listed / iterated))
    return rows


def _find_loop(code: str, needle: str) -> list[int]:
    hits, pos = [], code.find(needle)
    while pos != -1:
        hits.append(pos)
        pos = code.find(needle, pos + 1)
    return hits


def trigger_ratios(codes: list[str]) -> list[tuple[str, float]]:
    """For each trigger literal of the CUDA rules: ``str.find`` time / regex time, over every
    file, to tell whether it is there."""
    literals = sorted(
        {t for rule in RULES if rule.language is Language.CUDA for t in rule.triggers}
    )
    ratios = []
    for literal in literals:
        pattern = re.compile(re.escape(literal))
        found = _cpu(lambda n=literal: [n in code for code in codes])
        searched = _cpu(lambda p=pattern: [p.search(code) for code in codes])
        ratios.append((literal, found / searched))
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rocport-literal-search-") as tmp:
        tree = Path(tmp) / "tree"
        generate(tree, args.size_mb, args.seed)
        files = [p for p in iter_files([tree]) if language_of(p) is Language.CUDA]
        codes = [blank_non_code(p.read_text(encoding="utf-8")) for p in files]
    table = Table("needle length", "is it there: str.find / regex", "every place: str.find / regex")
    for length, present, listed in measure(codes, args.seed):
        table.add_row(str(length), f"{present:.2f}", f"{listed:.2f}")
    triggers = Table("trigger of a rule", "is it there: str.find / regex")
    for literal, ratio in trigger_ratios(codes):
        triggers.add_row(literal, f"{ratio:.2f}")
    console = Console()
    console.print(f"Python {sys.version.split()[0]} ({sys.executable})")
    console.print(f"{len(codes)} files, {sum(map(len, codes)) / 1e6:.1f} MB of blanked code")
    console.print(table)
    console.print(triggers)
    chosen = "a regex" if regex_is_faster() else "str.find"
    console.print(
        f"rocport's own measurement chose {chosen} for needles of "
        f"{SHORT_NEEDLES.start} to {SHORT_NEEDLES.stop - 1} characters on this interpreter"
    )


if __name__ == "__main__":
    main()
