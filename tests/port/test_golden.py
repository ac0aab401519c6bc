"""The golden corpus: CUDA samples with their expected HIP lines and report (golden/README.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rocport.port.mapping import load_mapping
from rocport.port.model import PortOptions
from rocport.port.translator import translate

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.cu"))
_DIRECTIVE = re.compile(
    r"^\s*//\s*(RUN-ROCM|RUN-OPTIONS|RUN-NAMES|CHECK|CHECK-INSERTED|CHECK-REPORT|CHECK-COUNTS):(.*)$"
)
_REPORT = re.compile(r"(translated|unsupported|unknown)\s+(\S+)\s+(\d+):(\d+)")


@dataclass
class Spec:
    rocm: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    names: list[tuple[str, str]] = field(default_factory=list)
    checks: dict[int, str] = field(default_factory=dict)  # 0-based input line -> expected text
    inserted: list[str] = field(default_factory=list)
    reports: list[tuple[str, str, int, int]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    directive_lines: set[int] = field(default_factory=set)


def parse(text: str) -> Spec:
    spec = Spec()
    last_code: int | None = None
    for number, line in enumerate(text.splitlines()):
        match = _DIRECTIVE.match(line)
        if match is None:
            last_code = number
            continue
        spec.directive_lines.add(number)
        name, value = match.group(1), match.group(2).strip()
        if name == "RUN-ROCM":
            spec.rocm = value
        elif name == "RUN-OPTIONS":
            spec.options.update(word.split("=", 1) for word in value.split())
        elif name == "RUN-NAMES":
            spec.names += [tuple(word.split("=", 1)) for word in value.split()]
        elif name == "CHECK":
            assert last_code is not None, f"line {number + 1}: CHECK before any line"
            assert last_code not in spec.checks, f"line {number + 1}: two CHECKs for one line"
            spec.checks[last_code] = value
        elif name == "CHECK-INSERTED":
            spec.inserted.append(value)
        elif name == "CHECK-REPORT":
            report = _REPORT.fullmatch(value)
            assert report, f"line {number + 1}: bad CHECK-REPORT {value!r}"
            outcome, ref, ref_line, ref_col = report.groups()
            spec.reports.append((outcome, ref, int(ref_line), int(ref_col)))
        else:
            spec.counts.update((k, int(v)) for k, v in (w.split("=") for w in value.split()))
    return spec


def _translate(text: str, spec: Spec):
    options = PortOptions(rocm=spec.rocm, extra_names=tuple(sorted(spec.names)), **spec.options)
    mapping = load_mapping(rocm=spec.rocm, blas=options.blas)
    return translate(text, path="golden.cu", mapping=mapping, options=options), mapping, options


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_golden(path: Path):
    text = path.read_text()
    spec = parse(text)
    result, mapping, options = _translate(text, spec)

    out_lines = result.text.split("\n")
    inserted = set(result.inserted_lines)
    assert [out_lines[n - 1] for n in result.inserted_lines] == spec.inserted
    body = [line for n, line in enumerate(out_lines, 1) if n not in inserted]
    in_lines = text.split("\n")
    assert len(body) == len(in_lines), "output lines must correspond 1:1 to input lines"

    problems = []
    for number, (before, after) in enumerate(zip(in_lines, body, strict=True)):
        expected = spec.checks.get(number)
        if expected is None and after != before:
            problems.append(f"{number + 1}: changed without a CHECK: {after!r}")
        elif expected is not None and after.strip() != expected:
            problems.append(f"{number + 1}: expected {expected!r}, got {after.strip()!r}")
    assert not problems, "\n".join(problems)

    found = {(r.outcome.value, r.name, r.line, r.column) for r in result.references}
    missing = [r for r in spec.reports if r not in found]
    assert not missing, f"expected report entries not found: {missing}; report: {sorted(found)}"
    listed = set(spec.reports)
    unlisted = sorted(r for r in found if r[0] != "translated" and r not in listed)
    assert not unlisted, f"unsupported/unknown references without CHECK-REPORT: {unlisted}"
    counts = result.counts
    assert {k: counts[k] for k in spec.counts} == spec.counts

    again = translate(result.text, path="golden.cu", mapping=mapping, options=options)
    assert again.text == result.text, "translating the output again changed it"


def test_corpus_is_there():
    assert len(FILES) >= 10
