"""The amdgpu-dkms package version, decoded to the AMD GPU Driver release it ships.

``dpkg-query -W amdgpu-dkms`` prints ``amdgpu-dkms<TAB>1:6.8.5.60200-2009582.24.04`` and
``rpm -q --qf '%{VERSION}-%{RELEASE}\\n' amdgpu-dkms`` prints ``6.8.5.60200-2009582.el9``: the
kernel-module version (``6.8.5``, what ``/sys/module/amdgpu/version`` shows) followed by the
release it came with, encoded as AMD encodes its package versions (the install pages' conf.py:
``amdgpu_install_version = '6.2.60202-1'`` for ROCm 6.2.2). ROCm 6.x and older drivers carry
five digits ``MmmPP`` (60200 -> 6.2.0, KMD line ``6.2.x``); the separately versioned drivers
from 30.10 on carry eight, ``MMmmPPBB`` (30100100 -> 30.10.1, line ``30.10.x``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class DriverPackage:
    version: str  # the package version as printed
    module: str  # the kernel module's own version, as /sys/module/amdgpu/version shows it
    release: str  # the AMD GPU Driver release, "6.2.0" or "30.10.1"

    @property
    def line(self) -> str:
        """``"6.2.x"`` / ``"30.10.x"``, as AMD's matrices name driver lines."""
        major, minor, _ = self.release.split(".")
        return f"{major}.{minor}.x"


def decode_driver_version(version: str) -> DriverPackage | None:
    """``1:6.8.5.60200-2009582.24.04`` -> DriverPackage(module 6.8.5, release 6.2.0)."""
    upstream = version.strip().split(":", 1)[-1].split("-", 1)[0]
    match = re.fullmatch(r"(\d+\.\d+\.\d+)\.(\d{5}|\d{8})", upstream)
    if not match:
        return None
    code = match[2]
    if len(code) == 5:
        release = f"{int(code[0])}.{int(code[1:3])}.{int(code[3:5])}"
    else:
        release = f"{int(code[0:2])}.{int(code[2:4])}.{int(code[4:6])}"
    return DriverPackage(version.strip(), match[1], release)


def parse_dpkg_query(text: str) -> str | None:
    """``dpkg-query -W amdgpu-dkms`` output -> the version field (None when not installed)."""
    for line in text.splitlines():
        name, _, version = line.partition("\t")
        if name.split(":", 1)[0].strip() == "amdgpu-dkms" and version.strip():
            return version.strip()
    return None


def parse_rpm_query(text: str) -> str | None:
    """``rpm -q --qf '%{VERSION}-%{RELEASE}\\n' amdgpu-dkms`` output -> the version."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if re.match(r"\d", line) else None
