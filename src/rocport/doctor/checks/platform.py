"""Boot and platform settings ROCm depends on: glibc, Secure Boot, IOMMU, integrated GPUs.

AMD's system-requirements page lists the glibc of each supported distribution and notes that
"systems with multiple GPUs may require ``iommu=pt``"; amdgpu-dkms modules built on the
machine are unsigned, so with Secure Boot on they load only once their key is enrolled.
"""

from __future__ import annotations

import re

from packaging.version import Version

from rocport.doctor.checks.base import Check, check
from rocport.doctor.context import AMD_VENDOR, Context
from rocport.doctor.model import CheckResult, Status
from rocport.doctor.parse.system import parse_dkms_status

#: ``ldd --version`` first line: ``ldd (Ubuntu GLIBC 2.39-0ubuntu8.4) 2.39``
_LDD = re.compile(r"^ldd \(.*?\)\s+(\d+\.\d+)", re.M)
#: ``mokutil --sb-state``: ``SecureBoot enabled`` / ``SecureBoot disabled``
_SB = re.compile(r"SecureBoot (enabled|disabled)")


@check("os.glibc", "system", "glibc of the distribution release AMD validated")
def os_glibc(ctx: Context, c: Check) -> CheckResult:
    probe = ctx.host.run("ldd", ["ldd", "--version"])
    match = _LDD.search(probe.stdout) if probe.ok else None
    if match is None:
        return c.result(Status.SKIP, f"cannot read the glibc version ({probe.command})")
    found = match[1]
    row = ctx.matrix_row
    if row is None or not row.get("glibc"):
        return c.result(Status.SKIP, f"glibc {found}; AMD lists no glibc for this OS", glibc=found)
    wanted = row["glibc"]
    details = {"glibc": found, "validated": wanted, "source": ctx.release_data["sources"]["os"]}
    if Version(found) < Version(wanted):
        return c.result(
            Status.WARN,
            f"glibc {found} is older than the {wanted} of {row['label']} that ROCm "
            f"{ctx.release} is built and validated on",
            f"Update to {row['label']} (glibc {wanted}); older glibc cannot load ROCm's binaries.",
            **details,
        )
    return c.result(Status.PASS, f"glibc {found} ({row['label']}: {wanted})", **details)


@check("boot.secure_boot", "driver", "Secure Boot and the unsigned amdgpu-dkms module")
def boot_secure_boot(ctx: Context, c: Check) -> CheckResult:
    probe = ctx.host.run("mokutil", ["mokutil", "--sb-state"])
    state = _SB.search(probe.stdout + probe.stderr)
    if state is None:
        reason = "mokutil not installed" if probe.status == "missing" else probe.error_line()
        return c.result(Status.SKIP, f"Secure Boot state unknown: {reason}")
    if state[1] == "disabled":
        return c.result(Status.PASS, "Secure Boot is disabled: unsigned modules can load")
    dkms = ctx.host.run("dkms", ["dkms", "status"])
    entries = [e for e in parse_dkms_status(dkms.stdout) if e.module == "amdgpu"]
    if not entries:
        return c.result(Status.PASS, "Secure Boot is enabled; amdgpu is the kernel's signed driver")
    loaded = ctx.host.exists("/sys/module/amdgpu") or "amdgpu" in ctx.loaded_modules
    if loaded:
        return c.result(Status.PASS, "Secure Boot is enabled and the amdgpu-dkms module loaded")
    return c.result(
        Status.FAIL,
        "Secure Boot is enabled and amdgpu-dkms is built but not loaded: the kernel refuses "
        "modules signed with a key it does not trust",
        "sudo mokutil --import /var/lib/dkms/mok.pub  # then reboot and enrol the key in the "
        "MOK manager (or turn Secure Boot off)",
        dkms=[e.__dict__ for e in entries],
    )


@check("boot.iommu", "driver", "IOMMU mode for multi-GPU systems (iommu=pt)")
def boot_iommu(ctx: Context, c: Check) -> CheckResult:
    gpus = ctx.pci_of(AMD_VENDOR)
    cmdline = (ctx.host.read_text("/proc/cmdline") or "").split()
    if len(gpus) < 2:
        return c.result(Status.SKIP, f"{len(gpus)} AMD GPU(s) on the PCI bus: iommu=pt not needed")
    if not cmdline:
        return c.result(Status.SKIP, "cannot read /proc/cmdline")
    modes = [w for w in cmdline if w.startswith(("iommu=", "amd_iommu=", "intel_iommu="))]
    details = {"cmdline_iommu": modes, "gpus": len(gpus)}
    if "iommu=pt" in modes or "amd_iommu=off" in modes or "intel_iommu=off" in modes:
        return c.result(Status.PASS, f"{len(gpus)} AMD GPUs, kernel booted with {' '.join(modes)}")
    return c.result(
        Status.WARN,
        f"{len(gpus)} AMD GPUs but the kernel command line has no iommu=pt "
        f"({' '.join(modes) or 'IOMMU in its default translated mode'}); AMD notes that "
        "multi-GPU systems may hang without it",
        "Add iommu=pt to GRUB_CMDLINE_LINUX in /etc/default/grub, run "
        "`sudo update-grub` (RHEL: `sudo grub2-mkconfig -o /boot/grub2/grub.cfg`), reboot.",
        **details,
    )


#: ``lspci -D -vvv`` device header (``0000:05:00.0 Processing accelerators: ...``) and the
#: Express capability's ``AtomicOpsCtl: ReqEn+`` (pciutils ``ls-caps.c``, lspci(8))
_LSPCI_DEVICE = re.compile(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) (.*)$", re.M)
_ATOMICS = re.compile(r"AtomicOpsCtl:\s*ReqEn([+-])")


@check("hw.pcie_atomics", "driver", "PCIe atomics enabled for the GPUs", needs=("driver.amdgpu",))
def hw_pcie_atomics(ctx: Context, c: Check) -> CheckResult:
    probe = ctx.host.run("lspci", ["lspci", "-D", "-vvv", "-d", "1002:"])
    if not probe.ok:
        reason = "lspci not installed" if probe.status == "missing" else probe.error_line()
        return c.result(Status.SKIP, f"cannot read PCIe capabilities: {reason}")
    gpus = {d.address for d in ctx.pci_of(AMD_VENDOR)}
    states, denied = {}, []
    matches = list(_LSPCI_DEVICE.finditer(probe.stdout))
    for n, match in enumerate(matches):
        if match[1] not in gpus:
            continue
        end = matches[n + 1].start() if n + 1 < len(matches) else len(probe.stdout)
        block = probe.stdout[match.end() : end]
        if "<access denied>" in block:
            denied.append(match[1])
        atomics = _ATOMICS.search(block)
        if atomics:
            states[match[1]] = atomics[1] == "+"
    if not states:
        why = "lspci needs root to show them" if denied else "no AtomicOpsCtl line for the GPUs"
        return c.result(Status.SKIP, f"PCIe atomics unknown: {why}")
    off = sorted(a for a, on in states.items() if not on)
    if off:
        return c.result(
            Status.WARN,
            f"PCIe atomic requests are disabled for {', '.join(off)}: the path to the CPU does "
            "not support them, and ROCm requires CPUs and slots with PCIe atomics",
            "Put the GPU in a slot wired to the CPU (not behind a switch without atomics); "
            "check `sudo dmesg | grep -i atomic`.",
            disabled=off,
        )
    return c.result(Status.PASS, f"PCIe atomics enabled on {', '.join(sorted(states))}")


@check("hw.igpu", "rocm", "No integrated GPU beside the discrete ones", needs=("rocm.agents",))
def hw_igpu(ctx: Context, c: Check) -> CheckResult:
    agents = ctx.amd_gpu_agents
    apus = [a for a in agents if "APU" in a.fields.get("Memory Properties", "")]
    discrete = [a for a in agents if a not in apus]
    if not agents:
        return c.result(Status.SKIP, "rocminfo lists no GPU agent")
    if not apus or not discrete:
        kind = "integrated (APU)" if apus else "discrete"
        return c.result(Status.PASS, f"{len(agents)} GPU agent(s), all {kind}")
    keep = ",".join(str(i) for i, a in enumerate(agents) if a in discrete)
    names = ", ".join(f"{a.marketing_name} ({a.gfx_target})" for a in apus)
    return c.result(
        Status.WARN,
        f"integrated GPU {names} beside {len(discrete)} discrete GPU(s): programs that pick "
        "device 0 or use every device may run on it or fail on its unsupported target",
        "Turn the integrated GPU off in the firmware (BIOS) setup, as AMD's prerequisites "
        f"require; HIP_VISIBLE_DEVICES={keep} alone may not stop the runtime from using it.",
        integrated=[a.marketing_name for a in apus],
    )


@check("rocm.ecc", "rocm", "GPU memory errors and firmware (amd-smi)", needs=("driver.amdgpu",))
def rocm_ecc(ctx: Context, c: Check) -> CheckResult:
    smi = ctx.smi
    if smi is None or smi.error or smi.tool != "amd-smi":
        return c.result(Status.SKIP, "amd-smi data not available (ECC counts come from it)")
    gpus = smi.gpus
    bad = [g for g in gpus if (g.ecc_uncorrectable or 0) > 0 or (g.ecc_deferred or 0) > 0]
    vbios = sorted({g.vbios for g in gpus if g.vbios})
    parts = sorted(
        {f"{g.compute_partition}/{g.memory_partition}" for g in gpus if g.compute_partition}
    )
    details = {"vbios": vbios, "partitions": parts}
    if bad:
        counts = "; ".join(
            f"{g.name or g.card}: {g.ecc_uncorrectable or 0} uncorrectable, "
            f"{g.ecc_deferred or 0} deferred"
            for g in bad
        )
        return c.result(
            Status.WARN,
            f"ECC errors: {counts}",
            "Check `amd-smi metric --ecc` and `amd-smi bad-pages`; GPUs whose uncorrectable "
            "count keeps rising need service.",
            **details,
        )
    notes = []
    firmware = ctx.amd_smi_firmware or {}
    differing = sorted(
        name
        for name in {n for fw in firmware.values() for n in fw}
        if len({fw.get(name) for fw in firmware.values()}) > 1
    )
    details["firmware_differs"] = differing
    if differing:
        notes.append(f"GPUs run different {', '.join(differing)} firmware (amd-smi firmware)")
    if len(vbios) > 1:
        notes.append(f"GPUs run different VBIOS versions ({', '.join(vbios)})")
    if len(parts) > 1:
        notes.append(f"GPUs are in different partition modes ({', '.join(parts)})")
    if notes:
        return c.result(
            Status.WARN,
            "; ".join(notes),
            "Flash one firmware bundle to every GPU and set one mode with "
            "`sudo amd-smi set --compute-partition ...`.",
            **details,
        )
    counted = [g for g in gpus if g.ecc_uncorrectable is not None]
    fw = f"; VBIOS {vbios[0]}" if vbios else ""
    if firmware:
        fw += f"; {len(next(iter(firmware.values())))} firmware versions alike on every GPU"
    mode = f"; partition {parts[0]}" if parts else ""
    if not counted:
        return c.result(Status.PASS, f"no ECC counters reported{fw}{mode}", **details)
    return c.result(Status.PASS, f"no ECC errors on {len(counted)} GPU(s){fw}{mode}", **details)


CHECKS = (os_glibc, boot_secure_boot, boot_iommu, hw_pcie_atomics, hw_igpu, rocm_ecc)
