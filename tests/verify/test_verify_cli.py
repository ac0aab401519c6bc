"""``rocport verify`` on the command line: exit codes, the text report, JSON, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocport.cli.main import main

from .conftest import ROOT, port

SQUARES = """#include <cstdio>
#include <cuda_runtime.h>
__global__ void square(int* a) { a[threadIdx.x] *= a[threadIdx.x]; }
int main(int argc, char** argv) {
    int h[64], *d;
    for (int i = 0; i < 64; ++i) h[i] = i;
    cudaMalloc(&d, sizeof(h));
    cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
    square<<<1, 64>>>(d);
    cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    long s = 0;
    for (int i = 0; i < 64; ++i) s += h[i];
    printf("sum of squares %ld (%s) took 0.25 ms\\n", s, argc > 1 ? argv[1] : "-");
    FILE* f = fopen("out.txt", "w");
    fprintf(f, "%d\\n", h[63]);
    fclose(f);
    return 0;
}
"""


def run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return exit_info.value.code


@pytest.fixture
def squares(tmp_path: Path) -> tuple[Path, Path]:
    src = tmp_path / "squares.cu"
    src.write_text(SQUARES)
    return src, port(src, tmp_path / "squares-hip.cu")


@pytest.mark.slow
def test_expected_output_same_and_differs(squares, tmp_path: Path, hip_cpu: Path, capsys) -> None:
    src, out = squares
    expected = tmp_path / "expected.txt"
    expected.write_text("sum of squares 85344 (x) took 3.5 ms\n")
    base = ["verify", str(src), str(out), "--cpu", "--hip-cpu", str(hip_cpu), "--expected"]
    assert run([*base, str(expected), "--run", "x"]) == 0  # the timing is masked
    assert "same" in capsys.readouterr().out
    expected.write_text("sum of squares 85345 (x) took 3.5 ms\n")
    assert run([*base, str(expected), "--run", "x", "--json", "-"]) == 1
    report = json.loads(capsys.readouterr().out)
    program = report["programs"][0]
    assert program["status"] == "differs"
    assert program["difference"] == {
        "what": "stdout",
        "line": 1,
        "reference": "sum of squares 85345 (x) took <time>",
        "ported": "sum of squares 85344 (x) took <time>",
        "unit": "line",
    }


@pytest.mark.slow
def test_cpu_reference_and_output_file(squares, hip_cpu: Path, capsys) -> None:
    src, out = squares
    data = src.parent / "data.bin"
    data.write_bytes(b"\0" * 16)
    argv = ["verify", str(src), str(out), "--cpu", "--hip-cpu", str(hip_cpu), "--inputs", str(data)]
    argv += ["--prefix", "env ROCPORT_VERIFY_TEST=1", "--env", "SEED=7", "--flags", "-DUNUSED=1"]
    assert run([*argv, "--output-file", "out.txt", "--output-file", "missing.bin"]) == 0
    text = capsys.readouterr().out
    assert "the port at 32 lanes (HIP-CPU)" in text and "1 same" in text


def test_library_program_is_not_covered(tmp_path: Path, hip_cpu: Path, capsys) -> None:
    src = ROOT / "examples" / "cuda" / "cublas_gemm.cu"
    out = port(src, tmp_path / "gemm.cu")
    assert run(["verify", str(src), str(out), "--cpu", "--hip-cpu", str(hip_cpu)]) == 2
    text = capsys.readouterr().out
    assert "not-covered" in text and "hipBLAS" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cpu", "--nvidia"], "alternatives"),
        (["--cpu", "--mask", "("], "not a regular expression"),
        (["--cpu", "--env", "SEED"], "NAME=VALUE"),
        (["--cpu", "--record", "r.json"], "--record"),
        (["--cpu", "--hip-cpu", "/nonexistent"], "no HIP-CPU"),
        (["--nvidia", "--hip-nvidia", "/nonexistent"], "NVIDIA backend"),
    ],
)
def test_bad_input_is_one_line(squares, extra, message, capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    src, out = squares
    assert run(["verify", str(src), str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_missing_input(tmp_path: Path, capsys) -> None:
    assert run(["verify", str(tmp_path / "no.cu"), str(tmp_path / "no-hip.cu"), "--cpu"]) == 2
    assert "no such file" in capsys.readouterr().err
