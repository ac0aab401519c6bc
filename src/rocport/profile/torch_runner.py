"""Run a Python script under ``torch.profiler``; write its trace and key-averages table.

``python -m rocport.profile.torch_runner --out DIR [--row-limit N] -- script.py ARGS…``
writes ``DIR/trace.json`` (Chrome trace) and ``DIR/key_averages.txt``.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rocport.profile.torch_runner")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)

    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():  # CUDA, or HIP on ROCm builds
        activities.append(ProfilerActivity.CUDA)
    ns.out.mkdir(parents=True, exist_ok=True)
    sys.argv = [ns.script, *ns.args]
    sys.path.insert(0, str(Path(ns.script).resolve().parent))
    with profile(activities=activities) as prof:
        try:
            runpy.run_path(ns.script, run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    prof.export_chrome_trace(str(ns.out / "trace.json"))
    sort = "self_device_time_total" if torch.cuda.is_available() else "self_cpu_time_total"
    try:
        table = prof.key_averages().table(sort_by=sort, row_limit=-1)
    except (KeyError, AttributeError):  # older torch names the device column "cuda"
        table = prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=-1)
    (ns.out / "key_averages.txt").write_text(table, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
