#!/usr/bin/env python3
"""Rebuild ``src/rocport/doctor/data/rocm_releases.json`` from AMD's and PyTorch's documentation.

Inputs are snapshots of the documentation sources, never the live web:

``--rocm-git DIR``
    git directory of ROCm/ROCm (or a fork that follows it).  Every commit of
    ``docs/compatibility/compatibility-matrix-historical-6.0.csv`` is read: the newest state
    gives, per release 6.0.0 and later, the operating systems, gfx targets, PyTorch versions and
    the driver versions; the ``OS-kernel-versions`` table of ``compatibility-matrix.rst`` at the
    last commit where a release was the newest gives its kernels and glibc, and the footnotes
    its column cites there give per-OS and per-GPU limits.  The ``docs/5.7.x`` branches give
    ROCm 5.7 (``docs/release/gpu_os_support.md``).
``--legacy-git DIR``
    a ROCm/ROCm git directory that has the ``docs/5.7.x`` branches (default: ``--rocm-git``).
``--install-git DIR``
    git directory of ROCm/rocm-install-on-linux: the ``docs/X.Y.Z`` branches give that
    release's ``docs/reference/system-requirements.rst`` OS table, ``docs/conf.py`` lists and
    the wheel command of its PyTorch page (``docs/install/3rd-party/pytorch-install.rst``, before
    6.2 under ``docs/how-to/``).
``--guide-git DIR``
    git directory of ROCm/amd-rocm-programming-guide, whose ``docs/7.x.y`` branches carry the
    installation pages (and ``conf.py`` distribution lists) of the 7.x releases.
``--extracts DIR``
    small excerpts kept as test fixtures (``tests/doctor/fixtures/sources``): the PyTorch
    previous-versions page (ROCm lines), the 7.0 system-requirements page, ``conf.py``
    excerpts of releases whose docs branch was not in the snapshots (7.0.0, 7.2.1), the
    user/kernel-space (AMD GPU Driver) support matrix of a revision newer than the
    ``--install-git`` snapshot (``user-kernel-space-compat-matrix.rst``; without it the
    snapshot's newest ``docs/reference/user-kernel-space-compat-matrix.rst`` is read), and
    the GPU rows of newer revisions of the compatibility matrix's current table
    (``compatibility-matrix-*-gpu-targets.rst``), which give the gfx targets of releases the
    historical CSV lacks (7.2.1: the ``7.2.2/7.2.1`` column), and the PyTorch install pages of
    releases whose docs branch was not in the snapshots (``rocm-X.Y.Z-pytorch-install.rst``:
    7.0.0, 7.2.0). A release without its own PyTorch page gets the page of the newest earlier
    point release of its line (7.0.2 that of 7.0.0).

Run ``python scripts/refresh_release_data.py --rocm-git ... --install-git ... --extracts
tests/doctor/fixtures/sources --date YYYY-MM-DD``; the table is written atomically.
``python scripts/refresh_release_data.py --markdown`` prints the release table of
``docs/doctor.md`` from the committed data.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from packaging.version import Version

sys.path.insert(0, str(Path(__file__).resolve().parent))
from release_sources import (  # noqa: E402  (a sibling module of this script)
    conf_lists,
    current_table_gfx,
    expand_os,
    kernel_series,
    legacy_release,
    lookup_table,
    matrix_footnotes,
    os_key,
    parse_amd_pytorch,
    parse_driver_matrix,
    parse_gpu_limits,
    parse_matrix,
    parse_os_limits,
    parse_pytorch,
    pytorch_for,
    sysreq_table,
)

CSV_PATH = "docs/compatibility/compatibility-matrix-historical-6.0.csv"
MATRIX_PATH = "docs/compatibility/compatibility-matrix.rst"
SYSREQ_PATH = "docs/reference/system-requirements.rst"
DRIVER_PATH = "docs/reference/user-kernel-space-compat-matrix.rst"
DRIVER_EXTRACT = "user-kernel-space-compat-matrix.rst"
GFX_EXTRACTS = "compatibility-matrix-*-gpu-targets.rst"
PYTORCH_PAGES = (
    "docs/install/3rd-party/pytorch-install.rst",
    "docs/how-to/3rd-party/pytorch-install.rst",
)
PYTORCH_EXTRACTS = "rocm-*-pytorch-install.rst"
FIXTURES = "tests/doctor/fixtures/sources"
DOCS = "https://rocm.docs.amd.com"
OUT = Path(__file__).resolve().parents[1] / "src/rocport/doctor/data/rocm_releases.json"

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


def newest_commits(gitdir: Path) -> dict[str, str]:
    """Release -> the last commit whose historical CSV names it as the newest release."""
    found: dict[str, str] = {}
    for commit in git(gitdir, "log", "--format=%H", "--", CSV_PATH).split():
        header = (git_show(gitdir, commit, CSV_PATH) or "").split("\n", 1)[0]
        first = header.split(",")[1].strip() if "," in header else ""
        for release in first.split("/"):
            found.setdefault(release.strip(), commit)
    return found


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
            "amdgpu_sle": f"https://repo.radeon.com/amdgpu/{f}/sle/{{version}}/main/x86_64",
            "rocm_zyp": f"https://repo.radeon.com/rocm/zyp/{f}/main",
        }
    repos = {
        "rocm_apt": f"https://repo.radeon.com/rocm/apt/{f}",
        "rocm_el": f"https://repo.radeon.com/rocm/el{{major}}/{f}/main",
        "rocm_zyp": f"https://repo.radeon.com/rocm/zyp/{f}/main",
    }
    amdgpu = f if rel < Version("7.0") else driver
    if amdgpu:
        repos["amdgpu_apt"] = f"https://repo.radeon.com/amdgpu/{amdgpu}/ubuntu"
        repos["amdgpu_el"] = f"https://repo.radeon.com/amdgpu/{amdgpu}/el/{{version}}/main/x86_64/"
        repos["amdgpu_sle"] = (
            f"https://repo.radeon.com/amdgpu/{amdgpu}/sle/{{version}}/main/x86_64/"
        )
    if rel >= Version("7.0"):
        repos["graphics_apt"] = f"https://repo.radeon.com/graphics/{f}/ubuntu"
        repos["graphics_el"] = f"https://repo.radeon.com/graphics/{f}/el/{{el}}/main/x86_64/"
        repos["graphics_sle"] = f"https://repo.radeon.com/graphics/{f}/sle/{{version}}/main/x86_64/"
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
                listed = [m[-1] if isinstance(m, tuple) else m for m in minors.get(os_id, [])]
                minor = [m for m in listed if m.split(".")[0] == key[1]]
                if minor:
                    row["el_version"] = minor[0]
    return list(rows.values())


def build(args: argparse.Namespace) -> dict:
    rocm, install, extracts = args.rocm_git, args.install_git, Path(args.extracts)
    head = git(rocm, "rev-parse", "HEAD").strip()
    matrix = parse_matrix(git_show(rocm, "HEAD", CSV_PATH) or "")
    commits = newest_commits(rocm)
    pairs = parse_pytorch((extracts / "pytorch-previous-versions.txt").read_text())
    csv_src = f"{args.rocm_name} {CSV_PATH} at {head[:12]}"
    releases: dict[str, dict] = {}

    def footnotes_for(release: str) -> tuple[dict, list]:
        """OS and GPU limits from the matrix footnotes of the commit that published it."""
        newer = [r for r in commits if Version(r) >= Version(release)]
        if not newer:
            return {}, []
        text = git_show(rocm, commits[min(newer, key=Version)], MATRIX_PATH) or ""
        return matrix_footnotes(text, release)

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
        confs = [
            git_show(g, f"docs/{release}", "docs/conf.py") for g in (install, args.guide_git) if g
        ]
        extract = extracts / f"rocm-{release}-conf.py.txt"
        confs.append(extract.read_text() if extract.exists() else None)
        conf = next((c for c in confs if c), None)
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
            footnotes_for(release),
        )
    for branch in ("docs/5.7.0", "docs/5.7.1"):
        text = git_show(args.legacy_git or rocm, branch, "docs/release/gpu_os_support.md")
        if text:
            legacy = legacy_release(text)
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
            driver_role="install",
        )
    gfx_from_table_excerpts(releases, extracts)
    amd_pytorch(releases, install, extracts)
    return {
        "schema": 2,
        "description": (
            "Per ROCm release (point releases included): supported distributions with validated "
            "kernel series and glibc where AMD lists them, the package repositories, gfx targets, "
            "driver versions, the PyTorch wheel indexes that serve it and the wheel command of "
            "AMD's PyTorch install page for it. Generated by "
            "scripts/refresh_release_data.py; do not edit by hand."
        ),
        "read": args.date,
        "driver_matrix": driver_matrix(install, extracts),
        "releases": dict(sorted(releases.items(), key=lambda kv: Version(kv[0]))),
    }


def gfx_order(targets) -> list[str]:
    """gfx targets without their footnote marks, oldest family first (gfx908 ... gfx1201)."""
    return sorted({g.split()[0] for g in targets}, key=lambda t: (len(t), t))


def gfx_from_table_excerpts(releases: dict[str, dict], extracts: Path) -> None:
    """Fill the gfx targets of releases that have none from the excerpts of newer revisions
    of the compatibility matrix's current table (its column may name two releases)."""
    for extract in sorted(extracts.glob(GFX_EXTRACTS)):
        text = extract.read_text(encoding="utf-8")
        origin = re.search(r"Excerpt of (\S+) (\S+) at ([0-9a-f]{12})", text)
        if origin is None:
            raise ValueError(f"{extract.name}: no 'Excerpt of REPO PATH at COMMIT' header")
        for release, rel in releases.items():
            found = None if rel["gfx"] else current_table_gfx(text, release)
            if found and found[1]:
                rel["gfx"] = gfx_order(found[1])
                rel["sources"]["gfx"] = (
                    f"{origin[1]} {origin[2]} at {origin[3]}, column {found[0]} "
                    f"(excerpt tests/doctor/fixtures/sources/{extract.name})"
                )


def amd_pytorch(releases: dict[str, dict], install: Path | None, extracts: Path) -> None:
    """Set each release's ``amd_pytorch``: the wheel commands of AMD's PyTorch install page for
    it, or for the newest earlier point release of its line, and the page as its source."""

    def url(release: str, path: str) -> str:
        html = path.removeprefix("docs/").removesuffix(".rst")
        return f"{DOCS}/projects/install-on-linux/en/docs-{release}/{html}.html"

    pages: dict[str, tuple[str, str]] = {}
    for release in releases if install else ():
        branch = f"docs/{release}"
        for path in PYTORCH_PAGES:
            text = git_show(install, branch, path)
            if text:
                sha = git(install, "rev-parse", branch).strip()[:12]
                origin = f"ROCm/rocm-install-on-linux branch {branch} at {sha}, {path}"
                pages[release] = text, f"{url(release, path)} ({origin})"
                break
    for extract in sorted(extracts.glob(PYTORCH_EXTRACTS)):
        text = extract.read_text(encoding="utf-8")
        read = re.search(r"\bread (\d{4}-\d\d-\d\d)", text)
        if read is None:
            raise ValueError(f"{extract.name}: no 'read YYYY-MM-DD' in its header")
        release = extract.name.split("-")[1]
        origin = f"{release} revision, read {read[1]}; excerpt {FIXTURES}/{extract.name}"
        pages.setdefault(release, (text, f"{url(release, PYTORCH_PAGES[0])} ({origin})"))
    for release, rel in releases.items():
        v = Version(release)
        line = [p for p in pages if Version(p).release[:2] == v.release[:2] and Version(p) <= v]
        page = max(line, key=Version, default=None)
        rel["amd_pytorch"] = parse_amd_pytorch(pages[page][0]) if page else []
        if page:
            rel["sources"]["amd_pytorch"] = pages[page][1]


def assemble(
    release,
    os_cells,
    gfx,
    driver_cell,
    kernels,
    ksrc,
    pairs,
    matrix_src,
    minors,
    extracts,
    footnotes=({}, []),
    driver_role="compatible",
):
    rel = Version(release)
    suites = (
        SUITES if rel >= Version("6.0") else {k: v for k, v in SUITES.items() if k[0] == "ubuntu"}
    )
    os_limits, gpu_limits = footnotes  # the matrix's footnotes for this release's column
    extract = extracts / f"rocm-{rel.major}.{rel.minor}-system-requirements.rst"
    if extract.exists() and rel < Version("7.0.2"):  # the release's own page wins
        gpu_limits = parse_gpu_limits(extract.read_text())
        os_limits = parse_os_limits(extract.read_text())
    os_rows = build_os(os_cells, kernels, suites, minors)
    for row in os_rows:
        limit = os_limits.get(row["label"]) or next(
            (v for k, v in os_limits.items() if row["label"].startswith(k + " ")), None
        )
        if limit:
            row["only_gpus"], row["note"] = limit["gpus"], limit["text"]
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
            "gfx": matrix_src,
            "repositories": install_src,
            "pytorch": "https://pytorch.org/get-started/previous-versions/ (excerpt "
            "tests/doctor/fixtures/sources/pytorch-previous-versions.txt)",
        },
        "os": os_rows,
        "gfx": gfx_order(gfx),
        "driver": driver_cell,
        # "compatible": the matrix's AMD GPU Driver row (every driver AMD pairs with it);
        # "install": only the driver the release's install pages register
        "driver_role": driver_role if driver_cell else None,
        "gpu_os_limits": gpu_limits,
        "repositories": repositories(release, driver),
        "pytorch": pytorch,
    }


def driver_matrix(install: Path | None, extracts: Path) -> dict:
    """AMD's user/kernel-space support matrix: the user-space lines each driver line serves.

    The excerpt under ``--extracts`` (a newer revision of the page than the snapshot may hold)
    wins over ``--install-git``'s newest commit.
    """
    extract = extracts / DRIVER_EXTRACT
    page = f"{DOCS}/projects/install-on-linux/en/latest/reference/{Path(DRIVER_PATH).stem}.html"
    if extract.exists():
        text = extract.read_text(encoding="utf-8")
        revision = re.search(r"\b([0-9a-f]{12})\b", "".join(text.splitlines(True)[:3]))
        rev = revision[1] if revision else "?"
        source = (
            f"{page} (ROCm/rocm-install-on-linux {DRIVER_PATH} at {rev}, excerpt "
            f"tests/doctor/fixtures/sources/{DRIVER_EXTRACT})"
        )
    elif install:
        text = git_show(install, "HEAD", DRIVER_PATH) or ""
        head = git(install, "rev-parse", "HEAD").strip()
        source = f"{page} (ROCm/rocm-install-on-linux {DRIVER_PATH} at {head[:12]})"
    else:
        return {"source": None, "rows": []}
    return {"source": source, "rows": parse_driver_matrix(text)}


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
        "| PyTorch index (torch) | AMD's PyTorch page: index (revision) | Source |",
        "|---|---|---|---|---|---|---|",
    ]
    for release, rel in table["releases"].items():
        oses = ", ".join(f"{r['id']}-{r['version']}" for r in rel["os"])
        kernels = sum(1 for r in rel["os"] if r.get("kernels"))
        gfx = ", ".join(rel["gfx"]) or "not in the data"
        torch = "; ".join(
            f"{p['index'].rsplit('/', 1)[1]} ({', '.join(p['torch'])})" for p in rel["pytorch"]
        )
        amd = "; ".join(
            ("--pre " if p["pre"] else "")
            + p["index"].removeprefix("https://download.pytorch.org/whl/")
            for p in rel["amd_pytorch"]
        )
        if amd:
            amd += " (" + re.search(r"/docs-([\d.]+)/", rel["sources"]["amd_pytorch"])[1] + ")"
        source = rel["sources"]["os"]
        if rel["sources"].get("gfx", rel["sources"]["matrix"]) != rel["sources"]["matrix"]:
            source += f"; gfx targets: {rel['sources']['gfx']}"
        lines.append(
            f"| {release} | {oses} | {kernels}/{len(rel['os'])} | {gfx} | {torch or 'none'} "
            f"| {amd or 'none read'} | {source} |"
        )
    return "\n".join(lines) + (
        f"\n\nAll rows read {table['read']}, except excerpts whose source names a later day.\n"
    )


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
    parser.add_argument(
        "--guide-git",
        type=Path,
        help="ROCm/amd-rocm-programming-guide git dir (docs/7.x.y branches: conf.py lists)",
    )
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
