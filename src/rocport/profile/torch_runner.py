"""Run a Python script under ``torch.profiler``; write its trace and key-averages table.

``python -m rocport.profile.torch_runner --out DIR [--skip-steps N] -- script.py ARGS…``
writes ``DIR/trace.json`` (Chrome trace), ``DIR/key_averages.txt`` and ``DIR/steps.json``.

A *step* is one ``optimizer.step()`` call (any ``torch.optim`` optimizer, seen through
PyTorch's global step hook). The first ``--skip-steps`` steps are the script's warm-up,
cuDNN autotuning included: they are profiled apart, into ``DIR/warmup_trace.json``, and
left out of the table. A script that makes fewer steps than that is profiled whole, and
``steps.json`` says so.
"""

from __future__ import annotations

import argparse
import copy
import json
import runpy
import sys
from pathlib import Path

from rocport._fs import atomic_write

#: the name of the mark recorded where the warm-up ends
_CUT = "rocport: end of the warm-up steps"


def _split_trace(trace: dict) -> tuple[dict, dict]:
    """A Chrome trace cut at the :data:`_CUT` mark: the events that start before it and
    those that start at or after it, each with the metadata events; the mark left out."""
    events = trace["traceEvents"]
    at = next(e["ts"] for e in events if e.get("name") == _CUT)
    meta = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and e.get("name") != _CUT]
    before = [e for e in timed if float(e.get("ts", at)) < float(at)]
    after = [e for e in timed if float(e.get("ts", at)) >= float(at)]
    return {**trace, "traceEvents": meta + before}, {**trace, "traceEvents": meta + after}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rocport.profile.torch_runner")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--skip-steps", type=int, default=2)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)

    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook
    from torch.profiler import ProfilerAction, ProfilerActivity, profile, record_function

    gpu = torch.cuda.is_available()  # CUDA, or HIP on ROCm builds
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
    ns.out.mkdir(parents=True, exist_ok=True)
    skip = max(0, ns.skip_steps)
    sort = "self_device_time_total" if gpu else "self_cpu_time_total"
    steps = 0

    sys.argv = [ns.script, *ns.args]
    sys.path.insert(0, str(Path(ns.script).resolve().parent))
    # one recording, cut at a marker: a schedule that saves the warm-up and records again (or a
    # second profiler) restarts the profiler inside the optimizer's `Optimizer.step` range,
    # whose end then reaches the freed session (torch 2.14 on the CPU: "free(): invalid
    # pointer", segfaults or "No logger registered" in 1 run in 10, 19 in 40 with a second
    # profiler); a schedule that only records keeps the ProfilerStep#N marks
    with profile(activities=activities, schedule=lambda _step: ProfilerAction.RECORD) as prof:

        def on_step(optimizer, args, kwargs) -> None:
            nonlocal steps
            steps += 1
            if steps == skip:
                if gpu:
                    torch.cuda.synchronize()  # the warm-up's kernels end before the cut
                with record_function(_CUT):
                    pass
            prof.step()

        hook = register_optimizer_step_post_hook(on_step)
        try:
            runpy.run_path(ns.script, run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise
        finally:
            hook.remove()
        if gpu:
            torch.cuda.synchronize()
    whole = ns.out / ".trace.json"
    prof.export_chrome_trace(str(whole))
    trace = json.loads(whole.read_text("utf-8"))
    whole.unlink()
    events = prof.events()
    cut = next((e for e in events if e.name == _CUT), None)
    if cut is None:
        (ns.out / "warmup_trace.json").unlink(missing_ok=True)
        table_events = events
    else:
        warmup, trace = _split_trace(trace)
        atomic_write(ns.out / "warmup_trace.json", json.dumps(warmup))
        table_events = copy.copy(events)  # an EventList, its tree built
        table_events[:] = [
            e for e in events if e.time_range.start >= cut.time_range.start and e is not cut
        ]
    atomic_write(ns.out / "trace.json", json.dumps(trace))
    averages = table_events.key_averages()
    try:
        table = averages.table(sort_by=sort, row_limit=-1)
    except (KeyError, AttributeError):  # older torch names the device column "cuda"
        table = averages.table(sort_by="self_cuda_time_total", row_limit=-1)
    (ns.out / "key_averages.txt").write_text(table, "utf-8")
    info = {
        "optimizer_steps": steps,
        "skip_steps": skip,
        "profiled_steps": [skip + 1, steps] if cut is not None else None,
    }
    (ns.out / "steps.json").write_text(json.dumps(info) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
