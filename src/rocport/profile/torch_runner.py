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
import json
import runpy
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rocport.profile.torch_runner")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--skip-steps", type=int, default=2)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args(argv)

    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook
    from torch.profiler import ProfilerAction, ProfilerActivity, profile

    gpu = torch.cuda.is_available()  # CUDA, or HIP on ROCm builds
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
    ns.out.mkdir(parents=True, exist_ok=True)
    skip = max(0, ns.skip_steps)
    sort = "self_device_time_total" if gpu else "self_cpu_time_total"
    traces: list[tuple[Path, str]] = []
    steps = 0

    def schedule(step: int) -> ProfilerAction:
        # save (and so end) the first trace at the end of the last warm-up step
        return (
            ProfilerAction.RECORD_AND_SAVE if skip and step == skip - 1 else ProfilerAction.RECORD
        )

    def ready(prof) -> None:
        path = ns.out / f".trace-{len(traces)}.json"
        prof.export_chrome_trace(str(path))
        try:
            table = prof.key_averages().table(sort_by=sort, row_limit=-1)
        except (KeyError, AttributeError):  # older torch names the device column "cuda"
            table = prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=-1)
        traces.append((path, table))

    sys.argv = [ns.script, *ns.args]
    sys.path.insert(0, str(Path(ns.script).resolve().parent))
    with profile(activities=activities, schedule=schedule, on_trace_ready=ready) as prof:

        def on_step(optimizer, args, kwargs) -> None:
            nonlocal steps
            steps += 1
            if steps == skip and gpu:
                torch.cuda.synchronize()  # the warm-up's kernels end inside its trace
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
    split = len(traces) == 2  # the warm-up ended inside the run: two traces
    if split:
        traces[0][0].replace(ns.out / "warmup_trace.json")
    else:
        (ns.out / "warmup_trace.json").unlink(missing_ok=True)
    path, table = traces[-1]
    path.replace(ns.out / "trace.json")
    (ns.out / "key_averages.txt").write_text(table, "utf-8")
    info = {
        "optimizer_steps": steps,
        "skip_steps": skip,
        "profiled_steps": [skip + 1, steps] if split else None,
    }
    (ns.out / "steps.json").write_text(json.dumps(info) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
