"""The closing summary of scripts/demo.sh, read from the JSON reports the demo wrote.

    python3 scripts/demo_summary.py OUT --release 6.4 --release 5.2 [--gaps-allowed 5.2]

Prints what was ported (files, converted, unsupported uses) per release, what compiled per
release and GPU target (ok / failed / unavailable), and scan findings by severity. Exits 1
when an outcome is not an expected, documented one:

- a port or check report is missing (the step itself failed);
- a unit failed to compile, unless each of its errors names a CUDA use that the port
  reported unsupported for that release (the port already said it cannot translate it);
- a unit could not be compiled because the toolchain lacks a header, on a release not
  named by ``--gaps-allowed`` (Debian 12's ROCm 5.2 packages have no hipBLAS, hipFFT,
  hipSOLVER, hipCUB or rocThrust: docs/check.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def port_line(release: str, doc: dict) -> str:
    totals = doc["totals"]
    counts = totals["counts"]
    return (
        f"  ROCm {release}: {_plural(totals['files'], 'file')}, {totals['converted']} converted; "
        f"{counts['translated']} of {counts['found']} CUDA uses translated, "
        f"{counts['unsupported']} unsupported, {counts['unknown']} unknown"
    )


def unsupported_names(doc: dict) -> dict[str, set[str]]:
    """File (relative path) -> the CUDA names the port reported unsupported in it."""
    return {
        f["path"]: {i["name"] for i in f["issues"] if i["outcome"] == "unsupported"}
        for f in doc["files"]
    }


def check_lines(release: str, doc: dict, port: dict, gaps_allowed: bool) -> tuple[list, list]:
    """Per-target counts and a line per unit that did not compile; and the unexpected ones."""
    targets = doc["offload_arch"]
    per_target = {t: {"ok": 0, "failed": 0, "unavailable": 0} for t in targets}
    unsupported = unsupported_names(port)
    details, unexpected = [], []
    for unit in doc["units"]:
        errors = [d for d in unit["diagnostics"] if d["severity"] == "error"]
        for target in targets:
            if unit["status"] == "unavailable":
                per_target[target]["unavailable"] += 1
            elif any(target in d["passes"] for d in errors):
                per_target[target]["failed"] += 1
            else:
                per_target[target]["ok"] += 1
        path = unit["path"]
        if unit["status"] == "failed":
            names = unsupported.get(path, set())
            explained = bool(errors) and all(
                any(f"'{name}'" in d["message"] for name in names) for d in errors
            )
            line = (
                f"    {path}: failed; uses the port reported unsupported for ROCm {release}: "
                f"{', '.join(sorted(names)) or 'none'}"
            )
            details.append(line + ("" if explained else "  <- UNEXPECTED"))
            if not explained:
                unexpected.append(f"ROCm {release}: {path} failed to compile")
        elif unit["status"] == "unavailable":
            line = (
                f"    {path}: unavailable; this toolchain has no "
                f"{', '.join(unit['missing_headers'][:3])}"
                f"{' …' if len(unit['missing_headers']) > 3 else ''}"
            )
            details.append(line + ("" if gaps_allowed else "  <- UNEXPECTED"))
            if not gaps_allowed:
                unexpected.append(f"ROCm {release}: {path} could not be compiled here")
    head = [
        f"  ROCm {release} {target}: {c['ok']} ok, {c['failed']} failed, "
        f"{c['unavailable']} unavailable"
        for target, c in per_target.items()
    ]
    return head + details, unexpected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--release", action="append", required=True)
    parser.add_argument("--gaps-allowed", action="append", default=[])
    ns = parser.parse_args(argv)

    unexpected: list[str] = []
    print("\n== summary")
    print("ported (examples/cuda):")
    ports = {}
    for release in ns.release:
        ports[release] = _load(ns.out / f"port-{release}.json")
        if ports[release] is None:
            print(f"  ROCm {release}: no report (the port failed)")
            unexpected.append(f"ROCm {release}: port wrote no report")
        else:
            print(port_line(release, ports[release]))
    print("compiled (rocport check):")
    for release in ns.release:
        check = _load(ns.out / f"check-{release}.json")
        if check is None or ports[release] is None:
            print(f"  ROCm {release}: no report (the check did not run or failed)")
            unexpected.append(f"ROCm {release}: check wrote no report")
            continue
        lines, bad = check_lines(release, check, ports[release], release in ns.gaps_allowed)
        print("\n".join(lines))
        unexpected += bad
    scan = _load(ns.out / "scan.json")
    if scan is None:
        print("scan: no report (the scan failed)")
        unexpected.append("scan wrote no report")
    else:
        by = scan["summary"]["by_severity"]
        print(
            f"scan (ROCm {ns.release[0]} output, {_plural(scan['summary']['files'], 'file')}): "
            + ", ".join(_plural(by.get(s, 0), s) for s in ("error", "warning", "note"))
            + " (the samples keep CUDA's 32-lane warp assumptions on purpose)"
        )
    if unexpected:
        print(f"result: {_plural(len(unexpected), 'unexpected outcome')}:")
        for line in unexpected:
            print(f"  - {line}")
        return 1
    print("result: every step ended as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
