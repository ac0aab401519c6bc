"""Machine-readable report: findings, notes and totals as one JSON document."""

from __future__ import annotations

import json

from rocport import __version__
from rocport.scan.engine import ScanReport


def render(report: ScanReport) -> str:
    counts = report.counts()
    document = {
        "tool": {"name": "rocport", "version": __version__},
        "summary": {
            "files": report.files,
            "bytes": report.bytes,
            "findings": len(report.findings),
            "by_severity": {s: counts[s] for s in ("error", "warning", "note")},
            "not_in_build": report.outside_build,
        },
        "findings": [f.to_dict() for f in report.findings],
        "notes": [n.to_dict() for n in report.notes],
    }
    return json.dumps(document, indent=2) + "\n"
