"""The library entry point of ``rocport verify``: :func:`verify`."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rocport.errors import InputError
from rocport.verify import build as builder
from rocport.verify.compare import Tolerance, compare_runs, unstable_lines
from rocport.verify.expected import read_expected, write_record
from rocport.verify.limits import libraries, outside_limits
from rocport.verify.model import ProgramReport, Run, Status, VerifyReport
from rocport.verify.normalise import Normaliser
from rocport.verify.run import no_gpu, run_program
from rocport.verify.toolchain import (
    find_hip_cpu,
    find_hip_nvidia,
    lanes_copy,
    nvidia_gpu_present,
    require,
)

_MAIN = re.compile(r"\bint\s+main\s*\(")
#: libraries the port keeps under their CUDA names, which nvcc ships (the build decides)
_CUDA_SHIPPED = {"Thrust"}


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    path: str = "auto"  # "auto", "nvidia" or "cpu"
    args: tuple[str, ...] = ()
    inputs: tuple[Path, ...] = ()
    output_files: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    prefix: tuple[str, ...] = ()
    expected: Path | None = None
    record: Path | None = None
    tolerance: Tolerance = field(default_factory=Tolerance)
    binary_dtype: str | None = None  # "f32"/"f64": output files are float arrays
    masks: tuple[str, ...] = ()
    default_masks: bool = True
    repeat: bool = True  # run the reference twice to find its unstable lines
    hip_nvidia: Path | None = None
    hip_cpu: Path | None = None
    nvcc: str = "nvcc"
    arch: str = "sm_90"
    timeout: float = 120.0
    flags: tuple[str, ...] = ()  # extra compiler flags for every build (-D, -I, -l)
    keep: Path | None = None  # keep build folders here


def _program(root: Path, main: Path | None) -> builder.Program:
    if root.is_file():
        return builder.Program(root.name, (root.resolve(),), (root.parent.resolve(),))
    sources = [main] if main is not None else _compiled(root)
    name = main.relative_to(root).as_posix() if main is not None else root.name
    return builder.Program(name, tuple(s.resolve() for s in sources), (root.resolve(),))


def _compiled(root: Path) -> list[Path]:
    """The sources of ``root`` that no other source includes (``#include "kernel.cu"``)."""
    sources = list(builder.sources_in(root))
    included: set[Path] = set()
    for source in sources:
        program = builder.Program(source.name, (source.resolve(),), (root.resolve(),))
        included.update(program.files()[1:])
    return [s for s in sources if s.resolve() not in included]


def pair_programs(original: Path, ported: Path) -> list[tuple[builder.Program, builder.Program]]:
    """(CUDA program, ported program) pairs: a file with a file, or a folder with a folder:
    one program of all its sources, or one per file with a ``main`` when several have one."""
    for path in (original, ported):
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
    if original.is_file() != ported.is_file():
        raise InputError("ORIGINAL and PORTED must both be files or both be folders")
    if original.is_file():
        return [(_program(original, None), _program(ported, None))]
    mains = [p for p in builder.sources_in(original) if _MAIN.search(p.read_text(errors="replace"))]
    if not mains:
        raise InputError(f"{original}: no source file with a main function")
    if len(mains) == 1:
        return [(_program(original, None), _program(ported, None))]
    pairs = []
    for main in mains:
        rel = main.relative_to(original)
        twin = next(
            (
                ported / rel.with_suffix(s)
                for s in (rel.suffix, *builder.SOURCE_SUFFIXES)
                if (ported / rel.with_suffix(s)).is_file()
            ),
            None,
        )
        if twin is None:
            raise InputError(f"{ported}: no port of {rel}")
        pairs.append((_program(original, main), _program(ported, twin)))
    return pairs


def _cuda_of(cuda: builder.Program, port: builder.Program) -> dict[Path, Path]:
    """Ported file -> CUDA file, by relative path under the programs' roots (any suffix)."""
    mapping = {}
    port_root, cuda_root = port.include_dirs[0], cuda.include_dirs[0]
    for path in port.files():
        if not path.is_relative_to(port_root):
            continue
        rel = path.relative_to(port_root)
        for candidate in (
            cuda_root / rel,
            *(cuda_root / rel.with_suffix(s) for s in (".cu", ".cuh", ".cpp", ".h")),
        ):
            if candidate.is_file():
                mapping[path.resolve()] = candidate.resolve()
                break
    for a, b in zip(port.sources, cuda.sources, strict=False):
        mapping.setdefault(a, b)
    return mapping


def verify(original, ported, options: VerifyOptions | None = None) -> VerifyReport:
    """Build and run the CUDA ``original`` and its ``ported`` HIP form and compare the results.

    The NVIDIA path (an NVIDIA GPU here, or ``options.prefix`` to run elsewhere) builds both
    with nvcc, the port through HIP's NVIDIA backend; the CPU path builds the port with HIP-CPU
    (64-lane wavefronts) and compares it with ``options.expected`` or, without it, with the same
    port built at 32 lanes (what the CUDA original computes on a 32-lane warp).
    """
    options = options or VerifyOptions()
    original, ported = Path(original), Path(ported)
    pairs = pair_programs(original, ported)
    path = options.path
    if path == "auto":
        path = "nvidia" if options.prefix or nvidia_gpu_present() else "cpu"
    if path not in ("nvidia", "cpu"):
        raise InputError(f"unknown path {path!r} (auto, nvidia or cpu)")
    if options.expected is not None and len(pairs) > 1:
        raise InputError("--expected holds one program's output; verify one program with it")
    if options.record is not None and (path != "nvidia" or len(pairs) > 1):
        raise InputError("--record writes one program's output on the NVIDIA path")
    normalise = Normaliser.build(options.masks, defaults=options.default_masks)
    if path == "nvidia":
        require(options.nvcc)
        hip = find_hip_nvidia(options.hip_nvidia)
        run_one = lambda cuda, port, work: _nvidia(cuda, port, work, options, hip, normalise)  # noqa: E731
    else:
        require("g++")
        include = find_hip_cpu(options.hip_cpu)
        run_one = lambda cuda, port, work: _cpu(cuda, port, work, options, include, normalise)  # noqa: E731
    reports = []
    for cuda, port in pairs:
        with tempfile.TemporaryDirectory(prefix="rocport-verify-") as tmp:
            work = Path(tmp)
            if options.keep is not None:
                work = options.keep / re.sub(r"[^\w.-]", "_", port.name)
                work.mkdir(parents=True, exist_ok=True)
            reports.append(run_one(cuda, port, work))
    return VerifyReport(reports)


def _runs(binary: str, options: VerifyOptions, times: int) -> list[Run]:
    return [
        run_program(
            binary,
            args=options.args,
            inputs=options.inputs,
            output_files=options.output_files,
            prefix=options.prefix,
            extra_env=dict(options.env),
            timeout=options.timeout,
        )
        for _ in range(times)
    ]


def _judge(
    report: ProgramReport, reference: list[Run], ported: Run, options, normalise
) -> ProgramReport:
    for side, run in (("reference", reference[0]), ("port", ported)):
        if run.error is not None:
            report.status = Status.RUN_FAILED
            report.reason = f"the {side} did not run: {run.error}"
            return report
        missing_gpu = no_gpu(run)
        if missing_gpu is not None:  # two runs that both found no GPU prove nothing
            report.status = Status.RUN_FAILED
            report.reason = f"the {side} found no GPU it could use: {missing_gpu[:160]}"
            return report
    unstable: dict[str, set[int]] = {}
    if len(reference) > 1:
        for what in ("stdout", "stderr"):
            first = normalise(getattr(reference[0], what))
            lines = unstable_lines(first, normalise(getattr(reference[1], what)))
            unstable[what] = lines
            report.unstable += [
                f"{what}:{i + 1}: {line}" for i, line in enumerate(first.splitlines()) if i in lines
            ]
    diff = compare_runs(
        reference[0],
        ported,
        normalise=normalise,
        tol=options.tolerance,
        unstable=unstable,
        dtype=options.binary_dtype,
    )
    report.difference = diff
    report.status = Status.SAME if diff is None else Status.DIFFERS
    return report


def _not_built(report: ProgramReport, build) -> ProgramReport:
    report.status = Status.BUILD_FAILED
    first = build.errors[0].describe() if build.errors else "no binary"
    report.reason = f"the {build.side} does not build: {first}"
    return report


def _nvidia(cuda, port, work, options: VerifyOptions, hip, normalise) -> ProgramReport:
    reference_name = (
        f"expected {options.expected}" if options.expected else "the CUDA original (nvcc)"
    )
    report = ProgramReport(cuda.name, Status.SAME, "nvidia", reference_name)
    missing = _missing_libraries(port, hip.include_dirs)
    if missing:
        report.status = Status.NOT_COVERED
        report.reason = (
            f"uses {', '.join(missing)}: needs {' and '.join(missing)} built for HIP's NVIDIA "
            "backend (headers on the include path, e.g. with --hip-nvidia, and the libraries "
            "linked against CUDA's)"
        )
        return report
    if options.expected is not None:
        reference = read_expected(options.expected)
    else:
        original = builder.build_original(
            cuda, work, nvcc=options.nvcc, arch=options.arch, hip=hip, flags=options.flags
        )
        report.builds.append(original)
        if not original.ok:
            return _not_built(report, original)
    ported = builder.build_port_nvidia(
        port, work, nvcc=options.nvcc, arch=options.arch, hip=hip, flags=options.flags
    )
    builder.map_errors(ported, _cuda_of(cuda, port))
    report.builds.append(ported)
    if not ported.ok:
        return _not_built(report, ported)
    if options.expected is None:
        reference = _runs(report.builds[0].binary, options, 2 if options.repeat else 1)
        if options.record is not None:
            write_record(options.record, cuda.name, reference)
    return _judge(report, reference, _runs(ported.binary, options, 1)[0], options, normalise)


def _missing_libraries(port: builder.Program, include_dirs) -> list[str]:
    text = port.text()
    missing = []
    for library in libraries(text):
        if library in _CUDA_SHIPPED:
            continue
        lowered = library.lower()
        if not any(
            (Path(d) / lowered).is_dir() or (Path(d) / f"{lowered}.h").is_file()
            for d in include_dirs
        ):
            missing.append(library)
    return missing


def _cpu(cuda, port, work, options: VerifyOptions, include: Path, normalise) -> ProgramReport:
    reference_name = (
        f"expected {options.expected}" if options.expected else "the port at 32 lanes (HIP-CPU)"
    )
    report = ProgramReport(cuda.name, Status.SAME, "cpu", reference_name)
    text = port.text()
    used = libraries(text)
    absent = sorted(
        {h for h in re.findall(r"#\s*include\s*<(hip/[^>]+)>", text) if not (include / h).is_file()}
    )
    if used or absent:
        report.status = Status.NOT_COVERED
        what = ", ".join([*used, *absent])
        report.reason = (
            f"uses {what}, which HIP-CPU does not provide; verify it on the NVIDIA path "
            "(or on an AMD GPU)"
        )
        return report
    report.outside_limits = outside_limits(text)
    if report.outside_limits:
        report.status = Status.NOT_JUDGED
        kernels = sorted({k.kernel for k in report.outside_limits})
        report.reason = (
            f"kernels outside what HIP-CPU runs correctly: {', '.join(kernels)} "
            "(divergent cross-lane calls or shuffle widths below 64); not run"
        )
        return report
    copy, port_of = builder.prepare_cpu_copy(port, work)
    cuda_of = _cuda_of(cuda, port)
    ported = builder.build_port_cpu(copy, work, include=include, lanes=64, flags=options.flags)
    builder.map_errors(ported, cuda_of, {k.resolve(): v.resolve() for k, v in port_of.items()})
    report.builds.append(ported)
    if not ported.ok:
        return _not_built(report, ported)
    if options.expected is not None:
        reference = read_expected(options.expected)
    else:
        narrow = builder.build_port_cpu(
            copy, work, include=lanes_copy(include, 32, work), lanes=32, flags=options.flags
        )
        builder.map_errors(narrow, cuda_of, {k.resolve(): v.resolve() for k, v in port_of.items()})
        report.builds.append(narrow)
        if not narrow.ok:
            return _not_built(report, narrow)
        reference = _runs(narrow.binary, options, 2 if options.repeat else 1)
    return _judge(report, reference, _runs(ported.binary, options, 1)[0], options, normalise)


def env_pairs(values) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not name:
            raise InputError(f"--env {value!r}: write NAME=VALUE")
        pairs.append((name, text))
    return tuple(pairs)
