"""Run a built program in a temporary folder of its own, with the inputs copied in.

Both sides get the same arguments, the same input files (copied under their own names), the
same environment (plus ``extra_env``, e.g. a seed) and the same time limit. With ``prefix``
(``ssh gpu-host``, ``srun``) the command line becomes ``PREFIX BINARY ARGS``: the prefix must
reach the same paths (a shared file system) and run the command in the folder it is given.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from rocport.verify.model import Run

#: what a program prints when the machine has no GPU it can use: the names of the runtime
#: errors and the texts ``cudaGetErrorString`` gives for them (CUDA Runtime API, enum
#: cudaError: cudaErrorNoDevice = 100, cudaErrorInsufficientDriver = 35), HIP's names for
#: the same, and the driver API's
_NO_GPU = re.compile(
    r"cudaErrorNoDevice|no CUDA-capable device is detected|cudaErrorInsufficientDriver|"
    r"CUDA driver version is insufficient for CUDA runtime version|hipErrorNoDevice|"
    r"hipErrorInsufficientDriver|no ROCm-capable device is detected|CUDA_ERROR_NO_DEVICE"
)


def no_gpu(run: Run) -> str | None:
    """The line in which ``run`` says that it found no GPU it could use, or None."""
    for line in (run.stderr + "\n" + run.stdout).splitlines():
        if _NO_GPU.search(line):
            return line.strip()
    return None


def run_program(
    binary: str,
    *,
    args: Sequence[str] = (),
    inputs: Sequence[Path] = (),
    output_files: Sequence[str] = (),
    prefix: Sequence[str] = (),
    extra_env: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> Run:
    """Run ``binary`` once and collect its exit code, output and ``output_files``."""
    with tempfile.TemporaryDirectory(prefix="rocport-verify-run-") as tmp:
        work = Path(tmp)
        for source in inputs:
            target = work / Path(source).name
            if Path(source).is_dir():
                shutil.copytree(source, target)
            else:
                shutil.copy2(source, target)
        env = dict(os.environ)
        env.update(extra_env or {})
        command = [*prefix, str(Path(binary).resolve()), *args]
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                command, cwd=work, env=env, capture_output=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired as exc:
            return Run(
                None,
                _text(exc.stdout),
                _text(exc.stderr),
                seconds=time.perf_counter() - started,
                error=f"timed out after {timeout:g} s",
            )
        except OSError as exc:
            return Run(None, "", "", error=f"cannot run {command[0]}: {exc.strerror or exc}")
        seconds = time.perf_counter() - started
        files = {}
        for name in output_files:
            path = work / name
            files[name] = path.read_bytes() if path.is_file() else None
        return Run(proc.returncode, _text(proc.stdout), _text(proc.stderr), files, seconds)


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")
