"""rocport's own kernels, in Triton so that one source runs on CUDA and on ROCm.

Without a GPU the kernels are checked under Triton's interpreter. The interpreter must
be chosen before Triton is first imported (torchvision imports it), so that check runs
in a child process started with ``TRITON_INTERPRET=1``: see :func:`interpreter_check`.
"""

from __future__ import annotations

import json
import os
import subprocess  # nosec B404: fixed argv, no shell
import sys
from functools import cache
from types import ModuleType

from rocport.errors import ToolError


def load() -> ModuleType:
    """Import the compiled kernels (GPU runs); raise ImportError without Triton."""
    import importlib

    return importlib.import_module("rocport.bench._triton_impl")


def available() -> str | None:
    """None if Triton imports, else the reason it does not."""
    try:
        import triton  # noqa: F401
    except Exception as exc:  # a broken install can raise anything on import
        return f"triton cannot be imported: {exc}"
    return None


@cache
def interpreter_check(timeout: float = 300.0) -> dict[str, dict]:
    """Run :mod:`rocport.bench.triton_selfcheck` under the interpreter; its JSON verdicts."""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    argv = [sys.executable, "-m", "rocport.bench.triton_selfcheck"]
    try:
        proc = subprocess.run(  # nosec B603: fixed argv
            argv, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"Triton interpreter check timed out after {timeout:.0f} s") from exc
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise ToolError(f"Triton interpreter check failed: {tail}")
    return json.loads(proc.stdout)
