"""Nsight Systems: ``nsys stats --report cuda_gpu_kern_sum --format csv``.

Format (Nsight Systems user guide, "Report Scripts", cuda_gpu_kern_sum,
https://docs.nvidia.com/nsight-systems/UserGuide/index.html): columns
``Time (%)``, ``Total Time (ns)``, ``Instances``, ``Avg (ns)``, ``Med (ns)``,
``Min (ns)``, ``Max (ns)``, ``StdDev (ns)``, ``Name``.
"""

from __future__ import annotations

from rocport.profile.model import KernelStat, KernelTable
from rocport.profile.parsers._csv import number, rows

COLUMNS = ("Time (%)", "Total Time (ns)", "Instances", "Name")


def parse(text: str, source: str) -> KernelTable:
    stats = [
        KernelStat(
            name=row["Name"],
            calls=int(number(row["Instances"], source, "Instances")),
            total_ns=number(row["Total Time (ns)"], source, "Total Time (ns)"),
            share=number(row["Time (%)"], source, "Time (%)") / 100.0,
        )
        for row in rows(text, source, COLUMNS)
    ]
    return KernelTable("nsys", [source], stats)
