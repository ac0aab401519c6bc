#!/usr/bin/env python3
"""Rebuild ``src/rocport/doctor/data/rocm_releases.json`` from AMD's and PyTorch's documentation.

Inputs are snapshots of the documentation sources, never the live web:

``--rocm-git DIR``
    git directory of ROCm/ROCm (or a fork that follows it).  Every commit of
    ``docs/compatibility/compatibility-matrix-historical-6.0.csv`` is read: the newest state
    gives, per release 6.0.0 and later, the operating systems, gfx targets, PyTorch versions and
    the driver versions; the ``OS-kernel-versions`` table of ``compatibility-matrix.rst`` at the
    last commit where a release was the newest gives its kernels and glibc.  The ``docs/5.7.x``
    branches give ROCm 5.7 (``docs/release/gpu_os_support.md``).
``--legacy-git DIR``
    a ROCm/ROCm git directory that has the ``docs/5.7.x`` branches (default: ``--rocm-git``).
``--install-git DIR``
    git directory of ROCm/rocm-install-on-linux: the ``docs/X.Y.Z`` branches give that
    release's ``docs/reference/system-requirements.rst`` OS table and ``docs/conf.py`` lists.
``--extracts DIR``
    small excerpts kept as test fixtures (``tests/doctor/fixtures/sources``): the PyTorch
    previous-versions page (ROCm lines), a release's system-requirements page, a later
    release's ``conf.py``.

Run ``python scripts/refresh_release_data.py --rocm-git ... --install-git ... --extracts
tests/doctor/fixtures/sources --date YYYY-MM-DD``; the table is written atomically.
``python scripts/refresh_release_data.py --markdown`` prints the release table of
``docs/doctor.md`` from the committed data.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from packaging.version import Version

CSV_PATH = "docs/compatibility/compatibility-matrix-historical-6.0.csv"
MATRIX_PATH = "docs/compatibility/compatibility-matrix.rst"
SYSREQ_PATH = "docs/reference/system-requirements.rst"
DOCS = "https://rocm.docs.amd.com"
OUT = Path(__file__).resolve().parents[1] / "src/rocport/doctor/data/rocm_releases.json"

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
#: apt suites AMD builds for (install docs conf.py ``ubuntu_version_numbers``/``debian_...``)
SUITES = {
    ("ubuntu", "20.04"): "focal",
    ("ubuntu", "22.04"): "jammy",
    ("ubuntu", "24.04"): "noble",
    ("debian", "12"): "jammy",
    ("debian", "13"): "noble",
}


def git(gitdir: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(gitdir), *args], capture_output=True, text=True, check=True
    ).stdout


def git_show(gitdir: Path, rev: str, path: str) -> str | None:
    try:
        return git(gitdir, "show", f"{rev}:{path}")
    except subprocess.CalledProcessError:
        return None


def strip_refs(cell: str) -> str:
    """``"Oracle Linux 9, 8 [#ol-mi300x]_"`` -> ``"Oracle Linux 9, 8"``."""
    return re.sub(r"\s*\[#[^\]]*\]_", "", cell).strip()


# --- operating systems --------------------------------------------------------------------
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
        glibc = cells[3].strip() if len(cells) > 3 else None
        table[(os_id, version)] = {"kernel": cells[2].strip(), "glibc": glibc or None}
    return table


# --- the historical matrix ---------------------------------------------------------------
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


def newest_commits(gitdir: Path) -> dict[str, str]:
    """Release -> the last commit whose historical CSV names it as the newest release."""
    found: dict[str, str] = {}
    for commit in git(gitdir, "log", "--format=%H", "--", CSV_PATH).split():
        header = (git_show(gitdir, commit, CSV_PATH) or "").split("\n", 1)[0]
        first = header.split(",")[1].strip() if "," in header else ""
        for release in first.split("/"):
            found.setdefault(release.strip(), commit)
    return found


# --- ROCm 5.7 ------------------------------------------------------------------------------
def legacy_release(gitdir: Path, branch: str) -> dict | None:
    text = git_show(gitdir, branch, "docs/release/gpu_os_support.md")
    if text is None:
        return None
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


# --- PyTorch -------------------------------------------------------------------------------
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


# --- assembly ------------------------------------------------------------------------------
def folder(release: str) -> str:
    """repo.radeon.com folder: X.Y for X.Y.0, else X.Y.Z (conf.py ``rocm_multi_versions``)."""
    v = Version(release)
    return f"{v.major}.{v.minor}" if v.micro == 0 else release


def repositories(release: str, driver: str | None) -> dict[str, str]:
    rel = Version(release)
    f = folder(release)
    if rel < Version("6.0"):
        return {
            "amdgpu_apt": f"https://repo.radeon.com/amdgpu/{f}/ubuntu",
            "rocm_apt": f"https://repo.radeon.com/rocm/apt/{f}",
            "amdgpu_el": f"https://repo.radeon.com/amdgpu/{f}/rhel/{{version}}/main/x86_64/",
            "rocm_el": f"https://repo.radeon.com/rocm/rhel{{major}}/{f}/main",
        }
    repos = {
        "rocm_apt": f"https://repo.radeon.com/rocm/apt/{f}",
        "rocm_el": f"https://repo.radeon.com/rocm/el{{major}}/{f}/main",
    }
    amdgpu = f if rel < Version("7.0") else driver
    if amdgpu:
        repos["amdgpu_apt"] = f"https://repo.radeon.com/amdgpu/{amdgpu}/ubuntu"
        repos["amdgpu_el"] = f"https://repo.radeon.com/amdgpu/{amdgpu}/el/{{version}}/main/x86_64/"
    if rel >= Version("7.0"):
        repos["graphics_apt"] = f"https://repo.radeon.com/graphics/{f}/ubuntu"
        repos["graphics_el"] = f"https://repo.radeon.com/graphics/{f}/el/{{el}}/main/x86_64/"
    return repos


def driver_folder(cell: str | None, release: str) -> str | None:
    """The 30.x driver of the matrix cell with the release's patch level (7.0.1 -> 30.10.1),
    else the first (newest) one, as a repo.radeon.com folder."""
    drivers = re.findall(r"\b(30\.\d+(?:\.\d+)?)", cell or "")
    micro = Version(release).micro
    for driver in drivers:
        if Version(driver).micro == micro:
            return folder(driver)
    return folder(drivers[0]) if drivers else None


def build_os(cells, kernels, suites, minors) -> list[dict]:
    """Matrix rows by os-release (ID, VERSION_ID); Ubuntu point releases merge into one row."""
    rows: dict[tuple[str, str], dict] = {}
    for cell in cells:
        for os_id, version, label in expand_os(cell):
            key = os_key(os_id, version)
            row = rows.setdefault(key, {"id": key[0], "version": key[1], "label": label})
            facts = kernels.get(label) or kernels.get((os_id, version))
            if facts is None and label == row["label"]:
                facts = kernels.get(key)
            if facts:
                texts = [row["kernel_text"]] if "kernel_text" in row else []
                if label != row["label"]:
                    texts.append(f"{label}: {facts['kernel']}")
                else:
                    texts.insert(0, facts["kernel"])
                row["kernel_text"] = "; ".join(texts)
                series = row.get("kernels", []) + kernel_series(facts["kernel"])
                row["kernels"] = list(dict.fromkeys(series))
                if facts.get("glibc") and "glibc" not in row:
                    row["glibc"] = facts["glibc"]
            if key in suites:
                row["suite"] = suites[key]
            if os_id in ("rocky", "ol") and "." not in key[1]:
                minor = [m for m in minors.get(os_id, []) if m.split(".")[0] == key[1]]
                if minor:
                    row["el_version"] = minor[0]
    return list(rows.values())


def conf_lists(text: str) -> dict[str, object]:
    values = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return values


def build(args: argparse.Namespace) -> dict:
    rocm, install, extracts = args.rocm_git, args.install_git, Path(args.extracts)
    head = git(rocm, "rev-parse", "HEAD").strip()
    matrix = parse_matrix(git_show(rocm, "HEAD", CSV_PATH) or "")
    commits = newest_commits(rocm)
    pairs = parse_pytorch((extracts / "pytorch-previous-versions.txt").read_text())
    csv_src = f"{args.rocm_name} {CSV_PATH} at {head[:12]}"
    releases: dict[str, dict] = {}

    def kernels_for(release: str) -> tuple[dict, str | None]:
        branch = f"docs/{release}"
        text = git_show(install, branch, SYSREQ_PATH) if install else None
        if text and sysreq_table(text):
            return sysreq_table(text), (
                f"{DOCS}/projects/install-on-linux/en/docs-{release}/reference/"
                f"system-requirements.html (ROCm/rocm-install-on-linux branch {branch})"
            )
        v = Version(release)
        extract = extracts / f"rocm-{v.major}.{v.minor}-system-requirements.rst"
        if extract.exists() and v < Version("7.0.2"):
            return sysreq_table(extract.read_text()), (
                f"{DOCS}/projects/install-on-linux/en/docs-7.0.0/reference/system-requirements.html"
                f" (excerpt tests/doctor/fixtures/sources/{extract.name})"
            )
        newer = [r for r in commits if Version(r) >= Version(release)]
        if newer:
            first = min(newer, key=Version)
            text = git_show(rocm, commits[first], MATRIX_PATH) or ""
            if "_OS-kernel-versions:" in text and lookup_table(text):
                return lookup_table(text), (
                    f"{DOCS}/en/docs-{first}/compatibility/compatibility-matrix.html#"
                    f"operating-systems-kernel-and-glibc-versions ({args.rocm_name} "
                    f"{MATRIX_PATH} at {commits[first][:12]})"
                )
        return {}, None

    for release, col in matrix.items():
        if not re.fullmatch(r"\d+\.\d+\.\d+", release):
            continue
        kernels, ksrc = kernels_for(release)
        conf = git_show(install, f"docs/{release}", "docs/conf.py") if install else None
        minors = conf_lists(conf) if conf else {}
        releases[release] = assemble(
            release,
            col["os"],
            col["gfx"],
            col["driver"],
            kernels,
            ksrc,
            pairs,
            csv_src,
            {
                "ol": minors.get("ol_version_numbers", []),
                "rocky": minors.get("rl_version_numbers", []),
            },
            extracts,
        )
    for branch in ("docs/5.7.0", "docs/5.7.1"):
        legacy = legacy_release(args.legacy_git or rocm, branch)
        if legacy:
            release = branch.split("/")[1]
            kernels = {label: {"kernel": k, "glibc": None} for label, k, _ in legacy["os"]}
            src = (
                f"{DOCS}/en/docs-{release}/release/gpu_os_support.html (ROCm/ROCm branch {branch})"
            )
            releases[release] = assemble(
                release,
                [row[0] for row in legacy["os"]],
                legacy["gfx"],
                None,
                kernels,
                src,
                pairs,
                src,
                {},
                extracts,
            )
            releases[release]["sources"]["repositories"] = (
                f"{DOCS}/en/docs-{release}/deploy/linux/os-native/install.html "
                f"(ROCm/ROCm branch {branch}, docs/deploy/linux/os-native/install.md.jinja)"
            )
    conf_extract = extracts / "rocm-7.2.1-conf.py.txt"
    if conf_extract.exists():
        conf = conf_lists(conf_extract.read_text())
        cells = [f"Ubuntu {v}" for v, _ in conf["ubuntu_version_numbers"]]
        cells += [f"Debian {v}" for v, _ in conf["debian_version_numbers"]]
        cells += [f"RHEL {v}" for v in conf["rhel_version_numbers"]]
        cells += [
            f"SLES {v.split('.')[0]} SP{v.split('.')[1]}" for v in conf["sles_version_numbers"]
        ]
        cells += [f"Oracle Linux {v}" for v in conf["ol_version_numbers"]]
        cells += [f"Rocky Linux {v}" for v in conf["rl_version_numbers"]]
        rel = conf["rocm_version"]
        src = (
            "ROCm/amd-rocm-programming-guide docs/conf.py, 7.2.1 revision (excerpt "
            "tests/doctor/fixtures/sources/rocm-7.2.1-conf.py.txt)"
        )
        releases[rel] = assemble(
            rel,
            cells,
            [],
            conf["udev_amdgpu_version"],
            {},
            None,
            pairs,
            src,
            {"ol": conf["ol_version_numbers"], "rocky": conf["rl_version_numbers"]},
            extracts,
        )
    return {
        "schema": 2,
        "description": (
            "Per ROCm release (point releases included): supported distributions with validated "
            "kernel series and glibc where AMD lists them, the package repositories, gfx targets, "
            "driver versions and the PyTorch wheel indexes that serve it. Generated by "
            "scripts/refresh_release_data.py; do not edit by hand."
        ),
        "read": args.date,
        "releases": dict(sorted(releases.items(), key=lambda kv: Version(kv[0]))),
    }


def assemble(
    release, os_cells, gfx, driver_cell, kernels, ksrc, pairs, matrix_src, minors, extracts
):
    rel = Version(release)
    suites = (
        SUITES if rel >= Version("6.0") else {k: v for k, v in SUITES.items() if k[0] == "ubuntu"}
    )
    gpu_limits = []
    extract = extracts / f"rocm-{rel.major}.{rel.minor}-system-requirements.rst"
    if extract.exists() and rel < Version("7.0.2"):
        gpu_limits = parse_gpu_limits(extract.read_text())
    driver = driver_folder(driver_cell, release) if rel >= Version("7.0") else None
    pytorch = pytorch_for(release, pairs)
    template = (
        "ROCm/rocm-install-on-linux docs/6.2.4 docs/install/native-install/*.rst"
        if rel < Version("7.0")
        else "ROCm/amd-rocm-programming-guide docs/7.1.1 "
        "docs/install/install-methods/package-manager/*.rst"
    )
    if rel < Version("6.0"):
        template = "ROCm/ROCm docs/5.7.x docs/deploy/linux/os-native/install.md.jinja"
    install_src = (
        f"{DOCS}/projects/install-on-linux/en/docs-{release}/install/install-methods/"
        f"package-manager-index.html; repository lines as in {template}, folder X.Y for "
        "X.Y.0 and X.Y.Z otherwise (conf.py rocm_multi_versions)"
    )
    if rel >= Version("7.0"):
        install_src += f"; kernel driver from the Instinct driver repository amdgpu/{driver}"
    return {
        "release": release,
        "line": f"{rel.major}.{rel.minor}",
        "sources": {
            "os": ksrc or matrix_src,
            "matrix": matrix_src,
            "repositories": install_src,
            "pytorch": "https://pytorch.org/get-started/previous-versions/ (excerpt "
            "tests/doctor/fixtures/sources/pytorch-previous-versions.txt)",
        },
        "os": build_os(os_cells, kernels, suites, minors),
        "gfx": sorted({g.split()[0] for g in gfx}, key=lambda t: (len(t), t)),
        "driver": driver_cell,
        "gpu_os_limits": gpu_limits,
        "repositories": repositories(release, driver),
        "pytorch": pytorch,
    }


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


def write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def markdown_table(table: dict) -> str:
    """The docs/doctor.md table of every known release, from a generated table."""
    lines = [
        "| Release | Distributions (os-release ID-VERSION_ID) | Kernels known | gfx targets "
        "| PyTorch index (torch) | Source |",
        "|---|---|---|---|---|---|",
    ]
    for release, rel in table["releases"].items():
        oses = ", ".join(f"{r['id']}-{r['version']}" for r in rel["os"])
        kernels = sum(1 for r in rel["os"] if r.get("kernels"))
        gfx = ", ".join(rel["gfx"]) or "not in the data"
        torch = "; ".join(
            f"{p['index'].rsplit('/', 1)[1]} ({', '.join(p['torch'])})" for p in rel["pytorch"]
        )
        lines.append(
            f"| {release} | {oses} | {kernels}/{len(rel['os'])} | {gfx} | {torch or 'none'} "
            f"| {rel['sources']['os']} |"
        )
    return "\n".join(lines) + f"\n\nAll rows read {table['read']}.\n"


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--markdown"]:
        print(markdown_table(json.loads(OUT.read_text(encoding="utf-8"))), end="")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rocm-git", type=Path, required=True)
    parser.add_argument(
        "--rocm-name", default="ROCm/ROCm", help="how to name --rocm-git in the sources"
    )
    parser.add_argument("--install-git", type=Path)
    parser.add_argument("--legacy-git", type=Path, help="ROCm/ROCm git dir with docs/5.7.x")
    parser.add_argument("--extracts", type=Path, required=True)
    parser.add_argument("--date", required=True, help="the day the sources were read")
    parser.add_argument("-o", "--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        table = build(args)
    except (OSError, subprocess.CalledProcessError, KeyError, ValueError) as exc:
        print(f"refresh_release_data: error: {exc}", file=sys.stderr)
        return 2
    write_atomic(args.output, json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(table['releases'])} releases to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
