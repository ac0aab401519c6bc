"""os-release, kernel release, ``df -P`` and ``dkms status`` parsing."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass


def parse_os_release(text: str) -> dict[str, str]:
    """Parse os-release(5): ``KEY=value`` lines, values in shell quoting, ``#`` comments."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, raw = line.partition("=")
        try:
            words = shlex.split(raw, comments=False, posix=True)
        except ValueError:
            words = [raw.strip("\"'")]
        fields[key.strip()] = words[0] if words else ""
    return fields


def kernel_series(release: str) -> str | None:
    """``"6.8.0-45-generic"`` -> ``"6.8"``."""
    match = re.match(r"(\d+)\.(\d+)", release.strip())
    return f"{match[1]}.{match[2]}" if match else None


@dataclass(frozen=True)
class DiskSpace:
    filesystem: str
    mount: str
    available_bytes: int


def parse_df_portable(text: str) -> DiskSpace | None:
    """Parse ``df -Pk PATH`` (POSIX output format, 1024-byte blocks; see df(1p))."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    fields = lines[-1].split()
    if len(fields) < 6 or not fields[3].isdigit():
        return None
    return DiskSpace(fields[0], " ".join(fields[5:]), int(fields[3]) * 1024)


@dataclass(frozen=True)
class DkmsEntry:
    module: str
    version: str
    kernel: str | None
    state: str


_DKMS_LINE = re.compile(
    r"^(?P<module>[^/,\s]+)[/,]\s*(?P<version>[^,:\s]+)"
    r"(?:,\s*(?P<kernel>[^,:\s]+))?(?:,\s*[^,:\s]+)?:\s*(?P<state>.+)$"
)


def parse_dkms_status(text: str) -> list[DkmsEntry]:
    """Parse ``dkms status``: ``module/version, kernel, arch: state`` per line (dkms(8))."""
    entries = []
    for line in text.splitlines():
        match = _DKMS_LINE.match(line.strip())
        if match:
            entries.append(
                DkmsEntry(
                    match["module"], match["version"], match["kernel"], match["state"].strip()
                )
            )
    return entries
