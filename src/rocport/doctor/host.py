"""The machine under examination: files read under an optional root, and tool probes.

Every external tool runs as ``subprocess.run([...], timeout=...)`` without a shell; a tool
that is not installed, that fails or that times out becomes a :class:`ProbeResult`, never
an exception.  With ``root`` set (``rocport doctor --root DIR``) files such as
``/etc/os-release`` are read under ``DIR`` and no tool runs: each probe's output is read
from ``DIR/.rocport-probes/<file>`` instead (see :data:`PROBE_FILES`).  A missing file
there means the tool is not installed; ``<file>.exit`` holds a non-zero exit status and
``<file>.stderr`` its error output.
"""

from __future__ import annotations

import glob as globlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PROBE_DIR = ".rocport-probes"

#: probe name -> the file under ``DIR/.rocport-probes`` that stands for its stdout
PROBE_FILES: dict[str, str] = {
    "id": "id.txt",
    "df": "df.txt",
    "dkms": "dkms.txt",
    "rocminfo": "rocminfo.txt",
    "rocm-smi": "rocm-smi.json",
    "amd-smi": "amd-smi.json",
    "amd-smi-metric": "amd-smi-metric.json",
    "hipconfig-version": "hipconfig-version.txt",
    "hipconfig-platform": "hipconfig-platform.txt",
    "nvidia-smi": "nvidia-smi.csv",
    "torch": "torch.json",
    "tensorflow": "tensorflow.json",
    "mokutil": "mokutil-sb-state.txt",
    "ldd": "ldd-version.txt",
    "lspci": "lspci.txt",
    "amd-smi-firmware": "amd-smi-firmware.json",
    "dpkg-amdgpu-dkms": "dpkg-query-amdgpu-dkms.txt",
    "rpm-amdgpu-dkms": "rpm-amdgpu-dkms.txt",
}

ProbeStatus = Literal["ok", "missing", "failed", "timeout"]


@dataclass(frozen=True)
class ProbeResult:
    """Outcome of running one tool (or reading its recorded output)."""

    name: str
    argv: tuple[str, ...]
    status: ProbeStatus
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def command(self) -> str:
        return " ".join(self.argv)

    def error_line(self) -> str:
        """The first non-empty line of the error output (or stdout), for messages."""
        for text in (self.stderr, self.stdout):
            for line in text.splitlines():
                if line.strip():
                    return line.strip()
        return f"exit status {self.returncode}"


class Host:
    """Reads files and runs probes, live or under a fixture/offline root."""

    def __init__(self, root: Path | None = None, *, timeout: float = 20.0) -> None:
        self.root = Path(root) if root is not None else None
        self.timeout = timeout

    @property
    def offline(self) -> bool:
        return self.root is not None

    def path(self, abs_path: str) -> Path:
        return self.root / abs_path.lstrip("/") if self.root else Path(abs_path)

    def read_text(self, abs_path: str) -> str | None:
        try:
            return self.path(abs_path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def exists(self, abs_path: str) -> bool:
        return self.path(abs_path).exists()

    def glob(self, pattern: str) -> list[str]:
        """Absolute paths (as seen on the examined machine) matching ``pattern``."""
        base = str(self.root) if self.root else ""
        hits = sorted(globlib.glob(base + pattern))
        return [h[len(base) :] for h in hits]

    def environ(self) -> dict[str, str]:
        """The environment: ``os.environ`` live, ``DIR/proc/self/environ`` offline."""
        if not self.root:
            return dict(os.environ)
        raw = self.read_text("/proc/self/environ") or ""
        pairs = (item.partition("=") for item in raw.split("\0") if "=" in item)
        return {key: value for key, _, value in pairs}

    def run(self, name: str, argv: list[str], *, timeout: float | None = None) -> ProbeResult:
        """Run ``argv`` (live) or read probe ``name``'s recorded output (offline)."""
        args = tuple(argv)
        if self.root:
            return self._recorded(name, args)
        if shutil.which(args[0]) is None:
            return ProbeResult(name, args, "missing")
        env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
        try:
            proc = subprocess.run(  # fixed argv, no shell
                args,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout or self.timeout,
                stdin=subprocess.DEVNULL,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return ProbeResult(
                name, args, "timeout", stderr=f"timed out after {timeout or self.timeout:g} s"
            )
        except OSError as exc:
            return ProbeResult(name, args, "failed", stderr=str(exc))
        status: ProbeStatus = "ok" if proc.returncode == 0 else "failed"
        return ProbeResult(name, args, status, proc.returncode, proc.stdout, proc.stderr)

    def _recorded(self, name: str, args: tuple[str, ...]) -> ProbeResult:
        assert self.root is not None
        stdout_file = self.root / PROBE_DIR / PROBE_FILES[name]
        try:
            stdout = stdout_file.read_text(encoding="utf-8")
        except OSError:
            return ProbeResult(name, args, "missing")
        exit_file = stdout_file.with_name(stdout_file.name + ".exit")
        stderr_file = stdout_file.with_name(stdout_file.name + ".stderr")
        code = int(exit_file.read_text().strip()) if exit_file.exists() else 0
        stderr = stderr_file.read_text(encoding="utf-8") if stderr_file.exists() else ""
        return ProbeResult(name, args, "ok" if code == 0 else "failed", code, stdout, stderr)
