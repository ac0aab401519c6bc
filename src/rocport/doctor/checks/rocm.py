"""The ROCm installation: version, HIP, rocminfo agents, supported targets, SMI telemetry."""

from __future__ import annotations

import re

from packaging.version import Version

from rocport.doctor import data
from rocport.doctor.checks.base import Check, check, gib
from rocport.doctor.context import Context
from rocport.doctor.model import CheckResult, Status


@check("rocm.version", "rocm", "ROCm release installed")
def rocm_version(ctx: Context, c: Check) -> CheckResult:
    version, where = ctx.installed_rocm
    plan = f"rocport install-plan --rocm {ctx.release}"
    if version is None:
        hip = ctx.host.run("hipconfig-version", ["hipconfig", "--version"])
        if hip.ok and hip.stdout.strip():
            return c.result(
                Status.WARN,
                f"no AMD ROCm release under /opt; HIP {hip.stdout.strip()} "
                "from distribution packages",
                f"Install an AMD ROCm release for the full stack: {plan}",
                hip_version=hip.stdout.strip(),
            )
        status = Status.FAIL if ctx.amd_host else Status.WARN
        return c.result(status, "ROCm is not installed (no /opt/rocm, no hipconfig)", plan)
    details = {"version": version, "source": where, "matrix": ctx.release}
    installed = data.release_of(version)
    if installed is None:
        near = ", ".join(data.nearest(Version(version.split("-")[0])))
        return c.result(
            Status.WARN,
            f"ROCm {version} installed ({where}), a release the data lacks; judged against the "
            f"ROCm {ctx.release} matrix (nearest known: {near})",
            f"Pick the matrix explicitly: rocport doctor --rocm <one of {near}>",
            **details,
        )
    if installed != ctx.release:
        return c.result(
            Status.WARN,
            f"ROCm {version} installed ({where}); checking against the ROCm {ctx.release} matrix",
            f"Re-run with `rocport doctor --rocm {installed}`, or upgrade: {plan}",
            **details,
        )
    return c.result(Status.PASS, f"ROCm {version} ({where})", **details)


@check("rocm.hip", "rocm", "HIP runtime and platform (hipconfig)", needs=("rocm.version",))
def rocm_hip(ctx: Context, c: Check) -> CheckResult:
    version = ctx.host.run("hipconfig-version", ["hipconfig", "--version"])
    if version.status == "missing":
        return c.result(
            Status.FAIL if ctx.amd_host else Status.WARN,
            "hipconfig not installed (no HIP SDK)",
            "sudo apt install rocm-hip-sdk  # or: sudo dnf install rocm-hip-sdk",
        )
    platform = ctx.host.run("hipconfig-platform", ["hipconfig", "--platform"])
    hip = version.stdout.strip() or "?"
    plat = platform.stdout.strip() if platform.ok else "?"
    details = {"hip_version": hip, "platform": plat}
    if plat == "nvidia":
        return c.result(
            Status.WARN,
            f"HIP {hip}, but hipconfig selects the NVIDIA platform "
            "(nvcc found, or HIP_PLATFORM=nvidia)",
            "export HIP_PLATFORM=amd  # so hipcc compiles for AMD GPUs",
            **details,
        )
    return c.result(Status.PASS, f"HIP {hip}, platform {plat}", **details)


_HSA_ERROR = re.compile(r"(HSA_STATUS_ERROR\w*)")
#: rocminfo's message when /dev/kfd cannot be opened (rocminfo.cc, CheckInitialState)
_KFD_DENIED = re.compile(
    r"Unable to open /dev/kfd[^\n]*|[^\n]*is not member of \"render\" group[^\n]*"
)


@check(
    "rocm.agents",
    "rocm",
    "GPU agents reported by rocminfo",
    needs=("driver.amdgpu", "perm.groups", "perm.devices"),
)
def rocm_agents(ctx: Context, c: Check) -> CheckResult:
    probe, report = ctx.rocminfo_probe, ctx.rocminfo
    if probe.status == "missing" or report is None:
        return c.result(
            Status.FAIL,
            "rocminfo not installed",
            "sudo apt install rocminfo  # part of `rocm`; "
            f"see rocport install-plan --rocm {ctx.release}",
        )
    if probe.status == "timeout":
        return c.result(Status.FAIL, f"rocminfo {probe.stderr}", "Check `dmesg` for GPU hangs.")
    if report.rock_loaded is False:
        return c.result(
            Status.FAIL,
            "rocminfo: ROCk module is NOT loaded (no amdgpu kernel driver)",
            "sudo modprobe amdgpu, or install amdgpu-dkms and reboot",
        )
    output = probe.stdout + "\n" + probe.stderr
    denied = _KFD_DENIED.search(output)
    if denied:
        return c.result(
            Status.FAIL,
            f"rocminfo: {denied[0].strip()}",
            "sudo usermod -aG render,video $USER, then log out and back in",
        )
    hsa_error = _HSA_ERROR.search(output)
    if not probe.ok or hsa_error:
        reason = hsa_error[1] if hsa_error else probe.error_line()
        fix = (
            "sudo usermod -aG render,video $USER, then log out and in (no access to /dev/kfd)"
            if hsa_error and "OUT_OF_RESOURCES" in hsa_error[1]
            else "Check `dmesg | grep -i amdgpu` and the device permissions."
        )
        return c.result(Status.FAIL, f"rocminfo failed: {reason}", fix)
    gpus = report.gpus
    if not gpus:
        return c.result(
            Status.FAIL,
            f"rocminfo found {len(report.agents)} agent(s) but no GPU",
            "Check HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES and `dmesg | grep amdgpu`.",
        )
    lines = [
        f"{a.gfx_target} {a.marketing_name}: {a.compute_units} CUs, wave{a.wavefront_size}, "
        f"{gib(a.memory_bytes)}"
        for a in gpus
    ]
    return c.result(
        Status.PASS,
        f"{len(gpus)} GPU(s): " + "; ".join(lines),
        agents=[a.summary() for a in gpus],
        runtime_version=report.runtime_version,
    )


@check("rocm.gpu_support", "rocm", "GPU targets supported by the ROCm release")
def rocm_gpu_support(ctx: Context, c: Check) -> CheckResult:
    targets = ctx.gfx_targets
    if not targets:
        return c.result(Status.SKIP, "no AMD GPU detected")
    supported = data.supported_targets(ctx.release)
    sources = ctx.release_data["sources"]
    source = sources.get("gfx", sources["matrix"])  # the page the release's gfx list is from
    if not supported:
        return c.result(
            Status.SKIP,
            f"AMD's gfx target list for ROCm {ctx.release} is not in the data",
            source=source,
        )
    unsupported = sorted({(gfx, name) for gfx, name in targets if gfx not in supported})
    seen = ", ".join(sorted({f"{name} ({gfx})" for gfx, name in targets}))
    if unsupported:
        return c.result(
            Status.WARN,
            f"not on AMD's ROCm {ctx.release} list: "
            + ", ".join(f"{name} ({gfx})" for gfx, name in unsupported),
            "Prebuilt ROCm libraries may lack code for this target; see the frameworks checks "
            "for HSA_OVERRIDE_GFX_VERSION advice.",
            supported=sorted(supported),
            source=source,
        )
    return c.result(Status.PASS, f"supported by ROCm {ctx.release}: {seen}")


@check("rocm.smi", "rocm", "GPU telemetry (rocm-smi / amd-smi)", needs=("driver.amdgpu",))
def rocm_smi(ctx: Context, c: Check) -> CheckResult:
    smi = ctx.smi
    if smi is None:
        status = Status.WARN if ctx.amd_host else Status.SKIP
        return c.result(
            status,
            "neither rocm-smi nor amd-smi is installed",
            "sudo apt install amd-smi-lib rocm-smi-lib  # both come with `rocm`",
        )
    if smi.error:
        return c.result(
            Status.WARN, f"{smi.probe.command}: {smi.error}", "Run it by hand to see why."
        )
    if not smi.gpus:
        return c.result(Status.WARN, f"{smi.tool} reports no GPU", "Check `dmesg | grep amdgpu`.")
    parts = []
    for g in smi.gpus:
        bits = [g.name or g.card]
        if g.temperature_c is not None:
            bits.append(f"{g.temperature_c:.0f} °C")
        if g.use_percent is not None:
            bits.append(f"{g.use_percent:.0f}% busy")
        if g.vram_total_bytes:
            used = f"{gib(g.vram_used_bytes)} / " if g.vram_used_bytes is not None else ""
            bits.append(f"VRAM {used}{gib(g.vram_total_bytes)}")
        parts.append(", ".join(bits))
    driver = f" (driver {smi.driver})" if smi.driver else ""
    return c.result(
        Status.PASS,
        f"{smi.tool}{driver}: " + "; ".join(parts),
        tool=smi.tool,
        driver=smi.driver,
        gpus=[g.to_dict() for g in smi.gpus],
    )


CHECKS = (rocm_version, rocm_hip, rocm_agents, rocm_gpu_support, rocm_smi)
