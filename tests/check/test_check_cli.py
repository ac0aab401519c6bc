"""``rocport check`` on the command line: exit codes, text and JSON output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from rocport.cli.main import main

pytestmark = pytest.mark.hipcc

GOOD = """\
#include <hip/hip_runtime.h>
__global__ void fill(int* a, int v) { a[threadIdx.x] = v; }
"""
CUDA_BAD = """\
#include <cuda_runtime.h>
__global__ void fill(int* a, int v) { a[threadIdx.x] = v; }
void go(int* a) { cudaLaunchCooperativeKernelMultiDevice(nullptr, 0, 0); fill<<<1, 1>>>(a, 1); }
"""
HIP_BAD = """\
#include <hip/hip_runtime.h>
__global__ void fill(int* a, int v) { a[threadIdx.x] = v; }
void go(int* a) { hipLaunchCooperativeKernelMultiDeviceX(nullptr, 0, 0); fill<<<1, 1>>>(a, 1); }
"""


def run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return exit_info.value.code


def schema() -> dict:
    return json.loads(
        (resources.files("rocport.check") / "data" / "report.schema.json").read_text()
    )


def test_all_pass_exit_0_and_json_matches_the_schema(
    rocm52, rocm64, write, tmp_path: Path, capsys
) -> None:
    write(tmp_path, {"t/a.hip": GOOD, "t/b.hip": GOOD})
    out = tmp_path / "report.json"
    code = run(
        [
            "check",
            str(tmp_path / "t"),
            "--rocm",
            "6.4",
            "--offload-arch",
            "gfx90a,gfx942",
            "-j",
            "2",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    data = json.loads(out.read_text())
    jsonschema.validate(data, schema())
    assert data["ok"] and data["counts"] == {"passed": 2, "failed": 0, "unavailable": 0, "units": 2}
    assert data["offload_arch"] == ["gfx90a", "gfx942"] and data["toolchain"]["release"] == "6.4"
    assert "all compiled: 2 passed" in capsys.readouterr().out


def test_failure_exit_1_points_at_the_cuda_line(rocm52, write, tmp_path: Path, capsys) -> None:
    write(tmp_path, {"cuda/k.cu": CUDA_BAD, "hip/k.cu": HIP_BAD})
    hip, cuda = str(tmp_path / "hip"), str(tmp_path / "cuda")
    code = run(["check", hip, "--rocm", "5.2", "--cuda-root", cuda, "--json", "-"])
    assert code == 1
    data = json.loads(capsys.readouterr().out)  # with --json -, stdout holds only the JSON
    jsonschema.validate(data, schema())
    (error,) = [d for d in data["units"][0]["diagnostics"] if d["severity"] == "error"]
    assert error["line"] == 3 and error["cuda"]["line"] == 3
    assert error["cuda"]["at_column"] == {
        "cuda": "cudaLaunchCooperativeKernelMultiDevice",
        "hip": "hipLaunchCooperativeKernelMultiDeviceX",
        "outcome": "translated",
        "note": None,
    }


def test_text_output_names_the_cuda_origin(rocm52, write, tmp_path: Path, capsys) -> None:
    write(tmp_path, {"cuda/k.cu": CUDA_BAD, "hip/k.cu": HIP_BAD})
    assert (
        run(
            ["check", str(tmp_path / "hip"), "--rocm", "5.2", "--cuda-root", str(tmp_path / "cuda")]
        )
        == 1
    )
    text = capsys.readouterr().out
    assert "k.cu:3:19: error:" in text
    assert "from CUDA" in text and "cudaLaunchCooperativeKernelMultiDevice ->" in text


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--hipcc", "/nonexistent/hipcc"], "hipcc not found"),
        (["--rocm", "1.0"], "no HIP compiler for ROCm 1.0"),
        (["--rocm", "six"], "not a ROCm version"),
        (["--offload-arch", "sm_80"], "not an AMD GPU target"),
        (["--source-map", "/nonexistent.json"], "cannot read source map"),
    ],
)
def test_bad_input_exit_2_with_one_line(
    rocm52, write, tmp_path: Path, capsys, argv, message
) -> None:
    write(tmp_path, {"a.hip": GOOD})
    assert run(["check", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_no_hipcc_anywhere_exit_2(tmp_path: Path) -> None:
    """A machine without any HIP compiler: the real CLI in a process with an empty PATH."""
    (tmp_path / "a.hip").write_text(GOOD)
    env = {
        "PATH": str(tmp_path / "bin"),
        "ROCPORT_SID_ROOT": str(tmp_path / "no-root"),
        "HOME": os.environ.get("HOME", "/root"),
    }
    if Path("/opt/rocm/bin/hipcc").exists():
        pytest.skip("/opt/rocm/bin/hipcc exists on this machine; it is always searched")
    proc = subprocess.run(
        [sys.executable, "-m", "rocport", "check", str(tmp_path)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        proc.stderr.startswith("rocport: error: no HIP compiler found")
        and "toolchain-rocm.sh" in proc.stderr
    )
    assert len(proc.stderr.strip().splitlines()) == 1
