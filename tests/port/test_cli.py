"""``rocport port`` end to end with the shipped mapping: outputs, reports, exit codes, errors."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rocport.cli.main import main

PROGRAM = """\
#include <cstdio>
#include <cuda_runtime.h>
#include "saxpy.cuh"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  float *x, *y;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(float));
  saxpy<<<4, 256>>>(1024, 2.0f, x, y);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) std::printf("%s\\n", cudaGetErrorString(err));
  initCudaContext();
  cudaProjectHelper(x);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
"""


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    src = tmp_path / "saxpy"
    src.mkdir()
    (src / "saxpy.cu").write_text(PROGRAM)
    (src / "saxpy.cuh").write_text("#pragma once\nvoid initCudaContext();\n")
    (src / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    return src


def test_port_a_tree_with_reports(project: Path, tmp_path: Path, capsys) -> None:
    (project / "rocport.toml").write_text('[names]\ninitCudaContext = "initHipContext"\n')
    report_json, report_csv = tmp_path / "r.json", tmp_path / "r.csv"
    code, out, err = run(
        ["port", str(project), "--json", str(report_json), "--csv", str(report_csv), "-j", "1"],
        capsys,
    )
    assert code == 0, err
    out_dir = tmp_path / "saxpy-hip"  # the default output: SRC-hip beside SRC
    text = (out_dir / "saxpy.cu").read_text()
    for hip in (
        "hip/hip_runtime.h",
        "hipMalloc",
        "hipDeviceSynchronize",
        "hipGetErrorString",
        "hipError_t",
        "hipSuccess",
        "initHipContext",
        '#include "saxpy.cuh"',
    ):
        assert hip in text
    assert "cuda" not in text.replace("cudaProjectHelper", "")  # an unknown name stays as written
    assert "initHipContext" in (out_dir / "saxpy.cuh").read_text()
    assert (out_dir / "logo.png").read_bytes() == (project / "logo.png").read_bytes()
    assert "rocport port" in out and "saxpy.cu" in out

    doc = json.loads(report_json.read_text())
    (saxpy,) = [f for f in doc["files"] if f["path"] == "saxpy.cu"]
    assert saxpy["status"] == "translated" and saxpy["written"]
    assert not saxpy["converted"]  # cudaProjectHelper is left over
    assert saxpy["counts"]["unknown"] == 1 and saxpy["counts"]["found"] >= 10
    (header,) = [f for f in doc["files"] if f["path"] == "saxpy.cuh"]
    assert header["converted"] and header["families"]["project"]["translated"] == 1
    assert "project" in saxpy["families"] and "runtime" in saxpy["families"]
    rows = list(csv.DictReader(io.StringIO(report_csv.read_text())))
    assert {r["path"] for r in rows} == {"saxpy.cu", "saxpy.cuh", "logo.png", "rocport.toml"}


def test_json_to_stdout_and_examine(project: Path, tmp_path: Path, capsys) -> None:
    code, out, err = run(["port", str(project), "--examine", "--json", "-"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["mode"] == "examine" and doc["totals"]["written"] == 0
    unknown = [i for f in doc["files"] for i in f["issues"] if i["outcome"] == "unknown"]
    assert {(i["name"], i["line"], i["column"]) for i in unknown} == {("cudaProjectHelper", 18, 3)}
    assert "rocport port" in err  # the text report moves to stderr
    assert not (tmp_path / "saxpy-hip").exists()


def test_in_place_and_rerun(project: Path, capsys) -> None:
    assert run(["port", str(project), "--in-place"], capsys)[0] == 0
    assert (project / "saxpy.cu.orig").read_text() == PROGRAM
    first = (project / "saxpy.cu").stat().st_mtime_ns
    code, _, err = run(["port", str(project), "--in-place", "--json", "-"], capsys)
    assert code == 0, err
    assert (project / "saxpy.cu").stat().st_mtime_ns == first


def test_ggl_launch_and_rocblas(project: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "ggl"
    code, _, err = run(
        [
            "port",
            str(project),
            "-o",
            str(out),
            "--launch",
            "ggl",
            "--blas",
            "rocblas",
            "--rocm",
            "6.4",
        ],
        capsys,
    )
    assert code == 0, err
    assert "hipLaunchKernelGGL(saxpy" in (out / "saxpy.cu").read_text()


def test_unsupported_entry_from_the_config(project: Path, tmp_path: Path, capsys) -> None:
    config = tmp_path / "map.toml"
    config.write_text('[names.initCudaContext]\nstatus = "unsupported"\nnote = "port by hand"\n')
    code, out, err = run(
        ["port", str(project), "--map", str(config), "--examine", "--json", "-"], capsys
    )
    assert code == 0, err
    issues = [i for f in json.loads(out)["files"] for i in f["issues"]]
    unsupported = [
        (i["name"], i["line"], i["note"]) for i in issues if i["outcome"] == "unsupported"
    ]
    assert unsupported == [
        ("initCudaContext", 17, "port by hand"),
        ("initCudaContext", 2, "port by hand"),
    ]


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("rocport: error: "), err
    return lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/missing"], "no such file or directory"),
        (["{src}", "-o", "{src}/out"], "overlaps the input"),
        (["{src}", "-o", "{src}"], "overlaps the input"),
        (["{src}", "-o", "{tmp}/x", "--in-place"], "cannot be used together"),
        (["{src}", "--no-backup"], "--no-backup only applies with --in-place"),
        (["{src}", "-o", "{tmp}/file/out"], "cannot"),
        (["{src}", "--map", "{tmp}/none.toml"], "no such file"),
        (["{src}", "--map", "{tmp}/bad.toml"], "invalid TOML"),
        (["{src}", "--compile-commands", "{tmp}/none.json"], "no such file"),
        (["{src}", "--json", "-", "--csv", "-"], "cannot both write to stdout"),
        (["{src}", "--json", "{tmp}/file/r.json"], "file is not a folder"),
        (["{src}", "--csv", "{tmp}/no/such/dir/r.csv"], "does not exist; create it first"),
        (["{src}", "--check", "--examine"], "--examine writes none"),
        (["{src}/saxpy.cu", "--compile-commands", "{tmp}/db.json"], "needs a source folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    project: Path, tmp_path: Path, capsys, args, message
) -> None:
    (tmp_path / "file").write_text("not a folder")
    (tmp_path / "bad.toml").write_text("names = [")
    argv = ["port", *(a.format(tmp=tmp_path, src=project) for a in args)]
    code, _, err = run(argv, capsys)
    assert code == 2
    assert message in _one_error_line(err)
    assert not list(tmp_path.rglob("*.tmp"))
    assert not (tmp_path / "saxpy-hip").exists()  # refused before anything was written


@pytest.mark.parametrize(
    "args",
    [["--blas", "mkl"], ["--launch", "fast"], ["--jobs", "0"], ["--rocm", "six"], ["--frobnicate"]],
)
def test_bad_option_exits_2(project: Path, capsys, args) -> None:
    code, _, err = run(["port", str(project), *args], capsys)
    assert code == 2
    assert "Error" in err or "error" in err


def test_console_script_exit_code(project: Path, tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "120"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rocport",
            "port",
            str(project / "saxpy.cu"),
            "-o",
            str(tmp_path / "one.cu"),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "hipMalloc" in (tmp_path / "one.cu").read_text()
    done = subprocess.run(
        [sys.executable, "-m", "rocport", "port", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr == f"rocport: error: {tmp_path / 'nope'}: no such file or directory\n"


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """An empty source folder for a ``port --check`` test; skipped, with the reason, without
    hipcc."""
    if shutil.which("hipcc") is None:
        pytest.skip("hipcc not found on PATH: --check needs a HIP compiler")
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


@pytest.mark.hipcc
def test_check_compiles_the_output_and_never_claims_a_failure(
    tmp_path: Path, src: Path, capsys
) -> None:
    (src / "good.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "__global__ void add(const float* a, float* b, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) b[i] += a[i];\n}\n"
        "int run(float* a, float* b, int n) {\n"
        "  add<<<(n + 255) / 256, 256>>>(a, b, n);\n"
        "  return cudaDeviceSynchronize() == cudaSuccess;\n}\n"
    )
    (src / "bad.cu").write_text(
        "#include <cuda_runtime.h>\n__global__ void k(int* x) { x[0] = not_declared_anywhere; }\n"
    )
    report = tmp_path / "r.json"
    code, out, err = run(["port", str(src), "--check", "--json", str(report)], capsys)
    assert code == 1, err  # a file does not compile
    files = {f["path"]: f for f in json.loads(report.read_text())["files"]}
    assert files["good.cu"]["compiled"] is True and files["good.cu"]["converted"] is True
    assert files["bad.cu"]["compiled"] is False and files["bad.cu"]["converted"] is False
    assert "not_declared_anywhere" in files["bad.cu"]["check_message"]
    # the translation's own line map names the CUDA line (the port inserted none here)
    assert "from CUDA bad.cu:2 (unchanged by the port)" in files["bad.cu"]["check_message"]
    assert "does not compile" in out


@pytest.mark.hipcc
def test_check_names_the_cuda_line_past_an_inserted_include(
    tmp_path: Path, src: Path, capsys
) -> None:
    (src / "ins.cu").write_text(
        "__global__ void k(int* x) {\n  cudaStream_t s;\n  x[0] = undeclared_two;\n}\n"
    )
    out = tmp_path / "out"
    argv = ["port", str(src), "-o", str(out), "--check", "--json", str(tmp_path / "r.json")]
    code, _, err = run(argv, capsys)
    assert code == 1, err
    assert (out / "ins.cu").read_text().splitlines()[0] == "#include <hip/hip_runtime.h>"
    (file,) = json.loads((tmp_path / "r.json").read_text())["files"]
    # the error is on output line 4; the port's own line map gives CUDA line 3
    assert "undeclared_two" in file["check_message"]
    assert "from CUDA ins.cu:3 " in file["check_message"]


@pytest.mark.hipcc
def test_cache_hints_trap_host_math_and_project_names_compile(
    tmp_path: Path, src: Path, capsys
) -> None:
    (src / "hints.cu").write_text(
        "#include <cstdio>\n#include <cuda_runtime.h>\n"
        "static int cuda_num_SMs = 0;  // the project's own names, not CUDA APIs\n"
        "static bool finite(float s) { return isfinite(s); }  // <math.h> came with nvcc's\n"
        'static void cuda_check(cudaError_t e) { if (e != cudaSuccess) std::puts("err"); }\n'
        "__global__ void k(const int4* a, const float4* b, const float* c, float* out, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i >= n) __trap();\n"
        "  int4 x = __ldcs(a + i);\n  float4 y = __ldcg(b + i);\n"
        "  out[i] = x.x + y.y + __ldca(c + i) + __ldcs(c + i);\n"
        "  __stcs(reinterpret_cast<int4*>(out) + i, x);  __stwt(out, y.x);\n}\n"
        "int main() { cuda_check(cudaDeviceGetAttribute(&cuda_num_SMs,"
        " cudaDevAttrMultiProcessorCount, 0));\n"
        "  cuda_check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 64));\n"
        "  cudaFuncAttributes attr; cuda_check(cudaFuncGetAttributes(&attr, k));\n"
        "  void* args[] = {nullptr}; cudaLaunchKernel((const void*)k, 1, 1, args, 0, 0);\n"
        "  return 0; }\n"
    )
    out = tmp_path / "out"
    argv = ["port", str(src), "-o", str(out), "--check", "--json", str(tmp_path / "r.json")]
    code, _, err = run(argv, capsys)
    files = {f["path"]: f for f in json.loads((tmp_path / "r.json").read_text())["files"]}
    assert set(files) == {"hints.cu", "rocport_ldg.h"}  # __ldg's bfloat16/struct overloads
    file = files["hints.cu"]
    assert code == 0 and file["compiled"] is True, (err, file)
    assert file["issues"] == []  # cuda_check and cuda_num_SMs are not unknown CUDA names
    hip = (out / "hints.cu").read_text()
    assert "__ldg(a + i)" in hip and "__ldg(b + i)" in hip and "__ldg(c + i) + __ldg(c + i)" in hip
    assert "abort();" in hip and "cuda_check(hipDeviceGetAttribute(&cuda_num_SMs," in hip
    assert "#include <math.h>" in hip
    assert "hipFuncSetAttribute(reinterpret_cast<const void*>(k), " in hip
    assert "hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(k))" in hip
    assert "hipLaunchKernel((const void*)k, " in hip  # already a void pointer
    assert "(void)(*(reinterpret_cast<int4*>(out) + i) = (x));  (void)(*(out) = (y.x));" in hip


@pytest.mark.hipcc
def test_runtime_include_guards_keep_helper_code_enabled(tmp_path: Path, src: Path, capsys) -> None:
    # the CUDA samples' helper_cuda.h pattern: helpers exist only once the runtime is included
    (src / "helper.h").write_text(
        "#include <cstdio>\n#ifdef __DRIVER_TYPES_H__\n"
        "#define checkCudaErrors(val) check((val), #val)\n"
        "static void check(cudaError_t e, const char* what) { if (e) std::puts(what); }\n"
        "#endif\n"
    )
    (src / "main.cu").write_text(
        '#include <cuda_runtime.h>\n#include "helper.h"\n'
        "int main() { cudaPitchedPtr p;\n"
        "  checkCudaErrors(cudaMalloc3D(&p, make_cudaExtent(16, 4, 4))); return 0; }\n"
    )
    report = tmp_path / "r.json"
    code, _, err = run(["port", str(src), "-o", str(tmp_path / "out"), "--check", "--json",
                        str(report)], capsys)  # fmt: skip
    files = {f["path"]: f for f in json.loads(report.read_text())["files"]}
    assert code == 0 and files["main.cu"]["compiled"] is True, (err, files)
    assert "#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_API_H" in (tmp_path / "out" / "helper.h").read_text()
    assert "make_hipExtent(16, 4, 4)" in (tmp_path / "out" / "main.cu").read_text()


def test_offload_arch_and_warp_sync_reach_the_port(tmp_path: Path, capsys) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "Makefile").write_text("red: red.cu\n\tnvcc -arch=sm_80 -o $@ $<\n")
    (src / "red.cu").write_text(
        "__global__ void k(float* v) { v[0] = __shfl_down_sync(0xffffffff, v[0], 1); }\n"
    )
    for warp_sync, expected in (("keep", "__shfl_down_sync(0xffffffff, v[0], 1)"),
                                ("mask-free", "__shfl_down(v[0], 1)")):  # fmt: skip
        out = tmp_path / warp_sync
        argv = [
            "port",
            str(src),
            "-o",
            str(out),
            "--offload-arch",
            "gfx1100",
            "--warp-sync",
            warp_sync,
        ]
        code, _, err = run(argv, capsys)
        assert code == 0, err
        assert expected in (out / "red.cu").read_text()
        makefile = (out / "Makefile").read_text()
        assert "--offload-arch=gfx1100" in makefile and "sm_80" not in makefile
