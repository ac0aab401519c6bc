"""``rocport verify``: run the CUDA original and its port, and compare their results."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click


@click.command("verify")
@click.argument("original", type=click.Path(path_type=Path))
@click.argument("ported", type=click.Path(path_type=Path))
@click.option(
    "--run",
    "run_args",
    default="",
    metavar="'ARGS'",
    help="Arguments for both programs (shell-quoted).",
)
@click.option(
    "--inputs",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    metavar="FILE",
    help="Input file copied into each run's folder (repeatable).",
)
@click.option(
    "--output-file",
    "output_files",
    multiple=True,
    metavar="NAME",
    help="A file the program writes in its folder, compared too (repeatable).",
)
@click.option(
    "--env",
    "env",
    multiple=True,
    metavar="NAME=VALUE",
    help="Environment for both runs, e.g. a seed (repeatable).",
)
@click.option(
    "--rtol",
    type=click.FloatRange(min=0),
    default=0.0,
    help="Relative tolerance for numbers (default: exact).",
)
@click.option(
    "--atol",
    type=click.FloatRange(min=0),
    default=0.0,
    help="Absolute tolerance for numbers (default: exact).",
)
@click.option(
    "--binary",
    "binary_dtype",
    type=click.Choice(["f32", "f64"]),
    help="Output files are arrays of this float type (compared with the tolerance).",
)
@click.option(
    "--mask",
    "masks",
    multiple=True,
    metavar="REGEX",
    help="Also mask this pattern before comparing (repeatable).",
)
@click.option(
    "--no-default-masks", is_flag=True, help="Do not mask addresses (0x...) and timings (1.2 ms)."
)
@click.option(
    "--no-repeat", is_flag=True, help="Run the reference once (no search for unstable lines)."
)
@click.option(
    "--cpu",
    "cpu",
    is_flag=True,
    help="The 64-lane CPU path (HIP-CPU); the default without an NVIDIA GPU.",
)
@click.option(
    "--nvidia",
    "nvidia",
    is_flag=True,
    help="The NVIDIA path, even without a GPU here (with --prefix).",
)
@click.option(
    "--prefix",
    default="",
    metavar="'CMD'",
    help="Run the binaries through this command (ssh host, srun).",
)
@click.option(
    "--expected",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The original's recorded output (--record JSON, or its stdout).",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the original's runs as JSON, for --expected elsewhere.",
)
@click.option(
    "--hip-nvidia",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="Headers of HIP's NVIDIA backend (default $ROCPORT_HIP_NVIDIA, /opt/rocm).",
)
@click.option(
    "--hip-cpu",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="HIP-CPU (default $ROCPORT_HIP_CPU).",
)
@click.option(
    "--nvcc", default="nvcc", show_default=True, metavar="PATH", help="The CUDA compiler."
)
@click.option(
    "--arch", default="sm_90", show_default=True, metavar="SM", help="NVIDIA GPU architecture."
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=120.0,
    show_default=True,
    help="Seconds per run.",
)
@click.option(
    "--flags",
    "build_flags",
    default="",
    metavar="'FLAGS'",
    help="Extra compiler flags for every build, e.g. '-DN=64 -lm' (shell-quoted).",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Keep the builds under DIR.",
)
@click.option(
    "--json", "json_path", metavar="FILE", help="Write the JSON report to FILE ('-': stdout)."
)
def command(
    original,
    ported,
    run_args,
    inputs,
    output_files,
    env,
    rtol,
    atol,
    binary_dtype,
    masks,
    no_default_masks,
    no_repeat,
    cpu,
    nvidia,
    prefix,
    expected,
    record,
    hip_nvidia,
    hip_cpu,
    nvcc,
    arch,
    timeout,
    build_flags,
    keep,
    json_path,
) -> None:
    """Build and run ORIGINAL (CUDA) and PORTED (its HIP port) and compare their results.

    Exit status: 0 every program the same, 1 one differs, 2 one could not be built, run or
    judged (or bad input).
    """
    import json

    from rocport._fs import atomic_write
    from rocport.cli._console import report_console
    from rocport.cli._report_path import check_report_path
    from rocport.errors import InputError
    from rocport.verify import Tolerance, VerifyOptions, verify
    from rocport.verify.engine import env_pairs
    from rocport.verify.report import print_report

    if cpu and nvidia:
        raise InputError("--cpu and --nvidia are alternatives; give one")
    try:
        args, prefix_words = tuple(shlex.split(run_args)), tuple(shlex.split(prefix))
        flags = tuple(shlex.split(build_flags))
    except ValueError as exc:
        raise InputError(f"--run/--prefix/--flags: {exc}") from None
    check_report_path(json_path, inputs=[original, ported], option="--json")
    check_report_path(record, inputs=[original, ported], option="--record")
    options = VerifyOptions(
        path="cpu" if cpu else "nvidia" if nvidia else "auto",
        args=args,
        inputs=tuple(p.resolve() for p in inputs),
        output_files=output_files,
        env=env_pairs(env),
        prefix=prefix_words,
        expected=expected,
        record=record,
        tolerance=Tolerance(rtol, atol),
        binary_dtype=binary_dtype,
        masks=masks,
        default_masks=not no_default_masks,
        repeat=not no_repeat,
        hip_nvidia=hip_nvidia,
        hip_cpu=hip_cpu,
        nvcc=nvcc,
        arch=arch,
        timeout=timeout,
        flags=flags,
        keep=keep.resolve() if keep else None,
    )
    report = verify(original, ported, options)
    if json_path is not None:
        payload = json.dumps(report.to_dict(), indent=2) + "\n"
        if json_path == "-":
            sys.stdout.write(payload)
        else:
            atomic_write(Path(json_path), payload)
    if json_path != "-":
        print_report(report, report_console())
    sys.exit(report.exit_code)
