"""SARIF 2.1.0 report, for code-scanning user interfaces.

Rules become ``tool.driver.rules`` (id, name, short/full description, help, helpUri, default
level); findings become ``results`` with 1-based regions, a stable ``partialFingerprints`` value
and, where a fix has edits, SARIF ``fixes``.
"""

from __future__ import annotations

import json
import os
from bisect import bisect_right
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from rocport import __version__
from rocport._diagnostics import Finding, Severity, line_starts
from rocport.scan.engine import ScanReport
from rocport.scan.registry import DOCS_URL, Rule

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
FINGERPRINT_KEY = "rocportFingerprint/v1"


def render(report: ScanReport, rules: Sequence[Rule]) -> str:
    index = {rule.id: i for i, rule in enumerate(rules)}
    starts = {path: line_starts(text) for path, text in report.sources.items()}
    results = [_result(f, index, report.sources, starts) for f in report.findings]
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "rocport",
                        "version": __version__,
                        "informationUri": DOCS_URL,
                        "rules": [_descriptor(rule) for rule in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": [
                            _notification(note) for note in report.notes
                        ],
                    }
                ],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _descriptor(rule: Rule) -> dict:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.section("What it does") or rule.summary},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"tags": [rule.language.value], "fixAvailability": rule.fix.value},
    }


def _notification(note) -> dict:
    return {
        "level": "note",
        "message": {"text": note.message},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(note.path)}}],
    }


def _artifact(path: str) -> dict:
    """A SARIF artifactLocation: a ``file:`` URI for an absolute path, else a relative reference
    to ``%SRCROOT%``; both percent-encoded (RFC 3986: a space, ``#``, ``?``, ``%``, ``:`` and
    every byte of a non-ASCII name, as UTF-8 or as the raw byte it was)."""
    if Path(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(os.fsencode(path), safe="/"), "uriBaseId": "%SRCROOT%"}


def _result(
    finding: Finding, index: dict[str, int], sources: dict[str, str], starts: dict[str, list[int]]
) -> dict:
    location = finding.location
    result = {
        "ruleId": finding.rule,
        "ruleIndex": index[finding.rule],
        "level": LEVEL[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(location.path),
                    "region": {"startLine": location.line, "startColumn": location.column},
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: finding.extra.get("fingerprint", "")},
    }
    dead = finding.extra.get("dead_branch")
    if dead is not None:  # shown on request: the AMD build does not compile the line
        result["suppressions"] = [
            {
                "kind": "inSource",
                "justification": f"in a branch an AMD build does not compile "
                f"({dead['directive']}, line {dead['line']})",
            }
        ]
    fix = finding.fix
    if fix is not None and fix.edits and location.path in sources:
        line_index = starts[location.path]
        result["fixes"] = [
            {
                "description": {"text": f"{fix.title} ({fix.applicability.value})"},
                "artifactChanges": [
                    {
                        "artifactLocation": _artifact(location.path),
                        "replacements": [
                            {
                                "deletedRegion": _region(line_index, edit.start, edit.end),
                                "insertedContent": {"text": edit.text},
                            }
                            for edit in fix.edits
                        ],
                    }
                ],
            }
        ]
    elif fix is not None:
        result["properties"] = {"suggestion": fix.title}
    return result


def _region(starts: list[int], start: int, end: int) -> dict:
    def point(offset: int) -> tuple[int, int]:
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    start_line, start_column = point(start)
    end_line, end_column = point(end)
    return {
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    }
