"""``torch.profiler``: the key-averages table and the Chrome trace.

Formats (PyTorch, ``torch.profiler`` recipe and API reference,
https://pytorch.org/docs/stable/profiler.html):

- ``prof.key_averages().table()``: fixed-width text; dashed rule lines whose runs of
  ``-`` give the column widths, a header row (``Name``, ``Self CPU %``, ``Self CPU``, …,
  ``Self CUDA``, …, ``# of Calls``), times such as ``12.345us``/``1.234ms``/``1.234s``,
  and ``Self CPU time total:`` footers.
- ``prof.export_chrome_trace(path)``: JSON ``{"traceEvents": [...]}`` with complete
  events (``"ph": "X"``), ``"cat": "kernel"`` for device kernels, ``"dur"`` in µs.
"""

from __future__ import annotations

import json
import re

from rocport.errors import InputError
from rocport.profile.model import KernelStat, KernelTable

_TIME = re.compile(r"^(-?[\d.]+)(ns|us|ms|s)$")
_SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
#: device columns are named after the device type: CUDA (also on ROCm builds), XPU, MTIA, …
_SELF_DEVICE = re.compile(r"^Self (CUDA|XPU|MTIA|PrivateUse1|HPU|Device)$")


def _ns(text: str, source: str) -> float:
    match = _TIME.match(text.strip())
    if not match:
        raise InputError(f"{source}: not a time: {text!r}")
    return float(match.group(1)) * _SCALE[match.group(2)]


def parse_key_averages(text: str, source: str) -> KernelTable:
    """Device kernels (device time, no CPU time) or, on CPU runs, operators by self CPU."""
    lines = text.splitlines()
    rules = [
        i
        for i, line in enumerate(lines)
        if line.startswith("---") and set(line.strip()) <= {"-", " "}
    ]
    if len(rules) < 3:
        raise InputError(f"{source}: no key_averages table (three dashed rules) found")
    spans = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rules[0]])]
    cut = lambda line: [line[a : b + 2].strip() for a, b in spans]  # noqa: E731
    header = cut(lines[rules[0] + 1])
    body = [cut(line) for line in lines[rules[1] + 1 : rules[2]] if line.strip()]
    col = {name: i for i, name in enumerate(header)}
    if "Name" not in col or "# of Calls" not in col:
        raise InputError(f"{source}: table header lacks Name / # of Calls: {header}")
    device = next((h for h in header if _SELF_DEVICE.match(h)), None)
    stats, tool = [], "torch.profiler (key averages)"
    if device:
        for row in body:
            dev_ns = _ns(row[col[device]], source)
            cpu_total = _ns(row[col["CPU total"]], source) if "CPU total" in col else 0.0
            if dev_ns > 0 and cpu_total == 0:
                stats.append(KernelStat(row[col["Name"]], int(row[col["# of Calls"]]), dev_ns))
    notes = []
    if not stats:
        notes.append("no device kernels in the table: operators ranked by self CPU time")
        stats = [
            KernelStat(
                row[col["Name"]], int(row[col["# of Calls"]]), _ns(row[col["Self CPU"]], source)
            )
            for row in body
            if _ns(row[col["Self CPU"]], source) > 0
        ]
    return KernelTable(tool, [source], stats, notes)


def parse_trace(text: str, source: str) -> KernelTable:
    """Device kernels of a Chrome trace, summed by name."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not JSON: {exc.msg}") from exc
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list):
        raise InputError(f"{source}: no traceEvents list")
    by_name: dict[str, KernelStat] = {}
    for ev in events:
        if isinstance(ev, dict) and ev.get("ph") == "X" and ev.get("cat") == "kernel":
            stat = by_name.setdefault(ev["name"], KernelStat(ev["name"], 0, 0.0))
            stat.calls += 1
            stat.total_ns += float(ev.get("dur", 0.0)) * 1e3
    notes = [] if by_name else ["the trace holds no device kernels (a CPU-only run)"]
    return KernelTable("torch.profiler (trace)", [source], list(by_name.values()), notes)
