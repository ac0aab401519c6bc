"""group(5), passwd(5) and ``id`` output parsing."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Group:
    name: str
    gid: int
    members: tuple[str, ...]


def parse_group(text: str) -> dict[str, Group]:
    """Parse group(5): ``name:password:GID:user_list`` (comma-separated members)."""
    groups: dict[str, Group] = {}
    for line in text.splitlines():
        parts = line.strip().split(":")
        if len(parts) < 4 or not parts[2].isdigit():
            continue
        members = tuple(m for m in parts[3].split(",") if m)
        groups.setdefault(parts[0], Group(parts[0], int(parts[2]), members))
    return groups


def parse_passwd(text: str) -> dict[str, tuple[int, int]]:
    """Parse passwd(5): user -> (UID, primary GID)."""
    users: dict[str, tuple[int, int]] = {}
    for line in text.splitlines():
        parts = line.strip().split(":")
        if len(parts) >= 4 and parts[2].isdigit() and parts[3].isdigit():
            users.setdefault(parts[0], (int(parts[2]), int(parts[3])))
    return users


@dataclass(frozen=True)
class Identity:
    uid: int
    user: str
    gid: int
    groups: tuple[tuple[int, str], ...]

    @property
    def group_names(self) -> set[str]:
        return {name for _, name in self.groups}


_ID_FIELD = re.compile(r"(\w+)=(\S+)")
_ID_ITEM = re.compile(r"(\d+)(?:\(([^)]*)\))?")


def parse_id(text: str) -> Identity | None:
    """Parse id(1) output: ``uid=1000(alice) gid=1000(alice) groups=1000(alice),44(video)``."""
    fields = dict(_ID_FIELD.findall(text.strip()))
    uid, gid = _ID_ITEM.match(fields.get("uid", "")), _ID_ITEM.match(fields.get("gid", ""))
    if not uid or not gid:
        return None
    groups = tuple((int(m[1]), m[2] or m[1]) for m in _ID_ITEM.finditer(fields.get("groups", "")))
    return Identity(int(uid[1]), uid[2] or uid[1], int(gid[1]), groups)
