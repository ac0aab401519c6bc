"""Group membership and access to the GPU device nodes (/dev/kfd, /dev/dri/renderD*)."""

from __future__ import annotations

import os
import re

from rocport.doctor import data
from rocport.doctor.checks.base import Check, check
from rocport.doctor.context import Context
from rocport.doctor.model import CheckResult, Status

#: a udev rule for the GPU nodes: ``KERNEL=="kfd", GROUP="devteam", MODE="0660"`` (AMD's
#: prerequisites page, "Using udev rules"), or MODE="0666" for every user
_RULE = re.compile(r'KERNEL=="(kfd|renderD\*)"(?P<rest>[^\n]*)')
_GROUP = re.compile(r'GROUP="([^"]+)"')
_MODE = re.compile(r'MODE="0?([0-7]{3})"')
UDEV_DIRS = ("/etc/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d")


def udev_grants(ctx: Context, user_groups: set[str]) -> list[str]:
    """udev rule files that give this user read/write access to /dev/kfd and render nodes."""
    files, covered = [], set()
    for folder in UDEV_DIRS:
        for path in ctx.host.glob(f"{folder}/*.rules"):
            for match in _RULE.finditer(ctx.host.read_text(path) or ""):
                mode, group = _MODE.search(match["rest"]), _GROUP.search(match["rest"])
                if mode is None:
                    continue
                everyone = mode[1][2] in "67"
                by_group = group is not None and group[1] in user_groups and mode[1][1] in "67"
                if everyone or by_group:
                    covered.add(match[1])
                    files.append(path)
    return sorted(set(files)) if {"kfd", "renderD*"} <= covered else []


@check("perm.groups", "permissions", "User in the render and video groups (or udev rules)")
def perm_groups(ctx: Context, c: Check) -> CheckResult:
    ident = ctx.identity
    wanted = data.install_facts()["groups"]
    if not ctx.amd_host:
        return c.result(Status.SKIP, "no AMD GPU on this host: the ROCm groups do not matter")
    if ident is None:
        return c.result(Status.WARN, "cannot run `id`", "Check with `id` by hand.")
    user = ident.user
    member_of = set(ident.group_names) | {
        name for name, g in ctx.groups.items() if user in g.members
    }
    rules = udev_grants(ctx, member_of)
    if rules and ident.uid != 0:
        return c.result(
            Status.PASS,
            f"udev rules give {user} access to /dev/kfd and /dev/dri/renderD*: {', '.join(rules)}",
            user=user,
            udev_rules=rules,
        )
    if ident.uid == 0:
        return c.result(
            Status.PASS,
            "running as root: device access does not depend on groups",
            f"Give your everyday user access: sudo usermod -aG {','.join(wanted)} <user>",
            user=user,
        )
    existing = [g for g in wanted if g in ctx.groups]
    if not existing:
        return c.result(
            Status.FAIL,
            f"none of the groups {', '.join(wanted)} exist in /etc/group",
            "Install the amdgpu driver packages (they create the render group), "
            "or: sudo groupadd --system render",
        )
    primary = ctx.passwd.get(user, (ident.uid, ident.gid))[1]
    configured = {
        g for g in existing if user in ctx.groups[g].members or ctx.groups[g].gid == primary
    }
    missing = [g for g in existing if g not in configured]
    absent = [g for g in wanted if g not in ctx.groups]
    details = {"user": user, "groups": sorted(ident.group_names), "missing": missing}
    note = f" (no {', '.join(absent)} group on this system)" if absent else ""
    if missing:
        return c.result(
            Status.FAIL,
            f"user {user} is not in {', '.join(missing)}{note}",
            f"sudo usermod -aG {','.join(missing)} {user}  # then log out and back in",
            **details,
        )
    stale = [g for g in existing if g not in ident.group_names]
    if stale:
        return c.result(
            Status.WARN,
            f"{user} was added to {', '.join(stale)} but this session predates it",
            "Log out and back in (or run `newgrp render`) so the new groups apply.",
            **details,
        )
    return c.result(Status.PASS, f"{user} is in {', '.join(existing)}{note}", **details)


@check(
    "perm.devices",
    "permissions",
    "GPU device nodes /dev/kfd and /dev/dri/renderD*",
    needs=("driver.amdgpu",),
)
def perm_devices(ctx: Context, c: Check) -> CheckResult:
    kfd = ctx.host.exists("/dev/kfd")
    renders = ctx.host.glob("/dev/dri/renderD*")
    details = {"kfd": kfd, "render_nodes": renders}
    if not kfd:  # driver.amdgpu passed (this check needs it): the driver has no KFD
        return c.result(
            Status.FAIL,
            "/dev/kfd is missing although amdgpu is loaded: the driver did not create the "
            "compute (KFD) device",
            "Check `sudo dmesg | grep -i kfd` (an unsupported GPU or a kernel built without "
            f"HSA_AMD), or install AMD's driver: rocport install-plan --rocm {ctx.release}",
            **details,
        )
    if not renders:
        return c.result(
            Status.FAIL,
            "/dev/kfd present but no /dev/dri/renderD* node",
            "Check `dmesg | grep amdgpu` for a driver initialisation failure.",
            **details,
        )
    nodes = ["/dev/kfd", *renders]
    if ctx.host.offline:
        return c.result(
            Status.PASS,
            f"present: {', '.join(nodes)} (access not tested offline)",
            **details,
        )
    denied = [n for n in nodes if not os.access(n, os.R_OK | os.W_OK)]
    if denied:
        return c.result(
            Status.FAIL,
            f"no read/write access to {', '.join(denied)}",
            "sudo usermod -aG render,video $USER  # then log out and back in",
            **details,
            denied=denied,
        )
    return c.result(Status.PASS, f"read/write access to {', '.join(nodes)}", **details)


CHECKS = (perm_groups, perm_devices)
