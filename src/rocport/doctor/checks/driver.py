"""The amdgpu kernel driver and its DKMS build."""

from __future__ import annotations

from packaging.version import Version

from rocport.doctor import data
from rocport.doctor.checks.base import Check, check
from rocport.doctor.context import AMD_VENDOR, Context
from rocport.doctor.model import CheckResult, Status
from rocport.doctor.parse.driver import (
    DriverPackage,
    decode_driver_version,
    parse_dpkg_query,
    parse_rpm_query,
)
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


def installed_driver(ctx: Context) -> tuple[DriverPackage | None, str | None]:
    """The amdgpu-dkms package (dpkg, else rpm) and its raw version when it does not decode."""
    queries = (
        ("dpkg-amdgpu-dkms", ["dpkg-query", "-W", "amdgpu-dkms"], parse_dpkg_query),
        (
            "rpm-amdgpu-dkms",
            ["rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}\\n", "amdgpu-dkms"],
            parse_rpm_query,
        ),
    )
    for name, argv, parse in queries:
        probe = ctx.host.run(name, argv)
        version = parse(probe.stdout) if probe.ok else None
        if version:
            return decode_driver_version(version), version
    return None, None


def _lists(entry: str, release: str) -> bool:
    """Matrix entry ``"6.4.x"`` / ``"30.10"`` / ``"30.10.1"`` names driver ``release``."""
    if entry.endswith(".x"):
        return release.startswith(entry[:-1])
    return Version(entry) == Version(release)


def _top(entry: str) -> Version:
    return Version(entry.replace("x", "9999"))


@check(
    "driver.compat",
    "driver",
    "amdgpu driver release paired with the ROCm user space",
    needs=("driver.amdgpu",),
)
def driver_compat(ctx: Context, c: Check) -> CheckResult:
    loaded = (ctx.host.read_text("/sys/module/amdgpu/version") or "").strip()
    package, raw = installed_driver(ctx)
    release = ctx.release
    fix = (
        f"Install the AMD GPU Driver of ROCm {release} (rocport install-plan --rocm {release}, "
        "step 'Kernel driver') and reboot"
    )
    if package is None:
        if raw:
            return c.result(Status.SKIP, f"amdgpu-dkms {raw}: a version rocport cannot decode")
        if not loaded:
            return c.result(
                Status.WARN,
                f"the kernel's own amdgpu ({ctx.kernel_release}; no /sys/module/amdgpu/version, "
                "no amdgpu-dkms package): AMD's driver/user-space matrix lists only AMD GPU "
                "Driver releases, so this pairing is untested by AMD",
                fix,
            )
        return c.result(
            Status.SKIP,
            f"amdgpu {loaded} (DKMS) is loaded, but no amdgpu-dkms package (dpkg-query, rpm) "
            "names its release",
            loaded=loaded,
        )
    rel = Version(release)
    user_line = f"{rel.major}.{rel.minor}.x"
    cell = ctx.release_data.get("driver") or ""
    listed = [d.strip() for d in cell.split(",") if d.strip()]
    matrix = data.driver_matrix()
    row = next((r for r in matrix["rows"] if r["driver"] == package.line), None)
    details = {
        "package": package.version,
        "driver": package.release,
        "module": package.module,
        "loaded": loaded or None,
        "listed_for_release": listed,
        "sources": [ctx.release_data["sources"]["matrix"], matrix["source"]],
    }
    found = f"amdgpu-dkms {package.version}: AMD GPU Driver {package.release}"
    if not loaded:
        return c.result(
            Status.WARN,
            f"{found} is installed, but the loaded amdgpu is the kernel's own (no "
            "/sys/module/amdgpu/version): the DKMS module is not built or not loaded for "
            f"kernel {ctx.kernel_release}",
            "sudo dkms autoinstall && sudo reboot  # see `dkms status`",
            **details,
        )
    if loaded != package.module:
        return c.result(
            Status.WARN,
            f"{found} is installed, but the loaded amdgpu module is {loaded}, not its "
            f"{package.module}: the machine still runs the previous driver",
            "sudo reboot  # load the installed amdgpu-dkms module",
            **details,
        )
    if any(_lists(d, package.release) for d in listed):
        return c.result(
            Status.PASS,
            f"{found}, listed for ROCm {release} in AMD's compatibility matrix",
            **details,
        )
    if row and user_line in row["user_space"]:
        return c.result(
            Status.PASS,
            f"{found}; AMD's user/kernel-space matrix pairs driver {package.line} with "
            f"ROCm {user_line}",
            **details,
        )
    known = listed + [r["driver"] for r in matrix["rows"]]
    newest = max((_top(d) for d in known), default=None)
    shown = ", ".join(listed) or "none"
    compare = (
        "Compare with AMD's current user/kernel-space matrix: "
        "https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html"
    )
    if newest is not None and Version(package.release) > newest:
        return c.result(
            Status.WARN,
            f"{found} is newer than every driver the data pairs with ROCm {release} "
            f"({shown}); AMD's matrix as read predates it",
            compare,
            **details,
        )
    if ctx.release_data.get("driver_role") != "compatible":
        return c.result(
            Status.WARN,
            f"{found}: the data has no compatibility list for ROCm {release}, only the driver "
            f"its install pages register ({shown})",
            compare,
            **details,
        )
    return c.result(
        Status.FAIL,
        f"{found} is not among the drivers AMD supports with ROCm {release} ({shown})",
        fix,
        **details,
    )


CHECKS = (driver_amdgpu, driver_dkms, driver_compat)
