"""Pick a profiler, run a command under it (no shell, with a timeout), and parse what it wrote."""

from __future__ import annotations

import json
import shutil
import subprocess  # nosec B404: argv lists only, never a shell
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rocport.errors import InputError, ToolError
from rocport.profile.model import KernelTable
from rocport.profile.parsers import ncu, nsys, rocprof, rocprofv3, torch_profiler

#: tried in this order for ``rocport profile -- CMD``; ``torch`` is for ``--python``
AUTO_ORDER = ("rocprofv3", "rocprof", "nsys", "ncu")
TOOLS = (*AUTO_ORDER, "torch")


@dataclass
class ProfileRequest:
    """What to profile and how."""

    command: list[str]
    tool: str = "auto"
    python_script: Path | None = None
    counters: bool = False
    output_dir: Path = Path("rocport-profile")
    timeout: float = 600.0
    kernel_regex: str | None = None  # ncu: profile only kernels matching this
    launch_skip: int = 0  # ncu
    launch_count: int = 20  # ncu: kernel replay is slow, so a bound is required
    skip_steps: int = 2  # torch: optimizer steps left out as warm-up
    extra: list[str] = field(default_factory=list)


def choose_tool(request: ProfileRequest) -> str:
    """The profiler to use; ToolError when none is installed."""
    if request.python_script is not None:
        if request.tool not in ("auto", "torch"):
            raise InputError("--python runs under torch.profiler; use -- CMD for other profilers")
        return "torch"
    if not request.command:
        raise InputError("nothing to profile: give -- COMMAND… or --python script.py")
    if request.tool == "torch":
        raise InputError("--tool torch needs --python script.py")
    if request.tool != "auto":
        if shutil.which(request.tool) is None:
            raise ToolError(f"{request.tool} not found on PATH")
        return request.tool
    for tool in AUTO_ORDER:
        if shutil.which(tool):
            return tool
    raise ToolError(
        "no profiler found (rocprofv3, rocprof, nsys or ncu); "
        "for a Python program use --python script.py (torch.profiler)"
    )


def argv_for(tool: str, request: ProfileRequest) -> list[list[str]]:
    """The command lines to run, in order (nsys needs a second one to export its stats)."""
    out = request.output_dir
    cmd = request.command
    if tool == "torch":
        return [
            [
                sys.executable,
                "-m",
                "rocport.profile.torch_runner",
                "--out",
                str(out),
                "--skip-steps",
                str(request.skip_steps),
                str(request.python_script),
                *cmd,
            ]
        ]
    if tool == "rocprofv3":
        argv = [
            "rocprofv3",
            "--kernel-trace",
            "--stats",
            "--output-format",
            "csv",
            "-d",
            str(out),
            "-o",
            "run",
        ]
        if request.counters:
            argv += ["--pmc", *rocprofv3.DEFAULT_COUNTERS]
        return [[*argv, *request.extra, "--", *cmd]]
    if tool == "rocprof":
        return [["rocprof", "--stats", "-o", str(out / "results.csv"), *request.extra, *cmd]]
    if tool == "nsys":
        rep = out / "run"
        return [
            [
                "nsys",
                "profile",
                "--trace",
                "cuda",
                "--force-overwrite",
                "true",
                "-o",
                str(rep),
                *request.extra,
                *cmd,
            ],
            [
                "nsys",
                "stats",
                "--report",
                "cuda_gpu_kern_sum",
                "--format",
                "csv",
                "--force-export",
                "true",
                "--output",
                str(rep),
                f"{rep}.nsys-rep",
            ],
        ]
    if tool == "ncu":
        argv = [
            "ncu",
            "--csv",
            "--log-file",
            str(out / "ncu.csv"),
            "--clock-control",
            "none",
            "--launch-skip",
            str(request.launch_skip),
            "--launch-count",
            str(request.launch_count),
        ]
        if request.kernel_regex:
            argv += ["--kernel-name", f"regex:{request.kernel_regex}"]
        if request.counters:
            argv += [
                "--section",
                "SpeedOfLight",
                "--section",
                "MemoryWorkloadAnalysis",
                "--metrics",
                "gpu__time_duration.sum,dram__bytes.sum.per_second,lts__t_sector_hit_rate.pct",
            ]
        else:
            argv += ["--metrics", "gpu__time_duration.sum"]
        return [[*argv, *request.extra, *cmd]]
    raise InputError(f"unknown profiler {tool!r} (choose from {', '.join(TOOLS)})")


def run(request: ProfileRequest) -> KernelTable:
    """Profile ``request.command``; the parsed kernel table."""
    tool = choose_tool(request)
    request.output_dir.mkdir(parents=True, exist_ok=True)
    log = request.output_dir / f"{tool}.log"
    with log.open("w", encoding="utf-8") as fh:
        for argv in argv_for(tool, request):
            fh.write("$ " + " ".join(argv) + "\n")
            fh.flush()
            try:
                proc = subprocess.run(  # nosec B603: argv list, no shell
                    argv, stdout=fh, stderr=subprocess.STDOUT, timeout=request.timeout, check=False
                )
            except subprocess.TimeoutExpired as exc:
                raise ToolError(
                    f"{argv[0]} ran past --timeout {request.timeout:g} s (log: {log})"
                ) from exc
            except OSError as exc:
                raise ToolError(f"cannot run {argv[0]}: {exc.strerror or exc}") from exc
            if proc.returncode != 0:
                raise ToolError(f"{' '.join(argv[:3])}… exited with {proc.returncode} (log: {log})")
    return collect(tool, request.output_dir)


def torch_scope(steps_file: Path) -> str | None:
    """Which optimizer steps the torch.profiler table covers, from the runner's steps.json."""
    try:
        info = json.loads(steps_file.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    seen, skip, profiled = info["optimizer_steps"], info["skip_steps"], info["profiled_steps"]
    if profiled is None:
        if skip == 0:
            return f"the whole run: all {seen} optimizer steps, warm-up included (--skip-steps 0)"
        return (
            f"the whole run, warm-up and cuDNN autotuning included: the script made {seen} "
            f"optimizer step(s), fewer than --skip-steps {skip}"
        )
    first, last = profiled
    if first > last:
        return f"after the {skip} warm-up optimizer steps: no later step (only the run's tail)"
    return (
        f"optimizer steps {first}–{last} of {seen}; the first {skip} (warm-up, cuDNN "
        "autotuning) left out (--skip-steps)"
    )


def collect(tool: str, out: Path) -> KernelTable:
    """Parse the files ``tool`` wrote under ``out``."""

    def one(pattern: str) -> Path:
        found = sorted(out.rglob(pattern), key=lambda p: p.stat().st_mtime)
        if not found:
            raise ToolError(f"{tool} wrote no {pattern} under {out}")
        return found[-1]

    if tool == "torch":
        trace = one("trace.json")
        table = torch_profiler.parse_trace(trace.read_text("utf-8"), str(trace))
        if not table.kernels:
            ka = one("key_averages.txt")
            table = torch_profiler.parse_key_averages(ka.read_text("utf-8"), str(ka))
        table.scope = torch_scope(out / "steps.json")
        return table
    if tool == "rocprofv3":
        stats = one("*kernel_stats.csv")
        table = rocprofv3.parse(stats.read_text("utf-8"), str(stats))
        counters = sorted(out.rglob("*counter_collection.csv"))
        if counters:
            table = rocprofv3.attach_counters(
                table, rocprofv3.parse_counters(counters[-1].read_text("utf-8"), str(counters[-1]))
            )
        return table
    if tool == "rocprof":
        path = one("*.stats.csv")
        return rocprof.parse(path.read_text("utf-8"), str(path))
    if tool == "nsys":
        path = one("*cuda_gpu_kern_sum*.csv")
        return nsys.parse(path.read_text("utf-8"), str(path))
    path = one("ncu.csv")
    return ncu.parse(path.read_text("utf-8"), str(path))
