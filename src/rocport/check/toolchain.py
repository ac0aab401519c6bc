"""Find HIP compilers and learn what each one is: HIP release, clang, GPU targets, header path.

A toolchain is reached through a :class:`Launcher`: either a hipcc on this machine, or a hipcc
inside a chroot root (the Debian sid root that ``scripts/toolchain-rocm.sh 6.4`` builds), run under
``unshare --mount`` with ``/proc``, ``/tmp`` and the checked tree bind-mounted at their own paths.
What a toolchain is comes from the compiler itself (``hipcc --version``, clang's
``-print-supported-cpus``, the ``-E -v`` include search list), never from its location.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from packaging.version import InvalidVersion, Version

from rocport.errors import InputError, ToolError

#: Host variables that would point a chroot's hipcc at this machine's paths.
_HOST_ONLY_ENV = ("HIP_PATH", "ROCM_PATH", "HIP_CLANG_PATH", "HIP_DEVICE_LIB_PATH", "HIPCC_VERBOSE")

#: Runs "$@" inside ROOT with /proc, /tmp and the bind folders mounted (private mount namespace).
_CHROOT_SCRIPT = r"""
set -e
root=$1; cwd=$2; n=$3; shift 3
mount -t proc proc "$root/proc"
mount --bind /tmp "$root/tmp"
while [ "$n" -gt 0 ]; do
  mkdir -p "$root$1"; mount --bind "$1" "$root$1"; shift; n=$((n - 1))
done
exec chroot "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
"""

#: Folders that a bind mount must never cover inside a root: they hold the root's own toolchain.
_SYSTEM_DIRS = frozenset(
    Path(p) for p in ("/", "/bin", "/etc", "/lib", "/lib64", "/opt", "/proc", "/sbin", "/usr")
)

_HIP_VERSION = re.compile(r"^HIP version:\s*(\S+)", re.MULTILINE)
_CLANG_VERSION = re.compile(r"clang version\s+(\S+)")
_INSTALLED_DIR = re.compile(r"^InstalledDir:\s*(\S+)", re.MULTILINE)
_GFX = re.compile(r"^\s*(gfx[0-9a-f]+(?:-[\w-]+)?)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Launcher:
    """How to start one hipcc: directly, or inside a chroot ``root``."""

    hipcc: str
    root: Path | None = None

    def argv(
        self, program: str, args: Sequence[str], *, cwd: Path, binds: Sequence[Path] = ()
    ) -> list[str]:
        """The command line that runs ``program args`` with ``cwd`` as working folder."""
        if self.root is None:
            return [program, *args]
        mounts = _bind_list(Path(cwd), binds)
        return [
            "unshare",
            "--mount",
            "--fork",
            "--",
            "sh",
            "-c",
            _CHROOT_SCRIPT,
            "rocport-chroot",
            str(self.root),
            str(cwd),
            str(len(mounts)),
            *map(str, mounts),
            program,
            *args,
        ]

    def env(self) -> dict[str, str]:
        """The environment for the compiler: ``HIP_PLATFORM=amd`` always (nvcc may be on PATH)."""
        env = dict(os.environ)
        if self.root is not None:
            for name in _HOST_ONLY_ENV:
                env.pop(name, None)
        env["HIP_PLATFORM"] = "amd"
        env["LC_ALL"] = "C"  # diagnostics in English, whatever the user's locale
        return env

    def host_path(self, inside: str | Path) -> Path:
        """Where a path that the compiler sees lies on this machine."""
        inside = Path(inside)
        return self.root / inside.relative_to("/") if self.root is not None else inside

    def run(
        self,
        program: str,
        args: Sequence[str],
        *,
        cwd: Path,
        binds: Sequence[Path] = (),
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``program args`` and return its output (never raises on a non-zero exit)."""
        try:
            return subprocess.run(
                self.argv(program, args, cwd=cwd, binds=binds),
                cwd=cwd,
                env=self.env(),
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                check=False,
            )
        except FileNotFoundError as exc:
            raise ToolError(f"cannot run {exc.filename}: not found") from exc
        except PermissionError as exc:
            raise ToolError(f"cannot run {exc.filename}: permission denied") from exc
        except subprocess.TimeoutExpired as exc:
            raise ToolError(f"{program} did not finish within {timeout:.0f} s") from exc


def _bind_list(cwd: Path, extra: Sequence[Path]) -> list[Path]:
    """Folders to bind into a root: ``cwd`` and ``extra``, minus those under /tmp or each other."""
    wanted = sorted({Path(os.path.abspath(p)) for p in (cwd, *extra)}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in wanted:
        if path == Path("/tmp") or Path("/tmp") in path.parents:
            continue
        if any(path == k or k in path.parents for k in kept):
            continue
        if path in _SYSTEM_DIRS or any(path == d or path in d.parents for d in _SYSTEM_DIRS):
            raise InputError(f"{path} cannot be mounted into a toolchain root; move it elsewhere")
        kept.append(path)
    return kept


@dataclass(frozen=True, slots=True)
class Toolchain:
    """A working hipcc and what it offers."""

    name: str
    origin: str  # where it was found: "/opt/rocm", "PATH", "registry", "--hipcc"
    launcher: Launcher
    hip_version: str  # as hipcc prints it, e.g. "6.4.43484-9999"
    clang_version: str
    offload_archs: frozenset[str]
    search_dirs: tuple[Path, ...]  # header search list, as paths on this machine
    setup: str | None = None  # the command that installs it, for messages
    note: str | None = None

    @property
    def release(self) -> str:
        """The ROCm release, ``MAJOR.MINOR`` of the HIP version (e.g. ``"6.4"``)."""
        return release_of(self.hip_version)

    def find_header(self, name: str) -> Path | None:
        """The file that ``#include <name>`` reaches in this toolchain's search list, if any."""
        for folder in self.search_dirs:
            candidate = folder / name
            if candidate.is_file():
                return candidate
        return None

    def has_library(self, header: str) -> bool:
        """Whether any header of ``header``'s library exists (``hipblas/hipblas.h`` -> hipblas)."""
        stem = header.split("/", 1)[0].split(".", 1)[0]
        for folder in self.search_dirs:
            if (folder / stem).is_dir() or any(
                (folder / f"{stem}{ext}").is_file() for ext in (".h", ".hpp", ".hh")
            ):
                return True
        return False

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "origin": self.origin,
            "hipcc": self.launcher.hipcc,
            "root": str(self.launcher.root) if self.launcher.root else None,
            "hip_version": self.hip_version,
            "release": self.release,
            "clang_version": self.clang_version,
        }


def release_of(version: str) -> str:
    """``"6.4.43484-9999"`` -> ``"6.4"``; raises :class:`InputError` on a malformed version."""
    match = re.match(r"\s*(\d+)\.(\d+)", version)
    if match is None:
        raise InputError(f"not a ROCm version: {version!r} (expected MAJOR.MINOR, e.g. 6.4)")
    return f"{int(match[1])}.{int(match[2])}"


def same_release(a: str, b: str) -> bool:
    try:
        return Version(release_of(a)) == Version(release_of(b))
    except InvalidVersion:
        return False


@functools.cache
def probe(
    launcher: Launcher, *, name: str, origin: str, setup: str | None = None, note: str | None = None
) -> Toolchain:
    """Ask the compiler behind ``launcher`` what it is; :class:`ToolError` if it does not work."""
    cwd = Path("/tmp")
    version = launcher.run(launcher.hipcc, ["--version"], cwd=cwd, timeout=60)
    text = version.stdout + version.stderr
    hip = _HIP_VERSION.search(text)
    clang = _CLANG_VERSION.search(text)
    installed = _INSTALLED_DIR.search(text)
    if version.returncode != 0 or hip is None or clang is None or installed is None:
        last = (text.strip().splitlines() or ["no output"])[-1]
        raise ToolError(f"{launcher.hipcc} --version did not identify a HIP/clang compiler: {last}")
    major = clang[1].split(".", 1)[0]
    names = [f"{installed[1]}/clang", f"{installed[1]}/clang-{major}"]
    clang_bin = next((n for n in names if launcher.host_path(n).exists()), names[0])
    cpus = launcher.run(
        clang_bin,
        ["--target=amdgcn-amd-amdhsa", "-nogpulib", "-print-supported-cpus"],
        cwd=cwd,
        timeout=60,
    )
    archs = frozenset(_GFX.findall(cpus.stdout + cpus.stderr))
    if not archs:
        raise ToolError(f"{clang_bin} lists no AMD GPU targets (-print-supported-cpus)")
    any_arch = "gfx90a" if "gfx90a" in archs else min(archs)
    search = launcher.run(
        launcher.hipcc,
        [f"--offload-arch={any_arch}", "-x", "hip", "-E", "-v", "/dev/null", "-o", "/dev/null"],
        cwd=cwd,
        timeout=60,
    )
    return Toolchain(
        name=name,
        origin=origin,
        launcher=launcher,
        hip_version=hip[1],
        clang_version=clang[1],
        offload_archs=archs,
        search_dirs=tuple(launcher.host_path(d) for d in _search_list(search.stderr)),
        setup=setup,
        note=note,
    )


def _search_list(verbose: str) -> list[Path]:
    """The folders of clang's ``#include <...> search starts here:`` block, normalised."""
    dirs: list[Path] = []
    inside = False
    for line in verbose.splitlines():
        if line.startswith("#include <...> search starts here"):
            inside = True
        elif line.startswith("End of search list"):
            break
        elif inside and line.startswith(" "):
            path = Path(os.path.normpath(line.strip().removesuffix(" (framework directory)")))
            if path not in dirs:
                dirs.append(path)
    return dirs


# -- the registry of project-managed toolchains ------------------------------------------------


@dataclass(frozen=True, slots=True)
class RegistryEntry:
    """A toolchain root described in ``data/toolchains.json``."""

    name: str
    root: Path
    ready: bool
    hipcc: str
    launcher_script: Path | None
    setup: str
    note: str = ""

    def launcher(self) -> Launcher:
        return Launcher(self.hipcc, self.root)


def checkout_dir() -> Path | None:
    """The project checkout this package runs from (an editable install), if any."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "scripts" / "toolchain-rocm.sh").is_file() and (
            parent / "pyproject.toml"
        ).is_file():
            return parent
    return None


def registry() -> list[RegistryEntry]:
    """Known toolchain roots, resolved against ``$ROOT_ENV``, the current folder, the checkout."""
    data = json.loads((resources.files("rocport.check") / "data" / "toolchains.json").read_text())
    bases = [Path.cwd()] + ([checkout] if (checkout := checkout_dir()) else [])
    entries = []
    for item in data["toolchains"]:
        env_root = os.environ.get(item.get("root_env", ""), "")
        options = [Path(env_root)] if env_root else [base / item["root"] for base in bases]
        root = next((p for p in options if (p / item["ready_marker"]).is_file()), options[0])
        script = next(
            (b / item["launcher"] for b in bases if (b / item["launcher"]).is_file()), None
        )
        entries.append(
            RegistryEntry(
                name=item["name"],
                root=root.resolve(),
                ready=(root / item["ready_marker"]).is_file(),
                hipcc=item["hipcc"],
                launcher_script=script.resolve() if script else None,
                setup=item["setup"],
                note=item.get("note", ""),
            )
        )
    return entries


# -- discovery ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Candidate:
    """A hipcc that may work; probing it gives a :class:`Toolchain`."""

    name: str
    origin: str
    launcher: Launcher
    setup: str | None = None
    note: str | None = None

    def probe(self) -> Toolchain:
        return probe(
            self.launcher, name=self.name, origin=self.origin, setup=self.setup, note=self.note
        )


def candidates() -> Iterator[Candidate]:
    """hipccs in search order: ``/opt/rocm``, versioned ``/opt/rocm-*``, ``PATH``, the registry."""
    seen: set[str] = set()

    def fresh(path: str) -> bool:
        real = os.path.realpath(path)
        if real in seen:
            return False
        seen.add(real)
        return True

    opt = ["/opt/rocm/bin/hipcc", *sorted(glob.glob("/opt/rocm-*/bin/hipcc"), reverse=True)]
    for path in opt:
        if os.access(path, os.X_OK) and fresh(path):
            yield Candidate(
                name=str(Path(path).parents[1]), origin="/opt/rocm", launcher=Launcher(path)
            )
    on_path = shutil.which("hipcc")
    if on_path and fresh(on_path):
        yield Candidate(name=on_path, origin="PATH", launcher=Launcher(on_path))
    for entry in registry():
        if entry.ready:
            yield Candidate(
                name=entry.name,
                origin="registry",
                launcher=entry.launcher(),
                setup=entry.setup,
                note=entry.note,
            )


def discover() -> list[Toolchain]:
    """Every toolchain that answers; those that fail to probe are left out."""
    found = []
    for candidate in candidates():
        try:
            found.append(candidate.probe())
        except ToolError:
            continue
    return found


def find_toolchain(
    *, hipcc: str | os.PathLike[str] | None = None, rocm: str | None = None
) -> Toolchain:
    """The toolchain to check with: ``hipcc`` if given, else the first found for release ``rocm``.

    Raises :class:`ToolError` (exit code 2 at the CLI) when no working compiler matches.
    """
    if rocm is not None:
        release_of(rocm)  # validate early: a bad value is bad input, not a missing tool
    if hipcc is not None:
        toolchain = _explicit(Path(hipcc)).probe()
        if rocm is not None and not same_release(toolchain.hip_version, rocm):
            raise ToolError(f"{hipcc} is HIP {toolchain.hip_version}, not ROCm {rocm}")
        return toolchain
    tried = []
    for candidate in candidates():
        try:
            toolchain = candidate.probe()
        except ToolError as exc:
            tried.append(f"{candidate.name}: {exc}")
            continue
        if rocm is None or same_release(toolchain.hip_version, rocm):
            return toolchain
        tried.append(f"{candidate.name}: HIP {toolchain.hip_version}")
    wanted = f"for ROCm {rocm} " if rocm else ""
    hints = sorted({e.setup for e in registry() if not e.ready})
    setup = f"; set one up with `{hints[0]}`" if hints else ""
    looked = f" (found: {'; '.join(tried)})" if tried else ""
    raise ToolError(
        f"no HIP compiler {wanted}found in /opt/rocm/bin, PATH or .toolchains{looked}{setup}"
        " or pass --hipcc"
    )


def _explicit(path: Path) -> Candidate:
    """A user-named hipcc; the project's launcher script stands for its registry root."""
    if not path.exists():
        raise ToolError(f"hipcc not found: {path}")
    if not os.access(path, os.X_OK) or path.is_dir():
        raise ToolError(f"hipcc is not an executable file: {path}")
    for entry in registry():
        if entry.launcher_script is not None and path.resolve() == entry.launcher_script:
            if not entry.ready:
                raise ToolError(
                    f"{path}: its root {entry.root} is not set up (run `{entry.setup}`)"
                )
            return Candidate(
                name=entry.name,
                origin="--hipcc",
                launcher=entry.launcher(),
                setup=entry.setup,
                note=entry.note,
            )
    return Candidate(name=str(path), origin="--hipcc", launcher=Launcher(str(path.absolute())))
