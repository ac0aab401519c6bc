"""Facts about the examined machine, gathered once and shared by the checks."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from packaging.version import InvalidVersion, Version

from rocport.doctor import data
from rocport.doctor.frameworks import TENSORFLOW_PROBE, TORCH_PROBE
from rocport.doctor.host import Host, ProbeResult
from rocport.doctor.parse.accounts import Group, Identity, parse_group, parse_id, parse_passwd
from rocport.doctor.parse.nvidia_smi import QUERY_FIELDS, NvidiaGpu, parse_nvidia_smi_csv
from rocport.doctor.parse.rocminfo import RocminfoReport, parse_rocminfo
from rocport.doctor.parse.smi import (
    SmiGpu,
    merge_amd_smi_metric,
    parse_amd_smi_firmware,
    parse_amd_smi_static,
    parse_rocm_smi,
)
from rocport.doctor.parse.system import kernel_series, parse_os_release

AMD_VENDOR, NVIDIA_VENDOR = "0x1002", "0x10de"
#: PCI base classes of display (0x03) and processing accelerator (0x12) devices
GPU_CLASSES = ("0x03", "0x12")
FRAMEWORK_TIMEOUT = 120.0


@dataclass(frozen=True)
class PciDevice:
    address: str
    vendor: str
    device: str


@dataclass(frozen=True)
class SmiReport:
    tool: str
    probe: ProbeResult
    gpus: list[SmiGpu]
    driver: str | None
    error: str | None


class Context:
    """Lazily computed facts; each probe runs at most once per doctor run."""

    def __init__(self, host: Host, release: str, *, python: str | None = None) -> None:
        self.host = host
        self.release = release
        self.release_data = data.releases()[release]
        self.python = python or sys.executable
        #: results of the checks run so far, by id (filled by the engine)
        self.results: dict[str, Any] = {}

    @cached_property
    def installed_rocm(self) -> tuple[str | None, str | None]:
        return installed_rocm(self.host)

    # --- operating system -------------------------------------------------
    @cached_property
    def os_release(self) -> dict[str, str]:
        text = self.host.read_text("/etc/os-release") or self.host.read_text("/usr/lib/os-release")
        return parse_os_release(text or "")

    @cached_property
    def kernel_release(self) -> str | None:
        text = self.host.read_text("/proc/sys/kernel/osrelease")
        return text.strip() if text else None

    @property
    def kernel_series(self) -> str | None:
        return kernel_series(self.kernel_release) if self.kernel_release else None

    @cached_property
    def matrix_row(self) -> dict[str, Any] | None:
        return match_os(self.release_data["os"], self.os_release)

    @cached_property
    def environ(self) -> dict[str, str]:
        return self.host.environ()

    # --- hardware ---------------------------------------------------------
    @cached_property
    def pci_gpus(self) -> list[PciDevice]:
        devices = []
        for path in self.host.glob("/sys/bus/pci/devices/*"):
            cls = (self.host.read_text(f"{path}/class") or "").strip()
            vendor = (self.host.read_text(f"{path}/vendor") or "").strip()
            if cls.startswith(GPU_CLASSES) and vendor in (AMD_VENDOR, NVIDIA_VENDOR):
                device = (self.host.read_text(f"{path}/device") or "").strip()
                devices.append(PciDevice(path.rsplit("/", 1)[-1], vendor, device))
        return devices

    def pci_of(self, vendor: str) -> list[PciDevice]:
        return [d for d in self.pci_gpus if d.vendor == vendor]

    @cached_property
    def loaded_modules(self) -> set[str]:
        text = self.host.read_text("/proc/modules") or ""
        return {line.split()[0] for line in text.splitlines() if line.strip()}

    # --- accounts ---------------------------------------------------------
    @cached_property
    def identity(self) -> Identity | None:
        probe = self.host.run("id", ["id"])
        return parse_id(probe.stdout) if probe.ok else None

    @cached_property
    def groups(self) -> dict[str, Group]:
        return parse_group(self.host.read_text("/etc/group") or "")

    @cached_property
    def passwd(self) -> dict[str, tuple[int, int]]:
        return parse_passwd(self.host.read_text("/etc/passwd") or "")

    # --- ROCm -------------------------------------------------------------
    @cached_property
    def rocminfo_probe(self) -> ProbeResult:
        return self.host.run("rocminfo", ["rocminfo"])

    @cached_property
    def rocminfo(self) -> RocminfoReport | None:
        probe = self.rocminfo_probe
        if probe.status == "missing":
            return None
        return parse_rocminfo(probe.stdout + "\n" + probe.stderr)

    @property
    def amd_gpu_agents(self) -> list:
        return self.rocminfo.gpus if self.rocminfo and self.rocminfo_probe.ok else []

    @cached_property
    def smi(self) -> SmiReport | None:
        attempts = (
            ("rocm-smi", ["rocm-smi", "--showallinfo", "--json"], parse_rocm_smi),
            ("amd-smi", ["amd-smi", "static", "--json"], parse_amd_smi_static),
        )
        first_failure: SmiReport | None = None
        for tool, argv, parser in attempts:
            probe = self.host.run(tool, argv)
            if probe.status == "missing":
                continue
            if probe.ok:
                try:
                    gpus, driver = parser(probe.stdout)
                    if tool == "amd-smi":
                        gpus = self._amd_smi_metrics(gpus)
                    return SmiReport(tool, probe, gpus, driver, None)
                except (ValueError, AttributeError, TypeError) as exc:
                    failure = SmiReport(tool, probe, [], None, f"unreadable JSON: {exc}")
            else:
                failure = SmiReport(tool, probe, [], None, probe.error_line())
            first_failure = first_failure or failure
        return first_failure

    @cached_property
    def amd_smi_firmware(self) -> dict[str, dict[str, str]] | None:
        """GPU -> firmware versions from ``amd-smi firmware --json`` (None when unavailable)."""
        probe = self.host.run("amd-smi-firmware", ["amd-smi", "firmware", "--json"])
        if not probe.ok:
            return None
        try:
            return parse_amd_smi_firmware(probe.stdout)
        except (ValueError, AttributeError, TypeError):
            return None

    def _amd_smi_metrics(self, gpus: list[SmiGpu]) -> list[SmiGpu]:
        """Add ``amd-smi metric --json`` telemetry; the static data stands if it fails."""
        probe = self.host.run("amd-smi-metric", ["amd-smi", "metric", "--json"])
        if not probe.ok:
            return gpus
        try:
            return merge_amd_smi_metric(gpus, probe.stdout)
        except (ValueError, AttributeError, TypeError):
            return gpus

    @cached_property
    def gfx_targets(self) -> list[tuple[str, str]]:
        """(gfx target, product name) of every AMD GPU that rocminfo or the SMI tools saw."""
        seen = [(a.gfx_target, a.marketing_name) for a in self.amd_gpu_agents if a.gfx_target]
        if not seen and self.smi and not self.smi.error:
            seen = [(g.gfx, g.name or g.card) for g in self.smi.gpus if g.gfx]
        return seen

    # --- NVIDIA -----------------------------------------------------------
    @cached_property
    def nvidia_probe(self) -> ProbeResult:
        query = "--query-gpu=" + ",".join(QUERY_FIELDS)
        return self.host.run("nvidia-smi", ["nvidia-smi", query, "--format=csv,noheader,nounits"])

    @cached_property
    def nvidia_gpus(self) -> list[NvidiaGpu]:
        return parse_nvidia_smi_csv(self.nvidia_probe.stdout) if self.nvidia_probe.ok else []

    # --- frameworks -------------------------------------------------------
    def _framework(self, name: str, program: str) -> dict[str, Any]:
        probe = self.host.run(name, [self.python, "-c", program], timeout=FRAMEWORK_TIMEOUT)
        if probe.status == "missing":
            return {"installed": False, "error": f"python interpreter {self.python} not found"}
        if not probe.ok:
            lines = [line for line in probe.stderr.splitlines() if line.strip()]
            reason = lines[-1].strip() if lines else probe.error_line()
            return {
                "installed": None,
                "error": f"{self.python} -c <{name} probe> {probe.status}: {reason}",
            }
        try:
            return json.loads(probe.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return {"installed": None, "error": f"unreadable probe output: {probe.stdout[:200]!r}"}

    @cached_property
    def torch(self) -> dict[str, Any]:
        return self._framework("torch", TORCH_PROBE)

    @cached_property
    def tensorflow(self) -> dict[str, Any]:
        return self._framework("tensorflow", TENSORFLOW_PROBE)

    @property
    def amd_host(self) -> bool:
        """Whether an AMD GPU is visible by any route (PCI, driver or ROCm tools)."""
        return bool(self.pci_of(AMD_VENDOR) or self.amd_gpu_agents or self.gfx_targets)

    @property
    def nvidia_host(self) -> bool:
        return bool(self.pci_of(NVIDIA_VENDOR) or self.nvidia_gpus)


def installed_rocm(host: Host) -> tuple[str | None, str | None]:
    """(version, where) from /opt/rocm/.info/version, else the newest /opt/rocm-X.Y.Z."""
    text = host.read_text("/opt/rocm/.info/version")
    if text and text.strip():
        return text.strip(), "/opt/rocm/.info/version"
    versions = []
    for path in host.glob("/opt/rocm-*"):
        try:
            versions.append((Version(path.rsplit("-", 1)[-1]), path))
        except InvalidVersion:
            continue
    if versions:
        version, path = max(versions)
        return str(version), path
    return None, None


def match_os(rows: list[dict[str, Any]], os_release: dict[str, str]) -> dict[str, Any] | None:
    """The support-matrix row for this os-release (``"9"`` matches VERSION_ID ``"9.6"``)."""
    os_id, version = os_release.get("ID", ""), os_release.get("VERSION_ID", "")
    for row in rows:
        if row["id"] != os_id:
            continue
        if version == row["version"] or version.startswith(row["version"] + "."):
            return row
    return None
