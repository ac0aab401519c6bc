"""Where the compilers and HIP back ends for ``rocport verify`` are.

- **HIP's NVIDIA backend** (HIP, clr and hipother headers): ``--hip-nvidia PATH`` names an
  unpacked copy (the folder ``get-hip-nvidia DIR`` filled, or the package folder itself), or a
  ROCm installation whose ``include/hip/nvidia_detail`` exists; ``$ROCPORT_HIP_NVIDIA`` and
  ``/opt/rocm`` are tried when none is given.
- **HIP-CPU** (AMD's header-only CPU runtime): ``--hip-cpu PATH`` names its ``include`` folder,
  the repository root, or the folder ``get-hip-cpu DIR`` filled; ``$ROCPORT_HIP_CPU`` otherwise.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from rocport.errors import ToolError

_NVIDIA_PARTS = ("generated-include", "hip-include", "hipother-include", "clr-include")


@dataclass(frozen=True, slots=True)
class HipNvidia:
    include_dirs: tuple[Path, ...]
    root: Path  # the package folder (holds stub.c for a link-only libcuda) or the ROCm root

    @property
    def flags(self) -> list[str]:
        return [f"-I{d}" for d in self.include_dirs]

    @property
    def stub(self) -> Path | None:
        stub = self.root / "stub.c"
        return stub if stub.is_file() else None


def _package(folder: Path) -> Path | None:
    if all((folder / part).is_dir() for part in _NVIDIA_PARTS):
        return folder
    for child in sorted(folder.glob("hip-nvidia-*"), reverse=True):
        if all((child / part).is_dir() for part in _NVIDIA_PARTS):
            return child
    return None


def find_hip_nvidia(path: str | os.PathLike[str] | None = None) -> HipNvidia:
    """The NVIDIA backend headers at ``path``, or from ``$ROCPORT_HIP_NVIDIA`` or ``/opt/rocm``."""
    candidates = [Path(path)] if path else []
    if not path:
        if os.environ.get("ROCPORT_HIP_NVIDIA"):
            candidates.append(Path(os.environ["ROCPORT_HIP_NVIDIA"]))
        candidates.append(Path("/opt/rocm"))
    for folder in candidates:
        if not folder.is_dir():
            continue
        package = _package(folder.resolve())
        if package is not None:
            return HipNvidia(tuple(package / part for part in _NVIDIA_PARTS), package)
        if (folder / "include" / "hip" / "nvidia_detail").is_dir():
            return HipNvidia((folder.resolve() / "include",), folder.resolve())
    where = f"at {path}" if path else "($ROCPORT_HIP_NVIDIA, /opt/rocm)"
    raise ToolError(
        f"no headers of HIP's NVIDIA backend {where}: give --hip-nvidia PATH (a ROCm install "
        "with include/hip/nvidia_detail, or the folder `get-hip-nvidia DIR` unpacked)"
    )


def find_hip_cpu(path: str | os.PathLike[str] | None = None) -> Path:
    """HIP-CPU's include folder (the one holding ``hip/hip_runtime.h`` and ``hip/hip_api.h``)."""
    candidates = [Path(path)] if path else []
    if not path and os.environ.get("ROCPORT_HIP_CPU"):
        candidates.append(Path(os.environ["ROCPORT_HIP_CPU"]))
    for folder in candidates:
        for include in (folder, folder / "include", *sorted(folder.glob("hip-cpu-*/include"))):
            if (include / "hip" / "hip_api.h").is_file() and (
                include / "hip" / "hip_constants.h"
            ).is_file():
                return include.resolve()
    where = f"at {path}" if path else "($ROCPORT_HIP_CPU unset)"
    raise ToolError(
        f"no HIP-CPU {where}: give --hip-cpu PATH (its include folder, or the folder "
        "`get-hip-cpu DIR` unpacked; it also needs g++ and libtbb-dev)"
    )


def lanes_copy(include: Path, lanes: int, dest: Path) -> Path:
    """A copy of the HIP-CPU tree whose ``warpSize`` is ``lanes``; returns its include folder."""
    root = include.parent
    target = dest / f"hip-cpu-{lanes}"
    if not target.exists():
        shutil.copytree(root, target, ignore=shutil.ignore_patterns("docs", ".git"))
        constants = target / "include" / "hip" / "hip_constants.h"
        text = constants.read_text()
        if "warpSize{64}" not in text:
            raise ToolError(f"{constants}: no `warpSize{{64}}` to change; not a known HIP-CPU")
        constants.write_text(text.replace("warpSize{64}", f"warpSize{{{lanes}}}"))
    return target / "include"


def require(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise ToolError(f"{tool} not found on PATH")
    return found


def nvidia_gpu_present() -> bool:
    """Whether this machine has an NVIDIA GPU with its driver (``nvidia-smi -L`` lists one)."""
    import subprocess

    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        proc = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0 and "GPU" in proc.stdout
