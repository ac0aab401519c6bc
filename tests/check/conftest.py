"""Fixtures for ``rocport check`` tests: the two project toolchains, found the way users find them.

A missing toolchain skips its tests with the command that installs it (``bash
scripts/toolchain-rocm.sh all``); CI runs that script first, so there nothing is skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rocport.check.toolchain import Toolchain, find_toolchain
from rocport.errors import ToolError

SAMPLES = Path(__file__).parent / "samples"


def _toolchain(release: str) -> Toolchain:
    try:
        return find_toolchain(rocm=release)
    except ToolError as exc:
        pytest.skip(
            f"hipcc for ROCm {release} not found ({exc}); run `bash scripts/toolchain-rocm.sh all`"
        )


@pytest.fixture(scope="session")
def rocm52() -> Toolchain:
    """Debian 12's hipcc: HIP 5.2, clang 15."""
    return _toolchain("5.2")


@pytest.fixture(scope="session")
def rocm64() -> Toolchain:
    """The Debian sid root's hipcc 7.0: HIP 6.4, clang 21 (run in a chroot)."""
    return _toolchain("6.4")


@pytest.fixture(params=["5.2", "6.4"])
def any_toolchain(request: pytest.FixtureRequest) -> Toolchain:
    return request.getfixturevalue("rocm" + request.param.replace(".", ""))


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def write():
    """``write(root, {relative path: text})`` creates the files and returns ``root``."""
    return _write
