"""The amdgpu kernel driver and its DKMS build."""

from __future__ import annotations

from rocport.doctor.checks.base import Check, check
from rocport.doctor.context import AMD_VENDOR, Context
from rocport.doctor.model import CheckResult, Status
from rocport.doctor.parse.system import parse_dkms_status


@check("driver.amdgpu", "driver", "amdgpu kernel module loaded")
def driver_amdgpu(ctx: Context, c: Check) -> CheckResult:
    in_sys = ctx.host.exists("/sys/module/amdgpu")
    in_proc = "amdgpu" in ctx.loaded_modules
    pci = [d.address for d in ctx.pci_of(AMD_VENDOR)]
    details = {"sys_module": in_sys, "proc_modules": in_proc, "amd_pci_devices": pci}
    if in_sys or in_proc:
        version = (ctx.host.read_text("/sys/module/amdgpu/version") or "").strip()
        origin = (
            f"DKMS driver {version}"
            if version
            else f"in-tree driver of kernel {ctx.kernel_release}"
        )
        return c.result(
            Status.PASS, f"amdgpu loaded ({origin})", **details, version=version or None
        )
    if pci:
        return c.result(
            Status.FAIL,
            f"AMD GPU on PCI {', '.join(pci)} but amdgpu is not loaded",
            "sudo modprobe amdgpu; if that fails: sudo apt install amdgpu-dkms (see "
            f"rocport install-plan --rocm {ctx.release}) and check `dmesg | grep amdgpu`",
            **details,
        )
    return c.result(
        Status.FAIL,
        "amdgpu is not loaded and no AMD GPU is on the PCI bus",
        "Run on a host with a supported AMD Instinct or Radeon GPU.",
        **details,
    )


@check("driver.dkms", "driver", "amdgpu-dkms built for the running kernel")
def driver_dkms(ctx: Context, c: Check) -> CheckResult:
    probe = ctx.host.run("dkms", ["dkms", "status"])
    if probe.status == "missing":
        return c.result(Status.SKIP, "dkms not installed (no out-of-tree amdgpu driver)")
    if not probe.ok:
        return c.result(
            Status.WARN, f"dkms status failed: {probe.error_line()}", "Run `sudo dkms status`."
        )
    entries = [e for e in parse_dkms_status(probe.stdout) if e.module == "amdgpu"]
    if not entries:
        return c.result(Status.SKIP, "no amdgpu DKMS module registered (in-tree driver in use)")
    kernel = ctx.kernel_release
    found = "; ".join(f"amdgpu/{e.version} {e.kernel or '-'}: {e.state}" for e in entries)
    details = {"entries": [e.__dict__ for e in entries]}
    if any(e.kernel == kernel and e.state.startswith("installed") for e in entries):
        return c.result(Status.PASS, found, **details)
    return c.result(
        Status.FAIL,
        f"{found} — nothing installed for the running kernel {kernel}",
        f'sudo apt install "linux-headers-{kernel}" && sudo dkms autoinstall, then reboot',
        **details,
    )


CHECKS = (driver_amdgpu, driver_dkms)
