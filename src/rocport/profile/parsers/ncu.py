"""Nsight Compute ``ncu --csv``: one row per (launch, metric), or ``--page raw`` one row per launch.

Format (Nsight Compute CLI documentation, "Console Output" and ``--csv``/``--page``,
https://docs.nvidia.com/nsight-compute/NsightComputeCli/index.html): the details page
has columns ``"ID","Process ID","Process Name","Host Name","Kernel Name","Context",
"Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name",
"Metric Unit","Metric Value"``; numbers carry thousands separators ("1,024"); lines
starting with ``==PROF==`` are the tool's own messages. The raw page has one column per
metric and a second header row of units.
"""

from __future__ import annotations

from rocport.profile.model import KernelStat, KernelTable, merge
from rocport.profile.parsers._csv import number, rows

_TIME_UNITS = {
    "nsecond": 1.0,
    "ns": 1.0,
    "usecond": 1e3,
    "us": 1e3,
    "msecond": 1e6,
    "ms": 1e6,
    "second": 1e9,
    "s": 1e9,
}
_BYTES_PER_S = {
    "byte/second": 1e-9,
    "Kbyte/second": 1e-6,
    "Mbyte/second": 1e-3,
    "Gbyte/second": 1.0,
    "Tbyte/second": 1e3,
    "byte/s": 1e-9,
    "Gbyte/s": 1.0,
    "Tbyte/s": 1e3,
}

DURATION = ("gpu__time_duration.sum", "Duration")
BANDWIDTH = ("dram__bytes.sum.per_second", "DRAM Bandwidth")  # "Memory Throughput" in byte/s too
CACHE_HIT = ("lts__t_sector_hit_rate.pct", "L2 Hit Rate")
UTILIZATION = ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput")


def parse(text: str, source: str) -> KernelTable:
    header = next(line for line in text.splitlines() if '"ID"' in line)
    launches = _long(text, source) if '"Metric Name"' in header else _wide(text, source)
    stats = []
    for name, metrics in launches:
        ns = _first(metrics, DURATION, _TIME_UNITS, source)
        if ns is None:
            continue
        stat = KernelStat(name, 1, ns)
        stat.bandwidth_gbs = _first(metrics, BANDWIDTH, _BYTES_PER_S, source)
        if (
            stat.bandwidth_gbs is None
            and metrics.get("Memory Throughput", ("", ""))[0] in _BYTES_PER_S
        ):
            stat.bandwidth_gbs = _first(metrics, ("Memory Throughput",), _BYTES_PER_S, source)
        stat.cache_hit_pct = _first(metrics, CACHE_HIT, None, source)
        stat.utilization_pct = _first(metrics, UTILIZATION, None, source)
        stats.append(stat)
    notes = (
        [] if stats else ["no launch had a duration metric (add --metrics gpu__time_duration.sum)"]
    )
    return KernelTable("ncu", [source], merge(stats), notes)


def _long(text: str, source: str) -> list[tuple[str, dict[str, tuple[str, str]]]]:
    launches: dict[str, tuple[str, dict[str, tuple[str, str]]]] = {}
    for row in rows(text, source, ("ID", "Kernel Name", "Metric Name", "Metric Value")):
        entry = launches.setdefault(row["ID"], (row["Kernel Name"], {}))
        entry[1][row["Metric Name"]] = (row.get("Metric Unit", ""), row["Metric Value"])
    return list(launches.values())


def _wide(text: str, source: str) -> list[tuple[str, dict[str, tuple[str, str]]]]:
    table = rows(text, source, ("ID", "Kernel Name"))
    if not table:
        return []
    units, body = (table[0], table[1:]) if not table[0]["ID"] else ({}, table)
    return [
        (row["Kernel Name"], {k: (units.get(k, ""), v) for k, v in row.items() if k})
        for row in body
    ]


def _first(
    metrics: dict[str, tuple[str, str]],
    names: tuple[str, ...],
    units: dict[str, float] | None,
    source: str,
) -> float | None:
    for name in names:
        if name in metrics:
            unit, value = metrics[name]
            if value.strip() in ("", "n/a"):
                return None
            scale = 1.0 if units is None else units.get(unit, units.get(unit.strip(), None) or 1.0)
            if units is not None and name == names[0] and unit == "":
                scale = 1.0  # raw metric in base units (ns, byte/s) without a unit row
                if units is _BYTES_PER_S:
                    scale = 1e-9
            return number(value, source, name) * scale
    return None
