"""A few ResNet-50 training steps on synthetic data: the program the H200 suite profiles.

python benchmarks/resnet50_steps.py --steps 5 --batch 64 --precision bf16 --channels-last
"""

from __future__ import annotations

import argparse
from contextlib import nullcontext

import torch
import torchvision


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--resolution", type=int, default=224)
    parser.add_argument("--precision", choices=["fp32", "fp16", "bf16"], default="bf16")
    parser.add_argument("--channels-last", action="store_true")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cudnn.benchmark = True
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    model = torchvision.models.resnet50(weights=None).to(device, memory_format=fmt).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.precision)
    scaler = torch.amp.GradScaler(device, enabled=dtype == torch.float16)
    x = torch.randn(args.batch, 3, args.resolution, args.resolution, device=device).contiguous(
        memory_format=fmt
    )
    y = torch.randint(0, 1000, (args.batch,), device=device)
    for _ in range(args.warmup + args.steps):
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device, dtype=dtype) if dtype else nullcontext():
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    if device == "cuda":
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
