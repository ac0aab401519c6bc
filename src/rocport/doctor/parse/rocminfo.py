"""Parse the text that ``rocminfo`` prints.

Format reference: ROCm/rocminfo, ``rocminfo.cc`` (``DisplaySystemInfo``, ``DisplayAgentInfo``,
``DisplayPoolInfo``, ``DisplayISAInfo``) and the sample output in
https://rocm.docs.amd.com/projects/rocminfo/en/latest/how-to/use-rocminfo.html .
Agents start at a line ``Agent N`` between ``*******`` rules; agent fields are indented two
spaces (``  Name:``, ``  Compute Unit:``), pool and ISA entries six (under ``    Pool N`` /
``    ISA N``).  Numbers are printed as ``64(0x40)`` and sizes as ``201310208(0xbffc000) KB``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_AGENT = re.compile(r"^Agent\s+(\d+)\s*$")
_KEY_VALUE = re.compile(r"^(?P<indent> *)(?P<key>[^:]+?):+\s*(?P<value>.*?)\s*$")
_NUMBER = re.compile(r"^(\d+)")
_SUB_ENTRY = re.compile(r"^\s{4}(Pool|ISA)\s+\d+\s*$")


@dataclass
class Agent:
    """One HSA agent (a CPU or a GPU) as rocminfo describes it."""

    number: int
    fields: dict[str, str] = field(default_factory=dict)
    pools: list[dict[str, str]] = field(default_factory=list)
    isas: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.fields.get("Name", "")

    @property
    def marketing_name(self) -> str:
        return self.fields.get("Marketing Name", "") or self.name

    @property
    def device_type(self) -> str:
        return self.fields.get("Device Type", "").upper()

    @property
    def is_gpu(self) -> bool:
        return self.device_type == "GPU"

    @property
    def gfx_target(self) -> str | None:
        """Base LLVM target such as ``gfx942`` (ISA feature flags removed)."""
        for isa in self.isas:
            match = re.search(r"(gfx[0-9a-f]+)", isa)
            if match:
                return match[1]
        match = re.match(r"(gfx[0-9a-f]+)", self.name)
        return match[1] if match else None

    def number_field(self, key: str) -> int | None:
        match = _NUMBER.match(self.fields.get(key, ""))
        return int(match[1]) if match else None

    @property
    def compute_units(self) -> int | None:
        return self.number_field("Compute Unit")

    @property
    def wavefront_size(self) -> int | None:
        return self.number_field("Wavefront Size")

    @property
    def memory_bytes(self) -> int | None:
        """Size of the agent's first GLOBAL pool (VRAM for a discrete GPU)."""
        for pool in self.pools:
            if pool.get("Segment", "").startswith("GLOBAL"):
                match = re.match(r"(\d+)\S*\s*(KB|MB|GB|B)?", pool.get("Size", ""))
                if match:
                    scale = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}[match[2] or "B"]
                    return int(match[1]) * scale
        return None

    def summary(self) -> dict[str, object]:
        return {
            "name": self.marketing_name,
            "gfx": self.gfx_target,
            "compute_units": self.compute_units,
            "wavefront_size": self.wavefront_size,
            "memory_bytes": self.memory_bytes,
            "uuid": self.fields.get("Uuid"),
        }


@dataclass
class RocminfoReport:
    rock_loaded: bool | None
    agents: list[Agent]
    runtime_version: str | None = None

    @property
    def gpus(self) -> list[Agent]:
        return [a for a in self.agents if a.is_gpu]


def parse_rocminfo(text: str) -> RocminfoReport:
    """Parse the whole of ``rocminfo``'s output (ANSI colour codes are ignored)."""
    text = _ANSI.sub("", text)
    rock: bool | None = None
    if "ROCk module is NOT loaded" in text:
        rock = False
    elif "ROCk module is loaded" in text or "ROCk module version" in text:
        rock = True
    agents: list[Agent] = []
    runtime: str | None = None
    current: Agent | None = None
    section = ""
    entry: dict[str, str] | None = None
    for raw in text.splitlines():
        agent_start = _AGENT.match(raw.strip())
        if agent_start:
            current = Agent(int(agent_start[1]))
            agents.append(current)
            section, entry = "", None
            continue
        if current is None:
            kv = _KEY_VALUE.match(raw)
            if kv and kv["key"].strip() == "Runtime Version":
                runtime = kv["value"]
            continue
        if _SUB_ENTRY.match(raw):
            entry = {}
            if raw.strip().startswith("Pool"):
                current.pools.append(entry)
            continue
        kv = _KEY_VALUE.match(raw)
        if not kv:
            continue
        indent, key, value = len(kv["indent"]), kv["key"].strip(), kv["value"]
        if indent == 2:
            section, entry = key, None
            current.fields.setdefault(key, value)
        elif indent >= 6 and entry is not None:
            entry.setdefault(key, value)
            if section == "ISA Info" and key == "Name":
                current.isas.append(value)
    return RocminfoReport(rock, agents, runtime)
