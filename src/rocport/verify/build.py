"""Compile the CUDA original and the port: nvcc for both on the NVIDIA path (the port through
HIP's NVIDIA backend), g++ with HIP-CPU for the 64-lane CPU path.

Two small shims stand in for gaps of the back ends, not of the port, and are force-included:

- NVIDIA: HIP's mask-free ``__ballot``/``__any``/``__all`` compile to ``vote`` without
  ``.sync``, which ptxas rejects on sm_70 and newer; they become the full-mask ``_sync`` forms
  (what a mask-free vote means on a 32-lane warp). rocThrust names its device system
  ``thrust::hip`` where CUDA's Thrust, which the NVIDIA build uses, names the same system
  ``thrust::cuda`` (``par``, ``par.on(stream)``); a port that says ``thrust::hip`` gets the
  one name as an alias of the other.
- HIP-CPU: the mask-taking ``__shfl_*_sync``/``__ballot_sync`` forms are not declared; they
  become the mask-free forms (a port written with ``--warp-sync keep``). ``rsqrtf``/``rsqrt``
  are missing; they become ``1 / sqrt`` (both lane widths get the same). ``<<<...>>>`` launches,
  which HIP-CPU cannot compile, are rewritten to ``hipLaunchKernelGGL`` by rocport's translator
  in a copy of the port (lines are kept, so errors still map back).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rocport.verify.model import Build, BuildError
from rocport.verify.toolchain import HipNvidia

#: suffixes of the source files compiled into a program
SOURCE_SUFFIXES = (".cu", ".hip", ".cpp", ".cc", ".cxx", ".c")

#: mask-free votes -> full-mask ``_sync`` forms, each defined only where the port uses it (a
#: macro named ``__any`` would also rewrite libcu++'s own ``__any``)
NVIDIA_VOTES = {
    "__ballot": "#define __ballot(p) __ballot_sync(0xffffffffu, (p))",
    "__any": "#define __any(p) __any_sync(0xffffffffu, (p))",
    "__all": "#define __all(p) __all_sync(0xffffffffu, (p))",
}
#: rocThrust's device system under CUDA Thrust's name (see the module docstring)
NVIDIA_THRUST_HIP = (
    "#ifdef __cplusplus\n#include <thrust/execution_policy.h>\n"
    "namespace thrust { namespace hip = cuda; }\n#endif"
)
_THRUST_HIP = re.compile(r"\bthrust\s*::\s*hip\s*::")
CPU_SHIM = """#include <hip/hip_runtime.h>
#define __shfl_sync(m, ...) __shfl(__VA_ARGS__)
#define __shfl_up_sync(m, ...) __shfl_up(__VA_ARGS__)
#define __shfl_down_sync(m, ...) __shfl_down(__VA_ARGS__)
#define __shfl_xor_sync(m, ...) __shfl_xor(__VA_ARGS__)
#define __ballot_sync(m, p) __ballot(p)
#define __any_sync(m, p) __any(p)
#define __all_sync(m, p) __all(p)
#include <cmath>
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
"""

_GCC_DIAG = re.compile(
    r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(?P<msg>.*)$"
)
_NVCC_DIAG = re.compile(
    r"^(?P<file>[^\s(][^(\n]*)\((?P<line>\d+)\):\s*(?:catastrophic )?error:\s*(?P<msg>.*)$"
)
_OTHER = re.compile(
    r"^(?:ptxas|nvlink|nvcc)\b.*\berror\b.*$"
    r"|.*(?:undefined reference to|multiple definition of).*$",
    re.I,
)
_QUOTED = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
_DRIVER_API = re.compile(
    r"#\s*include\s*[<\"](?:cuda\.h|hip/hip_runtime_api\.h)|\b(?:cu|hipModule|hipCtx)[A-Z]\w*\s*\("
)


@dataclass(frozen=True, slots=True)
class Program:
    """One program: its source files (the first holds ``main``) and its include folders."""

    name: str
    sources: tuple[Path, ...]
    include_dirs: tuple[Path, ...]

    def files(self) -> list[Path]:
        """The sources and the project headers they include (``#include "..."``), transitively."""
        seen: dict[Path, None] = {}
        queue = list(self.sources)
        while queue:
            path = queue.pop(0)
            if path in seen or not path.is_file():
                continue
            seen[path] = None
            text = path.read_text(encoding="utf-8", errors="replace")
            for name in _QUOTED.findall(text):
                for folder in (path.parent, *self.include_dirs):
                    if (folder / name).is_file():
                        queue.append((folder / name).resolve())
                        break
        return list(seen)

    def text(self) -> str:
        return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in self.files())


def _compile(side: str, command: list[str], binary: Path, cwd: Path, timeout: float) -> Build:
    started = time.perf_counter()
    try:
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Build(
            side,
            command,
            None,
            f"timed out after {timeout:g} s",
            time.perf_counter() - started,
            [BuildError(None, None, f"the compiler timed out after {timeout:g} s")],
        )
    except OSError as exc:
        return Build(
            side,
            command,
            None,
            str(exc),
            0.0,
            [BuildError(None, None, f"cannot run {command[0]}: {exc}")],
        )
    output = proc.stdout + proc.stderr
    ok = proc.returncode == 0 and binary.is_file()
    errors = (
        []
        if ok
        else parse_errors(output)
        or [BuildError(None, None, _last_line(output) or f"exit {proc.returncode}")]
    )
    return Build(
        side, command, str(binary) if ok else None, output, time.perf_counter() - started, errors
    )


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def parse_errors(output: str) -> list[BuildError]:
    """Errors of g++/clang (``f:l:c: error:``), nvcc's front end (``f(l): error:``), ptxas, ld."""
    errors: list[BuildError] = []
    for line in output.splitlines():
        match = _GCC_DIAG.match(line) or _NVCC_DIAG.match(line)
        if match:
            errors.append(BuildError(match["file"], int(match["line"]), match["msg"].strip()))
        elif _OTHER.match(line.strip()):
            errors.append(BuildError(None, None, line.strip()))
    if not errors and (last := [x for x in output.splitlines() if "error" in x.lower()]):
        errors.append(BuildError(None, None, last[-1].strip()))  # collect2: ld returned 1
    unique = {(e.file, e.line, e.message): e for e in errors}
    return list(unique.values())


def _libcuda(work: Path, hip: HipNvidia | None) -> list[str]:
    """``-lcuda``, with a link-only stub (soname ``libcuda.so.1``) when the linker finds none."""
    probe = subprocess.run(["gcc", "-print-file-name=libcuda.so"], capture_output=True, text=True)
    if probe.returncode == 0 and Path(probe.stdout.strip()).is_absolute():
        return ["-lcuda"]
    for folder in ("/usr/local/cuda/lib64/stubs", "/usr/local/cuda/targets/x86_64-linux/lib/stubs"):
        if (Path(folder) / "libcuda.so").is_file():
            return [f"-L{folder}", "-lcuda"]
    if hip is None or hip.stub is None:
        return ["-lcuda"]
    stub_dir = work / "cuda-stub"
    stub_dir.mkdir(exist_ok=True)
    subprocess.run(
        [
            "gcc",
            "-shared",
            "-fPIC",
            "-Wl,-soname,libcuda.so.1",
            "-o",
            str(stub_dir / "libcuda.so"),
            str(hip.stub),
        ],
        capture_output=True,
        check=False,
    )
    return [f"-L{stub_dir}", "-lcuda"]


def _nvcc_flags(program: Program, arch: str, work: Path, hip: HipNvidia | None) -> list[str]:
    text = program.text()
    flags = [f"-arch={arch}", "-cudart", "static", "-O2", "-std=c++17", "-w"]
    flags += [f"-I{d}" for d in program.include_dirs]
    if "cooperative_groups" in text and "grid_group" in text or "this_grid" in text:
        flags.append("-rdc=true")
    if _DRIVER_API.search(text):
        flags += _libcuda(work, hip)
    return flags


def build_original(
    program: Program,
    work: Path,
    *,
    nvcc: str,
    arch: str,
    hip: HipNvidia | None,
    flags: Sequence[str] = (),
    timeout: float = 600,
) -> Build:
    binary = work / "original"
    command = [
        nvcc,
        *_nvcc_flags(program, arch, work, hip),
        *map(str, program.sources),
        *flags,
        "-o",
        str(binary),
    ]
    return _compile("original", command, binary, work, timeout)


def build_port_nvidia(
    program: Program,
    work: Path,
    *,
    nvcc: str,
    arch: str,
    hip: HipNvidia,
    flags: Sequence[str] = (),
    timeout: float = 600,
) -> Build:
    binary = work / "port-nvidia"
    shim = work / "rocport-verify-nvidia.h"
    text = program.text()
    shims = [line for name, line in NVIDIA_VOTES.items() if re.search(rf"\b{name}\s*\(", text)]
    if _THRUST_HIP.search(text):
        shims.append(NVIDIA_THRUST_HIP)
    shim.write_text("\n".join(["#include <hip/hip_runtime.h>", *shims, ""]))
    objects, failed = _c_objects(program, work, [nvcc, "-O2", "-w"], flags, "port", timeout)
    if failed is not None:
        return failed
    command = [
        nvcc,
        *_nvcc_flags(program, arch, work, hip),
        *hip.flags,
        "-include",
        str(shim),
        "-x",
        "cu",
        *map(str, _not_c(program)),
        *(arg for o in objects for arg in ("-Xlinker", str(o))),
        *flags,
        "-o",
        str(binary),
    ]
    return _compile("port", command, binary, work, timeout)


def _not_c(program: Program) -> list[Path]:
    return [s for s in program.sources if s.suffix != ".c"]


def _c_objects(
    program: Program, work: Path, compiler: list[str], flags: Sequence[str], side: str, timeout
) -> tuple[list[Path], Build | None]:
    """Compile the program's C sources on their own (as C: a forced ``-x cu`` or ``-x c++``
    and the HIP shim would make them C++); returns the objects, or the failed build."""
    objects = []
    for index, source in enumerate(s for s in program.sources if s.suffix == ".c"):
        obj = work / f"c{index}-{source.stem}.o"
        includes = [f"-I{d}" for d in program.include_dirs]
        command = [*compiler, *includes, "-c", str(source), *flags, "-o", str(obj)]
        build = _compile(side, command, obj, work, timeout)
        if not build.ok:
            return [], build
        objects.append(obj)
    return objects, None


def prepare_cpu_copy(program: Program, work: Path) -> tuple[Program, dict[Path, Path]]:
    """Copy the port's folders into ``work`` with ``<<<>>>`` launches rewritten (see module);
    returns the copied program and ``{copied file: ported file}``."""
    from rocport.port.mapping import load_mapping
    from rocport.port.model import PortOptions
    from rocport.port.translator import translate

    options = PortOptions(launch="ggl")
    mapping = None
    roots = list(dict.fromkeys([*(s.parent for s in program.sources), *program.include_dirs]))
    copied: dict[Path, Path] = {}
    new_roots: dict[Path, Path] = {}
    copied_from: list[Path] = []
    for index, root in enumerate(roots):
        dest = work / f"src{index}"
        new_roots[root] = dest
        for path in program.files():
            if not path.is_relative_to(root) or any(path.is_relative_to(r) for r in copied_from):
                continue
            target = dest / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = (
                path.read_text(encoding="utf-8", errors="surrogateescape")
                if path.suffix in (*SOURCE_SUFFIXES, ".h", ".hpp", ".cuh", ".inl")
                else None
            )
            if text is not None and "<<<" in text:
                mapping = mapping or load_mapping(rocm=options.rocm, blas=options.blas)
                text = translate(text, path=str(path), mapping=mapping, options=options).text
            if text is None:
                shutil.copy2(path, target)
            else:
                target.write_text(text, encoding="utf-8", errors="surrogateescape")
            copied[target] = path
        copied_from.append(root)
    sources = tuple(new_roots[s.parent] / s.name for s in program.sources)
    includes = tuple(new_roots[d] for d in program.include_dirs)
    return Program(program.name, sources, includes), copied


def build_port_cpu(
    program: Program,
    work: Path,
    *,
    include: Path,
    lanes: int,
    cxx: str = "g++",
    flags: Sequence[str] = (),
    timeout: float = 600,
) -> Build:
    binary = work / f"port-cpu{lanes}"
    side = f"port ({lanes} lanes, HIP-CPU)"
    compiler = ["gcc" if cxx == "g++" else cxx.replace("++", "cc"), "-O1", "-w"]
    objects, failed = _c_objects(program, work, compiler, flags, side, timeout)
    if failed is not None:
        return failed
    shim = work / "rocport-verify-cpu.h"
    shim.write_text(CPU_SHIM)
    command = [
        cxx,
        "-std=c++17",
        "-O1",
        "-w",
        f"-I{include}",
        *(f"-I{d}" for d in program.include_dirs),
        "-include",
        str(shim),
        "-x",
        "c++",
        *map(str, _not_c(program)),
        "-x",
        "none",
        *map(str, objects),
        *flags,
        "-o",
        str(binary),
        "-ltbb",
        "-pthread",
    ]
    return _compile(side, command, binary, work, timeout)


def map_errors(
    build: Build, cuda_of: dict[Path, Path], port_of: dict[Path, Path] | None = None
) -> None:
    """Give each error in a ported file its CUDA line (:func:`rocport.check.sourcemap.align`)."""
    from rocport.check.sourcemap import align

    maps: dict[Path, object] = {}
    for error in build.errors:
        if error.file is None or error.line is None:
            continue
        path = Path(error.file).resolve()
        ported = (port_of or {}).get(path, path)
        cuda = cuda_of.get(ported)
        if cuda is None:
            continue
        if path not in maps:
            try:
                maps[path] = align(
                    str(cuda), cuda.read_text(errors="replace"), path.read_text(errors="replace")
                )
            except OSError:
                continue
        file_map = maps[path]
        line = file_map.cuda_line(error.line)
        error.file = str(ported)
        error.cuda_file = str(cuda)
        error.cuda_line = line
        error.changed = [
            f"{n.cuda} -> {n.hip}" if n.hip else f"{n.cuda} ({n.outcome})"
            for n in file_map.changed_on(line)
        ]


def sources_in(folder: Path) -> Sequence[Path]:
    return [
        p
        for p in sorted(folder.rglob("*"))
        if p.suffix in SOURCE_SUFFIXES
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]
