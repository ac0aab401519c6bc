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

from rocport.doctor import data
from rocport.doctor.context import match_os
from rocport.doctor.parse.system import parse_os_release
from rocport.errors import InputError

APT_FAMILY = ("ubuntu", "debian")
DNF_FAMILY = ("rhel", "rocky", "ol")
VENV = "$HOME/.venvs/rocm"


@dataclass(frozen=True)
class Step:
    title: str
    commands: tuple[str, ...]
    note: str | None = None


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
        steps = _apt_steps(rel, row, distro_id)
    elif distro_id in DNF_FAMILY:
        steps = _dnf_steps(rel, version_id)
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
    sources = (rel["sources"]["os"], rel["sources"]["repositories"], rel["sources"]["pytorch"])
    return Plan(release, rel["release"], name, row["label"], steps, after, sources)


def _apt_steps(rel: dict[str, Any], row: dict[str, Any], distro_id: str) -> tuple[Step, ...]:
    facts = data.install_facts()
    keyring, repos, suite = facts["apt_keyring"], rel["repositories"], row["suite"]
    apt = facts["apt"]
    prereq = apt["debian_prerequisites"] if distro_id == "debian" else apt["prerequisites"]
    signed = f"[arch=amd64 signed-by={keyring}]"
    return (
        Step(
            "Prerequisites: kernel headers for DKMS, Python packaging tools",
            ("sudo apt update", "sudo apt install " + _words([*prereq, "python3-venv"])),
        ),
        Step(
            "Repository signing key, as a keyring file under /etc/apt/keyrings (signed-by)",
            (
                "sudo mkdir --parents --mode=0755 /etc/apt/keyrings",
                f"wget -qO - {facts['key_url']} | gpg --dearmor | sudo tee {keyring} > /dev/null",
            ),
        ),
        Step(
            "Register the amdgpu driver and ROCm repositories",
            (
                f'echo "deb {signed} {repos["amdgpu_apt"]} {suite} main" '
                "| sudo tee /etc/apt/sources.list.d/amdgpu.list",
                f'echo "deb {signed} {repos["rocm_apt"]} {suite} main" '
                "| sudo tee /etc/apt/sources.list.d/rocm.list",
                "printf 'Package: *\\nPin: release o=repo.radeon.com\\nPin-Priority: 600\\n' "
                "| sudo tee /etc/apt/preferences.d/rocm-pin-600 > /dev/null",
                "sudo apt update",
            ),
            note="Debian uses the Ubuntu 22.04 (jammy) packages, as AMD documents."
            if distro_id == "debian"
            else None,
        ),
        Step(
            "Kernel driver (reboot after it)",
            ("sudo apt install " + _words(apt["driver_packages"]),),
        ),
        Step("ROCm packages", ("sudo apt install " + _words(apt["rocm_packages"]),)),
    )


def _dnf_steps(rel: dict[str, Any], version_id: str) -> tuple[Step, ...]:
    facts = data.install_facts()
    dnf, repos = facts["dnf"], rel["repositories"]
    major = version_id.split(".")[0]
    key = facts["key_url"]

    def repo_file(path: str, section: str, baseurl: str) -> str:
        return (
            f"sudo tee {path} > /dev/null <<'EOF'\n[{section}]\nname={section}\nbaseurl={baseurl}\n"
            f"enabled=1\npriority=50\ngpgcheck=1\ngpgkey={key}\nEOF"
        )

    return (
        Step(
            "Prerequisites: EPEL, kernel headers for DKMS, Python packaging tools",
            (
                "sudo dnf install " + dnf["epel"].format(major=major),
                "sudo dnf install " + _words(dnf["prerequisites"]),
            ),
            note="RHEL also needs the CodeReady Builder repository enabled for EPEL packages.",
        ),
        Step(
            "Register the amdgpu driver and ROCm repositories (signed; gpgcheck=1)",
            (
                repo_file(
                    "/etc/yum.repos.d/amdgpu.repo",
                    "amdgpu",
                    repos["amdgpu_el"].format(version=version_id, major=major),
                ),
                repo_file(
                    "/etc/yum.repos.d/rocm.repo",
                    f"ROCm-{rel['release']}",
                    repos["rocm_el"].format(major=major, version=version_id),
                ),
                "sudo dnf clean all",
            ),
        ),
        Step(
            "Kernel driver (reboot after it)",
            ("sudo dnf install " + _words(dnf["driver_packages"]),),
        ),
        Step("ROCm packages", ("sudo dnf install " + _words(dnf["rocm_packages"]),)),
    )


def _common_steps(rel: dict[str, Any]) -> tuple[Step, ...]:
    groups = ",".join(data.install_facts()["groups"])
    return (
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
            f"PyTorch built for ROCm {rel['release'].rsplit('.', 1)[0]}, in a virtual environment",
            (
                f'python3 -m venv "{VENV}"',
                f'"{VENV}/bin/pip" install torch torchvision --index-url {rel["pytorch_index"]}',
            ),
        ),
    )


def _words(items: list[str]) -> str:
    """Join package names; ``$(uname -r)`` stays expandable inside double quotes."""
    return " ".join(f'"{item}"' if "$" in item else shlex.quote(item) for item in items)


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
