"""The NVIDIA baseline: the GPUs and CUDA PyTorch build that a port starts from."""

from __future__ import annotations

from rocport.doctor.checks.base import Check, check
from rocport.doctor.context import NVIDIA_VENDOR, Context
from rocport.doctor.model import CheckResult, Status


@check("nvidia.gpus", "nvidia", "NVIDIA GPUs (nvidia-smi), the 'before' baseline")
def nvidia_gpus(ctx: Context, c: Check) -> CheckResult:
    probe = ctx.nvidia_probe
    pci = [d.address for d in ctx.pci_of(NVIDIA_VENDOR)]
    if probe.status == "missing":
        if pci:
            return c.result(
                Status.WARN,
                f"NVIDIA GPU on PCI {', '.join(pci)} but nvidia-smi is not installed",
                "Install the NVIDIA driver utilities (nvidia-utils) to record the baseline.",
            )
        return c.result(Status.SKIP, "no NVIDIA GPU (nvidia-smi not installed)")
    if not probe.ok:
        return c.result(
            Status.WARN,
            f"nvidia-smi failed: {probe.error_line()}",
            "Check the NVIDIA driver (dmesg | grep NVRM).",
        )
    gpus = ctx.nvidia_gpus
    if not gpus:
        return c.result(Status.WARN, "nvidia-smi lists no GPU", "Check the NVIDIA driver.")
    found = "; ".join(
        f"{g.name}: {g.memory_total_mib} MiB, {g.sm or '?'}, driver {g.driver_version}"
        for g in gpus
    )
    return c.result(Status.PASS, f"{len(gpus)} GPU(s): {found}", gpus=[g.to_dict() for g in gpus])


@check("nvidia.torch", "nvidia", "CUDA build of PyTorch on the NVIDIA GPUs")
def nvidia_torch(ctx: Context, c: Check) -> CheckResult:
    t = ctx.torch
    if not (t.get("installed") and t.get("cuda") and not t.get("hip")):
        return c.result(Status.SKIP, "no CUDA build of PyTorch")
    label = f"torch {t.get('version')} (CUDA {t['cuda']})"
    details = {k: t.get(k) for k in ("version", "cuda", "available", "devices", "arch_list")}
    if not ctx.nvidia_host:
        return c.result(Status.SKIP, f"{label}; no NVIDIA GPU here", **details)
    if not t.get("available"):
        return c.result(
            Status.WARN,
            f"{label} but torch.cuda.is_available() is False",
            "Check the NVIDIA driver version against the wheel's CUDA version.",
            **details,
        )
    arch_list = set(t.get("arch_list") or [])
    missing = sorted({g.sm for g in ctx.nvidia_gpus if g.sm and g.sm not in arch_list})
    names = ", ".join(f"{d['name']} ({d['arch']})" for d in t.get("devices", []))
    if missing:
        return c.result(
            Status.WARN,
            f"{label} sees {names}; wheel lacks SASS for {', '.join(missing)} (PTX JIT or failure)",
            "Install a wheel whose arch list covers the GPU.",
            **details,
        )
    return c.result(Status.PASS, f"{label} sees {names}", **details)


CHECKS = (nvidia_gpus, nvidia_torch)
