"""Legacy ``rocprof --stats``: ``results.stats.csv``.

Format (ROCm rocprofiler v1, "rocprof --stats" in the ROCProfiler user guide,
https://rocm.docs.amd.com/projects/rocprofiler/en/latest/): one row per kernel,
columns ``"Name","Calls","TotalDurationNs","AverageNs","Percentage"``, Percentage in
percent of all kernel time.
"""

from __future__ import annotations

from rocport.profile.model import KernelStat, KernelTable
from rocport.profile.parsers._csv import number, rows

COLUMNS = ("Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage")


def parse(text: str, source: str) -> KernelTable:
    stats = [
        KernelStat(
            name=row["Name"],
            calls=int(number(row["Calls"], source, "Calls")),
            total_ns=number(row["TotalDurationNs"], source, "TotalDurationNs"),
            share=number(row["Percentage"], source, "Percentage") / 100.0,
        )
        for row in rows(text, source, COLUMNS)
    ]
    return KernelTable("rocprof", [source], stats)
