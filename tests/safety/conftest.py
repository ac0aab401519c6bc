"""Shared by the safety tests: a CUDA program with portability hazards and a translatable
runtime call, the CLI run in-process, a CLI run in a child process with a time limit (for
inputs that could hang), and a way to lose read permission even as root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from rocport.cli.main import main

#: translated by ``port`` (cudaMalloc, the runtime header) and fixed by ``scan --fix``
#: (the warp size of 32 and the 32-bit shuffle mask)
KERNEL = """\
#include <cuda_runtime.h>
__device__ float reduce(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}
__global__ void k(float* x) { x[threadIdx.x / 32] = reduce(x[threadIdx.x % 32]); }
void run(float** d) { cudaMalloc(d, 64); }
"""


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``rocport ARGV`` in this process: (exit code, stdout, stderr)."""
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


def cli_child(argv: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``rocport ARGV`` in a child process; a run past ``timeout`` fails the test (an
    input that makes rocport hang must not hang the test suite)."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "rocport", *argv],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"rocport {' '.join(argv)} still ran after {timeout} s")


@contextmanager
def unprivileged() -> Iterator[None]:
    """Run the block with permission checks in force: as root (CI), the effective user becomes
    ``nobody`` for its duration (root reads every file whatever its mode)."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(65534)
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder that the user of :func:`unprivileged` can write (pytest's own temporary folders
    are private to their owner); removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="rocport-safety-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):  # give back what the test took away, so all can go
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)
