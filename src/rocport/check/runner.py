"""Compile every translation unit of a ported tree for AMD GPUs, in parallel.

Each unit is compiled for all requested ``--offload-arch`` values at once
(``hipcc -x hip -c``), in its own temporary folder. Before compiling, the unit's ``#include``
directives are resolved against the tree, the ``-I`` folders and the toolchain's own header
search list: when a header of a library that the toolchain does not have at all is missing
(hipBLAS in the Debian 12 ROCm 5.2 packages, say), the unit is still compiled in full first (the
scan does not evaluate conditionals: the compiler may skip that header), and device-only where
that compile stops at such a header, which still proves GPU code that does not need it; it is
reported ``unavailable`` if that header is needed anyway. A header that is missing while its
library is present is a porting error, and so is a CUDA header left in the unit
(``cuda_runtime.h``, ``cuda/barrier``): such a unit fails.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from rocport.check.diagnostics import CompilerDiagnostic, parse_diagnostics
from rocport.check.includes import TreeFiles, resolve_includes, tree_files
from rocport.check.model import CheckReport, Diagnostic, Mode, Site, Status, UnitResult
from rocport.check.sourcemap import ChangedName, SourceMap
from rocport.check.toolchain import Toolchain, find_toolchain
from rocport.errors import InputError

#: always translation units
UNIT_SUFFIXES = frozenset({".hip", ".cu"})
#: translation units when they use HIP (include a HIP header, or define a kernel)
HOST_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".c++"})
_USES_HIP = re.compile(r"#\s*include\s*[<\"]hip|__global__|<<<")


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """How each unit is compiled."""

    offload_arch: tuple[str, ...]
    defines: tuple[str, ...] = ()
    include_dirs: tuple[Path, ...] = ()
    flags: tuple[str, ...] = ()
    std: str | None = "c++17"  # nvcc's default since CUDA 11; hipcc 5.2 would otherwise use c++11
    mode: str = "auto"  # "auto", "full" or "device-only"
    timeout: float = 600


def find_units(tree: Path, files: TreeFiles | None = None) -> list[str]:
    """Translation units under ``tree`` (relative, ``/``-separated, sorted), not hidden;
    ``files``: the tree's files, where :func:`tree_files` has read them already."""
    if tree.is_file():
        return [tree.name]
    units = []
    for paths in (tree_files(tree) if files is None else files).values():
        for path in paths:
            suffix = path.suffix.lower()
            if suffix in UNIT_SUFFIXES or (suffix in HOST_SUFFIXES and _uses_hip(path)):
                units.append(path.relative_to(tree).as_posix())
    return sorted(units)


def _uses_hip(path: Path) -> bool:
    try:
        return _USES_HIP.search(path.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return False


def check_tree(
    tree: str | os.PathLike[str],
    *,
    offload_arch: Sequence[str] = ("gfx90a",),
    hipcc: str | os.PathLike[str] | None = None,
    rocm: str | None = None,
    toolchain: Toolchain | None = None,
    jobs: int | None = None,
    defines: Iterable[str] = (),
    include_dirs: Iterable[str | os.PathLike[str]] = (),
    flags: Iterable[str] = (),
    std: str | None = "c++17",
    mode: str = "auto",
    units: Iterable[str] | None = None,
    source_map: SourceMap | str | os.PathLike[str] | None = None,
    cuda_root: str | os.PathLike[str] | None = None,
    progress: bool = False,
    on_result: Callable[[UnitResult], None] | None = None,
    timeout: float = 600,
) -> CheckReport:
    """Compile the translation units of ``tree`` for ``offload_arch`` and report per unit.

    The toolchain is ``toolchain``, else the one found for ``hipcc``/``rocm`` (see
    :func:`rocport.check.toolchain.find_toolchain`). Errors are mapped back to the CUDA original
    through ``source_map`` (a :class:`SourceMap` or a ``rocport port --json`` report) or the
    same-named files under ``cuda_root``. Raises :class:`InputError` for a bad tree or GPU target
    and :class:`ToolError` when no compiler works; a compile failure is a result, not an error.
    """
    started = time.perf_counter()
    root = Path(tree).resolve()
    if not root.exists():
        raise InputError(f"no such file or folder: {tree}")
    base = root.parent if root.is_file() else root
    archs = tuple(dict.fromkeys(a.strip() for a in offload_arch if a.strip()))
    if not archs:
        raise InputError("no --offload-arch given")
    if mode not in ("auto", "full", "device-only"):
        raise InputError(f"unknown mode {mode!r} (auto, full or device-only)")
    toolchain = toolchain or find_toolchain(hipcc=hipcc, rocm=rocm)
    unknown = [a for a in archs if a not in toolchain.offload_archs]
    if unknown:
        near = sorted(a for a in toolchain.offload_archs if a.startswith(unknown[0][:4]))
        raise InputError(
            f"{', '.join(unknown)}: not a GPU target of HIP {toolchain.release} "
            f"(clang {toolchain.clang_version}); it knows {', '.join(near) or 'none like it'}"
        )
    files = tree_files(root) if root.is_dir() else None
    selected = sorted(units) if units is not None else find_units(root, files)
    if not selected:
        raise InputError(f"no translation units (.hip, .cu, or C++ files using HIP) in {tree}")
    for rel in selected:
        if not (base / rel).is_file():
            raise InputError(f"not a file in {base}: {rel}")
    sources = _source_map(source_map, cuda_root, base, selected)
    options = CheckOptions(
        offload_arch=archs,
        defines=tuple(defines),
        include_dirs=tuple(Path(d).resolve() for d in include_dirs),
        flags=tuple(flags),
        std=std,
        mode=mode,
        timeout=timeout,
    )
    for folder in options.include_dirs:
        if not folder.is_dir():
            raise InputError(f"-I folder does not exist: {folder}")
    workers = max(1, min(jobs or os.cpu_count() or 1, len(selected)))
    report = CheckReport(
        tree=str(root),
        toolchain=toolchain.to_dict(),
        offload_arch=list(archs),
        flags=base_flags(options),
        jobs=workers,
    )
    results: dict[str, UnitResult] = {}
    with (
        _Progress(progress, len(selected), toolchain) as advance,
        ThreadPoolExecutor(workers) as pool,
    ):
        futures = [
            pool.submit(compile_unit, base, rel, toolchain, options, sources, files)
            for rel in selected
        ]
        for future in as_completed(futures):
            result = future.result()
            results[result.path] = result
            if on_result is not None:
                on_result(result)
            advance(result)
    report.units = [results[rel] for rel in selected]
    report.seconds = time.perf_counter() - started
    return report


def _source_map(source_map, cuda_root, base: Path, selected: list[str]) -> SourceMap:
    if isinstance(source_map, SourceMap):
        return source_map
    if source_map is not None:
        return SourceMap.from_report(Path(source_map), base)
    if cuda_root is not None:
        return SourceMap.from_cuda_root(base, Path(cuda_root).resolve(), selected)
    return SourceMap()


def base_flags(options: CheckOptions) -> list[str]:
    """Flags shared by every unit (before the unit's own path and output)."""
    flags = ["-x", "hip", "-c", *(f"--offload-arch={arch}" for arch in options.offload_arch)]
    if options.std:
        flags.append(f"-std={options.std}")
    flags.append("-fdiagnostics-absolute-paths")
    flags += [f"-D{d}" for d in options.defines]
    flags += [f"-I{d}" for d in options.include_dirs]
    flags += options.flags
    return flags


def compile_unit(
    base: Path,
    rel: str,
    toolchain: Toolchain,
    options: CheckOptions,
    sources: SourceMap,
    tree: TreeFiles | None = None,
) -> UnitResult:
    """Compile one unit and classify the outcome (see the module docstring); ``tree``: the
    checked tree's files, where headers the ``-I`` folders do not reach are looked up."""
    source = base / rel
    includes = resolve_includes(source, base, options.include_dirs, toolchain, tree)
    missing = includes.missing
    cuda_left = [h for h in missing if is_cuda_header(h)]  # the port's failure, not HIP's
    absent = [h for h in missing if h not in cuda_left and not toolchain.has_library(h)]
    flags = [*base_flags(options), f"-I{base}", *(f"-I{d}" for d in includes.found_dirs)]
    device_only = options.mode == "device-only"
    started = time.perf_counter()
    args, proc, found = _compile(toolchain, flags, source, device_only, base, options)
    errors = [d for d in found if d.severity == "error"]
    # auto: the include scan does not evaluate conditionals, so an absent library's header may be
    # one that the compiler skips: the full compile comes first, and device-only only where it
    # stopped at such a header (GPU code apart from host code may still compile)
    if options.mode == "auto" and errors and all(d.missing_header in absent for d in errors):
        device_only = True
        args, proc, found = _compile(toolchain, flags, source, device_only, base, options)
        errors = [d for d in found if d.severity == "error"]
    mode = Mode.DEVICE_ONLY if device_only else Mode.FULL
    seconds = time.perf_counter() - started
    if proc.returncode == 0:
        status = Status.PASSED
    elif errors and all(d.missing_header in absent for d in errors):
        status = Status.UNAVAILABLE
    else:
        status = Status.FAILED
        if not errors:  # killed, or a driver failure that printed no clang diagnostic
            tail = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
            found.append(
                CompilerDiagnostic(
                    None, None, None, "error", f"hipcc exited with status {proc.returncode}: {tail}"
                )
            )
    if cuda_left and status is Status.FAILED:
        found.append(
            CompilerDiagnostic(
                None,
                None,
                None,
                "error",
                f"the port left CUDA header{'s' if len(cuda_left) > 1 else ''} "
                f"{', '.join(cuda_left)} in this unit (no HIP header replaces "
                f"{'them' if len(cuda_left) > 1 else 'it'}): a port failure, not a missing library",
            )
        )
    file_map = sources.get(rel)
    texts: dict[str, list[str]] = {}
    return UnitResult(
        path=rel,
        status=status,
        mode=mode,
        seconds=seconds,
        command=[toolchain.launcher.hipcc, *args],
        diagnostics=[_mapped(d, base, sources, texts) for d in found],
        missing_headers=missing,
        include_dirs_found=[_in_tree(str(d), base) or str(d) for d in includes.found_dirs],
        cuda_file=file_map.cuda_path if file_map else None,
    )


def _compile(
    toolchain: Toolchain,
    flags: list[str],
    source: Path,
    device_only: bool,
    base: Path,
    options: CheckOptions,
) -> tuple[list[str], subprocess.CompletedProcess[str], list[CompilerDiagnostic]]:
    """Compile ``source`` in a temporary folder of its own: the arguments, the process and its
    diagnostics (notes ride on their diagnostic)."""
    args = [*flags, *(["--offload-device-only"] if device_only else []), str(source)]
    scratch = "/tmp" if toolchain.launcher.root is not None else None  # /tmp is bound into roots
    with tempfile.TemporaryDirectory(prefix="rocport-check-", dir=scratch) as work:
        proc = toolchain.launcher.run(
            toolchain.launcher.hipcc,
            args,
            cwd=Path(work),
            binds=[base, *options.include_dirs],
            timeout=options.timeout,
        )
    return args, proc, parse_diagnostics(proc.stdout + "\n" + proc.stderr)


@cache
def _cuda_headers() -> frozenset[str]:
    """The CUDA headers the port knows (its includes table), less those that HIP installs
    under the same name (Thrust's, which rocThrust provides)."""
    data = resources.files("rocport.port") / "data" / "includes.json"
    entries = json.loads(data.read_text(encoding="utf-8"))["entries"]
    return frozenset(k for k, e in entries.items() if e.get("hip") != k)


def is_cuda_header(name: str) -> bool:
    """Whether ``#include <name>`` names a CUDA header (``cuda_runtime.h``, ``cuda/barrier``,
    ``cub/cub.cuh``), which a ported unit must not include any more."""
    name = name.removeprefix("./")
    return name in _cuda_headers() or name.removeprefix("cccl/") in _cuda_headers()


_MACRO_NOTE = re.compile(r"^expanded from macro '(?P<name>\w+)'$")


def _in_tree(file: str | None, base: Path) -> str | None:
    if file is None:
        return None
    try:
        return Path(os.path.normpath(file)).relative_to(base).as_posix()
    except ValueError:
        return None  # a toolchain header


def _mapped(
    diag: CompilerDiagnostic, base: Path, sources: SourceMap, texts: dict[str, list[str]]
) -> Diagnostic:
    """A compiler diagnostic with its tree-relative path and, when known, its CUDA origin.

    An error inside a macro's expansion also gets the macro body's line (``site``), where the
    changed name usually is; an error in a toolchain header gets the first tree line of its
    notes (the include or template instantiation that led there).
    """
    result = Diagnostic(diag.file, diag.line, diag.column, diag.severity, diag.message, diag.passes)
    rel = _in_tree(diag.file, base)
    notes = [(n, _in_tree(n.file, base)) for n in diag.notes]
    if rel is None:
        context = next(((n, r) for n, r in notes if r is not None and n.line), None)
        if context is not None:
            note, note_rel = context
            result.site = Site("context", note_rel, note.line, note.column, note.message)
            result.site.cuda_file, result.site.cuda_line, _, result.site.at_column = _locate(
                note_rel, note.line, note.column, base, sources, texts
            )
        return result
    result.file = rel
    file_map = sources.get(rel)
    if file_map is not None and diag.line is not None:
        result.cuda_file, result.cuda_line, result.changed, result.at_column = _locate(
            rel, diag.line, diag.column, base, sources, texts
        )
        result.inserted = result.cuda_line is None
    for note, note_rel in notes:
        match = _MACRO_NOTE.match(note.message)
        if match and note_rel is not None and note.line:
            result.site = Site("macro", note_rel, note.line, note.column, match["name"])
            cuda_file, cuda_line, _, at = _locate(
                note_rel, note.line, note.column, base, sources, texts
            )
            result.site.cuda_file, result.site.cuda_line = cuda_file, cuda_line
            result.site.at_column = at
            break  # the first is the innermost macro: where the tokens were written
    return result


def _locate(
    rel: str,
    line: int,
    column: int | None,
    base: Path,
    sources: SourceMap,
    texts: dict[str, list[str]],
) -> tuple[str | None, int | None, list[ChangedName], ChangedName | None]:
    """CUDA file and line of ``rel:line``, the names changed there, and the one at ``column``."""
    file_map = sources.get(rel)
    if file_map is None:
        return None, None, [], None
    cuda_line = file_map.cuda_line(line)
    changed = file_map.changed_on(cuda_line)
    at = None
    if column is not None and changed:
        if rel not in texts:
            try:
                texts[rel] = (base / rel).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                texts[rel] = []
        lines = texts[rel]
        at = name_at(lines[line - 1] if 0 < line <= len(lines) else "", column, changed)
    return file_map.cuda_path, cuda_line, changed, at


def name_at(line: str, column: int, changed: Sequence[ChangedName]) -> ChangedName | None:
    """The changed name whose HIP spelling covers 1-based ``column`` of ``line``."""
    offset = column - 1
    for name in changed:
        if not name.hip:
            continue
        pattern = (
            re.escape(name.hip) if name.hip[0] in '<"' else rf"(?<!\w){re.escape(name.hip)}(?!\w)"
        )
        for match in re.finditer(pattern, line):
            if match.start() <= offset < match.end():
                return name
    for name in changed:  # a name left as written (unsupported, unknown) at the column
        if name.hip is None and line[offset : offset + len(name.cuda)] == name.cuda:
            return name
    return None


class _Progress:
    """A rich progress bar on stderr (or nothing), advanced once per finished unit."""

    def __init__(self, enabled: bool, total: int, toolchain: Toolchain) -> None:
        self.enabled = enabled
        self.total = total
        self.label = f"hipcc {toolchain.release}"
        self.bar = None

    def __enter__(self) -> Callable[[UnitResult], None]:
        if not self.enabled:
            return lambda result: None
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[last]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.bar.start()
        task = self.bar.add_task(self.label, total=self.total, last="")

        def advance(result: UnitResult) -> None:
            self.bar.update(task, advance=1, last=f"{result.path}: {result.status.value}")

        return advance

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
