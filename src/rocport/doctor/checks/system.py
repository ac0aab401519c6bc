"""Operating system, kernel and disk space against the chosen ROCm release."""

from __future__ import annotations

from rocport.doctor import data
from rocport.doctor.checks.base import Check, check, gib
from rocport.doctor.context import Context
from rocport.doctor.model import CheckResult, Status
from rocport.doctor.parse.system import parse_df_portable


def _supported_labels(ctx: Context) -> str:
    return ", ".join(row["label"] for row in ctx.release_data["os"])


def gpu_os_limits(ctx: Context, row: dict) -> tuple[list[str], list[str], str] | None:
    """(GPUs, OS labels AMD supports them on, AMD's sentences) when a limit excludes this OS.

    Two kinds of footnote limit support: an OS row's ("Debian 12 is only supported on AMD
    Instinct MI300X, ...") and a GPU's ("AMD Radeon ... are only supported on Ubuntu ...").
    """
    names = sorted({name for _, name in ctx.gfx_targets if name})
    excluded = [n for n in names if not _admits(ctx, row, n)]
    if not excluded:
        return None
    allowed = [
        r["label"] for r in ctx.release_data["os"] if all(_admits(ctx, r, n) for n in excluded)
    ]
    texts = [row["note"]] if row.get("only_gpus") and row.get("note") else []
    texts += [lim["text"] for lim in _gpu_limits(ctx, excluded)]
    return excluded, allowed, " ".join(f"{t}." for t in texts)


def _admits(ctx: Context, row: dict, gpu: str) -> bool:
    """Whether AMD supports ``gpu`` on the matrix ``row`` (both kinds of footnote)."""
    only = row.get("only_gpus")
    if only and not any(_same_gpu(gpu, g) for g in only):
        return False
    return all(any(_same_os(lab, row) for lab in lim["os"]) for lim in _gpu_limits(ctx, [gpu]))


def _gpu_limits(ctx: Context, gpus: list[str]) -> list[dict]:
    limits = ctx.release_data.get("gpu_os_limits", [])
    return [lim for lim in limits if any(_same_gpu(n, g) for n in gpus for g in lim["gpus"])]


def _same_gpu(name: str, listed: str) -> bool:
    """rocminfo's ``AMD Instinct MI300X`` is AMD's ``AMD Instinct MI300X`` (or its OAM/VF)."""
    return name == listed or name.startswith(listed + " ")


def _same_os(label: str, row: dict) -> bool:
    """Whether AMD's label (``"Ubuntu 24.04.3"``, ``"RHEL 9.6"``) names the matrix row."""
    return label == row["label"] or label.startswith(row["label"] + ".")


@check("os.supported", "system", "Operating system in the ROCm support matrix")
def os_supported(ctx: Context, c: Check) -> CheckResult:
    osr = ctx.os_release
    if not osr:
        return c.result(
            Status.WARN,
            "no /etc/os-release",
            "Cannot tell the distribution; see os-release(5).",
        )
    name = osr.get("PRETTY_NAME") or f"{osr.get('ID', '?')} {osr.get('VERSION_ID', '')}"
    details = {"id": osr.get("ID"), "version_id": osr.get("VERSION_ID"), "pretty_name": name}
    row = ctx.matrix_row
    release = ctx.release
    if row is None:
        return c.result(
            Status.WARN,
            f"{name} is not in the ROCm {release} support matrix",
            f"Use one of: {_supported_labels(ctx)} (AMD does not validate others).",
            **details,
            source=ctx.release_data["sources"]["os"],
        )
    limited = gpu_os_limits(ctx, row)
    if limited:
        gpus, allowed, text = limited
        return c.result(
            Status.WARN,
            f"{name} is in the ROCm {release} matrix, but not for {', '.join(gpus)}: "
            f"AMD supports it only on {', '.join(allowed)}",
            f"Use {' or '.join(allowed)} for this GPU.",
            **details,
            limit=text,
            source=ctx.release_data["sources"]["os"],
        )
    note = f" ({row['note']})" if row.get("note") else ""
    return c.result(
        Status.PASS,
        f"{name}: listed for ROCm {release} as {row['label']}{note}",
        **details,
        matrix_label=row["label"],
        source=ctx.release_data["sources"]["os"],
    )


@check("os.kernel", "system", "Kernel version validated for this distribution")
def os_kernel(ctx: Context, c: Check) -> CheckResult:
    release, series = ctx.kernel_release, ctx.kernel_series
    if release is None:
        return c.result(Status.WARN, "cannot read /proc/sys/kernel/osrelease", "Run on Linux.")
    row = ctx.matrix_row
    if row is None:
        return c.result(
            Status.SKIP,
            f"kernel {release}; no validated kernels known for this OS",
            release=release,
        )
    if not row.get("kernels"):
        return c.result(
            Status.SKIP,
            f"kernel {release}; AMD's kernel list for {row['label']} in ROCm {ctx.release} "
            "is not in the data",
            release=release,
            source=ctx.release_data["sources"]["os"],
        )
    if series in row["kernels"]:
        return c.result(
            Status.PASS, f"kernel {release} ({row['label']}: {row['kernel_text']})", release=release
        )
    return c.result(
        Status.WARN,
        f"kernel {release} is not a validated {row['label']} kernel ({row['kernel_text']})",
        f"Boot a {row['label']} kernel of series {', '.join(row['kernels'])}; "
        "amdgpu-dkms may not build against other kernels.",
        release=release,
        validated=row["kernels"],
    )


@check("os.disk", "system", "Free disk space where ROCm installs (/opt)")
def os_disk(ctx: Context, c: Check) -> CheckResult:
    facts = data.install_facts()
    minimum, sdk = facts["min_free_gb"], facts["sdk_free_gb"]
    target = "/opt" if ctx.host.exists("/opt") else "/"
    probe = ctx.host.run("df", ["df", "-Pk", str(ctx.host.path(target))])
    space = parse_df_portable(probe.stdout) if probe.ok else None
    if space is None:
        return c.result(
            Status.WARN,
            f"cannot measure free space: {probe.command}: {probe.error_line()}",
            f"Check by hand with `df -h {target}`.",
        )
    free_gb = space.available_bytes / 1024**3
    found = f"{gib(space.available_bytes)} free on {space.mount} ({space.filesystem})"
    details = {"path": target, "available_bytes": space.available_bytes, "mount": space.mount}
    if free_gb < minimum:
        return c.result(
            Status.FAIL,
            found,
            f"Free at least {minimum} GB under {target} (about {sdk} GB for the full SDK).",
            **details,
        )
    if free_gb < sdk:
        return c.result(
            Status.WARN,
            found + f"; enough for the runtime, not the full SDK (~{sdk} GB)",
            f"Free about {sdk} GB under {target} before `apt install rocm`.",
            **details,
        )
    return c.result(Status.PASS, found, **details)


CHECKS = (os_supported, os_kernel, os_disk)
