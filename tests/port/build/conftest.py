"""Shared fixtures: the HIP toolchains the build tests run, and ported copies of the examples."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rocport.check.toolchain import Launcher, registry

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def sid_launcher(*programs: str) -> Launcher:
    """A launcher into the sid root (HIP 6.4).

    Skips, saying why, when the root or one of ``programs`` inside it is missing."""
    entry = next((e for e in registry() if e.name == "debian-sid"), None)
    if entry is None or not entry.ready:
        pytest.skip("sid HIP 6.4 root not set up: run `bash scripts/toolchain-rocm.sh 6.4`")
    for program in programs:
        if not (entry.root / program.lstrip("/")).exists():
            pytest.skip(
                f"{program} missing in the sid root {entry.root}: "
                "run `bash scripts/toolchain-rocm.sh 6.4`"
            )
    return Launcher(entry.hipcc, entry.root)


def host_hipcc() -> Launcher:
    """Debian 12's hipcc (HIP 5.2); skips, saying why, when it is missing."""
    path = shutil.which("hipcc")
    if path is None:
        pytest.skip("hipcc (HIP 5.2) not found: run `bash scripts/toolchain-rocm.sh 5.2`")
    return Launcher(path)


@pytest.fixture
def sid() -> Launcher:
    return sid_launcher("usr/bin/cmake", "usr/bin/make", "usr/bin/hipcc", "usr/bin/clang++-21")


@pytest.fixture
def hipcc52() -> Launcher:
    return host_hipcc()


@pytest.fixture
def examples() -> Path:
    return EXAMPLES


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A work folder under /tmp, which the sid launcher mounts into the root at the same path."""
    assert str(tmp_path).startswith("/tmp/") or os.environ.get("ROCPORT_ALLOW_TMP"), tmp_path
    return tmp_path
