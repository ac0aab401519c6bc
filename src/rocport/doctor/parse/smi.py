"""Parse the JSON of ``rocm-smi --showallinfo --json`` and ``amd-smi static --json``.

rocm-smi reference: ROCm/rocm_smi_lib ``python_smi_tools/rocm_smi.py`` (``--json`` prints one
object keyed ``card0``, ``card1``, ... plus ``system``; every value is a string, e.g.
``"Temperature (Sensor junction) (C)": "38.0"``, ``"VRAM Total Memory (B)": "206141652992"``;
key capitalisation changed between releases, e.g. ``Card series`` / ``Card Series``).
amd-smi reference: ROCm/amdsmi ``amdsmi_cli`` (https://rocm.docs.amd.com/projects/amdsmi/en/latest/how-to/amdsmi-cli-tool.html):
a list of per-GPU objects (``{"gpu_data": [...]}`` from ROCm 6.4 on) with ``asic.market_name``,
``asic.target_graphics_version`` and ``vram.size`` as ``{"value": 196592, "unit": "MB"}``;
``amd-smi metric --json`` has, per GPU, ``usage.gfx_activity``, ``temperature.hotspot`` /
``temperature.edge`` and ``mem_usage.used_vram`` / ``total_vram`` in the same value/unit form,
and ``ecc.total_uncorrectable_count`` / ``total_deferred_count``; ``amd-smi static`` has
``vbios.version`` and ``partition.compute_partition`` / ``memory_partition``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, replace
from typing import Any


@dataclass(frozen=True)
class SmiGpu:
    card: str
    name: str | None
    gfx: str | None
    temperature_c: float | None
    use_percent: float | None
    vram_total_bytes: int | None
    vram_used_bytes: int | None
    vbios: str | None = None
    compute_partition: str | None = None
    memory_partition: str | None = None
    ecc_uncorrectable: int | None = None
    ecc_deferred: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _first_json(text: str) -> Any:
    """Decode the first JSON value in ``text`` (the tools may print warnings before it)."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            return decoder.raw_decode(text, match.start())[0]
        except json.JSONDecodeError:
            continue
    raise ValueError("no JSON found in the output")


def _number(value: Any) -> float | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("value")
    if isinstance(value, int | float):
        return float(value)
    match = re.search(r"-?\d+(?:\.\d+)?", str(value or ""))
    return float(match[0]) if match else None


def _get(fields: dict[str, Any], *keys: str) -> Any:
    folded = {k.casefold(): v for k, v in fields.items()}
    for key in keys:
        if key.casefold() in folded:
            return folded[key.casefold()]
    return None


def parse_rocm_smi(text: str) -> tuple[list[SmiGpu], str | None]:
    """Return the GPUs and the amdgpu driver version from rocm-smi's JSON."""
    data = _first_json(text)
    gpus = []
    for card, fields in data.items():
        if not card.startswith("card") or not isinstance(fields, dict):
            continue
        total, used = (
            _number(_get(fields, "VRAM Total Memory (B)")),
            _number(_get(fields, "VRAM Total Used Memory (B)")),
        )
        name = _get(fields, "Card Series", "Device Name", "Card Model")
        gpus.append(
            SmiGpu(
                card=card,
                name=str(name) if name is not None else None,
                gfx=_get(fields, "GFX Version"),
                temperature_c=_number(
                    _get(
                        fields,
                        "Temperature (Sensor junction) (C)",
                        "Temperature (Sensor edge) (C)",
                    )
                ),
                use_percent=_number(_get(fields, "GPU use (%)")),
                vram_total_bytes=int(total) if total is not None else None,
                vram_used_bytes=int(used) if used is not None else None,
            )
        )
    system = data.get("system", {})
    driver = _get(system, "Driver version") if isinstance(system, dict) else None
    return gpus, driver


_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}


def _bytes(value: Any) -> int | None:
    if isinstance(value, dict):
        number, unit = _number(value.get("value")), str(value.get("unit", "B")).upper()
    else:
        match = re.match(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?B)?", str(value or ""))
        if not match:
            return None
        number, unit = float(match[1]), (match[2] or "B").upper()
    return int(number * _UNITS.get(unit, 1)) if number is not None else None


def parse_amd_smi_static(text: str) -> tuple[list[SmiGpu], str | None]:
    """Return the GPUs and driver version from ``amd-smi static --json``."""
    gpus, driver = [], None
    for item in _gpu_list(_first_json(text)):
        asic, vram = item.get("asic", {}), item.get("vram", {})
        info = item.get("driver", {})
        vbios = item.get("vbios") if isinstance(item.get("vbios"), dict) else {}
        part = item.get("partition") if isinstance(item.get("partition"), dict) else {}
        if isinstance(info, dict) and info.get("version"):
            driver = str(info["version"])
        gpus.append(
            SmiGpu(
                card=f"gpu{item.get('gpu', len(gpus))}",
                name=asic.get("market_name"),
                gfx=asic.get("target_graphics_version"),
                temperature_c=None,
                use_percent=None,
                vram_total_bytes=_bytes(vram.get("size")),
                vram_used_bytes=None,
                vbios=vbios.get("version"),
                compute_partition=part.get("compute_partition"),
                memory_partition=part.get("memory_partition"),
            )
        )
    return gpus, driver


def _count(value: Any) -> int | None:
    """An error counter; amd-smi prints ``"N/A"`` where the GPU has no ECC."""
    number = _number(value) if value not in (None, "N/A") else None
    return int(number) if number is not None else None


def _gpu_list(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        data = data.get("gpu_data", [])
    return [item for item in data if isinstance(item, dict)]


def merge_amd_smi_metric(gpus: list[SmiGpu], text: str) -> list[SmiGpu]:
    """Fill temperature, use and used VRAM from ``amd-smi metric --json`` into ``gpus``."""
    metrics = {f"gpu{item.get('gpu')}": item for item in _gpu_list(_first_json(text))}
    merged = []
    for gpu in gpus:
        item = metrics.get(gpu.card)
        if item is None:
            merged.append(gpu)
            continue
        temps = item.get("temperature") or {}
        usage = item.get("usage") or {}
        memory = item.get("mem_usage") or {}
        ecc = item.get("ecc") if isinstance(item.get("ecc"), dict) else {}
        temperature = _number(temps.get("hotspot")) if isinstance(temps, dict) else None
        if temperature is None and isinstance(temps, dict):
            temperature = _number(temps.get("edge"))
        merged.append(
            replace(
                gpu,
                temperature_c=temperature,
                use_percent=_number(usage.get("gfx_activity")) if isinstance(usage, dict) else None,
                vram_used_bytes=_bytes(memory.get("used_vram"))
                if isinstance(memory, dict)
                else None,
                vram_total_bytes=gpu.vram_total_bytes
                or (_bytes(memory.get("total_vram")) if isinstance(memory, dict) else None),
                ecc_uncorrectable=_count(ecc.get("total_uncorrectable_count")),
                ecc_deferred=_count(ecc.get("total_deferred_count")),
            )
        )
    return merged


def parse_amd_smi_firmware(text: str) -> dict[str, dict[str, str]]:
    """``amd-smi firmware --json``: GPU -> {firmware id: version}.

    Each GPU object has ``fw_list`` entries ``{"fw_id": "CP_MEC1", "fw_version": "..."}``
    (older amd-smi releases name the key ``fw_name``).
    """
    firmware = {}
    for item in _gpu_list(_first_json(text)):
        entries = item.get("fw_list") or []
        versions = {}
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict):
                name = entry.get("fw_id") or entry.get("fw_name")
                if name and entry.get("fw_version") is not None:
                    versions[str(name)] = str(entry["fw_version"])
        firmware[f"gpu{item.get('gpu', len(firmware))}"] = versions
    return firmware
