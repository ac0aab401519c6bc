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
from rocport.doctor.parse.system import parse_os_release
from rocport.errors import InputError

APT_FAMILY = ("ubuntu", "debian")
DNF_FAMILY = ("rhel", "rocky", "ol")
ZYPPER_FAMILY = ("sles",)
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
        steps = _dnf_steps(rel, row, distro_id, version_id)
    elif distro_id in ZYPPER_FAMILY:
        steps = _zypper_steps(rel, row["version"])
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
    sources = tuple(rel["sources"][k] for k in ("os", "repositories", "pytorch"))
    return Plan(rel["line"], release, name, row["label"], steps, after, sources)


def _apt_steps(rel: dict[str, Any], row: dict[str, Any], distro_id: str) -> tuple[Step, ...]:
    facts = data.install_facts()
    keyring, repos, suite = facts["apt_keyring"], rel["repositories"], row.get("suite")
    if suite is None:
        raise InputError(f"no apt suite known for {row['label']} in ROCm {rel['release']}")
    apt = facts["apt"]
    prereq = apt["debian_prerequisites"] if distro_id == "debian" else apt["prerequisites"]
    signed = f"[arch=amd64 signed-by={keyring}]"
    rocm_lines = [f"deb {signed} {repos['rocm_apt']} {suite} main"]
    if "graphics_apt" in repos:
        rocm_lines.append(f"deb {signed} {repos['graphics_apt']} {suite} main")
    register = []
    if "amdgpu_apt" in repos:
        register.append(
            f'echo "deb {signed} {repos["amdgpu_apt"]} {suite} main" '
            "| sudo tee /etc/apt/sources.list.d/amdgpu.list"
        )
    for n, line in enumerate(rocm_lines):
        tee = "sudo tee" if n == 0 else "sudo tee -a"
        register.append(f'echo "{line}" | {tee} /etc/apt/sources.list.d/rocm.list')
    register += [
        "printf 'Package: *\\nPin: release o=repo.radeon.com\\nPin-Priority: 600\\n' "
        "| sudo tee /etc/apt/preferences.d/rocm-pin-600 > /dev/null",
        "sudo apt update",
    ]
    what = "amdgpu driver, ROCm" + (" and graphics" if "graphics_apt" in repos else "")
    steps = [
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
            f"Register the {what} repositories, pinned above the distribution's packages",
            tuple(register),
            note=f"Debian uses the Ubuntu {suite} packages, as AMD documents."
            if distro_id == "debian"
            else None,
        ),
    ]
    if "amdgpu_apt" in repos:
        steps.append(
            Step(
                "Kernel driver (reboot after it)",
                ("sudo apt install " + _words(apt["driver_packages"]),),
            )
        )
    steps.append(Step("ROCm packages", ("sudo apt install " + _words(apt["rocm_packages"]),)))
    return tuple(steps)


def _el_version(row: dict[str, Any], distro_id: str, version_id: str) -> str:
    """The minor release (9.6) that repo.radeon.com's el/ folders use."""
    if "." in version_id:
        return version_id
    if row.get("el_version"):
        return row["el_version"]
    raise InputError(
        f"--distro {distro_id}-{version_id}: give the minor release, e.g. "
        f"{distro_id}-{version_id}.6, as in /etc/os-release VERSION_ID"
    )


def _dnf_steps(
    rel: dict[str, Any], row: dict[str, Any], distro_id: str, version_id: str
) -> tuple[Step, ...]:
    facts = data.install_facts()
    dnf, repos = facts["dnf"], rel["repositories"]
    version = _el_version(row, distro_id, version_id)
    major = version.split(".")[0]
    el = version if major == "9" else major
    key = facts["key_url"]
    fields = {"version": version, "major": major, "el": el}

    def section(name: str, baseurl: str) -> str:
        return (
            f"[{name}]\nname={name}\nbaseurl={baseurl.format(**fields)}\n"
            f"enabled=1\npriority=50\ngpgcheck=1\ngpgkey={key}"
        )

    rocm_sections = [section("rocm", repos["rocm_el"])]
    if "graphics_el" in repos:
        rocm_sections.append(section("amdgraphics", repos["graphics_el"]))
    register = []
    if "amdgpu_el" in repos:
        register.append(
            "sudo tee /etc/yum.repos.d/amdgpu.repo > /dev/null <<'EOF'\n"
            + section("amdgpu", repos["amdgpu_el"])
            + "\nEOF"
        )
    register.append(
        "sudo tee /etc/yum.repos.d/rocm.repo > /dev/null <<'EOF'\n"
        + "\n\n".join(rocm_sections)
        + "\nEOF"
    )
    register.append("sudo dnf clean all")
    crb = dnf["crb"][distro_id].format(major=major)
    steps = [
        Step(
            "Prerequisites: EPEL, CodeReady Builder (CRB), kernel headers for DKMS, Python tools",
            (
                "sudo dnf install " + dnf["epel"].format(major=major),
                crb,
                "sudo dnf install " + _words(dnf["prerequisites"]),
            ),
        ),
        Step("Register the AMD repositories (signed; gpgcheck=1)", tuple(register)),
    ]
    if "amdgpu_el" in repos:
        steps.append(
            Step(
                "Kernel driver (reboot after it)",
                ("sudo dnf install " + _words(dnf["driver_packages"]),),
            )
        )
    steps.append(Step("ROCm packages", ("sudo dnf install " + _words(dnf["rocm_packages"]),)))
    return tuple(steps)


def _zypper_steps(rel: dict[str, Any], version: str) -> tuple[Step, ...]:
    """SLES: SUSEConnect modules, then [amdgpu], [rocm] (and [amdgraphics]) in zypp."""
    facts = data.install_facts()
    zypper, repos, key = facts["zypper"], rel["repositories"], facts["key_url"]

    def section(name: str, baseurl: str, priority: bool) -> str:
        line = "\npriority=50" if priority else ""
        return (
            f"[{name}]\nname={name}\nbaseurl={baseurl.format(version=version)}\n"
            f"enabled=1{line}\ngpgcheck=1\ngpgkey={key}"
        )

    def repo_file(path: str, sections: list[str]) -> str:
        return f"sudo tee {path} > /dev/null <<'EOF'\n" + "\n\n".join(sections) + "\nEOF"

    register = []
    if "amdgpu_sle" in repos:
        register.append(
            repo_file(
                "/etc/zypp/repos.d/amdgpu.repo", [section("amdgpu", repos["amdgpu_sle"], False)]
            )
        )
    rocm = [section("rocm", repos["rocm_zyp"], False)]
    if "graphics_sle" in repos:
        rocm.append(section("amdgraphics", repos["graphics_sle"], True))
    register += [repo_file("/etc/zypp/repos.d/rocm.repo", rocm), "sudo zypper refresh"]
    install = "sudo zypper --gpg-auto-import-keys install "
    steps = [
        Step(
            "Prerequisites: SUSE modules and the science repository",
            tuple(line.format(version=version) for line in zypper["prerequisites"]),
        ),
        Step("Register the AMD repositories (signed; gpgcheck=1)", tuple(register)),
    ]
    if "amdgpu_sle" in repos:
        steps.append(
            Step("Kernel driver (reboot after it)", (install + _words(zypper["driver_packages"]),))
        )
    steps.append(Step("ROCm packages", (install + _words(zypper["rocm_packages"]),)))
    return tuple(steps)


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
    ]
    indexes = rel["pytorch"]
    if indexes:
        best = max(indexes, key=lambda i: Version(i["torch"][-1]))
        torch = best["torch"][-1]
        steps.append(
            Step(
                f"PyTorch {torch} built for ROCm {rel['line']}, in a virtual environment",
                (
                    f'python3 -m venv "{VENV}"',
                    f'"{VENV}/bin/pip" install torch=={torch} torchvision '
                    f"--index-url {best['index']}",
                ),
                note=f"That index serves torch {', '.join(best['torch'])}.",
            )
        )
    else:
        steps.append(
            Step(
                f"PyTorch: no published wheel index for ROCm {rel['line']} is known",
                (),
                note="PyTorch's previous-versions page lists no stable build for this release; "
                "see "
                + data.install_facts()["pytorch_page"].format(release=rel["release"])
                + " (AMD's Docker images, or a build from source).",
            )
        )
    return tuple(steps)


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
