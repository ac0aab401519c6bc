"""rocprofv3: ``<prefix>_kernel_stats.csv`` (``--kernel-trace --stats``), counters (``--pmc``).

Formats (ROCprofiler-SDK, "Using rocprofv3", https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/how-to/using-rocprofv3.html):

- kernel stats: ``"Name","Calls","TotalDurationNs","AverageNs","Percentage",
  "MinNs","MaxNs","StdDev"``;
- counter collection: one row per (dispatch, counter), with ``"Dispatch_Id"``,
  ``"Kernel_Name"``, ``"Counter_Name"``, ``"Counter_Value"`` and, in ROCm 6.2 and later,
  ``"Start_Timestamp"``/``"End_Timestamp"`` in ns.

Derived counters used: ``FETCH_SIZE`` and ``WRITE_SIZE`` (KiB moved between L2 and
memory), ``TCC_HIT_sum``/``TCC_MISS_sum`` (L2 hits and misses), ``VALUBusy`` (%).
"""

from __future__ import annotations

from rocport.profile.model import KernelStat, KernelTable, merge
from rocport.profile.parsers._csv import number, rows

COLUMNS = ("Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage")
COUNTER_COLUMNS = ("Kernel_Name", "Counter_Name", "Counter_Value")
#: the counters ``rocport profile --counters`` asks rocprofv3 for
DEFAULT_COUNTERS = ("FETCH_SIZE", "WRITE_SIZE", "TCC_HIT_sum", "TCC_MISS_sum", "VALUBusy")


def parse(text: str, source: str) -> KernelTable:
    stats = []
    for row in rows(text, source, COLUMNS):
        stat = KernelStat(
            name=row["Name"],
            calls=int(number(row["Calls"], source, "Calls")),
            total_ns=number(row["TotalDurationNs"], source, "TotalDurationNs"),
            share=number(row["Percentage"], source, "Percentage") / 100.0,
        )
        if row.get("MinNs"):
            stat.extra = {
                "min_ns": number(row["MinNs"], source, "MinNs"),
                "max_ns": number(row["MaxNs"], source, "MaxNs"),
            }
        stats.append(stat)
    return KernelTable("rocprofv3", [source], stats)


def parse_counters(text: str, source: str) -> KernelTable:
    """Per-kernel bandwidth, L2 hit rate and VALU busy from a counter collection."""
    dispatches: dict[str, dict] = {}
    for row in rows(text, source, COUNTER_COLUMNS):
        key = row.get("Dispatch_Id") or row.get("Correlation_Id") or str(len(dispatches))
        d = dispatches.setdefault(key, {"name": row["Kernel_Name"], "counters": {}, "ns": None})
        d["counters"][row["Counter_Name"]] = d["counters"].get(row["Counter_Name"], 0.0) + number(
            row["Counter_Value"], source, "Counter_Value"
        )
        if row.get("Start_Timestamp") and row.get("End_Timestamp"):
            d["ns"] = number(row["End_Timestamp"], source, "End_Timestamp") - number(
                row["Start_Timestamp"], source, "Start_Timestamp"
            )
    stats = []
    for d in dispatches.values():
        c, ns = d["counters"], d["ns"]
        stat = KernelStat(d["name"], 1, ns or 0.0)
        if ns and "FETCH_SIZE" in c and "WRITE_SIZE" in c:
            stat.bandwidth_gbs = (c["FETCH_SIZE"] + c["WRITE_SIZE"]) * 1024 / ns
        if c.get("TCC_HIT_sum", 0) + c.get("TCC_MISS_sum", 0):
            stat.cache_hit_pct = 100.0 * c["TCC_HIT_sum"] / (c["TCC_HIT_sum"] + c["TCC_MISS_sum"])
        if "VALUBusy" in c:
            stat.utilization_pct = c["VALUBusy"]
        stats.append(stat)
    return KernelTable("rocprofv3 (counters)", [source], merge(stats))


def attach_counters(table: KernelTable, counters: KernelTable) -> KernelTable:
    """Copy per-kernel counters from a counter table onto the timing table, by kernel name."""
    by_name = {k.name: k for k in counters.kernels}
    for k in table.kernels:
        c = by_name.get(k.name)
        if c:
            k.bandwidth_gbs, k.cache_hit_pct, k.utilization_pct = (
                c.bandwidth_gbs,
                c.cache_hit_pct,
                c.utilization_pct,
            )
    table.sources += counters.sources
    return table
