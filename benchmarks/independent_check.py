"""Independent timings, written without rocport, to check rocport bench's own numbers.

For each ResNet configuration named on the command line (ids ending in ``/torch-defaults``
run with PyTorch's default math settings, as the guide's loop does), a plain loop is timed
with one pair of torch.cuda.Event around all timed steps (synchronize before and after);
a plain torch.matmul loop does the same for the 8192^3 bf16 product. Writes JSON.

    python benchmarks/independent_check.py --out x.json \
        resnet/resnet50/training/bf16/channels_last/b256/r224 …
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import nullcontext

import torch
import torchvision

#: PyTorch's settings as the process found them (its defaults), before any loop changes them
DEFAULTS = {
    "matmul": torch.backends.cuda.matmul.allow_tf32,
    "cudnn": torch.backends.cudnn.allow_tf32,
    "benchmark": torch.backends.cudnn.benchmark,
}


def _clock(fn, steps: int, warmup: int) -> float:
    """Seconds per call of fn: events on a GPU, perf_counter after synchronize on a CPU."""
    for _ in range(warmup):
        fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(steps):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / 1e3 / steps
    t0 = time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.perf_counter() - t0) / steps


def resnet(result_id: str, steps: int, warmup: int) -> dict:
    _, arch, mode, precision, fmt_name, b, r, *tail = result_id.split("/")
    batch, res = int(b[1:]), int(r[1:])
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if "torch-defaults" in tail:  # the guide's loop as written: PyTorch's own settings
        torch.backends.cuda.matmul.allow_tf32 = DEFAULTS["matmul"]
        torch.backends.cudnn.allow_tf32 = DEFAULTS["cudnn"]
        torch.backends.cudnn.benchmark = DEFAULTS["benchmark"]
    else:
        tf32 = precision != "fp32"
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cudnn.benchmark = True
    fmt = torch.channels_last if fmt_name == "channels_last" else torch.contiguous_format
    model = getattr(torchvision.models, arch)(weights=None).to(device, memory_format=fmt)
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    xs = [
        torch.randn(batch, 3, res, res, device=device).contiguous(memory_format=fmt)
        for _ in range(4)
    ]
    ys = [torch.randint(0, 1000, (batch,), device=device) for _ in range(4)]
    amp = (lambda: torch.autocast(device, dtype=dtype)) if dtype else nullcontext
    i = [0]
    if mode == "inference":
        model.eval()

        def step():
            with torch.inference_mode(), amp():
                model(xs[i[0] % 4])
            i[0] += 1
    else:
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        scaler = torch.amp.GradScaler(device, enabled=dtype == torch.float16)

        def step():
            opt.zero_grad(set_to_none=True)
            with amp():
                loss = torch.nn.functional.cross_entropy(model(xs[i[0] % 4]), ys[i[0] % 4])
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            i[0] += 1

    seconds = _clock(step, steps, warmup)
    return {
        "id": result_id,
        "images_per_s": batch / seconds,
        "step_ms": seconds * 1e3,
        "steps": steps,
    }


def matmul_bf16(n: int, steps: int) -> dict:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
    seconds = _clock(lambda: torch.matmul(a, b), steps, warmup=5)
    return {"n": n, "tflops": 2 * n**3 / seconds / 1e12, "ms": seconds * 1e3, "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--matmul-n", type=int, default=8192)
    parser.add_argument("ids", nargs="*")
    args = parser.parse_args()
    out = {
        "resnet": [resnet(i, args.steps, args.warmup) for i in args.ids],
        "matmul_bf16": matmul_bf16(args.matmul_n, args.steps),
    }
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
