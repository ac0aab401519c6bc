"""The package-manager steps of an install plan: apt (Ubuntu, Debian), dnf (RHEL, Rocky,
Oracle Linux) and zypper (SLES), as AMD's package-manager pages give them.

Repository URLs come from ``data/rocm_releases.json``, the shared recipe (keyring, pin,
prerequisites, packages) from ``data/install_recipe.json``.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from rocport.doctor import data
from rocport.errors import InputError


@dataclass(frozen=True)
class Step:
    title: str
    commands: tuple[str, ...]
    note: str | None = None


def apt_steps(rel: dict[str, Any], row: dict[str, Any], distro_id: str) -> tuple[Step, ...]:
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
            ("sudo apt update", "sudo apt install " + words([*prereq, "python3-venv"])),
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
                ("sudo apt install " + words(apt["driver_packages"]),),
            )
        )
    steps.append(Step("ROCm packages", ("sudo apt install " + words(apt["rocm_packages"]),)))
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


def dnf_steps(
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
                "sudo dnf install " + words(dnf["prerequisites"]),
            ),
        ),
        Step("Register the AMD repositories (signed; gpgcheck=1)", tuple(register)),
    ]
    if "amdgpu_el" in repos:
        steps.append(
            Step(
                "Kernel driver (reboot after it)",
                ("sudo dnf install " + words(dnf["driver_packages"]),),
            )
        )
    steps.append(Step("ROCm packages", ("sudo dnf install " + words(dnf["rocm_packages"]),)))
    return tuple(steps)


def zypper_steps(rel: dict[str, Any], version: str) -> tuple[Step, ...]:
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
            Step("Kernel driver (reboot after it)", (install + words(zypper["driver_packages"]),))
        )
    steps.append(Step("ROCm packages", (install + words(zypper["rocm_packages"]),)))
    return tuple(steps)


def words(items: list[str]) -> str:
    """Join package names; ``$(uname -r)`` stays expandable inside double quotes."""
    return " ".join(f'"{item}"' if "$" in item else shlex.quote(item) for item in items)
