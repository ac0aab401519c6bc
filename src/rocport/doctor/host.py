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

import fnmatch
import glob as globlib
import os
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PROBE_DIR = ".rocport-probes"
#: the most read of one file under a root (a probe's output, os-release, a sysfs value)
READ_LIMIT = 4 * 1024 * 1024
#: the most symbolic links followed while resolving one path under a root
_MAX_LINKS = 40
_READ_CHUNK = 64 * 1024

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
    """Reads files and runs probes, live or under a fixture/offline root.

    Under a root, every path is resolved one component at a time inside it, as a chroot
    would: an absolute symbolic link starts again at the root, ``..`` stops there, so nothing
    outside the root is ever read or listed. Only regular files are read (a FIFO, a device
    or a socket counts as absent), at most :data:`READ_LIMIT` bytes each, and a read that
    takes longer than ``timeout`` is given up.
    """

    def __init__(self, root: Path | None = None, *, timeout: float = 20.0) -> None:
        self.root = Path(root) if root is not None else None
        self.timeout = timeout

    @property
    def offline(self) -> bool:
        return self.root is not None

    def path(self, abs_path: str) -> Path:
        return self.root / abs_path.lstrip("/") if self.root else Path(abs_path)

    def read_text(self, abs_path: str) -> str | None:
        """The text of a regular file (cut at :data:`READ_LIMIT`), None if there is none."""
        if self.root is None:
            data = self._read_regular(abs_path)
        else:
            data = self._read_under_root(abs_path)
        return None if data is None else data.decode("utf-8", errors="replace")

    def exists(self, abs_path: str) -> bool:
        if self.root is None:
            return Path(abs_path).exists()
        found = self._resolve(abs_path)
        if found is None:
            return False
        os.close(found[0])
        return True

    def glob(self, pattern: str) -> list[str]:
        """Absolute paths (as seen on the examined machine) matching ``pattern``."""
        if self.root is None:
            return sorted(globlib.glob(pattern))
        found = [""]
        for part in [p for p in pattern.split("/") if p]:
            if not globlib.has_magic(part):
                found = [f"{f}/{part}" for f in found]
                continue
            found = [
                f"{f}/{name}"
                for f in found
                for name in self._list(f)
                if fnmatch.fnmatchcase(name, part) and not name.startswith(".")
            ]
        return sorted(f for f in found if self.exists(f))

    # -- under a root ---------------------------------------------------------------------

    def _resolve(self, abs_path: str) -> tuple[int, str] | None:
        """``(descriptor of the folder, last name)`` of ``abs_path`` resolved inside the root,
        with every symbolic link on the way followed inside the root; None when a component
        is missing or the links go round. The caller closes the descriptor."""
        assert self.root is not None
        try:
            root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return None
        stack = [root_fd]  # descriptors of the folders from the root down
        todo = [p for p in abs_path.split("/") if p and p != "."][::-1]
        links = 0
        try:
            while todo:
                name = todo.pop()
                if name == "..":
                    if len(stack) > 1:
                        os.close(stack.pop())
                    continue
                st = os.stat(name, dir_fd=stack[-1], follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    links += 1
                    if links > _MAX_LINKS:
                        return None
                    target = os.readlink(name, dir_fd=stack[-1])
                    if target.startswith("/"):
                        while len(stack) > 1:
                            os.close(stack.pop())
                    todo.extend([p for p in target.split("/") if p and p != "."][::-1])
                    continue
                if not todo:
                    fd = stack.pop()
                    return fd, name
                if not stat.S_ISDIR(st.st_mode):
                    return None
                flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                stack.append(os.open(name, flags, dir_fd=stack[-1]))
            fd = stack.pop()
            return fd, "."
        except OSError:
            return None
        finally:
            for fd in stack:
                os.close(fd)

    def _read_under_root(self, abs_path: str) -> bytes | None:
        """The bytes of the regular file at ``abs_path`` under the root (None otherwise)."""
        found = self._resolve(abs_path)
        if found is None:
            return None
        folder, name = found
        try:
            return self._read_regular(name, folder)
        finally:
            os.close(folder)

    def _read_regular(self, path: str, folder: int | None = None) -> bytes | None:
        """At most :data:`READ_LIMIT` bytes of ``path`` (relative to the folder descriptor
        ``folder``), if it is a regular file; None otherwise or when it cannot be read."""
        try:
            flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY
            if folder is not None:  # resolved under a root: the last name is no link
                flags |= os.O_NOFOLLOW
            fd = os.open(path, flags, dir_fd=folder)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None  # a FIFO, a device, a socket or a folder: never read
            deadline = time.monotonic() + self.timeout
            chunks: list[bytes] = []
            size = 0
            while size < READ_LIMIT and time.monotonic() < deadline:
                chunk = os.read(fd, min(_READ_CHUNK, READ_LIMIT - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            return b"".join(chunks)  # cut at the limit or the deadline, if reached
        except OSError:
            return None
        finally:
            os.close(fd)

    def _list(self, abs_folder: str) -> list[str]:
        """The names in the folder at ``abs_folder`` under the root ([] when there is none)."""
        found = self._resolve(abs_folder or "/")
        if found is None:
            return []
        folder, name = found
        try:
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
        except OSError:
            return []
        finally:
            os.close(folder)
        try:
            return sorted(os.listdir(fd))
        except OSError:
            return []
        finally:
            os.close(fd)

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
        stdout_file = f"/{PROBE_DIR}/{PROBE_FILES[name]}"
        stdout = self.read_text(stdout_file)
        if stdout is None:
            return ProbeResult(name, args, "missing")
        exit_text = (self.read_text(stdout_file + ".exit") or "0").strip()
        code = int(exit_text) if exit_text.lstrip("-").isdigit() else 1
        stderr = self.read_text(stdout_file + ".stderr") or ""
        return ProbeResult(name, args, "ok" if code == 0 else "failed", code, stdout, stderr)
