#!/usr/bin/env python3
"""Generate rocport's per-release facts: for each HIP name (and HIP header), the ROCm release
that added, deprecated and removed it, each fact with its source.

Sources, strongest first:

1. **Headers** of the releases that can be obtained: Debian packages (``--debs DIR``, holding
   ``DIR/<suite>/*.deb``: bookworm has HIP 5.2, trixie 5.7, sid 6.4, experimental 7.2; each
   library's package version says which ROCm release its headers belong to) and the git tags
   of ROCm/HIP and ROCm/clr (``--git DIR``, mirrors ``DIR/ROCm+HIP/repo`` and
   ``DIR/ROCm+clr/repo``: the HIP runtime headers of 6.0, 6.1 and 6.2).
2. **AMD's published tables**: ROCm/HIPIFY ``docs/tables/*.md`` (``--hipify DIR``, a git mirror
   or a folder holding ``docs/tables``), which give the HIP version that added, deprecated,
   changed and removed each HIP name.

Where both speak about a release, the headers win and the disagreement is listed.

    python3 scripts/gen_release_facts.py --debs .cache/debs --git MIRRORS --hipify HIPIFY_GIT \
        --compiler 5.2=/ --compiler 6.4=.toolchains/sid --compiler 7.2=.toolchains/exp72
    python3 scripts/gen_release_facts.py ... --check     # exit 1 if the committed file is stale
    python3 scripts/gen_release_facts.py --docs [--check]  # the releases table of the docs

Writes ``src/rocport/port/data/releases/facts.json`` (deterministic: same inputs, same bytes).
The inputs are read in place; nothing fetched is copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cdecls import Decl, scan_headers  # noqa: E402
from gen_mapping import HIP_SETS as MAPPING_SETS  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "src" / "rocport" / "port" / "data" / "releases" / "facts.json"
DOCTOR_RELEASES = REPO / "src" / "rocport" / "doctor" / "data" / "rocm_releases.json"

#: HIP header sets (globs under an include root): those scripts/gen_mapping.py reads, plus RCCL
HIP_SETS: dict[str, tuple[str, ...]] = {**MAPPING_SETS, "rccl": ("rccl/*.h",)}
#: the Debian package that ships each set (its version is the set's ROCm release)
PACKAGES = {
    "hip": "libamdhip64-dev",
    "hipblas": "libhipblas-dev",
    "hipblaslt": "libhipblaslt-dev",
    "hipfft": "libhipfft-dev",
    "hiprand": "libhiprand-dev",
    "hipsparse": "libhipsparse-dev",
    "hipsolver": "libhipsolver-dev",
    "hipcub": "libhipcub-dev",
    "miopen": "libmiopen-dev",
    "rocblas": "librocblas-dev",
    "rocthrust": "librocthrust-dev",
    "rccl": "librccl-dev",
}
#: the header folders each set's #include lines name (for header-file facts)
HEADER_DIRS = {
    "hip": ("hip",),
    "hipblas": ("hipblas", "hipblas-common"),
    "hipblaslt": ("hipblaslt",),
    "hipfft": ("hipfft",),
    "hiprand": ("hiprand",),
    "hipsparse": ("hipsparse",),
    "hipsolver": ("hipsolver",),
    "hipcub": ("hipcub",),
    "miopen": ("miopen",),
    "rocblas": ("rocblas",),
    "rocthrust": ("thrust",),
    "rccl": ("rccl",),
}
#: clang's HIP wrapper headers, which declare the device math functions from HIP 6 on
CLANG_HIP_HEADERS = ("__clang_hip_math.h", "__clang_hip_cmath.h", "__clang_hip_runtime_wrapper.h")
#: git tags read for the HIP runtime headers (the newest point release of each line)
GIT_TAGS = {"6.0": "rocm-6.0.2", "6.1": "rocm-6.1.2", "6.2": "rocm-6.2.2"}
HIPIFY_REPO = "ROCm/HIPIFY"
#: ROCm lines before 5.7 that ordering needs (library packages of these versions are read)
OLDER_LINES = ("5.0", "5.1", "5.2", "5.3", "5.4", "5.5", "5.6")
_VERSION = re.compile(r"(?:\d+:)?(\d+)\.(\d+)")


def vkey(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def line_of(version: str) -> str:
    m = _VERSION.match(version)
    if not m:
        raise ValueError(f"not a version: {version!r}")
    return f"{int(m.group(1))}.{int(m.group(2))}"


# -- observations: one header set of one release, as read -------------------------------------
@dataclass
class Observation:
    """What one source says about one header set of one release."""

    set_name: str
    release: str
    source: str
    decls: dict[str, Decl]
    headers: frozenset[str]
    #: names this observation cannot judge (e.g. compiler-provided ones it lacks)
    blind: frozenset[str] = frozenset()
    #: for the HIP set: how ``warpSize`` is declared (see :func:`warp_size`)
    warp_size: str | None = None


@dataclass
class Sources:
    items: list[str] = field(default_factory=list)

    def index(self, text: str) -> int:
        if text not in self.items:
            self.items.append(text)
        return self.items.index(text)


def _header_files(root: Path, set_name: str) -> frozenset[str]:
    found = set()
    for folder in HEADER_DIRS[set_name]:
        base = root / folder
        if base.is_dir():
            for p in base.rglob("*"):
                if p.is_file() and p.suffix in (".h", ".hpp", ".cuh", ".inl", ""):
                    found.add(p.relative_to(root).as_posix())
    for name in ("hipblas.h", "hipfft.h"):
        if set_name == name.split(".")[0] and (root / name).is_file():
            found.add(name)
    return frozenset(found)


def _clang_decls(root: Path) -> tuple[dict[str, Decl], str | None]:
    for inc in sorted(root.glob("usr/lib/llvm-*/lib/clang/*/include")):
        if (inc / CLANG_HIP_HEADERS[0]).is_file():
            decls = scan_headers(inc, list(CLANG_HIP_HEADERS))
            return decls, inc.relative_to(root).as_posix()
    return {}, None


_CONSTEXPR_WARP = re.compile(r"\bconstexpr\s+int\s+warpSize\b")
_OBJECT_WARP = re.compile(r"\}\s*warpSize\s*\{\s*\}\s*;")


def warp_size(include: Path) -> str | None:
    """How the HIP headers under ``include`` declare ``warpSize``: ``"constexpr"`` (a
    compile-time constant for AMD GPUs), ``"object"`` (a device object read at run time), or
    ``None``. The token scan does not see either form, so they are probed here."""
    kinds = set()
    for header in sorted((include / "hip").rglob("*.h")):
        text = header.read_text(encoding="utf-8", errors="replace")
        if "warpSize" not in text:
            continue
        if _CONSTEXPR_WARP.search(text):
            kinds.add("constexpr")
        if _OBJECT_WARP.search(text):
            kinds.add("object")
    return "constexpr" if "constexpr" in kinds else "object" if kinds else None


def _with_warp_size(decls: dict[str, Decl], include: Path) -> str | None:
    form = warp_size(include)
    if form:
        decls.setdefault("warpSize", Decl("variable", "hip/amd_detail/amd_warp_functions.h"))
    return form


def debian_observations(debs: Path, work: Path) -> list[Observation]:
    """Every header set of every Debian suite under ``debs`` (``<suite>/*.deb``)."""
    observations = []
    for suite_dir in sorted(p for p in debs.iterdir() if p.is_dir()):
        suite = suite_dir.name
        root = work / suite
        versions: dict[str, str] = {}
        for deb in sorted(suite_dir.glob("*.deb")):
            fields = subprocess.run(
                ["dpkg-deb", "-f", str(deb), "Package", "Version"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            info = dict(line.split(": ", 1) for line in fields.splitlines() if ": " in line)
            versions[info["Package"]] = info["Version"]
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        include = root / "usr" / "include"
        clang, clang_dir = _clang_decls(root)
        clang_pkg = next((p for p in versions if p.startswith("libclang-common-")), None)
        for set_name, package in PACKAGES.items():
            if package not in versions:
                continue
            decls = scan_headers(include, list(HIP_SETS[set_name]))
            source = f"Debian {suite} {package} {versions[package]}"
            if set_name == "hipblas" and "libhipblas-common-dev" in versions:
                source += f" + libhipblas-common-dev {versions['libhipblas-common-dev']}"
            blind: frozenset[str] = frozenset()
            warp = _with_warp_size(decls, include) if set_name == "hip" else None
            if set_name == "hip" and clang:
                source += f" + {clang_pkg} {versions[clang_pkg]} ({clang_dir})"
                for name, d in clang.items():
                    decls.setdefault(name, Decl(d.kind, "hip/hip_runtime.h", d.params))
            observations.append(
                Observation(
                    set_name,
                    line_of(versions[package]),
                    source,
                    decls,
                    _header_files(include, set_name),
                    blind,
                    warp,
                )
            )
    return observations


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _extract(repo: Path, tag: str, path: str, dest: Path, strip: int) -> str:
    commit = _git(repo, "rev-list", "-n", "1", tag).strip()
    data = subprocess.run(
        ["git", "--git-dir", str(repo), "archive", "--format=tar", tag, path],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryFile() as tmp:
        tmp.write(data)
        tmp.seek(0)
        with tarfile.open(fileobj=tmp) as tar:
            for member in tar.getmembers():
                parts = member.name.split("/")[strip:]
                if not parts or not member.isfile():
                    continue
                target = dest.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(member).read())
    return commit


def git_observations(
    mirrors: Path, work: Path, compiler_names: frozenset[str]
) -> list[Observation]:
    """The HIP runtime headers of ROCm/HIP + ROCm/clr at the tags of ``GIT_TAGS``. Names that
    clang's wrapper headers declare (device math) are not judged: the tags carry no compiler."""
    hip_repo, clr_repo = mirrors / "ROCm+HIP" / "repo", mirrors / "ROCm+clr" / "repo"
    observations = []
    for release, tag in GIT_TAGS.items():
        root = work / f"git-{release}"
        hip_commit = _extract(hip_repo, tag, "include/hip", root, 1)
        clr_commit = _extract(clr_repo, tag, "hipamd/include/hip", root, 2)
        decls = scan_headers(root, list(HIP_SETS["hip"]))
        warp = _with_warp_size(decls, root)
        source = (
            f"ROCm/HIP {tag} ({hip_commit}) include/hip + ROCm/clr {tag} ({clr_commit}) "
            "hipamd/include/hip"
        )
        observations.append(
            Observation(
                "hip",
                release,
                source,
                decls,
                _header_files(root, "hip"),
                compiler_names - {"warpSize"},
                warp,
            )
        )
    return observations


# -- compiler probes: what clang itself defines ----------------------------------------------
#: macros that only the compiler defines (no header declares them), probed per toolchain
COMPILER_MACROS = ("__AMDGCN_WAVEFRONT_SIZE",)
PROBE_ARGS = ("-x", "hip", "--offload-arch=gfx90a", "--cuda-device-only", "-fsyntax-only")


def probe_compiler(release: str, root: Path) -> dict[str, dict]:
    """Compile a one-line device file per macro of ``COMPILER_MACROS`` with the hipcc of
    ``root`` (``/``: this machine's ``/usr/bin/hipcc``; else a chroot root, run through
    ``scripts/sid-hipcc``) and record ``defined``, ``deprecated`` or ``undefined``."""
    import os

    if root == Path("/"):
        argv, env = ["/usr/bin/hipcc"], {**os.environ, "HIP_PLATFORM": "amd"}
        where = "/usr/bin/hipcc"
    else:
        argv = [str(REPO / "scripts" / "sid-hipcc")]
        env = {**os.environ, "ROCPORT_SID_ROOT": str(root.resolve())}
        where = f"the hipcc of a root with {_root_packages(root)}"
    version = subprocess.run(
        [*argv, "--version"], capture_output=True, text=True, env=env, check=False
    ).stdout
    hip = re.search(r"HIP version: (\S+)", version)
    clang = re.search(r"clang version (\S+)", version)
    label = f"compiler probe: {where} (HIP {hip.group(1) if hip else '?'}, clang "
    label += f"{clang.group(1) if clang else '?'}), {' '.join(PROBE_ARGS)}"
    out = {}
    with tempfile.TemporaryDirectory(prefix="rocport-probe-", dir="/tmp") as tmp:
        for macro in COMPILER_MACROS:
            path = Path(tmp) / "probe.hip"
            path.write_text(f"__attribute__((device)) int probe = {macro};\n")
            proc = subprocess.run(
                [*argv, *PROBE_ARGS, str(path)],
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp,
                check=False,
            )
            text = proc.stdout + proc.stderr
            if f"undeclared identifier '{macro}'" in text:
                state = "undefined"
            elif proc.returncode != 0:
                raise RuntimeError(f"probe of {macro} with {where} failed: {text[-500:]}")
            elif "marked as deprecated" in text:
                state = "deprecated"
            else:
                state = "defined"
            out[macro] = {"release": release, "state": state, "label": label}
    return out


def _root_packages(root: Path) -> str:
    """``hipcc 7.2.4+dfsg-1~exp1, clang-22 1:22.1.8-3``, from the root's dpkg status."""
    status = (root / "var" / "lib" / "dpkg" / "status").read_text(encoding="utf-8")
    found = {}
    for block in status.split("\n\n"):
        name = re.search(r"^Package: (\S+)", block, re.M)
        version = re.search(r"^Version: (\S+)", block, re.M)
        if name and version and (name.group(1) == "hipcc" or name.group(1).startswith("clang-")):
            found[name.group(1)] = version.group(1)
    return ", ".join(f"Debian {n} {v}" for n, v in sorted(found.items()))


# -- HIPIFY's tables --------------------------------------------------------------------------
@dataclass(frozen=True)
class TableRow:
    table: str
    added: str | None
    deprecated: str | None
    removed: str | None


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_version(cell: str) -> str | None:
    cell = cell.strip()
    return line_of(cell) if _VERSION.match(cell) else None


def read_hipify(path: Path) -> tuple[dict[str, list[TableRow]], str]:
    """HIP (and ROC/MIOpen) names of HIPIFY's tables with their A/D/R versions; the source."""
    files: dict[str, str] = {}
    if (path / "docs" / "tables").is_dir():
        for p in sorted((path / "docs" / "tables").glob("*.md")):
            files[p.name] = p.read_text(encoding="utf-8")
        where = f"{HIPIFY_REPO} docs/tables (folder {path.name})"
    else:
        commit = _git(path, "rev-parse", "HEAD").strip()
        for name in _git(path, "ls-tree", "--name-only", "HEAD", "docs/tables/").split():
            if name.endswith(".md"):
                files[name.rsplit("/", 1)[-1]] = _git(path, "show", f"HEAD:{name}")
        where = f"{HIPIFY_REPO} docs/tables at {commit}"
    rows: dict[str, list[TableRow]] = {}
    for fname, text in files.items():
        header: list[str] | None = None
        for line in text.splitlines():
            if not line.startswith("|"):
                continue
            cells = _cells(line)
            if cells[0] == "**CUDA**":
                header = [c.strip("*") for c in cells]
                continue
            if header is None or not cells[0].startswith("`"):
                continue
            for i, col in enumerate(header):
                if col not in ("HIP", "ROC", "MIOPEN") or i + 4 >= len(cells):
                    continue
                name = cells[i].strip("`")
                if not re.fullmatch(r"[A-Za-z_][\w:]*", name):
                    continue
                a, d, _c, r = (_table_version(cells[i + k]) for k in range(1, 5))
                rows.setdefault(name, []).append(TableRow(fname, a, d, r))
    return rows, where


# -- facts --------------------------------------------------------------------------------------
def known_lines() -> list[str]:
    """ROCm lines, oldest first: those of the doctor's AMD release list, and older ones."""
    doc = json.loads(DOCTOR_RELEASES.read_text(encoding="utf-8"))
    lines = {line_of(v) for v in doc["releases"]} | set(OLDER_LINES)
    return sorted(lines, key=vkey)


def _next(lines: list[str], version: str) -> str | None:
    later = [v for v in lines if vkey(v) > vkey(version)]
    return later[0] if later else None


def _facts_for(
    name: str,
    obs: list[Observation],
    rows: list[TableRow],
    lines: list[str],
    src: Sources,
    tables_where: str,
    disagreements: list[dict],
) -> dict | None:
    """The added/deprecated/removed facts of one name from its set's observations and rows."""
    seen = sorted((o for o in obs if name not in o.blind), key=lambda o: vkey(o.release))
    present = [o for o in seen if name in o.decls]
    fact: dict = {}
    t_added = min((r.added for r in rows if r.added), key=vkey, default=None)
    t_dep = min((r.deprecated for r in rows if r.deprecated), key=vkey, default=None)
    t_rem = min((r.removed for r in rows if r.removed), key=vkey, default=None)
    t_src = next((r.table for r in rows if r.added == t_added), rows[0].table if rows else None)

    def table_source(table: str | None) -> int:
        return src.index(f"{tables_where} {table}")

    if present:
        first = present[0]
        before = [o for o in seen if vkey(o.release) < vkey(first.release)]
        absent_at = before[-1].release if before else None
        lo = _next(lines, absent_at) if absent_at else None
        if (
            t_added
            and (lo is None or vkey(t_added) >= vkey(lo))
            and vkey(t_added) <= vkey(first.release)
        ):
            fact["added"], fact["added_src"] = t_added, table_source(t_src)
        else:
            if t_added:
                disagreements.append(
                    {
                        "name": name,
                        "fact": "added",
                        "tables": t_added,
                        "headers": f"declared in {first.release}"
                        + (f", not in {absent_at}" if absent_at else ""),
                        "table": t_src,
                    }
                )
            fact["added"], fact["added_src"] = first.release, src.index(first.source)
            if absent_at and lo != first.release:
                fact["absent"] = absent_at  # the exact release lies in (absent, added]
            elif not absent_at:
                fact["absent"] = None  # no earlier release was read: added <= first
        _changed(name, present, lines, src, fact)
        dep = next((o for o in present if o.decls[name].deprecated), None)
        if dep is not None:
            if t_dep and vkey(t_dep) <= vkey(dep.release):
                fact["deprecated"], fact["deprecated_src"] = t_dep, table_source(rows[0].table)
            else:
                fact["deprecated"], fact["deprecated_src"] = dep.release, src.index(dep.source)
        elif t_dep:
            fact["deprecated"], fact["deprecated_src"] = t_dep, table_source(rows[0].table)
        last = present[-1]
        after = [o for o in seen if vkey(o.release) > vkey(last.release)]
        if after:
            gone = after[0]
            if t_rem and vkey(last.release) < vkey(t_rem) <= vkey(gone.release):
                fact["removed"], fact["removed_src"] = t_rem, table_source(rows[0].table)
            else:
                fact["removed"], fact["removed_src"] = gone.release, src.index(gone.source)
                if _next(lines, last.release) != gone.release:
                    fact["present"] = last.release  # the exact release lies in (present, removed]
        elif t_rem and vkey(t_rem) > vkey(last.release):
            fact["removed"], fact["removed_src"] = t_rem, table_source(rows[0].table)
        return fact
    if not rows or not t_added:
        return None
    # only the tables speak, unless a header read at or after the table's release lacks it
    lacking = [o for o in seen if vkey(o.release) >= vkey(t_added)]
    if lacking and not (t_rem and vkey(t_rem) <= vkey(lacking[0].release)):
        disagreements.append(
            {
                "name": name,
                "fact": "added",
                "tables": t_added,
                "headers": f"not declared in {', '.join(o.release for o in lacking)}",
                "table": t_src,
            }
        )
        return None
    fact["added"], fact["added_src"] = t_added, table_source(t_src)
    if t_dep:
        fact["deprecated"], fact["deprecated_src"] = t_dep, table_source(rows[0].table)
    if t_rem:
        fact["removed"], fact["removed_src"] = t_rem, table_source(rows[0].table)
    return fact


def _replacement(name: str, obs: list[Observation], removed: str) -> str | None:
    """The name that takes over a removed ``X_v2`` (hipBLAS 3 dropped the suffix): ``X``, when
    the release that removed ``X_v2`` declares ``X`` with the parameters ``X_v2`` had."""
    if not name.endswith("_v2"):
        return None
    base = name[: -len("_v2")]
    gone = next((o for o in obs if o.release == removed), None)
    last = max((o for o in obs if name in o.decls), key=lambda o: vkey(o.release), default=None)
    if gone is None or last is None or base not in gone.decls:
        return None
    old, new = last.decls[name], gone.decls[base]
    if old.kind != new.kind or (old.params is not None and old.params != new.params):
        return None
    return base


def _signature(decl: Decl) -> frozenset[tuple[str, ...]] | None:
    """A function's parameter lists (every overload), spaces dropped; ``None`` otherwise."""
    if decl.kind != "function" or decl.params is None:
        return None
    lists = [decl.params, *(params for params, _defaults in decl.overloads)]
    return frozenset(tuple(p.replace(" ", "") for p in params) for params in lists)


def _changed(name: str, present: list[Observation], lines: list[str], src: Sources, fact: dict):
    """``changed``: the last release read whose parameter lists of function ``name`` differ
    from those of the release read before it (``changed_after``: that one, when not adjacent)."""
    previous = None
    for o in present:
        sig = _signature(o.decls[name])
        if previous is not None and None not in (sig, previous[1]) and sig != previous[1]:
            fact["changed"], fact["changed_src"] = o.release, src.index(o.source)
            fact.pop("changed_after", None)
            if _next(lines, previous[0].release) != o.release:
                fact["changed_after"] = previous[0].release
        previous = (o, sig)


def _merge(a: dict, b: dict) -> dict:
    """One name declared by two sets: the earlier addition, removal only if both remove it."""
    out = dict(a if vkey(a["added"]) <= vkey(b["added"]) else b)
    if "removed" in a and "removed" in b:
        keep = a if vkey(a["removed"]) >= vkey(b["removed"]) else b
        out["removed"], out["removed_src"] = keep["removed"], keep["removed_src"]
    else:
        out.pop("removed", None)
        out.pop("removed_src", None)
        out.pop("present", None)
    return out


def build(
    observations: list[Observation],
    tables: dict[str, list[TableRow]],
    where: str,
    probes: list[dict[str, dict]] = (),
) -> dict:
    lines = known_lines()
    src = Sources()
    disagreements: list[dict] = []
    names: dict[str, dict] = {}
    by_set: dict[str, list[Observation]] = {}
    for o in observations:
        by_set.setdefault(o.set_name, []).append(o)
    claimed: set[str] = set()
    for set_name in sorted(by_set):
        obs = by_set[set_name]
        pool = set().union(*(o.decls for o in obs))
        for name in sorted(pool):
            fact = _facts_for(name, obs, tables.get(name, []), lines, src, where, disagreements)
            if fact is None:
                continue
            if "removed" in fact:
                replacement = _replacement(name, obs, fact["removed"])
                if replacement:
                    fact["replaced_by"] = replacement
            names[name] = _merge(names[name], fact) if name in names else fact
        claimed |= pool
    for name in sorted(set(tables) - claimed):
        fact = _facts_for(name, [], tables[name], lines, src, where, disagreements)
        if fact is not None:
            names[name] = fact
    headers: dict[str, dict] = {}
    for set_name in sorted(by_set):
        obs = sorted(by_set[set_name], key=lambda o: vkey(o.release))
        for path in sorted(set().union(*(o.headers for o in obs))):
            present = [o for o in obs if path in o.headers]
            first, last = present[0], present[-1]
            before = [o for o in obs if vkey(o.release) < vkey(first.release)]
            row = {"added": first.release, "added_src": src.index(first.source)}
            if before:
                if _next(lines, before[-1].release) != first.release:
                    row["absent"] = before[-1].release
            else:
                row["absent"] = None
            after = [o for o in obs if vkey(o.release) > vkey(last.release)]
            if after:
                row["removed"], row["removed_src"] = after[0].release, src.index(after[0].source)
                if _next(lines, last.release) != after[0].release:
                    row["present"] = last.release
            headers.setdefault(path, row)
    warp = {
        o.release: {"form": o.warp_size, "source": src.index(o.source)}
        for o in sorted(by_set.get("hip", []), key=lambda o: vkey(o.release))
        if o.warp_size
    }
    releases = []
    read_by: dict[str, list[int]] = {}
    for o in observations:
        read_by.setdefault(o.release, []).append(src.index(o.source))
    table_versions = {r.added for rs in tables.values() for r in rs if r.added}
    newest_table = max(table_versions, key=vkey)
    for line in lines:
        if vkey(line) < (5, 7) and line != "5.2":
            continue
        sets = sorted({o.set_name for o in observations if o.release == line})
        entry = {
            "version": line,
            "header_sets": sets,
            "header_sources": sorted(read_by.get(line, [])),
        }
        if "hip" in sets:
            entry["facts"] = "headers"
        elif vkey(line) <= vkey(newest_table):
            entry["facts"] = "tables"
        else:
            entry["facts"] = "bounds"  # neither: bounded by the releases before and after
        releases.append(entry)
    return {
        "schema": 1,
        "source": "generated by scripts/gen_release_facts.py from the HIP and library headers "
        "of the releases listed (Debian packages, ROCm/HIP and ROCm/clr git tags) and "
        f"{where} ({HIPIFY_REPO}'s published support tables); headers win over tables",
        "lines": lines,
        "tables_newest": newest_table,
        "releases": releases,
        "sources": src.items,
        "names": names,
        "headers": headers,
        "warp_size": warp,
        "compiler_macros": _macros(probes, src),
        "disagreements": sorted(disagreements, key=lambda d: (d["name"], d["fact"])),
    }


def _macros(probes: list[dict[str, dict]], src: Sources) -> dict[str, dict]:
    """Per compiler macro: its state in each probed release, with the probe's source."""
    out: dict[str, dict] = {}
    for probe in probes:
        for macro, row in probe.items():
            entry = {"state": row["state"], "source": src.index(row["label"])}
            out.setdefault(macro, {})[row["release"]] = entry
    return {m: dict(sorted(r.items(), key=lambda kv: vkey(kv[0]))) for m, r in out.items()}


def dumps(doc: dict) -> str:
    """One name per line: small diffs, deterministic."""
    out = ["{"]
    keys = sorted(doc)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        value = doc[key]
        if key in ("names", "headers"):
            out.append(f"  {json.dumps(key)}: {{")
            items = sorted(value.items())
            for j, (name, row) in enumerate(items):
                sep = "," if j < len(items) - 1 else ""
                out.append(f"    {json.dumps(name)}: {json.dumps(row, sort_keys=True)}{sep}")
            out.append("  }" + comma)
        elif isinstance(value, list) and value and isinstance(value[0], (dict, str)):
            out.append(f"  {json.dumps(key)}: [")
            for j, item in enumerate(value):
                sep = "," if j < len(value) - 1 else ""
                out.append(f"    {json.dumps(item, sort_keys=True)}{sep}")
            out.append("  ]" + comma)
        else:
            out.append(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)}{comma}")
    out.append("}")
    return "\n".join(out) + "\n"


DOCS = REPO / "docs" / "mapping-data.md"
DOCS_HEADING = "## Releases covered"
_FACTS = {
    "headers": "HIP headers",
    "tables": "HIPIFY tables",
    "bounds": "bounded by 6.4 and 7.2",
}


def docs_section(doc: dict) -> str:
    """The ``## Releases covered`` section of docs/mapping-data.md, from the facts."""
    counts: dict[str, dict[str, int]] = {}
    for row in doc["names"].values():
        for fact in ("added", "deprecated", "removed"):
            if fact in row:
                bucket = counts.setdefault(row[fact], {"added": 0, "deprecated": 0, "removed": 0})
                bucket[fact] += 1
    known = [r["version"] for r in doc["releases"]]
    older = {"added": 0, "deprecated": 0, "removed": 0}
    for version, bucket in counts.items():
        if vkey(version) < vkey(known[0]) or (
            version not in known and vkey(version) < vkey(known[-1])
        ):
            for fact in older:
                older[fact] += bucket[fact]
    lines = [
        DOCS_HEADING,
        "",
        "Generated by `scripts/gen_release_facts.py --docs` from `data/releases/facts.json`. "
        "*facts*: where the release's own facts come from; *headers read*: the header sets of "
        "that release that were read (a library's package version is its ROCm release); "
        "*added/deprecated/removed*: HIP names whose fact falls in that release (a library "
        "release not listed, e.g. 5.3 or 5.5, is counted under *earlier / other*; a name first "
        "seen in the oldest release read of its library, with no table row, counts as added "
        "there, meaning *declared by then*).",
        "",
        "| release | facts | headers read | added | deprecated | removed |",
        "| --- | --- | --- | ---: | ---: | ---: |",
        f"| earlier / other | HIPIFY tables, Debian library packages | — | {older['added']} | "
        f"{older['deprecated']} | {older['removed']} |",
    ]
    for r in doc["releases"]:
        c = counts.get(r["version"], {"added": 0, "deprecated": 0, "removed": 0})
        sources = ", ".join(r["header_sets"]) or "—"
        lines.append(
            f"| {r['version']} | {_FACTS[r['facts']]} | {sources} | {c['added']} | "
            f"{c['deprecated']} | {c['removed']} |"
        )
    uncertain_added = sum(1 for row in doc["names"].values() if row.get("absent"))
    uncertain_removed = sum(1 for row in doc["names"].values() if "present" in row)
    lines += [
        "",
        f"{len(doc['names'])} HIP names and {len(doc['headers'])} HIP headers; "
        f"{uncertain_added} additions and {uncertain_removed} removals are known only between "
        f"two releases read (the rows carry `absent`/`present`); {len(doc['disagreements'])} "
        "disagreements between headers and tables (listed in the file, headers win). "
        f"HIPIFY's tables reach HIP {doc['tables_newest']}.",
        "",
    ]
    return "\n".join(lines)


def replace_docs_section(text: str, section: str) -> str:
    """``text`` with its ``## Releases covered`` section (up to the next ``## ``) replaced."""
    start = text.find(DOCS_HEADING)
    if start < 0:
        return text.rstrip("\n") + "\n\n" + section
    end = text.find("\n## ", start + len(DOCS_HEADING))
    return text[:start] + section + (text[end + 1 :] if end >= 0 else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--docs",
        action="store_true",
        help="only rewrite the releases table of docs/mapping-data.md from the committed facts "
        "(with --check: exit 1 if it is stale)",
    )
    ap.add_argument("--debs", type=Path, help="folder of <suite>/*.deb")
    ap.add_argument("--git", type=Path, help="folder of ROCm+HIP and ROCm+clr mirrors")
    ap.add_argument("--hipify", type=Path, help="ROCm/HIPIFY git dir or checkout")
    ap.add_argument(
        "--compiler",
        action="append",
        default=[],
        metavar="RELEASE=ROOT",
        help="probe the compiler macros with the hipcc of ROOT ('/': /usr/bin/hipcc; else a "
        "chroot root run through scripts/sid-hipcc) as ROCm RELEASE; repeatable",
    )
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file is stale")
    args = ap.parse_args(argv)
    if args.docs:
        doc = json.loads(OUT.read_text(encoding="utf-8"))
        text = DOCS.read_text(encoding="utf-8")
        new = replace_docs_section(text, docs_section(doc))
        if args.check:
            if new != text:
                print(f"gen_release_facts: {DOCS.relative_to(REPO)} is stale", file=sys.stderr)
                return 1
            return 0
        tmp_docs = DOCS.with_suffix(".md.tmp")
        tmp_docs.write_text(new, encoding="utf-8")
        tmp_docs.replace(DOCS)
        return 0
    for path in (args.debs, args.git, args.hipify):
        if path is None or not path.exists():
            print(
                f"gen_release_facts: {path}: no such folder (give --debs, --git and --hipify)",
                file=sys.stderr,
            )
            return 2
    with tempfile.TemporaryDirectory(prefix="rocport-facts-") as tmp:
        work = Path(tmp)
        observations = debian_observations(args.debs, work)
        compiler = frozenset().union(
            *(_clang_decls(work / s.name)[0] for s in args.debs.iterdir() if s.is_dir())
        )
        observations += git_observations(args.git, work, compiler)
        tables, where = read_hipify(args.hipify)
        probes = []
        for spec in args.compiler:
            release, _, root = spec.partition("=")
            probes.append(probe_compiler(line_of(release), Path(root)))
        text = dumps(build(observations, tables, where, probes))
    if args.check:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != text:
            print(f"gen_release_facts: {OUT.relative_to(REPO)} is stale", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = OUT.with_suffix(".json.tmp")
    tmp_out.write_text(text, encoding="utf-8")
    tmp_out.replace(OUT)
    doc = json.loads(text)
    print(
        f"gen_release_facts: {len(doc['names'])} names, {len(doc['headers'])} headers, "
        f"{len(doc['disagreements'])} disagreements -> {OUT.relative_to(REPO)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
