"""Real-world corpus: public CUDA projects ported by rocport and hipify-perl, compiled and built.

For every project of the corpus (``../shared/corpus``, see its README) this

1. ports the CUDA tree with ``rocport port`` and with hipify-perl (one call per source file;
   hipify-perl leaves build files alone), and takes AMD's hand port of Rodinia as a third column;
2. compiles every translation unit of each port with ``rocport check`` (HIP 6.4 toolchain; the
   CUDA originals that AMD's port keeps in ``cusrc/`` folders are not units of its port);
3. runs the project's own build on each port inside the same toolchain: ``make`` in each
   Rodinia program folder, ``make`` for gpu-burn, CMake configure + build for SGEMM_CUDA;

and prints one table: units compiled, programs/targets built, and the unsupported and unknown
counts of the port report (hipify-perl: its "unsupported HIP identifier" warnings; it reports no
unknown names).

The HIP 6.4 toolchain is the Debian sid root that ``scripts/toolchain-rocm.sh 6.4`` sets up. It
has no gcc: builds run with gcc, g++, cc and c++ pointing at its clang, for every column alike;
gcc and cc keep GCC 12's C diagnostics (a call without a declaration, implicit int and int/pointer
conversions are warnings, as with Debian 12's GCC; clang 21 stops at them).
It has no OpenMP or OpenGL headers: programs whose sources (in any column) include ``omp.h`` or
OpenGL/GLUT headers are counted apart. The ROCm install in the root is ``/usr``, so builds get
``ROCM_PATH=/usr`` (rocport's Makefiles) and ``HIP_PATH=/usr`` (AMD's).

The corpus leaves out two files that Rodinia's Makefiles include: ``common/make.config`` of
Rodinia (upstream it sets ``CUDA_DIR``, ``CUDA_LIB_DIR`` and ``SDK_DIR``) and AMD's
``common/make.config`` with the ``common/hip.prologue.make`` of ROCm/HIP-Examples (they set
``HIPCC``, ``HIPLD``, ``HIPCC_FLAGS``, ``OMPCC``, ``OMP_FLAGS``, ``TESTNAME`` and the default
goal), and AMD's ``common/RDTimer.h`` (timer classes that 16 of AMD's 20 programs include).
Short stand-ins with the same variables and names (``STANDINS``) are written into the copies.

Results are cached under ``.cache/realworld/`` by the content of each program's files, the
command, the toolchain and (for the unit compiles) the code of ``rocport.check``, so that a
second run redoes only what changed (``--no-cache``).

    python3 benchmarks/realworld.py [--only gpu-burn,rodinia:bfs,rodinia:nw] [--jobs 2]
        [--offload-arch gfx90a] [--json FILE] [--markdown docs/benchmarks.md]

``--markdown`` replaces the ``## Real-world corpus`` section of that file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import rocport.check
from rocport._fs import atomic_write
from rocport.check import check_tree, find_toolchain, find_units
from rocport.check.toolchain import Launcher, Toolchain

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _anchors import hipify_perl  # noqa: E402
from _markdown import check_outputs, write_section  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("ROCPORT_CORPUS", REPO.parent / "shared" / "corpus"))
CACHE = REPO / ".cache" / "realworld"
_METHOD = 4  # bumped when the way builds run changes, so that cached results are redone
HEADING = "## Real-world corpus"
TOOLS = ("rocport", "hipify-perl", "amd")
NOT_RUN = "not run"  # --cached-only: a unit or build that the cache does not hold
_SOURCE_SUFFIXES = {".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".inl"}
#: AMD's port keeps the CUDA originals it started from in cusrc/ folders: not units of the port
_REFERENCE_COPY = re.compile(r"(?:^|/)cusrc/")
_NEEDS_MISSING = re.compile(rb'#\s*include\s*[<"](?:omp\.h|GL/|GLUT/|glut\.h|glew\.h)')

#: stand-in for HIP-Examples' rodinia_3.0/common/RDTimer.h (not in the corpus; 16 of AMD's 20
#: programs include it): the names the programs use, with the standard headers it includes
_RDTIMER = """\
#ifndef RODINIA_TIMER
#define RODINIA_TIMER
#include <hip/hip_runtime.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <string>
typedef float SECS_t;
inline long long get_time() {
  timeval tv;
  gettimeofday(&tv, nullptr);
  return tv.tv_sec * 1000000LL + tv.tv_usec;
}
inline SECS_t elapsed_time(long long a, long long b) { return SECS_t(b - a) / 1e6f; }
class RDTimer {
 public:
  RDTimer(std::string m = "") : msg(m) {}
  virtual ~RDTimer() {}
  virtual void Start() = 0;
  virtual SECS_t Stop() = 0;
  SECS_t Accumulate() { accumulating = true; return accumulated += Stop(); }
  SECS_t Time() const { return accumulating ? accumulated : elapsed; }
  void Reset() { accumulating = false; accumulated = elapsed = 0; }
  void Reset(std::string m) { msg = m; Reset(); }
  std::string Msg() const { return msg; }
  std::string Type() const { return type; }
  bool Accumulating() const { return accumulating; }
 protected:
  bool accumulating = false;
  std::string msg, type = "none";
  long long start = 0;
  SECS_t elapsed = 0, accumulated = 0;
};
class RDTimerCPU : public RDTimer {
 public:
  RDTimerCPU(std::string m = "") : RDTimer(m) { type = "CPU"; }
  void Start() override { start = get_time(); }
  SECS_t Stop() override { return elapsed = elapsed_time(start, get_time()); }
};
class RDTimerGPU : public RDTimer {
 public:
  RDTimerGPU(std::string m = "") : RDTimer(m) {
    type = "GPU";
    (void)hipEventCreate(&a);
    (void)hipEventCreate(&b);
  }
  ~RDTimerGPU() override { (void)hipEventDestroy(a); (void)hipEventDestroy(b); }
  void Start() override { (void)hipEventRecord(a, 0); }
  SECS_t Stop() override {
    (void)hipEventRecord(b, 0);
    (void)hipEventSynchronize(b);
    (void)hipEventElapsedTime(&elapsed, a, b);
    return elapsed /= 1000;
  }
 private:
  hipEvent_t a, b;
};
class PerfSerializer {
 public:
  explicit PerfSerializer(char*) {}
  virtual ~PerfSerializer() {}
  virtual void Serialize(const RDTimer* const) = 0;
};
class SimplePerfSerializer : public PerfSerializer {
 public:
  explicit SimplePerfSerializer(char* f) : PerfSerializer(f) {}
  void Serialize(const RDTimer* const) override {}
};
#endif
"""

#: files the corpus leaves out, written into the copies before porting (see the docstring)
STANDINS = {
    "rodinia": {
        "common/make.config": (
            "# stand-in for Rodinia's common/make.config (not in the corpus): its variables\n"
            "CUDA_DIR = /usr/local/cuda\n"
            "CUDA_LIB_DIR := $(CUDA_DIR)/lib64\n"
            "SDK_DIR = /usr/local/cuda/samples/\n"
        )
    },
    "amd": {
        "common/make.config": (
            "# stand-in for HIP-Examples' rodinia_3.0/common/make.config and\n"
            "# common/hip.prologue.make (not in the corpus): the variables they set for AMD\n"
            "HIP_PATH ?= /opt/rocm\n"
            "HIPCC = $(HIP_PATH)/bin/hipcc\n"
            "HIPLD = $(HIP_PATH)/bin/hipcc\n"
            "HIPCC_FLAGS += -I../../common -O2\n"
            "OMPCC = gcc\n"
            "OMP_FLAGS += -O2 -fopenmp\n"
            "TESTNAME = $(notdir $(CURDIR))\n"
            ".DEFAULT_GOAL := $(TESTNAME)\n"
            "%.o:: %.cpp\n"
            "\t$(HIPCC) $(HIPCC_FLAGS) $< -c -o $@\n"
        ),
        "common/RDTimer.h": _RDTIMER,
    },
}


@dataclass(frozen=True)
class Project:
    """One corpus project: where it lies, how it builds, and its program folders (if several)."""

    name: str
    folder: str  # under the corpus
    build: str  # "make", "cmake" or "" (no build of its own in the corpus)
    programs: str = ""  # folder whose subfolders with a Makefile are programs ("" = one program)
    make_targets: tuple[str, ...] = ()
    amd_folder: str = ""  # AMD's hand port (Rodinia)
    amd_programs: str = ""
    compile_units: bool = True
    unit_sample: int = (
        1  # compile every n-th translation unit (sorted by path), the same in every column
    )
    check_flags: tuple[str, ...] = ()  # extra flags for the unit compiles


PROJECTS = (
    Project("gpu-burn", "gpu-burn", "make", make_targets=("gpu_burn",)),
    Project("sgemm-cuda", "sgemm-cuda", "cmake"),
    Project(
        "rodinia",
        "rodinia",
        "make",
        programs="cuda",
        amd_folder="rodinia-amd-hip/rodinia_3.0",
        amd_programs="hip",
    ),
    Project("llm.c", "llm.c", "make", make_targets=("train_gpt2cu", "train_gpt2fp32cu")),
    # 147 template-heavy units: every 10th, without optimisation (front-end and code generation
    # errors show all the same; the run stays within what two cores do in a benchmark's time)
    Project("llama.cpp-ggml", "llama.cpp-ggml", "", unit_sample=10, check_flags=("-O0",)),
)
#: make variables per column (none: every column builds against ROCm at /opt/rocm)
MAKE_VARS: dict[str, tuple[str, ...]] = {"rocport": (), "hipify-perl": (), "amd": ()}


@dataclass
class Column:
    """One tool's port of one project and what became of it."""

    project: str
    tool: str
    units: dict[str, str] = field(default_factory=dict)  # unit -> passed/failed/unavailable
    builds: dict[str, dict] = field(default_factory=dict)  # program/target -> result
    unsupported: int | None = None
    unknown: int | None = None
    port_seconds: float = 0.0
    tree: str = ""  # the port's folder

    def count(self, status: str) -> int:
        return sum(s == status for s in self.units.values())

    def built(self, programs: Iterable[str] | None = None) -> int:
        names = self.builds if programs is None else [p for p in programs if p in self.builds]
        return sum(bool(self.builds[p]["ok"]) for p in names)


# -- ports ------------------------------------------------------------------------------------
def copy_project(src: Path, dest: Path, standins: dict[str, str]) -> Path:
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    for rel, text in standins.items():
        if not (dest / rel).exists():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_text(text)
    return dest


def port_rocport(cuda: Path, out: Path, column: Column) -> None:
    from rocport.port.api import port_tree
    from rocport.port.model import PortOptions

    started = time.perf_counter()
    report = port_tree(cuda, out, options=PortOptions(rocm="6.4"), jobs=1)
    column.port_seconds = time.perf_counter() - started
    counts = report.counts
    column.unsupported, column.unknown = counts["unsupported"], counts["unknown"]


def port_hipify(
    cuda: Path,
    out: Path,
    hipify: Path,
    column: Column,
    *,
    jobs: int,
    wanted: Callable[[Path], bool],
    cache: Cache,
) -> None:
    """hipify-perl every source file that ``wanted`` selects (it adds the HIP runtime include even
    to files without CUDA), in a copy of the tree: ``-inplace`` over batches of files (one perl
    start-up per batch, as its argument loop allows); the ``.prehip`` backups it leaves are
    removed. Outputs are cached by input bytes."""
    started = time.perf_counter()
    shutil.copytree(cuda, out, symlinks=True)
    tool = hashlib.sha256(hipify.read_bytes()).hexdigest()
    keys, todo, unsupported = {}, [], 0
    for p in sorted(cuda.rglob("*")):
        if p.suffix in _SOURCE_SUFFIXES and p.is_file() and not p.is_symlink() and wanted(p):
            dest = out / p.relative_to(cuda)
            dest.chmod(dest.stat().st_mode | 0o200)
            keys[dest] = hashlib.sha256(f"hipify\0{tool}\0".encode() + p.read_bytes()).hexdigest()
            hit = cache.get(keys[dest])
            if hit is None:
                todo.append(dest)
            else:
                dest.write_bytes(bytes.fromhex(hit["output"]))
                unsupported += hit["unsupported"]
    batches = [todo[i : i + 40] for i in range(0, len(todo), 40)]

    def one(batch: list[Path]) -> int:
        proc = subprocess.run(
            ["perl", str(hipify), "-inplace", *map(str, batch)], capture_output=True, check=False
        )
        found = 0
        for dest in batch:  # warnings name the file: "  PATH:LINE: warning: unsupported ..."
            count = sum(
                1
                for line in proc.stderr.splitlines()
                if line.strip().startswith(f"{dest}:".encode()) and b"warning: unsupported " in line
            )
            found += count
            cache.put(keys[dest], {"output": dest.read_bytes().hex(), "unsupported": count})
        return found

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        unsupported += sum(pool.map(one, batches))
    column.unsupported = unsupported
    for backup in out.rglob("*.prehip"):
        backup.unlink()
    column.port_seconds = time.perf_counter() - started


# -- groups (programs) and the cache ----------------------------------------------------------
def groups(tree: Path, programs: str) -> dict[str, Path]:
    """Program name -> folder: each subfolder of ``programs`` with a Makefile, else the tree."""
    if not programs:
        return {"": tree}
    root = tree / programs
    return {
        d.name: d
        for d in sorted(root.iterdir())
        if d.is_dir() and any((d / n).is_file() for n in ("Makefile", "makefile"))
    }


def _digest(paths: Iterable[Path], base: Path, sources_only: bool = False) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        if sources_only and path.suffix not in _SOURCE_SUFFIXES:
            continue
        if any(part.startswith(".") for part in path.relative_to(base).parts):
            continue  # rocport's .rocport-output marker differs from run to run
        if path.is_file() and not path.is_symlink():
            h.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def group_keys(
    tree: Path, folders: dict[str, Path], salt: str, *, sources_only: bool = False
) -> dict[str, str]:
    """A content key per program: its folder's files plus the tree's files outside every program
    folder (all of them, not only those in ``folders``: ``--only`` keeps the keys); with
    ``sources_only``, C/C++/CUDA sources and headers only (what a unit's compile reads)."""
    programs = {f.parent for f in folders.values() if f != tree}
    inside = {p for root in programs for d in root.iterdir() if d.is_dir() for p in d.rglob("*")}
    outside = (p for p in tree.rglob("*") if p not in inside)
    shared = _digest(outside, tree, sources_only) if programs else ""
    keys = {}
    for name, folder in folders.items():
        text = f"{salt}\0{shared}\0{_digest(folder.rglob('*'), tree, sources_only)}"
        keys[name] = hashlib.sha256(text.encode()).hexdigest()
    return keys


class Cache:
    """Results by content key; ``only`` (``--cached-only``): report what is cached, run nothing."""

    def __init__(self, enabled: bool, *, only: bool = False) -> None:
        self.enabled = enabled
        self.only = only

    def get(self, key: str) -> dict | None:
        path = CACHE / f"{key}.json"
        if self.enabled and path.is_file():
            return json.loads(path.read_text())
        return None

    def put(self, key: str, value: dict) -> None:
        CACHE.mkdir(parents=True, exist_ok=True)
        atomic_write(CACHE / f"{key}.json", json.dumps(value))


# -- compiling and building -------------------------------------------------------------------
def compile_units(
    tree: Path,
    folders: dict[str, Path],
    toolchain: Toolchain,
    archs: tuple[str, ...],
    jobs: int,
    cache: Cache,
    column: Column,
    *,
    sample: int = 1,
    flags: tuple[str, ...] = (),
) -> None:
    """``rocport check`` every translation unit (every ``sample``-th one, by sorted path);
    per-program results come from the cache."""
    # the check code is part of the key: a change in how units are compiled redoes them
    checker = Path(rocport.check.__file__).parent
    code = _digest((p for p in checker.rglob("*") if "__pycache__" not in p.parts), checker)
    salt = f"check\0{code}\0{toolchain.hip_version}\0{','.join(archs)}"
    if sample > 1 or flags:
        salt += f"\0{sample}\0{' '.join(flags)}"
    keys = group_keys(tree, folders, salt, sources_only=True)
    all_units = sorted(find_units(tree))[::sample]
    pending: dict[str, list[str]] = {}
    for name, folder in folders.items():
        prefix = folder.relative_to(tree).as_posix()
        units = [u for u in all_units if prefix == "." or u.startswith(prefix + "/")]
        units = [u for u in units if not _REFERENCE_COPY.search(u)]
        hit = cache.get(keys[name])
        if hit is not None:
            column.units.update({u: v for u, v in hit["units"].items() if u in units})
        elif units:
            pending[name] = units
    if not pending:
        return
    if cache.only:
        column.units.update({u: NOT_RUN for units in pending.values() for u in units})
        return
    wanted = [u for units in pending.values() for u in units]
    report = check_tree(
        tree, toolchain=toolchain, offload_arch=archs, jobs=jobs, units=wanted, flags=flags
    )
    results = {u.path: u.status.value for u in report.units}
    for name, units in pending.items():
        mine = {u: results[u] for u in units if u in results}
        column.units.update(mine)
        cache.put(keys[name], {"units": mine})


#: GCC 12 (Debian 12, what the corpus' C files were built with) warns where clang 16+ and GCC 14
#: stop: calls without a declaration, implicit int, int <-> pointer conversions
_GCC12_C_DEFAULTS = (
    "-Wno-error=implicit-function-declaration -Wno-error=implicit-int "
    "-Wno-error=int-conversion -Wno-error=incompatible-pointer-types"
)


def host_compiler_links(root: Path | None) -> Path | None:
    """A folder under /tmp with g++/c++ -> the root's clang++ and gcc/cc -> its clang with GCC 12's
    C diagnostics (``_GCC12_C_DEFAULTS``), when the root has no gcc."""
    if root is None or (root / "usr/bin/gcc").exists():
        return None
    clangs = sorted(root.glob("usr/bin/clang-[0-9]*"), key=lambda p: int(p.name.split("-")[1]))
    if not clangs:
        return None
    version = clangs[-1].name.split("-")[1]
    links = Path(tempfile.mkdtemp(prefix="rocport-realworld-cc-", dir="/tmp"))
    links.chmod(0o755)
    for name in ("gcc", "cc"):
        script = links / name
        script.write_text(f'#!/bin/sh\nexec /usr/bin/clang-{version} {_GCC12_C_DEFAULTS} "$@"\n')
        script.chmod(0o755)
    for name in ("g++", "c++"):
        (links / name).symlink_to(f"/usr/bin/clang++-{version}")
    return links


#: a build in the toolchain root, in a private mount namespace: /proc and /tmp mounted, and a
#: tmpfs over /opt holding rocm -> /usr, so that the root looks like a ROCm install at /opt/rocm
#: (ROCm's default path, which migrated build files use) without changing the root on disk
_BUILD_IN_ROOT = (
    'set -e; root="$1"; cwd="$2"; shift 2; mount -t proc proc "$root/proc"; '
    'mount --bind /tmp "$root/tmp"; mount -t tmpfs tmpfs "$root/opt"; ln -s /usr "$root/opt/rocm"; '
    'exec chroot "$root" /bin/sh -c \'cd "$0" && exec "$@"\' "$cwd" "$@"'
)


def _first_error(output: str) -> str:
    lines = output.splitlines()
    for pattern in (
        r"\berror\b:|Error \d|: fatal|CMake Error",
        r"undefined reference|No such file|not found",
    ):
        hit = next((line for line in lines if re.search(pattern, line)), None)
        if hit is not None:
            return hit.strip()[:240]
    return (lines[-1].strip()[:240]) if lines else ""


def run_build(
    launcher: Launcher, links: Path | None, folder: Path, argv: list[str], timeout: float
) -> tuple[bool, str, str]:
    """Run one build command in ``folder`` (under /tmp) with the toolchain.

    Returns (it succeeded, its first error line, its output)."""
    path = f"{links}:/usr/bin:/bin" if links else os.environ.get("PATH", "/usr/bin:/bin")
    command = ["/usr/bin/env", f"PATH={path}", *argv]
    if launcher.root is not None:
        command = [
            "unshare",
            "--mount",
            "--fork",
            "--",
            "sh",
            "-c",
            _BUILD_IN_ROOT,
            "build",
            str(launcher.root),
            str(folder),
            *command,
        ]
    try:
        result = subprocess.run(
            command,
            cwd=folder,
            env=launcher.env(),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc).splitlines()[0][:240], ""
    output = result.stdout + result.stderr
    ok = result.returncode == 0
    return ok, "" if ok else _first_error(output), output


def make_builds(project: Project, tool: str) -> Callable[[str, Path], list[tuple[str, list[str]]]]:
    """(name, command) pairs to build one program folder."""

    def commands(name: str, folder: Path) -> list[tuple[str, list[str]]]:
        make = ["make", "-k", *MAKE_VARS[tool]]
        if project.make_targets:
            return [(t, [*make, t]) for t in project.make_targets]
        return [(name or project.name, make)]

    return commands


_CMAKE_UTILITY_TARGETS = frozenset(
    {"all", "clean", "depend", "edit_cache", "rebuild_cache", "install", "list_install_components"}
)


def cmake_build(
    launcher: Launcher, links: Path | None, tree: Path, timeout: float
) -> dict[str, dict]:
    """Configure and build with CMake; one entry per executable/library target (and 'configure')."""
    build = tree / "_build"
    configure = ["cmake", "-S", ".", "-B", "_build", "-DCMAKE_BUILD_TYPE=Release"]
    ok, error, _ = run_build(launcher, links, tree, configure, timeout)
    results = {"(configure)": {"ok": ok, "error": error}}
    if not ok:
        return results
    _, _, listed = run_build(
        launcher, links, tree, ["cmake", "--build", "_build", "--target", "help"], 120
    )
    targets = [
        m.group(1)
        for m in re.finditer(r"^\.\.\. (\S+)", listed, re.M)
        if m.group(1) not in _CMAKE_UTILITY_TARGETS and not re.search(r"\.(o|i|s)$", m.group(1))
    ]
    for target in targets:
        argv = ["cmake", "--build", "_build", "--target", target]
        ok, error, _ = run_build(launcher, links, tree, argv, timeout)
        results[target] = {"ok": ok, "error": error}
    shutil.rmtree(build, ignore_errors=True)
    return results


def build_project(
    project: Project,
    tool: str,
    tree: Path,
    folders: dict[str, Path],
    toolchain: Toolchain,
    jobs: int,
    cache: Cache,
    column: Column,
    timeout: float,
) -> None:
    launcher = toolchain.launcher
    links = host_compiler_links(launcher.root)
    try:
        salt = (
            f"build{_METHOD}\0{tool}\0{project.build}\0{toolchain.hip_version}\0{MAKE_VARS[tool]}"
        )
        keys = group_keys(tree, folders, salt)
        todo = []
        for name, folder in folders.items():
            hit = cache.get(keys[name])
            if hit is not None:
                column.builds.update(hit["builds"])
            else:
                todo.append((name, folder))

        if cache.only:
            column.builds.update(
                {name or project.name: {"ok": None, "error": NOT_RUN} for name, _ in todo}
            )
            todo = []

        def one(item: tuple[str, Path]) -> None:
            name, folder = item
            if project.build == "cmake":
                results = cmake_build(launcher, links, folder, timeout)
            else:
                results = {}
                for target, argv in make_builds(project, tool)(name, folder):
                    ok, error, _ = run_build(launcher, links, folder, argv, timeout)
                    if ok and project.make_targets and not (folder / target).is_file():
                        # llm.c's Makefile skips its GPU targets, exit 0, where nvcc is missing
                        ok, error = False, f"make {target} exited 0 but wrote no {target}"
                    results[target] = {"ok": ok, "error": error}
            column.builds.update(results)
            cache.put(keys[name], {"builds": results})

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(one, todo))
    finally:
        if links is not None:
            shutil.rmtree(links, ignore_errors=True)


def needs_missing_headers(folders: Iterable[Path]) -> bool:
    """The sources include OpenMP or OpenGL/GLUT headers (the sid root has neither)."""
    for folder in folders:
        for path in folder.rglob("*"):
            if (
                path.suffix in _SOURCE_SUFFIXES
                and path.is_file()
                and _NEEDS_MISSING.search(path.read_bytes())
            ):
                return True
    return False


# -- the run ----------------------------------------------------------------------------------
def parse_only(spec: str | None) -> dict[str, set[str] | None]:
    """``gpu-burn,rodinia:bfs,rodinia:nw`` -> {"gpu-burn": None, "rodinia": {"bfs", "nw"}}."""
    known = {p.name for p in PROJECTS}
    chosen: dict[str, set[str] | None] = {}
    for item in (spec or ",".join(known)).split(","):
        name, _, program = item.strip().partition(":")
        if name not in known:
            raise SystemExit(
                f"realworld: unknown project {name!r} (known: {', '.join(sorted(known))})"
            )
        if program:
            chosen.setdefault(name, set())
            if chosen[name] is not None:
                chosen[name].add(program)
        else:
            chosen[name] = None
    return chosen


def run(
    work: Path,
    only: dict[str, set[str] | None],
    *,
    archs: tuple[str, ...],
    jobs: int,
    cache: Cache,
    timeout: float = 600,
    log: Callable[[str], None] = print,
) -> tuple[list[Column], dict[str, dict]]:
    """Port, compile and build each chosen project; return the columns and per-project facts."""
    toolchain = find_toolchain(rocm="6.4")
    hipify = hipify_perl()
    columns: list[Column] = []
    facts: dict[str, dict] = {}
    for project in PROJECTS:
        if project.name not in only:
            continue
        wanted = only[project.name]
        trees: dict[str, tuple[Path, str]] = {}
        cuda = copy_project(
            CORPUS / project.folder, work / project.name / "cuda", STANDINS.get(project.name, {})
        )
        trees["rocport"] = (work / project.name / "rocport", project.programs)
        trees["hipify-perl"] = (work / project.name / "hipify-perl", project.programs)
        if project.amd_folder:
            amd = copy_project(
                CORPUS / project.amd_folder, work / project.name / "amd", STANDINS["amd"]
            )
            trees["amd"] = (amd, project.amd_programs)
        cols = {tool: Column(project.name, tool, tree=str(trees[tool][0])) for tool in trees}
        port_rocport(cuda, trees["rocport"][0], cols["rocport"])
        chosen = [
            f for n, f in groups(cuda, project.programs).items() if wanted is None or n in wanted
        ]
        inside = [f for f in groups(cuda, project.programs).values()] if project.programs else []

        def in_scope(path: Path, chosen=chosen, inside=inside) -> bool:
            """A chosen program's file, or one outside every program folder."""
            return any(path.is_relative_to(f) for f in chosen) or not any(
                path.is_relative_to(f) for f in inside
            )

        port_hipify(
            cuda,
            trees["hipify-perl"][0],
            hipify,
            cols["hipify-perl"],
            jobs=jobs,
            wanted=in_scope,
            cache=cache,
        )
        all_programs: dict[str, list[Path]] = {}
        for tool, (tree, programs) in trees.items():
            folders = groups(tree, programs)
            if wanted is not None:
                folders = {n: f for n, f in folders.items() if n in wanted}
            for name, folder in folders.items():
                all_programs.setdefault(name, []).append(folder)
            column = cols[tool]
            started = time.perf_counter()
            if project.compile_units:
                compile_units(
                    tree,
                    folders,
                    toolchain,
                    archs,
                    jobs,
                    cache,
                    column,
                    sample=project.unit_sample,
                    flags=project.check_flags,
                )
            if project.build:
                build_project(project, tool, tree, folders, toolchain, jobs, cache, column, timeout)
            seconds = time.perf_counter() - started
            log(
                f"{project.name:15} {tool:12} units {column.count('passed')}/{len(column.units)}"
                f"  built: {_targets_built(column)}  ({seconds:.0f} s)"
            )
        apart = sorted(n for n, fs in all_programs.items() if n and needs_missing_headers(fs))
        facts[project.name] = {
            "programs": sorted(n for n in all_programs if n),
            "apart": apart,
            "sample": project.unit_sample,
            "check_flags": list(project.check_flags),
        }
        columns += cols.values()
    return columns, facts


# -- output -----------------------------------------------------------------------------------
def _ratio(n: int, d: int) -> str:
    return f"{n}/{d}" if d else "–"


def _targets_built(c: Column) -> str:
    """``built/targets`` (CMake's configure step not counted as a target), ``configure
    fails`` where CMake stops, ``–`` where nothing was built."""
    if "(configure)" in c.builds and not c.builds["(configure)"]["ok"]:
        return "configure fails"
    targets = [t for t in c.builds if t != "(configure)"]
    return _ratio(c.built(targets), len(targets)) if c.builds else "–"


def rows(columns: list[Column], facts: dict[str, dict]) -> list[list[str]]:
    out = []
    for c in columns:
        apart = set(facts[c.project]["apart"])
        units = _ratio(c.count("passed"), len(c.units))
        unavailable = c.count("unavailable")
        if unavailable:
            units += f" ({unavailable} n/a)"
        if c.count(NOT_RUN):
            units += f" ({c.count(NOT_RUN)} not run)"
        if facts[c.project]["programs"]:
            main = [p for p in c.builds if p not in apart]
            side = [p for p in c.builds if p in apart]
            built = _ratio(c.built(main), len(main))
            if side:
                built += f" + {c.built(side)}/{len(side)} OpenMP/GL"
            missing = sum(r["ok"] is None for r in c.builds.values())
            if missing:
                built += f" ({missing} not run)"
        else:
            built = _targets_built(c)
        fmt = lambda v: "–" if v is None else str(v)  # noqa: E731
        out.append([c.project, c.tool, units, built, fmt(c.unsupported), fmt(c.unknown)])
    return out


HEADER = ["project", "port", "units compiled", "programs/targets built", "unsupported", "unknown"]


def table(columns: list[Column], facts: dict[str, dict]) -> str:
    body = rows(columns, facts)
    widths = [max(len(r[i]) for r in [HEADER, *body]) for i in range(len(HEADER))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(HEADER, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in body]
    return "\n".join(lines)


def markdown(
    columns: list[Column], facts: dict[str, dict], toolchain: str, archs: str, command: str
) -> str:
    lines = [
        HEADING,
        "",
        "Corpus projects (`../shared/corpus`; those named by `--only` below) ported by "
        "`rocport port --rocm 6.4`, by hipify-perl 7.0 (every source file; it leaves build files "
        "as they are) and, for "
        "Rodinia, AMD's hand port; each port's translation units compiled by `rocport check` and "
        f"each project's own build run, all with {toolchain} for {archs}, in one run of "
        "`benchmarks/realworld.py`. Builds run in the toolchain's root, which has no gcc "
        "(gcc/g++/cc/c++ are its clang there; gcc/cc with GCC 12's C warnings, so that a call "
        "without a declaration is not an error) and no OpenMP or OpenGL headers: programs whose "
        'sources include them are counted apart ("OpenMP/GL"), in every column alike. *n/a*: the '
        "unit includes a library header the toolchain lacks.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|---|---|---:|---:|---:|---:|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in rows(columns, facts)]
    for name, f in facts.items():
        if f.get("sample", 1) > 1 or f.get("check_flags"):
            lines += [
                "",
                f"{name}: every {f['sample']}th translation unit by path is compiled (the same "
                f"units in each column), with {' '.join(f['check_flags']) or 'no extra flags'}.",
            ]
        if f["apart"]:
            lines += [
                "",
                f"{name}: counted apart (OpenMP/OpenGL headers): {', '.join(f['apart'])}.",
            ]
    lines += ["", "Command:", "", "```bash", command, "```", ""]
    return "\n".join(lines)


def _render_earlier_run(
    parser: argparse.ArgumentParser, path: Path, markdown_path: Path | None
) -> int:
    """``--from-json``: the table (and the Markdown section) of an earlier ``--json`` run."""
    fields = set(Column.__dataclass_fields__)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        columns = [Column(**{k: v for k, v in c.items() if k in fields}) for c in data["columns"]]
        rendered = table(columns, data["facts"])
        section = markdown(
            columns,
            data["facts"],
            data["toolchain"],
            ", ".join(data["archs"]),
            data.get("command", "python3 benchmarks/realworld.py --json FILE"),
        )
    except (OSError, UnicodeDecodeError, ValueError, LookupError, TypeError, AttributeError) as exc:
        parser.error(f"--from-json {path}: not a realworld.py --json file ({exc!r})")
    print(rendered)
    if markdown_path:
        write_section(markdown_path, section)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="projects (and rodinia:PROGRAM), comma-separated")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--offload-arch", default="gfx90a", help="comma-separated GPU targets")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument(
        "--cached-only", action="store_true", help="report the cached results only; run nothing"
    )
    parser.add_argument("--timeout", type=float, default=900, help="seconds per build command")
    parser.add_argument(
        "--from-json", type=Path, help="render the table (and --markdown) of an earlier --json run"
    )
    args = parser.parse_args(argv)
    check_outputs(parser, args.json, args.markdown)
    if args.from_json:
        return _render_earlier_run(parser, args.from_json, args.markdown)
    only = parse_only(args.only)
    archs = tuple(a for a in args.offload_arch.split(",") if a)
    work = args.work or Path(tempfile.mkdtemp(prefix="rocport-realworld-", dir="/tmp"))
    if args.work and work.exists():
        shutil.rmtree(work)
    try:
        toolchain = find_toolchain(rocm="6.4")
    except Exception as exc:  # noqa: BLE001 - one line, exit 2
        print(f"realworld: no HIP 6.4 toolchain: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    columns, facts = run(
        work,
        only,
        archs=archs,
        jobs=args.jobs,
        cache=Cache(not args.no_cache, only=args.cached_only),
        timeout=args.timeout,
        log=lambda message: print(message, flush=True),
    )
    print(table(columns, facts))
    print(f"({time.perf_counter() - started:.0f} s; work folder {work})", flush=True)
    label = f"hipcc of HIP {toolchain.hip_version} (clang {toolchain.clang_version})"
    command = "python3 benchmarks/realworld.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    if args.json:
        data = {
            "command": command.strip(),
            "toolchain": label,
            "archs": archs,
            "facts": facts,
            "columns": [c.__dict__ for c in columns],
        }
        atomic_write(args.json, json.dumps(data, indent=1) + "\n")
    if args.markdown:
        section = markdown(columns, facts, label, ", ".join(archs), command.strip())
        write_section(args.markdown, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
