"""A small CUDA-era training script with the habits that break or mislead on ROCm."""

import subprocess

import pynvml
import torch
import torch.nn as nn
from flash_attn import flash_attn_func

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = True


def free_gpu_memory_mb() -> int:
    out = subprocess.check_output(
        ["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"])
    return int(out.decode().split()[0])


def train(model: nn.Module, batches, steps: int = 100) -> None:
    pynvml.nvmlInit()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.cuda.amp.GradScaler()
    for _, (x, y) in zip(range(steps), batches):
        with torch.cuda.amp.autocast(dtype=torch.float16):
            q = k = v = model(x)
            loss = nn.functional.mse_loss(flash_attn_func(q, k, v), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
