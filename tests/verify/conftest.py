"""Fixtures for ``rocport verify``: HIP-CPU and HIP's NVIDIA backend unpacked from the pinned
copies in ``../shared`` (as CI does), and ported trees made with rocport itself."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"


def _unpack(tool: str, dest: Path) -> str:
    script = SHARED / "tools" / tool
    if not script.is_file():
        pytest.skip(f"{script} is missing (the pinned copies live in ../shared)")
    proc = subprocess.run(["bash", str(script), str(dest)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"{tool} failed: {proc.stderr.strip()}")
    return proc.stdout.strip()


@pytest.fixture(scope="session")
def hip_cpu() -> Path:
    """HIP-CPU's include folder; skips (saying why) without g++ or libtbb-dev."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not found (HIP-CPU needs it)")
    probe = subprocess.run(
        ["g++", "-x", "c++", "-", "-o", "/dev/null", "-ltbb"],
        input="int main(){}",
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip("libtbb not linkable: apt-get install libtbb-dev (.ci/run installs it)")
    return Path(_unpack("get-hip-cpu", ROOT / ".cache" / "hip-cpu"))


@pytest.fixture(scope="session")
def hip_nvidia() -> Path:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found (the NVIDIA path builds with it)")
    _unpack("get-hip-nvidia", ROOT / ".cache" / "hip-nvidia")
    return ROOT / ".cache" / "hip-nvidia"


def port(src: Path, out: Path, **options) -> Path:
    """``rocport port SRC -o OUT`` through the library."""
    from rocport.port.api import port_tree, resolve_options
    from rocport.port.config import ProjectConfig

    port_tree(src, out, options=resolve_options(ProjectConfig(), **options))
    return out
