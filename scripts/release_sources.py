"""Parsers for the snapshots of AMD's and PyTorch's documentation pages.

Used by ``scripts/refresh_release_data.py``: each function reads one page format (the
historical compatibility-matrix CSV, a system-requirements OS table, the compatibility matrix's
OS/kernel lookup table and its current table's GPU rows, ROCm 5.7's ``gpu_os_support.md``,
PyTorch's previous-versions page, AMD's PyTorch install page, an install-docs ``conf.py``) and
returns plain data.
"""

from __future__ import annotations

import ast
import csv
import io
import re

from packaging.version import Version

#: "Ubuntu 24.04.3" -> os-release ID; the version is what follows the name
OS_NAMES = {
    "Ubuntu": "ubuntu",
    "RHEL": "rhel",
    "SLES": "sles",
    "Oracle Linux": "ol",
    "Debian": "debian",
    "Azure Linux": "azurelinux",
    "Rocky Linux": "rocky",
    "CentOS": "centos",
}


def strip_refs(cell: str) -> str:
    """``"Oracle Linux 9, 8 [#ol-mi300x]_"`` -> ``"Oracle Linux 9, 8"``."""
    return re.sub(r"\s*\[#[^\]]*\]_", "", cell).strip()


def expand_os(cell: str) -> list[tuple[str, str, str]]:
    """``"RHEL 9.6, 9.4"`` -> [("rhel", "9.6", "RHEL 9.6"), ("rhel", "9.4", "RHEL 9.4")]."""
    cell = strip_refs(cell)
    for name, found in OS_NAMES.items():
        if cell.startswith(name + " "):
            os_id, rest = found, cell[len(name) + 1 :]
            break
    else:
        return []
    rows = []
    prefix = ""
    for part in (p.strip() for p in rest.split(",")):
        if os_id == "sles":
            match = re.fullmatch(r"(?:(\d+) )?SP(\d+)", part)
            if not match:
                continue
            prefix = match[1] or prefix
            rows.append((os_id, f"{prefix}.{match[2]}", f"SLES {prefix} SP{match[2]}"))
        elif re.fullmatch(r"\d+(\.\d+)*", part):
            rows.append((os_id, part, f"{name} {part}"))
    return rows


def os_key(os_id: str, version: str) -> tuple[str, str]:
    """Ubuntu point releases (24.04.3) share the os-release VERSION_ID 24.04."""
    if os_id == "ubuntu":
        version = ".".join(version.split(".")[:2])
    return os_id, version


def kernel_series(text: str) -> list[str]:
    """``"5.15 [GA], 6.8 [HWE]"`` -> ["5.15", "6.8"]; ``"6.40-150700.51"`` -> ["6.4"]."""
    series = []
    for match in re.finditer(r"(?<![\d.-])(\d+)\.(\d+)", text):
        major, minor = match[1], match[2]
        if len(minor) == 2 and minor.endswith("0") and major == "6" and "-" in text:
            minor = minor[0]  # "6.40-150700.51" is AMD's spelling of 6.4.0-150700.51
        key = f"{major}.{int(minor)}"
        if key not in series:
            series.append(key)
    return series


def sysreq_table(text: str) -> dict[str, dict[str, str]]:
    """Rows of a system-requirements OS csv-table: label -> {"kernel", "glibc"}."""
    table = {}
    for line in text.splitlines():
        cells = next(csv.reader([line.strip()], skipinitialspace=True), [])
        if len(cells) >= 3 and expand_os(cells[0]) and re.search(r"\d", cells[1]):
            glibc = cells[2] if len(cells) >= 4 and re.fullmatch(r"\d+\.\d+", cells[2]) else None
            table[strip_refs(cells[0])] = {"kernel": cells[1].strip(), "glibc": glibc}
    return table


def lookup_table(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """The compatibility matrix's OS/Version/Kernel/Glibc table, by (os id, version)."""
    section = text.split(".. _OS-kernel-versions:", 1)[-1].split(".. note::", 1)[0]
    table, os_id = {}, None
    for line in section.splitlines():
        if not line.startswith("   ") or line.strip().startswith((":", ".. ")):
            continue
        cells = next(csv.reader([line.strip()], skipinitialspace=True), [])
        if len(cells) < 3:
            continue
        if cells[0]:
            name = re.sub(r"`([^<`]*?)\s*(?:\(.*?\))?\s*<.*", r"\1", cells[0]).strip()
            name = {"Red Hat Enterprise Linux": "RHEL", "SUSE Linux Enterprise Server": "SLES"}.get(
                name, name
            )
            os_id = OS_NAMES.get(name)
        if os_id is None:
            continue
        version = cells[1].strip()
        if not version:
            continue
        if os_id == "sles":
            version = version.replace(" SP", ".")
        if os_id == "ubuntu" and version.count(".") == 2:  # the 6.2 table spells "22.04.05"
            year, month, point = version.split(".")
            version = f"{year}.{month}.{int(point)}"
        glibc = cells[3].strip() if len(cells) > 3 else None
        table[(os_id, version)] = {"kernel": cells[2].strip(), "glibc": glibc or None}
    return table


def parse_matrix(text: str) -> dict[str, dict]:
    """Columns of the historical CSV: release -> os cells, gfx targets, pytorch, driver."""
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    releases = [c.strip() for c in rows[0][1:]]
    out: dict[str, dict] = {}
    section = None
    for row in rows[1:]:
        label = row[0].strip()
        if label:
            section = label
        for i, cell in enumerate(row[1 : len(releases) + 1]):
            cell = strip_refs(cell)
            if not cell or cell.startswith(".. _"):
                continue
            col = out.setdefault(
                releases[i], {"os": [], "gfx": [], "pytorch": None, "driver": None}
            )
            if "Operating systems" in (section or ""):
                col["os"].append(cell)
            elif "GPU / LLVM target" in (section or ""):
                col["gfx"].append(cell)
            elif label.startswith(":doc:`PyTorch"):
                col["pytorch"] = cell
            elif label.startswith((":doc:`AMD GPU Driver", ":doc:`KMD", "Tested user space")):
                col["driver"] = cell
    split = {}
    for name, col in out.items():  # "7.0.1/7.0.0" is one column for two releases
        for release in name.split("/"):
            split[release.strip()] = col
    return split


def legacy_release(text: str) -> dict:
    """ROCm 5.7's ``docs/release/gpu_os_support.md``: supported OS rows and gfx targets."""
    supported = text.split(":::{tab-item} Unsupported", 1)[0]
    os_rows, gfx = [], []
    for line in supported.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and "✅" in cells[3] and expand_os(cells[0]):
            os_rows.append((cells[0], cells[2], None))
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"gfx[0-9a-f]+", cells[2]) and "✅" in cells[3]:
            gfx.append(cells[2])
    return {"os": os_rows, "gfx": sorted(set(gfx), key=lambda t: (len(t), t))}


def parse_pytorch(text: str) -> list[tuple[str, str]]:
    """(torch version, ROCm index URL) pairs of the previous-versions page."""
    pairs, torch = [], None
    for line in text.splitlines():
        if line.startswith("### v"):
            torch = line[5:].strip()
        match = re.search(r"--index-url (https://download\.pytorch\.org/whl/rocm[\d.]+)", line)
        if match and torch:
            pairs.append((torch, match[1]))
    return pairs


def pytorch_for(release: str, pairs: list[tuple[str, str]]) -> list[dict]:
    """Indexes whose ROCm version is this release or its X.Y line, with the torch they serve."""
    rel = Version(release)
    found: dict[str, list[str]] = {}
    for torch, url in pairs:
        index = Version(url.rsplit("rocm", 1)[1])
        same_line = (index.major, index.minor) == (rel.major, rel.minor)
        if same_line and (len(index.release) == 2 or index == rel):
            found.setdefault(url, []).append(torch)
    return [{"index": url, "torch": sorted(t, key=Version)} for url, t in sorted(found.items())]


def parse_amd_pytorch(text: str) -> list[dict]:
    """The wheel commands of AMD's PyTorch install page (``pytorch-install.rst``): index,
    whether it installs pre-releases (``--pre``), and the packages."""
    found = re.findall(
        r"^\s*pip3? install (--pre )?((?:[a-z_]+ )+)--index-url (https://\S+)", text, re.M
    )
    return [
        {"index": url.rstrip("/"), "pre": bool(pre), "packages": names.split()}
        for pre, names, url in found
    ]


def parse_gpu_limits(text: str) -> list[dict]:
    """``.. [#RDNA-OS] AMD Radeon PRO (...) and AMD Radeon (...) are only supported on ...``."""
    limits = []
    for match in re.finditer(
        r"\.\. \[#[^\]]+\] (.*? (?:are|is) only supported on (.*?))\.\n", text
    ):
        sentence, where = match[1], match[2]
        names = []
        for family, inner in re.findall(r"(AMD Radeon(?: PRO)?) \(([^)]*)\)", sentence):
            for name in (n.strip().removeprefix("and ").strip() for n in inner.split(",")):
                if name:
                    bare = name.startswith(("PRO ", "AI PRO ", "RX "))
                    names.append(f"AMD Radeon {name}" if bare else f"{family} {name}")
        if not names:
            single = re.match(r"(AMD Radeon PRO \w+)", sentence)
            names = [single[1]] if single else []
        oses = [o.strip().removeprefix("and ").strip() for o in where.split(",")]
        if names:
            limits.append({"gpus": names, "os": [o for o in oses if o], "text": sentence})
    return limits


def conf_lists(text: str) -> dict[str, object]:
    values = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return values


def parse_os_limits(text: str) -> dict[str, dict]:
    """OS footnotes: ``RHEL 8.10 is only supported on AMD Instinct MI300X, ... GPUs.`` ->
    {"RHEL 8.10": {"gpus": ["AMD Instinct MI300X", ...], "text": sentence}}."""
    limits: dict[str, dict] = {}
    pattern = (
        r"\.\. \[#[^\]]+\] ((.*?) (?:are|is) (?:only supported|supported only) on (.*?))\.\s*\n"
    )
    for match in re.finditer(pattern, text):
        sentence, subject, where = match[1], match[2], match[3]
        oses = [o.strip() for o in re.split(r",| and ", subject) if o.strip()]
        named = (any(o == n or o.startswith(n + " ") for n in OS_NAMES) for o in oses)
        if not oses or not all(named):
            continue
        where = re.sub(r"\s+for\s.*$", "", where)  # "MI300X for single-node functionality"
        gpus, family = [], None
        for part in re.split(r",\s*(?:and\s+)?|\s+and\s+", re.sub(r"\s+GPUs?\b", "", where)):
            part = part.strip()
            found = re.match(r"(AMD (?:Instinct|Radeon PRO|Radeon))\s+(.*)", part)
            if found:
                family, part = found[1], found[2]
            if family and part:
                gpus.append(f"{family} {part}")
        for os_label in oses:
            limits[os_label] = {"gpus": gpus, "text": sentence}
    return limits


def _radeon_limit(sentence: str) -> dict | None:
    """``Radeon AI PRO R9700, Radeon RX 9070 XT (gfx1201), ... are supported only on Ubuntu
    24.04.2, ... and RHEL 9.4`` -> {"gpus": [...], "os": [...], "text": sentence}."""
    match = re.match(r"(.*?) (?:are|is) (?:only supported|supported only) on (.*)", sentence)
    if not match or not re.match(r"(AMD )?Radeon", match[1]):
        return None
    gpus = []
    for part in re.split(r",\s*(?:and\s+)?|\s+and\s+", match[1]):
        name = re.sub(r"\s*\(gfx[0-9a-f]+\)", "", part.strip())
        if name:
            gpus.append(name if name.startswith("AMD ") else f"AMD {name}")
    oses = [o.strip() for o in re.split(r",\s*(?:and\s+)?|\s+and\s+", match[2]) if o.strip()]
    return {"gpus": gpus, "os": oses, "text": sentence}


def current_table(text: str) -> tuple[list[str], list[list[str]]]:
    """The compatibility matrix's current table (``format-big-table``): its release columns
    (``"7.2.2/7.2.1"`` is one column for two releases) and its rows, stub cell first."""
    table = text.split(".. container:: format-big-table", 1)[-1].split("\n\n.. ", 1)[0]
    header = re.search(r':header: "ROCm Version",(.*)', table)
    if not header:
        return [], []
    rows = [
        next(csv.reader([line.strip()], skipinitialspace=True), [])
        for line in table.splitlines()
        if line.startswith("      ")
        and not re.match(r":(header|stub-columns|widths|escape|header-rows):", line.strip())
    ]
    return [c.strip().strip('"') for c in header[1].split(",")], rows


def current_table_gfx(text: str, release: str) -> tuple[str, list[str]] | None:
    """The GPU / LLVM target cells of the current table's column that names ``release``, as
    (column header, targets); None where no column names it."""
    columns, rows = current_table(text)
    names = [[part.strip() for part in column.split("/")] for column in columns]
    col = next((i for i, parts in enumerate(names) if release in parts), None)
    if col is None:
        return None
    targets, section = [], False
    for row in rows:
        if row and row[0]:
            section = "GPU / LLVM target" in row[0]
        cell = strip_refs(row[col + 1]) if section and len(row) > col + 1 else ""
        if re.fullmatch(r"gfx[0-9a-f]+", cell):
            targets.append(cell)
    return columns[col], targets


def matrix_footnotes(text: str, release: str) -> tuple[dict[str, dict], list[dict]]:
    """The footnotes of ``release``'s column in the compatibility matrix's current table.

    Returns OS limits by OS label prefix (``"Oracle Linux"``, ``"Debian 12"``) and per-GPU OS
    limits, from the ``[#ref]_`` marks of that column's OS and GPU cells.
    """
    notes = {m[1]: m[2].strip() for m in re.finditer(r"^\.\. \[#([\w-]+)\] (.*)$", text, re.M)}
    columns, rows = current_table(text)
    if release not in columns:
        return {}, []
    col = columns.index(release) + 1
    os_limits: dict[str, dict] = {}
    gpu_limits: list[dict] = []
    section = None
    for row in rows:
        if row and row[0]:
            section = (
                "os"
                if "Operating systems" in row[0]
                else ("gpu" if "GPU / LLVM target" in row[0] else None)
            )
        if section is None or len(row) <= col:
            continue
        for ref in re.findall(r"\[#([\w-]+)\]_", row[col]):
            sentence = notes.get(ref, "").rstrip(".")
            if section == "os":
                for label, limit in parse_os_limits(f".. [#{ref}] {sentence}.\n").items():
                    os_limits.setdefault(label, limit)
            else:
                limit = _radeon_limit(sentence)
                if limit and limit not in gpu_limits:
                    gpu_limits.append(limit)
    return os_limits, gpu_limits


def parse_driver_matrix(text: str) -> list[dict[str, object]]:
    """The user/kernel-space (AMD GPU Driver) support matrix: one row per driver line.

    ``"30.10.x", "6.2.x, 6.3.x, 6.4.x, 7.0.x"`` -> {"driver": "30.10.x", "user_space": [...]};
    the older pages' "KFD"/"KMD" tables have the same two columns.
    """
    rows = []
    for line in text.splitlines():
        cells = next(csv.reader([line.strip()], skipinitialspace=True), [])
        if len(cells) == 2 and re.fullmatch(r"\d+\.\d+\.(x|\d+)", cells[0].strip()):
            spaces = [s.strip() for s in cells[1].split(",") if s.strip()]
            rows.append({"driver": cells[0].strip(), "user_space": spaces})
    return rows
