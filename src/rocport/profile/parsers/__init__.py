"""Parsers of profiler output files into :class:`~rocport.profile.model.KernelTable`.

Each format's parser lives in its own module, with the place its format is documented.
:func:`parse_file` picks the parser from the file's name and first line.
"""

from __future__ import annotations

from pathlib import Path

from rocport.errors import InputError
from rocport.profile.model import KernelTable
from rocport.profile.parsers import ncu, nsys, rocprof, rocprofv3, torch_profiler


def parse_file(path: Path) -> KernelTable:
    """Parse one output file of any supported profiler."""
    path = Path(path)
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    head = next(
        (line for line in text.splitlines() if line.strip() and not line.startswith("==")), ""
    )
    if path.suffix == ".json":
        return torch_profiler.parse_trace(text, str(path))
    if head.startswith('"Name","Calls","TotalDurationNs"') or head.startswith(
        "Name,Calls,TotalDurationNs"
    ):
        module = rocprofv3 if "MinNs" in head else rocprof
        return module.parse(text, str(path))
    if '"Counter_Name"' in head or "Counter_Name" in head.split(","):
        return rocprofv3.parse_counters(text, str(path))
    if '"Kernel Name"' in head and '"ID"' in head:
        return ncu.parse(text, str(path))
    if "Total Time (ns)" in head and "Instances" in head:
        return nsys.parse(text, str(path))
    if "Self CPU" in text[:5000] and "# of Calls" in text[:5000]:
        return torch_profiler.parse_key_averages(text, str(path))
    raise InputError(
        f"{path}: not a profiler output rocport knows "
        "(rocprof, rocprofv3, ncu, nsys, torch.profiler)"
    )
