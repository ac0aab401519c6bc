"""Which device a benchmark runs on, and the metadata that goes with its results."""

from __future__ import annotations

import os
import platform
import subprocess  # nosec B404: fixed argv, no shell
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from shutil import which
from typing import Any

from rocport import __version__
from rocport.bench.specs import GpuSpec, lookup
from rocport.errors import InputError


@dataclass(frozen=True)
class DeviceInfo:
    """The device and software stack behind one run."""

    device: str  # "cuda:0" or "cpu" (ROCm builds use "cuda" too)
    name: str
    backend: str  # "cuda", "rocm" or "cpu"
    backend_version: str | None
    driver: str | None
    arch: str | None
    memory_bytes: int | None
    multiprocessors: int | None
    l2_cache_bytes: int | None
    spec_key: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def resolve_device(requested: str | None) -> str:
    """``requested`` checked against what torch sees; default the first GPU, else the CPU."""
    import torch

    if requested in (None, "auto"):
        return "cuda:0" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(requested)
    except RuntimeError as exc:
        raise InputError(f"unknown device {requested!r}: {exc}") from exc
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise InputError(f"device {requested!r} asked for, but this torch sees no GPU")
        index = device.index or 0
        if index >= torch.cuda.device_count():
            raise InputError(f"device {requested!r}: only {torch.cuda.device_count()} GPU(s)")
        return f"cuda:{index}"
    if device.type != "cpu":
        raise InputError(f"device type {device.type!r} is not supported (use cuda:N or cpu)")
    return "cpu"


def describe(device: str) -> DeviceInfo:
    """Metadata for ``device`` (a string from :func:`resolve_device`)."""
    import torch

    if device == "cpu":
        return DeviceInfo(
            device="cpu",
            name=platform.processor() or platform.machine(),
            backend="cpu",
            backend_version=None,
            driver=None,
            arch=platform.machine(),
            memory_bytes=None,
            multiprocessors=torch.get_num_threads(),
            l2_cache_bytes=None,
            spec_key=None,
        )
    props = torch.cuda.get_device_properties(device)
    hip = getattr(torch.version, "hip", None)
    gcn_arch = getattr(props, "gcnArchName", None) if hip else None
    spec = lookup(props.name) or lookup(gcn_arch)
    return DeviceInfo(
        device=device,
        name=props.name,
        backend="rocm" if hip else "cuda",
        backend_version=hip or torch.version.cuda,
        driver=_driver_version(bool(hip)),
        arch=gcn_arch or f"sm_{props.major}{props.minor}",
        memory_bytes=int(props.total_memory),
        multiprocessors=int(props.multi_processor_count),
        l2_cache_bytes=int(getattr(props, "L2_cache_size", 0)) or None,
        spec_key=spec.key if spec else None,
    )


def spec_for(info: DeviceInfo) -> GpuSpec | None:
    """The spec row matched to ``info``, if any."""
    return lookup(info.name) or lookup(info.arch)


def software_versions() -> dict[str, str | None]:
    """Versions of the packages that shape the numbers."""
    import torch

    versions: dict[str, str | None] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
    }
    for dist in ("torchvision", "triton", "pytorch-triton-rocm"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    versions["rocport"] = __version__
    versions["rocport_commit"] = source_commit()
    return versions


def source_commit() -> str | None:
    """The git commit of the tree this rocport runs from (``+dirty`` with local changes).

    None for an installed copy outside any checkout; ``ROCPORT_SOURCE_COMMIT`` names it for
    a copy of a checkout made without its ``.git`` folder.
    """
    package = Path(__file__).resolve().parents[1]  # .../rocport
    if which("git") is not None:
        try:
            top = _git(package, "rev-parse", "--show-toplevel")
            if top and (Path(top) / "src" / "rocport").resolve() == package:
                head = _git(package, "rev-parse", "HEAD")
                if head:
                    dirty = _git(package, "status", "--porcelain", "--untracked-files=no")
                    return head + ("+dirty" if dirty else "")
        except (OSError, subprocess.TimeoutExpired):
            pass
    return os.environ.get("ROCPORT_SOURCE_COMMIT") or None


def _git(cwd: Path, *args: str) -> str | None:
    proc = subprocess.run(  # nosec B603 B607: fixed argv
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, timeout=20, check=False
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def _driver_version(rocm: bool) -> str | None:
    """The kernel driver version from the vendor tool, or None if it cannot be read."""
    argv = (
        ["rocm-smi", "--showdriverversion"]
        if rocm
        else ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]
    )
    if which(argv[0]) is None:
        return None
    try:
        out = subprocess.run(  # nosec B603: fixed argv
            argv, capture_output=True, text=True, timeout=20, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        line = line.strip()
        if rocm and "version" in line.lower() and ":" in line:
            return line.rsplit(":", 1)[1].strip()
        if not rocm and line:
            return line
    return None
