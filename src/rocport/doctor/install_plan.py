"""``rocport install-plan``: the exact commands that install a ROCm release on a distribution.

The plan is only printed (or written as a script); rocport never runs it.  Repository
lines, keyrings and packages come from ``data/rocm_releases.json``, which names the AMD
installation pages they were taken from.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from rocport.doctor import data
from rocport.doctor.context import match_os
from rocport.doctor.install_steps import Step, apt_steps, dnf_steps, zypper_steps
from rocport.doctor.parse.system import parse_os_release
from rocport.errors import InputError

APT_FAMILY = ("ubuntu", "debian")
DNF_FAMILY = ("rhel", "rocky", "ol")
ZYPPER_FAMILY = ("sles",)
VENV = "$HOME/.venvs/rocm"


@dataclass(frozen=True)
class Plan:
    release: str
    release_full: str
    distro: str
    label: str
    steps: tuple[Step, ...]
    after: tuple[str, ...]
    sources: tuple[str, ...]


def parse_distro(spec: str) -> tuple[str, str]:
    """``"ubuntu-24.04"`` -> ``("ubuntu", "24.04")``."""
    match = re.fullmatch(r"([a-z][a-z0-9_]*)-(\d+(?:\.\d+)*)", spec.strip().lower())
    if not match:
        raise InputError(f"--distro {spec!r} is not of the form NAME-VERSION, e.g. ubuntu-24.04")
    return match[1], match[2]


def detect_distro(os_release_text: str | None) -> tuple[str, str]:
    fields = parse_os_release(os_release_text or "")
    if not fields.get("ID") or not fields.get("VERSION_ID"):
        raise InputError("--distro auto: cannot read ID and VERSION_ID from /etc/os-release")
    return fields["ID"], fields["VERSION_ID"]


def build_plan(release_spec: str | None, distro_id: str, version_id: str) -> Plan:
    """Plan for ROCm ``release_spec`` on ``distro_id`` ``version_id``; InputError if unsupported."""
    release = data.resolve_release(release_spec)
    rel = data.releases()[release]
    row = match_os(rel["os"], {"ID": distro_id, "VERSION_ID": version_id})
    name = f"{distro_id}-{version_id}"
    if row is None:
        options = ", ".join(f"{r['id']}-{r['version']}" for r in rel["os"])
        raise InputError(f"ROCm {release} does not support {name} (supported: {options})")
    if distro_id in APT_FAMILY:
        steps = apt_steps(rel, row, distro_id)
    elif distro_id in DNF_FAMILY:
        steps = dnf_steps(rel, row, distro_id, version_id)
    elif distro_id in ZYPPER_FAMILY:
        steps = zypper_steps(rel, row["version"])
    else:
        raise InputError(
            f"no install recipe for {name}; follow {data.install_facts()['other_distributions']}"
        )
    steps += _common_steps(rel)
    after = (
        "sudo reboot  # load the new amdgpu driver and the new group membership",
        "rocminfo | grep -E 'Marketing Name|gfx'",
        f"rocport doctor --rocm {release}",
    )
    keys = ["os", "repositories", "pytorch"] + ([] if rel["pytorch"] else ["amd_pytorch"])
    sources = tuple(rel["sources"][k] for k in keys if k in rel["sources"])
    return Plan(rel["line"], release, name, row["label"], steps, after, sources)


def _common_steps(rel: dict[str, Any]) -> tuple[Step, ...]:
    facts = data.install_facts()
    groups = ",".join(facts["groups"])
    path = facts["path"]
    steps = [
        Step(
            "GPU access for your user (takes effect at the next login)",
            (f'sudo usermod -aG {groups} "$USER"',),
        ),
        Step(
            "Make the ROCm libraries visible to the dynamic linker",
            (
                "printf '/opt/rocm/lib\\n/opt/rocm/lib64\\n' "
                "| sudo tee /etc/ld.so.conf.d/rocm.conf > /dev/null",
                "sudo ldconfig",
            ),
        ),
        Step(
            f"Put the ROCm tools ({path}) on PATH, now and for later shells",
            (
                f'echo \'export PATH="$PATH:{path}"\' >> "$HOME/.bashrc"',
                f'export PATH="$PATH:{path}"',
            ),
        ),
        _pytorch_step(rel),
    ]
    return tuple(steps)


def _pytorch_step(rel: dict[str, Any]) -> Step:
    """PyTorch's stable index for the release line; else the wheel command of AMD's PyTorch
    page for the release; else a note naming the nearest releases that have a stable index."""
    line, venv = rel["line"], f'python3 -m venv "{VENV}"'
    if rel["pytorch"]:
        best = data.newest_torch_index(rel)
        torch = best["torch"][-1]
        return Step(
            f"PyTorch {torch} built for ROCm {line}, in a virtual environment",
            (
                venv,
                f'"{VENV}/bin/pip" install torch=={torch} torchvision --index-url {best["index"]}',
            ),
            note=f"That index serves torch {', '.join(best['torch'])}.",
        )
    stable = _nearest_stable(rel["release"])
    if rel["amd_pytorch"]:
        amd = rel["amd_pytorch"][0]
        pre = "--pre " if amd["pre"] else ""
        kind = "nightly (pre-release) builds" if amd["pre"] else "builds"
        return Step(
            f"PyTorch {kind} for ROCm {line}, as AMD's ROCm {line} PyTorch page installs them",
            (
                venv,
                f'"{VENV}/bin/pip" install {pre}{" ".join(amd["packages"])} '
                f"--index-url {amd['index']}",
            ),
            note=f"PyTorch publishes no stable torch for ROCm {line}"
            + (", and nightly builds change from day to day" if amd["pre"] else "")
            + f"; {stable}.",
        )
    return Step(
        f"PyTorch: neither PyTorch nor AMD's PyTorch page lists a build for ROCm {line}",
        (),
        note=f"PyTorch publishes no stable torch for ROCm {line}; {stable}; or see "
        + data.install_facts()["pytorch_page"].format(release=rel["release"])
        + " (AMD's Docker images, or a build from source).",
    )


def _nearest_stable(release: str) -> str:
    """The nearest releases below and above ``release`` that PyTorch's stable indexes serve,
    as "nearest releases with a stable torch: ROCm 6.4.3 (rocm6.4, torch 2.9.1), ..."."""
    found = []
    for near in data.nearest(Version(release), 1, with_torch=True):
        best = data.newest_torch_index(data.releases()[near])
        found.append(f"ROCm {near} ({best['index'].rsplit('/', 1)[1]}, torch {best['torch'][-1]})")
    return "nearest releases with a stable torch: " + (", ".join(found) or "none")


def render_text(plan: Plan) -> str:
    lines = [
        f"# Install plan: ROCm {plan.release} ({plan.release_full}) "
        f"on {plan.label} [{plan.distro}]",
        "# rocport prints these commands; it never runs them.",
        "",
    ]
    for number, step in enumerate(plan.steps, 1):
        lines.append(f"## {number}. {step.title}")
        if step.note:
            lines.append(f"# {step.note}")
        lines.extend(step.commands)
        lines.append("")
    lines.append("## Afterwards")
    lines.extend(plan.after)
    lines.append("")
    lines.append("# Sources:")
    lines.extend(f"#   {s}" for s in plan.sources)
    return "\n".join(lines) + "\n"


def render_sh(plan: Plan) -> str:
    lines = [
        "#!/usr/bin/env bash",
        f"# ROCm {plan.release} ({plan.release_full}) on {plan.label}: "
        "written by rocport install-plan.",
        "# Review it, then run it as your normal user (it calls sudo where needed).",
        "set -euo pipefail",
        "",
    ]
    for number, step in enumerate(plan.steps, 1):
        lines.append(f"# {number}. {step.title}")
        if step.note:
            lines.append(f"# {step.note}")
        lines.append(f"echo {shlex.quote(f'==> {number}. {step.title}')}")
        lines.extend(step.commands)
        lines.append("")
    lines.append("echo 'Done. Next:'")
    lines.extend(f"echo {shlex.quote('  ' + cmd)}" for cmd in plan.after)
    lines.append("")
    lines.append("# Sources:")
    lines.extend(f"#   {s}" for s in plan.sources)
    return "\n".join(lines) + "\n"
