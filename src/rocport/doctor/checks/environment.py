"""Environment variables that change which GPUs ROCm and CUDA programs see."""

from __future__ import annotations

import re

from rocport.doctor import data
from rocport.doctor.checks.base import Check, check
from rocport.doctor.context import Context
from rocport.doctor.model import CheckResult, Status

VISIBILITY = (
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
)
OTHER = ("HIP_PLATFORM", "ROCM_PATH", "HIP_PATH", "PYTORCH_ROCM_ARCH")
#: HSA_* variables whose values are settings worth showing; any other HSA_* variable is shown
#: by the shape of its value only (it may hold a path, a token or anything else)
HSA_SHOWN = ("HSA_OVERRIDE_GFX_VERSION", "HSA_XNACK", "HSA_ENABLE_SDMA")
#: a value short and plain enough to be a setting (device lists, versions, paths)
_PLAIN_VALUE = re.compile(r"[\w.,:/+-]{0,64}")


def relevant(environ: dict[str, str]) -> dict[str, str]:
    keys = [*VISIBILITY, *OTHER, *sorted(k for k in environ if k.startswith("HSA_"))]
    return {k: environ[k] for k in keys if k in environ}


def shown(environ: dict[str, str]) -> dict[str, str]:
    """The relevant variables as a report shows them: the value of a known setting when it
    looks like one; otherwise only its shape (``<set: 40 characters>``), never its text."""
    out = {}
    for key, value in relevant(environ).items():
        known = key in VISIBILITY or key in OTHER or key in HSA_SHOWN
        plain = _PLAIN_VALUE.fullmatch(value) is not None
        out[key] = value if known and plain else f"<set: {len(value)} characters>"
    return out


@check("env.gpu_vars", "environment", "GPU visibility and HSA_* environment variables")
def env_gpu_vars(ctx: Context, c: Check) -> CheckResult:
    env = relevant(ctx.environ)
    if not env:
        return c.result(
            Status.PASS, "none of HIP_/ROCR_/CUDA_VISIBLE_DEVICES, HSA_*, HIP_PLATFORM set"
        )
    found = ", ".join(f"{k}={v!r}" for k, v in shown(env).items())
    fails, warns, fixes = [], [], []
    gpu_count = len(ctx.gfx_targets) or len(ctx.nvidia_gpus)
    for key in VISIBILITY:
        if key not in env:
            continue
        value = env[key].strip()
        if value in ("", "-1"):
            fails.append(f"{key}={env[key]!r} hides every GPU")
            fixes.append(f"unset {key}")
            continue
        indices = [int(p) for p in value.split(",") if p.strip().isdigit()]
        if gpu_count and any(i >= gpu_count for i in indices):
            warns.append(f"{key} names GPU index ≥ {gpu_count} (GPUs found: {gpu_count})")
            fixes.append(f"export {key}={','.join(str(i) for i in range(gpu_count))}")
    if env.get("HIP_PLATFORM") == "nvidia" and ctx.amd_host:
        fails.append("HIP_PLATFORM=nvidia on an AMD host")
        fixes.append("export HIP_PLATFORM=amd")
    override = env.get("HSA_OVERRIDE_GFX_VERSION")
    if override:
        native = data.supported_targets(ctx.release)
        natives = [gfx for gfx, _ in ctx.gfx_targets if gfx in native]
        if natives:
            warns.append(
                f"HSA_OVERRIDE_GFX_VERSION={shown(env)['HSA_OVERRIDE_GFX_VERSION']} forces an "
                "ISA on natively supported "
                f"{', '.join(natives)}"
            )
            fixes.append("unset HSA_OVERRIDE_GFX_VERSION")
    if fails:
        status = Status.FAIL
    elif warns:
        status = Status.WARN
    else:
        status = Status.PASS
    message = "; ".join([*fails, *warns]) or found
    if fails or warns:
        message += f" (set: {found})"
    return c.result(status, message, "; ".join(fixes) or None, variables=shown(env))


CHECKS = (env_gpu_vars,)
