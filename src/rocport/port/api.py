"""The library entry point of ``rocport port``: :func:`port_tree`."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

from rocport._fs import atomic_write, folder_lock, remove_stale_temps, special_kind
from rocport.errors import InputError, OutputError
from rocport.port import support, translator, tree
from rocport.port.build import link_needs, migrate
from rocport.port.config import (
    BuildFiles,
    PathFilter,
    ProjectConfig,
    detect_rocm_release,
    find_config,
    read_compile_commands,
)
from rocport.port.includes import mark_partial_includes
from rocport.port.mapping import load_mapping
from rocport.port.model import PortOptions, TreeReport

#: suffix of the default output: ``src/`` -> ``src-hip/``, ``kernel.cu`` -> ``kernel-hip.cu``
OUTPUT_SUFFIX = "-hip"


def resolve_options(
    config: ProjectConfig,
    *,
    rocm: str | None = None,
    blas: str | None = None,
    launch: str | None = None,
    warp_sync: str | None = None,
    offload_arch: Iterable[str] = (),
    names: Iterable[tuple[str, str]] = (),
) -> PortOptions:
    """Options from explicit values, then the project config, then the defaults;
    ``rocm="auto"`` becomes the release of the installed HIP headers."""
    defaults = PortOptions()
    rocm = rocm or config.rocm
    if rocm == "auto":
        rocm = detect_rocm_release()
    extra = dict(config.names)
    extra.update(names)
    return PortOptions(
        rocm=rocm,
        blas=blas or config.blas or defaults.blas,
        launch=launch or config.launch or defaults.launch,
        warp_sync=warp_sync or config.warp_sync or defaults.warp_sync,
        offload_arch=tuple(offload_arch) or defaults.offload_arch,
        extra_names=tuple(sorted(extra.items())),
    )


def default_output(src: Path) -> Path:
    """``SRC-hip`` beside a folder; ``NAME-hip.SUFFIX`` beside a file."""
    src = src.resolve()
    if src.is_dir():
        return src.with_name(src.name + OUTPUT_SUFFIX)
    return src.with_name(src.stem + OUTPUT_SUFFIX + src.suffix)


def _plan(
    src: Path, dest_root: Path | None, *, selected: Callable[[str, str], bool]
) -> list[tree.Item]:
    if not src.is_dir():
        kind = tree.classify(src)
        return [tree.Item(src.name, src, dest_root, kind, selected(src.name, kind))]
    items = []
    for rel, path in tree.walk(src):
        kind = tree.kind_of(path)
        dest = None if dest_root is None else dest_root / rel
        items.append(tree.Item(rel, path, dest, kind, kind != "symlink" and selected(rel, kind)))
    return items


def _selector(
    src: Path,
    config: ProjectConfig,
    include: Iterable[str],
    exclude: Iterable[str],
    compile_commands: str | os.PathLike[str] | None,
) -> Callable[[str, str], bool]:
    """``selected(relative path, kind)``: whether a source or build file is to be translated."""
    globs = PathFilter((*config.include, *include), (*config.exclude, *exclude))
    in_build = None
    if compile_commands is not None:
        in_build = BuildFiles(src, read_compile_commands(Path(compile_commands))).relative()

    def selected(rel: str, kind: str) -> bool:
        if not globs.selects(rel):
            return False
        return in_build is None or kind == "build" or rel in in_build

    return selected


def _output_root(src: Path, out: Path | None, *, in_place: bool, examine: bool) -> Path | None:
    if examine:
        return None
    if in_place:
        return src
    src_abs = src.resolve()
    if out is None:
        out = default_output(src)
    out_abs = out.resolve()
    if not src.is_dir():
        if out_abs.is_dir():
            out_abs = out_abs / src.name
            out = out / src.name
        if out_abs == src_abs:
            raise InputError(f"output {out} is the input; use --in-place to rewrite it")
        return out
    if out_abs == src_abs or out_abs.is_relative_to(src_abs) or src_abs.is_relative_to(out_abs):
        raise InputError(
            f"output {out} overlaps the input {src}; choose a folder outside it or use --in-place"
        )
    if out.exists() and not out.is_dir():
        raise OutputError(f"output {out} exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create {out}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK):
        raise OutputError(f"cannot write to {out}: permission denied")
    return out


def port_tree(
    src: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    in_place: bool = False,
    backup: bool = True,
    examine: bool = False,
    options: PortOptions | None = None,
    config: ProjectConfig | str | os.PathLike[str] | None = None,
    include: Iterable[str] = (),
    exclude: Iterable[str] = (),
    compile_commands: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    check: bool = False,
    progress: tree.Progress | None = None,
    mapping: object | None = None,
    translate: tree.Translate | None = None,
    force: bool = False,
) -> TreeReport:
    """Translate the CUDA file or tree ``src`` to HIP and report what happened to each file.

    The output mirrors the input under ``out`` (default :func:`default_output`); with
    ``in_place`` the files are rewritten where they are (keeping ``FILE.orig`` backups unless
    ``backup`` is false); with ``examine`` nothing is written. ``config`` is a
    :class:`ProjectConfig` or the path of a ``rocport.toml``-style file; by default
    ``rocport.toml`` at the root of ``src`` is read if present. ``options`` (default: from the
    config) get the config's ``[names]`` added. ``check`` compiles the written tree with
    :func:`rocport.check.check_tree` for ``options.offload_arch`` (the default targets: those
    the compiler knows) with the toolchain of ``options.rocm``, or the first found, whose
    release then becomes the target, and records per file whether it compiled. ``mapping``
    (default: loaded for ``options``) and ``translate`` replace the mapping and the translator
    (same signature as :func:`rocport.port.translator.translate`).

    The folder written (``out``, or ``src`` with ``in_place``) is locked for the run
    (:func:`rocport._fs.folder_lock`) and cleared of temporary files a killed run left. An
    existing output folder must be empty or an earlier output of ``src`` (marked by
    :data:`tree.OUTPUT_MARKER`) unless ``force`` is true.
    """
    started = time.perf_counter()
    src = Path(src)
    if not src.exists():
        raise InputError(f"{src}: no such file or directory")
    if not src.is_dir() and not src.is_file():
        kind = special_kind(src.stat().st_mode)
        raise InputError(f"{src} is {kind}, not a source file or folder")
    if in_place and out is not None:
        raise InputError("--in-place and --output cannot be used together")
    if not backup and not in_place:
        raise InputError("--no-backup only applies with --in-place")
    if check and examine:
        raise InputError("--check compiles the output, and --examine writes none")
    if compile_commands is not None and not src.is_dir():
        raise InputError("--compile-commands needs a source folder, not a single file")
    root = src if src.is_dir() else src.parent
    if not isinstance(config, ProjectConfig):
        config = find_config(root, None if config is None else Path(config))
    if options is None:
        options = resolve_options(config)
    else:
        names = dict(config.names)
        names.update(options.extra_names)
        options = replace(options, extra_names=tuple(sorted(names.items())))
    toolchain = None
    if check:
        from rocport.check import find_toolchain

        toolchain = find_toolchain(rocm=options.rocm)
        if options.rocm is None:
            options = replace(options, rocm=toolchain.release)
    selected = _selector(src, config, include, exclude, compile_commands)
    if mapping is None:
        mapping = load_mapping(rocm=options.rocm, blas=options.blas, extra=config.entries or None)
    out_root = _output_root(
        src, None if out is None else Path(out), in_place=in_place, examine=examine
    )
    jobs = jobs or os.cpu_count() or 1
    with ExitStack() as stack:
        if out_root is not None:
            stack.enter_context(_locked(out_root))
            if out_root.is_dir() and not in_place:
                _claim_output(out_root, src, force=force)
        items = _plan(src, out_root, selected=selected)
        reads = tree.read_sources(items)
        local = tree.defined_names(items, mapping, reads) | options.local_names
        options = replace(options, local_names=local)
        present = frozenset(item.rel for item in items)
        engine = tree.Engine(
            partial(support.translate, base=translate or translator.translate, present=present),
            migrate,
            mapping,
            options,
            source_maps=toolchain is not None,
            snapshots=in_place,
            reads=reads,
        )
        results = tree.translate_items(items, engine, jobs=jobs, progress=progress)
        results = _link_needs(results, engine)
        mark_partial_includes(results)
        added = support.added_headers(results)
        if not examine:
            tree.write_results(
                results, in_place=in_place, backup=backup, src_root=src, out_root=out_root
            )
            support.write_added(added)
        results += added
    mode = "examine" if examine else "in-place" if in_place else "mirror"
    report = TreeReport(
        source=str(src),
        output=None if out_root is None else str(out_root),
        mode=mode,
        options=options,
        files=[result.report for result in results],
        jobs=jobs,
    )
    if toolchain is not None and out_root is not None:
        _check(report, results, out_root, toolchain, _check_targets(options, toolchain), jobs)
    report.seconds = time.perf_counter() - started
    return report


def _link_needs(results: list[tree.FileResult], engine: tree.Engine) -> list[tree.FileResult]:
    """Migrate the build files again where the ported sources call a library that the CUDA
    build linked nothing for (rocTX for NVTX 3): their hipcc link commands get it."""
    if not any(r.item.kind == "build" and r.item.selected for r in results):
        return results
    outputs = (r.payload for r in results if r.item.kind == "source" and r.payload is not None)
    needs = link_needs(outputs, engine.mapping)
    if not needs:
        return results
    again = replace(engine, options=replace(engine.options, link_needs=needs))
    return [again.run(r.item) if r.item.kind == "build" and r.item.selected else r for r in results]


@contextmanager
def _locked(out_root: Path) -> Iterator[None]:
    """Lock the folder that a port writes (the output folder, or a single file's folder) and
    remove the temporary files that a killed run left there."""
    if out_root.is_dir():
        with folder_lock(out_root):
            remove_stale_temps(out_root, tree.SKIP_DIRS)  # under the lock: no other run's
            yield
        return
    try:
        out_root.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create {out_root.parent}: {exc.strerror or exc}") from None
    with folder_lock(out_root.parent):
        remove_stale_temps(out_root.parent, only=out_root.name)
        yield


def _claim_output(out_root: Path, src: Path, *, force: bool) -> None:
    """Refuse an output folder that holds files of something else (it is not empty and not an
    earlier output of ``src``), unless ``force``; then mark it as the output of ``src``."""
    marker = out_root / tree.OUTPUT_MARKER
    source = str(src.resolve())
    try:
        claimed = json.loads(marker.read_text(encoding="utf-8")).get("source")
    except (OSError, ValueError, AttributeError):
        claimed = None
    if not force and claimed != source:
        if claimed is not None:
            raise OutputError(
                f"output folder {out_root} holds the port of {claimed}; choose another folder, "
                "or pass --force to write into it"
            )
        with os.scandir(out_root) as entries:
            foreign = any(entry.name != tree.OUTPUT_MARKER for entry in entries)
        if foreign:
            raise OutputError(
                f"output folder {out_root} exists and is not empty; choose a new folder, "
                "or pass --force to write into it"
            )
    if claimed != source:
        document = {"tool": "rocport port", "source": source}
        atomic_write(marker, json.dumps(document, indent=2) + "\n")


def _check_targets(options: PortOptions, toolchain) -> tuple[str, ...]:
    """The GPU targets to compile for: as asked, or the default ones that the compiler knows."""
    if options.offload_arch != PortOptions().offload_arch:
        return options.offload_arch
    known = tuple(a for a in options.offload_arch if a in toolchain.offload_archs)
    return known or options.offload_arch


def _check(
    report: TreeReport, results: list[tree.FileResult], out_root: Path, toolchain, archs, jobs
) -> None:
    """Compile the written tree and record, per file, whether it compiled and, for the first
    error, the CUDA line it comes from (the translations give the exact line maps)."""
    from rocport.check import Status, check_tree, find_units
    from rocport.check.render import origin
    from rocport.check.sourcemap import FileMap, SourceMap

    units = find_units(out_root)
    report.check = {
        "toolchain": toolchain.to_dict(),
        "offload_arch": list(archs),
        "counts": {"units": 0},
    }
    if not units:
        return
    base = out_root if out_root.is_dir() else out_root.parent
    written = {r.item.dest.relative_to(base).as_posix(): r for r in results if r.item.dest}
    source_map = SourceMap(
        {
            out: r.file_map or FileMap(r.item.rel)
            for out, r in written.items()
            if r.item.kind == "source"
        }
    )
    result = check_tree(
        out_root,
        toolchain=toolchain,
        offload_arch=archs,
        jobs=jobs,
        units=units,
        source_map=source_map,
    )
    report.check["counts"] = result.counts
    by_path = {out: r.report for out, r in written.items()}
    for unit in result.units:
        file = by_path.get(unit.path)
        if file is None:
            continue
        if unit.status is Status.PASSED:
            file.compiled = True
        elif unit.status is Status.FAILED:
            file.compiled = False
            first = unit.errors[0] if unit.errors else None
            file.check_message = first.message if first else "the compiler failed"
            if first is not None and (where := origin(first)) is not None:
                file.check_message += f" ({where})"
            for diagnostic in unit.errors:  # headers in which the errors are
                header = by_path.get(diagnostic.file or "")
                if header is not None and header is not file and header.compiled is not False:
                    header.compiled = False
                    header.check_message = (
                        f"errors while compiling {unit.path}: {diagnostic.message}"
                    )
        else:
            file.check_message = (
                "not compiled: " + ", ".join(unit.missing_headers) + " not installed"
            )
