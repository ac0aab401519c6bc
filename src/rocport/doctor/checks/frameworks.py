"""PyTorch and TensorFlow builds, and the classic silent failure: a GPU the wheel lacks code for."""

from __future__ import annotations

from rocport.doctor import data
from rocport.doctor.checks.base import Check, check
from rocport.doctor.context import Context
from rocport.doctor.model import CheckResult, Status


def _pip(ctx: Context) -> str:
    """The reinstall command, from a wheel index that serves this release: PyTorch's stable
    one, else the one AMD's PyTorch page for the release installs from (if one is known)."""
    indexes = ctx.release_data["pytorch"]
    amd = ctx.release_data.get("amd_pytorch") or []
    python = ctx.torch.get("executable") or ("python3" if ctx.host.offline else ctx.python)
    if indexes:
        index = data.newest_torch_index(ctx.release_data)["index"]
        return f"{python} -m pip install --force-reinstall torch torchvision --index-url {index}"
    if amd:
        pre = "--pre " if amd[0]["pre"] else ""
        return (
            f"PyTorch publishes no stable build for ROCm {ctx.release}; AMD's PyTorch page for "
            f"it installs {'nightly builds' if pre else 'these'}: {python} -m pip install "
            f"--force-reinstall {pre}torch torchvision --index-url {amd[0]['index']}"
        )
    return (
        f"No PyTorch wheel index is published for ROCm {ctx.release}; build PyTorch from "
        f"source, or use a release that has one (rocport install-plan --rocm "
        f"{ctx.release} lists what is known)."
    )


def gfx_sorted(targets: set[str]) -> list[str]:
    """gfx900 < gfx90a < gfx942 < gfx1030: by length, then by name."""
    return sorted(targets, key=lambda t: (len(t), t))


def base_target(arch: str) -> str:
    """``"gfx90a:sramecc+:xnack-"`` -> ``"gfx90a"``."""
    return arch.split(":", 1)[0].strip()


@check("torch.build", "frameworks", "PyTorch built for ROCm and able to see the GPU")
def torch_build(ctx: Context, c: Check) -> CheckResult:
    t = ctx.torch
    if t.get("installed") is None or (t.get("error") and not t.get("installed")):
        return c.result(
            Status.FAIL,
            f"PyTorch is broken: {t.get('error')}",
            f"Reinstall it: {_pip(ctx)}",
        )
    if not t.get("installed"):
        return c.result(
            Status.WARN,
            "PyTorch is not installed" + ("" if ctx.host.offline else f" for {ctx.python}"),
            _pip(ctx).replace(" --force-reinstall", ""),
        )
    version = t.get("version")
    details = {k: t.get(k) for k in ("version", "hip", "cuda", "available", "devices", "arch_list")}
    if not t.get("hip"):
        build = f"CUDA {t['cuda']}" if t.get("cuda") else "CPU-only"
        status = Status.FAIL if ctx.amd_host else Status.WARN
        where = "on an AMD host" if ctx.amd_host else "(fine for NVIDIA/CPU, not for ROCm)"
        return c.result(status, f"torch {version} is a {build} build {where}", _pip(ctx), **details)
    if t.get("error"):
        return c.result(
            Status.FAIL, f"torch {version} (HIP {t['hip']}): {t['error']}", _pip(ctx), **details
        )
    agents = ctx.results.get("rocm.agents")
    if not t.get("available") and agents is not None and agents.status is not Status.PASS:
        cause = agents
        while cause.details.get("blocked"):
            cause = ctx.results[cause.details["blocked"]]
        return c.result(
            Status.SKIP,
            f"torch {version} (HIP {t['hip']}) sees no GPU; skipped because {cause.id} did not "
            f"pass: {cause.found}",
            **details,
            blocked=cause.id,
        )
    if not t.get("available"):
        return c.result(
            Status.FAIL,
            f"torch {version} (HIP {t['hip']}) but torch.cuda.is_available() is False",
            "Fix the driver/permission checks above; check HIP_VISIBLE_DEVICES.",
            **details,
        )
    names = ", ".join(f"{d['name']} ({d['arch']})" for d in t.get("devices", []))
    return c.result(Status.PASS, f"torch {version} (HIP {t['hip']}) sees {names}", **details)


@check("torch.gpu_arch", "frameworks", "PyTorch wheel built for every detected gfx target")
def torch_gpu_arch(ctx: Context, c: Check) -> CheckResult:
    t = ctx.torch
    if not (t.get("installed") and t.get("hip")):
        return c.result(Status.SKIP, "no ROCm build of PyTorch")
    targets = ctx.gfx_targets or [
        (base_target(d["arch"]), d["name"]) for d in t.get("devices", []) if d.get("arch")
    ]
    if not targets:
        return c.result(Status.SKIP, "no AMD GPU detected")
    arch_list = {base_target(a) for a in t.get("arch_list", [])}
    override = ctx.environ.get("HSA_OVERRIDE_GFX_VERSION")
    details = {"arch_list": gfx_sorted(arch_list), "targets": gfx_sorted({g for g, _ in targets})}
    problems, fixes, status = [], [], Status.PASS
    for gfx, name in sorted(set(targets)):
        if gfx in arch_list:
            continue
        advice = data.override_for(gfx)
        if advice and advice["runs_as"] in arch_list:
            if override == advice["value"]:
                problems.append(
                    f"{name} ({gfx}) runs {advice['runs_as']} code via HSA_OVERRIDE_GFX_VERSION"
                )
                if status is Status.PASS:
                    status = Status.WARN
                continue
            problems.append(f"{name} ({gfx}) is not in the wheel's arch list")
            fixes.append(
                f"export HSA_OVERRIDE_GFX_VERSION={advice['value']}  # run {advice['runs_as']} "
                f"kernels on {gfx} ({advice['family']}; works in practice, not supported by AMD)"
            )
        else:
            problems.append(f"{name} ({gfx}) is not in the wheel's arch list")
            fixes.append(
                f"Build PyTorch from source with PYTORCH_ROCM_ARCH={gfx}, "
                f"or use a wheel built for {gfx}"
            )
        status = Status.FAIL
    if not problems:
        return c.result(
            Status.PASS, f"wheel targets include {', '.join(details['targets'])}", **details
        )
    listed = ", ".join(gfx_sorted(arch_list)) or "empty"
    return c.result(
        status,
        "; ".join(problems) + f" (wheel: {listed}); kernels fail with 'invalid device function'",
        "; ".join(fixes) or None,
        **details,
    )


def _known(value: object) -> str | None:
    """collect_env prints ``"N/A"`` or ``None`` for what it could not find."""
    return None if value in (None, "", "N/A", "Could not collect") else str(value)


@check("torch.env", "frameworks", "torch.utils.collect_env: MIOpen, Triton, compiler, glibc")
def torch_env(ctx: Context, c: Check) -> CheckResult:
    t = ctx.torch
    env = t.get("env")
    if not (t.get("installed") and t.get("hip")) or not isinstance(env, dict):
        return c.result(Status.SKIP, "no ROCm build of PyTorch (or no collect_env data)")
    if env.get("error"):
        return c.result(
            Status.WARN,
            f"torch.utils.collect_env failed: {env['error']}",
            "Run `python -m torch.utils.collect_env` to see why.",
        )
    miopen = _known(env.get("miopen_runtime_version"))
    triton = [p for p in env.get("triton") or [] if p]
    compiler = _known(env.get("gcc_version")) or _known(env.get("clang_version"))
    glibc = _known(env.get("libc_version"))
    found = (
        f"MIOpen {miopen or 'not found'}, Triton {', '.join(triton) or 'not installed'}, "
        f"compiler {compiler or 'none found'}, {glibc or 'glibc unknown'}"
    )
    details = {"miopen": miopen, "triton": triton, "compiler": compiler, "libc": glibc}
    problems, fixes = [], []
    if miopen is None:
        problems.append("MIOpen not found (convolutions and RNNs will fail)")
        fixes.append("sudo apt install miopen-hip  # or reinstall the ROCm wheel of torch")
    if not triton:
        problems.append("no Triton (torch.compile cannot generate kernels)")
        fixes.append("pip install pytorch-triton-rocm  # from the index torch came from")
    if problems:
        return c.result(
            Status.WARN, "; ".join(problems) + f" ({found})", "; ".join(fixes), **details
        )
    return c.result(Status.PASS, found, **details)


@check("tensorflow", "frameworks", "TensorFlow build (if installed)")
def tensorflow(ctx: Context, c: Check) -> CheckResult:
    tf = ctx.tensorflow
    if tf.get("error"):
        return c.result(
            Status.WARN,
            f"TensorFlow is broken: {tf['error']}",
            "pip install --force-reinstall tensorflow-rocm",
        )
    if not tf.get("installed"):
        return c.result(Status.SKIP, "TensorFlow not installed")
    gpus = tf.get("gpus") or []
    details = {k: tf.get(k) for k in ("version", "rocm", "cuda", "gpus")}
    if not tf.get("rocm"):
        return c.result(
            Status.WARN,
            f"tensorflow {tf.get('version')} is not a ROCm build",
            "pip uninstall tensorflow && pip install tensorflow-rocm",
            **details,
        )
    if not gpus:
        return c.result(
            Status.WARN,
            f"tensorflow-rocm {tf.get('version')} sees no GPU",
            "Check the driver and permission checks.",
            **details,
        )
    return c.result(
        Status.PASS, f"tensorflow-rocm {tf.get('version')}: {', '.join(gpus)}", **details
    )


CHECKS = (torch_build, torch_gpu_arch, torch_env, tensorflow)
