"""Data-parallel ResNet training throughput and all-reduce bandwidth over torch.distributed.

``nccl`` (NCCL on CUDA, RCCL on ROCm) on GPUs, ``gloo`` on the CPU. Processes come from
:func:`torch.multiprocessing.spawn` (``rocport bench --nproc N``) or from ``torchrun``
(``RANK``/``WORLD_SIZE``/``LOCAL_RANK`` in the environment). Rank 0 first times the same
model on its own, without DDP, as the one-process baseline for the scaling efficiency.

All-reduce bandwidth follows nccl-tests: ``algbw = bytes / time`` and
``busbw = algbw * 2 (n - 1) / n``, with the time the slowest rank's median.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NoReturn

from rocport.errors import InputError

#: NVLink multicast (NVLS) stays off: a program that uses it can take a shared host's GPUs down
NCCL_SAFETY_ENV = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}


@dataclass(frozen=True)
class DdpConfig:
    """The per-process training step and the all-reduce message."""

    arch: str = "resnet50"
    precision: str = "bf16"
    memory_format: str = "channels_last"
    batch: int = 256  # per process
    resolution: int = 224
    warmup: int = 5
    repeats: int = 20
    allreduce_bytes: int = 256 * 2**20
    allreduce_repeats: int = 20
    device: str = "auto"  # "cuda" or "cpu"; auto = cuda when present


def torchrun_rank() -> tuple[int, int, int] | None:
    """``(rank, world_size, local_rank)`` when started by torchrun, else None."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        return rank, world, int(os.environ.get("LOCAL_RANK", rank))
    return None


def apply_safety_env() -> None:
    """Set the NVLink-multicast switches unless the caller already set them."""
    for key, value in NCCL_SAFETY_ENV.items():
        os.environ.setdefault(key, value)


def _use_gpu(cfg: DdpConfig) -> bool:
    import torch

    if cfg.device == "cpu":
        return False
    if cfg.device == "cuda" and not torch.cuda.is_available():
        raise InputError("DDP on cuda asked for, but this torch sees no GPU")
    return torch.cuda.is_available()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def spawn(cfg: DdpConfig, nproc: int) -> dict[str, Any]:
    """Start ``nproc`` processes on this host; return rank 0's raw measurements."""
    import torch
    import torch.multiprocessing as mp

    if nproc < 1:
        raise InputError("--nproc must be at least 1")
    if _use_gpu(cfg) and nproc > torch.cuda.device_count():
        raise InputError(f"--nproc {nproc}: only {torch.cuda.device_count()} GPU(s) visible")
    apply_safety_env()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ["MASTER_PORT"] = str(_free_port())
    with tempfile.TemporaryDirectory(prefix="rocport-ddp-") as tmp:
        out = Path(tmp) / "rank0.json"
        mp.spawn(_spawned, args=(nproc, cfg, str(out)), nprocs=nproc, join=True)
        return json.loads(out.read_text("utf-8"))


def _spawned(rank: int, world: int, cfg: DdpConfig, out: str) -> NoReturn:
    raw = worker(rank, world, rank, cfg)
    if raw is not None:
        Path(out).write_text(json.dumps(raw), "utf-8")
    end_process()


def end_process(code: int = 0) -> NoReturn:
    """End a process that ran :func:`worker`, without tearing the interpreter down.

    DistributedDataParallel keeps the process group alive to the end, so gloo's worker
    threads are never joined. One that drops the last collective's tensors needs the GIL;
    if the interpreter is already finalizing, the thread is cancelled and the process
    aborts ("terminate called without an active exception"; 5 of 40 two-process CPU runs).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def worker(rank: int, world: int, local_rank: int, cfg: DdpConfig) -> dict[str, Any] | None:
    """One process's part; rank 0 returns everyone's numbers, the others None.

    The process should then leave through :func:`end_process`.
    """
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    from rocport.bench.timing import measure
    from rocport.bench.workloads._common import precision_flags
    from rocport.bench.workloads.resnet import ResnetConfig, build_model, make_step

    apply_safety_env()
    gpu = _use_gpu(cfg)
    if gpu:
        torch.cuda.set_device(local_rank)
        device = f"cuda:{local_rank}"
    else:
        device = "cpu"
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    backend = "nccl" if gpu else "gloo"
    dist.init_process_group(
        backend, rank=rank, world_size=world, **({"device_id": torch.device(device)} if gpu else {})
    )
    try:
        torch.backends.cudnn.benchmark = True
        rcfg = ResnetConfig(
            cfg.arch, "training", cfg.precision, cfg.memory_format, cfg.batch, cfg.resolution
        )
        with precision_flags(cfg.precision):
            baseline = None
            if rank == 0:
                step, model = make_step(rcfg, device)
                baseline = list(
                    measure(step, device, warmup=cfg.warmup, repeats=cfg.repeats).samples_s
                )
                del step, model
            dist.barrier()
            torch.manual_seed(0)  # same initial weights on every rank
            model = build_model(cfg.arch, device, cfg.memory_format)
            ddp = DistributedDataParallel(model, device_ids=[local_rank] if gpu else None)
            step, _ = make_step(rcfg, device, model=ddp)
            dist.barrier()
            step_s = measure(step, device, warmup=cfg.warmup, repeats=cfg.repeats).median_s
        allreduce_s = _allreduce_time(cfg, device, world) if world > 1 else None
        gathered: list[Any] = [None] * world
        dist.all_gather_object(gathered, {"rank": rank, "step_s": step_s})
        if rank != 0:
            return None
        return {
            "config": asdict(cfg),
            "world_size": world,
            "backend": backend,
            "device": device,
            "baseline_step_s": baseline,
            "ranks": sorted(gathered, key=lambda g: g["rank"]),
            "allreduce_s": allreduce_s,
        }
    finally:
        dist.destroy_process_group()


def _allreduce_time(cfg: DdpConfig, device: str, world: int) -> float:
    """The slowest rank's median time of one all-reduce (sum) of ``allreduce_bytes``."""
    import torch
    import torch.distributed as dist

    from rocport.bench.timing import measure

    buf = torch.randn(cfg.allreduce_bytes // 4, device=device)
    median = measure(
        lambda i: dist.all_reduce(buf), device, warmup=3, repeats=cfg.allreduce_repeats
    ).median_s
    slowest = torch.tensor([median], dtype=torch.float64, device=device)
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    return float(slowest.item())


def to_results(raw: dict[str, Any]) -> tuple[list, list]:
    """Results and checks for the results document from rank 0's raw numbers."""
    from rocport.bench.results import Check, Result
    from rocport.bench.timing import Timing

    cfg, world = raw["config"], raw["world_size"]
    base = (
        f"ddp/{cfg['arch']}/{cfg['precision']}/{cfg['memory_format']}"
        f"/b{cfg['batch']}/r{cfg['resolution']}"
    )
    params = {**cfg, "world_size": world, "backend": raw["backend"]}
    step_times = [r["step_s"] for r in raw["ranks"]]
    slowest = max(step_times)
    baseline = Timing(tuple(raw["baseline_step_s"]))
    single = cfg["batch"] / baseline.median_s
    per_process = [cfg["batch"] / s for s in step_times]
    total = world * cfg["batch"] / slowest
    impl = f"torchvision {cfg['arch']} + DistributedDataParallel ({raw['backend']})"
    results = [
        Result(
            f"{base}/n1",
            "ddp",
            "images/s",
            single,
            f"torchvision {cfg['arch']} (one process, no DDP)",
            {**params, "world_size": 1},
            baseline,
        ),
        Result(
            f"{base}/n{world}/per_process",
            "ddp",
            "images/s",
            sum(per_process) / world,
            impl,
            {**params, "per_rank_images_per_s": per_process},
            Timing(tuple(step_times)),
        ),
        Result(
            f"{base}/n{world}/total", "ddp", "images/s", total, impl, params, Timing((slowest,))
        ),
        Result(
            f"{base}/n{world}/scaling_efficiency",
            "ddp",
            "fraction of n x one process",
            total / (world * single),
            impl,
            params,
        ),
    ]
    checks = [
        Check(
            f"DDP scaling efficiency, {world} processes",
            total / (world * single),
            f"{base}/n{world}/total",
            f"{world} x {base}/n1",
            0.90 if raw["backend"] == "nccl" and world > 1 else None,
        )
    ]
    if raw["allreduce_s"]:
        t = raw["allreduce_s"]
        algbw = cfg["allreduce_bytes"] / t / 1e9
        results.append(
            Result(
                f"allreduce/{raw['backend']}/{cfg['allreduce_bytes']}B/n{world}",
                "allreduce",
                "GB/s (bus)",
                algbw * 2 * (world - 1) / world,
                f"torch.distributed.all_reduce ({raw['backend']})",
                {
                    "bytes": cfg["allreduce_bytes"],
                    "world_size": world,
                    "algbw_gbs": algbw,
                    "definition": (
                        "nccl-tests busbw = algbw * 2(n-1)/n, time = slowest rank's median"
                    ),
                },
                Timing((t,)),
            )
        )
    return results, checks


def document(raw: dict[str, Any]) -> dict[str, Any]:
    """The results document of a DDP run (same schema as a single-device run)."""
    from rocport.bench.device import describe, software_versions
    from rocport.bench.results import build_document

    results, checks = to_results(raw)
    info = describe("cuda:0" if raw["device"].startswith("cuda") else "cpu")
    return build_document(
        device={**info.to_dict(), "world_size": raw["world_size"]},
        software=software_versions(),
        settings={"ddp": raw["config"], "world_size": raw["world_size"], "backend": raw["backend"]},
        results=results,
        skipped=[],
        checks=checks,
    )
