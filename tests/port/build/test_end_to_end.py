"""The bundled CUDA examples, ported by ``rocport port``, configure and build with HIP toolchains.

Device code is compiled for gfx90a. The sid root (HIP 6.4) has hipBLAS, so the whole programs link
there; Debian 12's HIP 5.2 has no hipBLAS, so with it only the device objects are built.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rocport.check.toolchain import Launcher
from rocport.port.api import port_tree
from rocport.port.build.cmake_syntax import commands
from rocport.port.model import PortOptions

pytestmark = pytest.mark.hipcc
OPTIONS = PortOptions(offload_arch=("gfx90a",))


EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _port(example: str, dest: Path) -> Path:
    out = dest / f"{example}-hip"
    report = port_tree(EXAMPLES / example, out, options=OPTIONS, jobs=1)
    assert report.counts["unsupported"] == 0 and report.counts["unknown"] == 0, report.counts
    return out


def _ok(result: subprocess.CompletedProcess[str], what: str) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{what} failed ({result.returncode}):\n{output[-4000:]}"
    return output


def _cmake_build(sid: Launcher, out: Path) -> tuple[Path, str]:
    """Configure the ported CMake project ``out`` for gfx90a with the sid root's CMake and
    clang, build it; return the build folder and the build log."""
    build = out / "build"
    configure = sid.run("cmake", [
        "-S", str(out), "-B", str(build), "-DCMAKE_HIP_COMPILER=/usr/bin/clang++-21",
        "-DCMAKE_CXX_COMPILER=/usr/bin/clang++-21", "-DCMAKE_HIP_ARCHITECTURES=gfx90a",
    ], cwd=out, timeout=300)  # fmt: skip
    _ok(configure, "cmake configure")
    built = sid.run(
        "cmake", ["--build", str(build), "--verbose", "--parallel", "2"], cwd=out, timeout=300
    )
    return build, _ok(built, "cmake --build")


def test_cmake_project_configures_and_builds_with_hip_language(
    scratch: Path, sid: Launcher
) -> None:
    launcher = sid
    out = _port("cmake-project", scratch)
    cmake_args = [a.value for c in commands((out / "CMakeLists.txt").read_text()) for a in c.args]
    assert not [a for a in cmake_args if "CUDA" in a], cmake_args
    build = out / "build"
    configure = launcher.run("cmake", [
        "-S", str(out), "-B", str(build), "-DCMAKE_HIP_COMPILER=/usr/bin/clang++-21",
        "-DCMAKE_CXX_COMPILER=/usr/bin/clang++-21", "-DCMAKE_HIP_ARCHITECTURES=gfx90a",
        "-DCMAKE_BUILD_TYPE=Release",
    ], cwd=out, timeout=300)  # fmt: skip
    text = _ok(configure, "cmake configure")
    assert "The HIP compiler identification is Clang" in text
    built = launcher.run(
        "cmake", ["--build", str(build), "--verbose", "--parallel", "2"], cwd=out, timeout=300
    )
    log = _ok(built, "cmake --build")
    assert "Building HIP object CMakeFiles/kernels.dir/src/kernels.cu.o" in log
    assert "--offload-arch=gfx90a" in log
    assert "-fgpu-flush-denormals-to-zero" in log  # --use_fast_math, through the HIP genex
    assert (build / "saxpy_blas").is_file()
    assert "libhipblas" in log and "libamdhip64" in log


def test_make_project_builds_with_sid_hipcc(scratch: Path, sid: Launcher) -> None:
    launcher = sid
    out = _port("make-project", scratch)
    # Debian's packages put hipcc on PATH, not in $(ROCM_PATH)/bin; their clang is the host compiler
    made = launcher.run("make", ["-j2", "NVCC=hipcc", "CXX=clang++-21"], cwd=out, timeout=300)
    log = _ok(made, "make")
    assert "hipcc -O2 -std=c++17 --offload-arch=gfx90a -fPIC -c reduce.cu" in log
    assert "-lamdhip64 -lhipblas" in log
    assert (out / "reduce").is_file()


def test_make_project_device_code_builds_with_hip_5_2(scratch: Path, hipcc52: Launcher) -> None:
    launcher = hipcc52
    out = _port("make-project", scratch)
    hipcc_dir = str(Path(shutil.which("hipcc") or "").resolve().parent)
    rocm = str(Path(hipcc_dir).parent)
    made = launcher.run("make", [f"ROCM_PATH={rocm}", "reduce.o"], cwd=out, timeout=300)
    _ok(made, "make reduce.o")
    assert (out / "reduce.o").is_file()
    # main.cpp and the link need hipBLAS, which Debian 12 (ROCm 5.2) does not package.
    print(
        "HIP 5.2: main.o and the link skipped: Debian 12 has no hipBLAS (both built with HIP 6.4)"
    )


RDC_SOURCES = {
    "twice.cu": "__device__ float twice(float x) { return 2.0f * x; }\n",
    "apply.cu": (
        "extern __device__ float twice(float x);\n"
        "__global__ void apply(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }\n"
        "void run(float* x) { apply<<<1, 64>>>(x); }\n"
    ),
    "main.cpp": "void run(float*);\nint main() { run(nullptr); return 0; }\n",
}
#: one subproject per CUDA switch: the target property, and the variable for later targets
RDC_SWITCHES = {
    "property": "add_library(dev STATIC twice.cu apply.cu)\n"
    "set_target_properties(dev PROPERTIES CUDA_SEPARABLE_COMPILATION ON)\n",
    "variable": "set(CMAKE_CUDA_SEPARABLE_COMPILATION ON)\n"
    "add_library(dev STATIC twice.cu apply.cu)\n",
}


def test_separable_compilation_links_device_code_across_files(scratch: Path, sid: Launcher) -> None:
    """A __device__ function defined in one .cu file and called in another needs -fgpu-rdc at
    compile time and -fgpu-rdc --hip-link at link time: the build fails without either."""
    src = scratch / "rdc"
    top = "cmake_minimum_required(VERSION 3.18)\nproject(rdc LANGUAGES CXX CUDA)\n"
    for switch, lines in RDC_SWITCHES.items():
        (src / switch).mkdir(parents=True)
        for name, text in RDC_SOURCES.items():
            (src / switch / name).write_text(text)
        app = (
            f"add_executable(app_{switch} main.cpp)\n"
            f"target_link_libraries(app_{switch} PRIVATE dev)\n"
        )
        (src / switch / "CMakeLists.txt").write_text(
            lines.replace("dev", f"dev_{switch}") + app.replace("dev", f"dev_{switch}")
        )
        top += f"add_subdirectory({switch})\n"
    (src / "CMakeLists.txt").write_text(top)
    out = scratch / "rdc-hip"
    port_tree(src, out, options=OPTIONS, jobs=1)
    build, log = _cmake_build(sid, out)
    assert log.count("--hip-link") >= 2
    for switch in RDC_SWITCHES:
        assert (build / switch / f"app_{switch}").is_file()


NVTX_CMAKE = """cmake_minimum_required(VERSION 3.18)
project(tracing LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
add_executable(tracing main.cu)
target_link_libraries(tracing PRIVATE CUDA::cudart CUDA::nvtx3)
"""
NVTX_MAIN = """#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

__global__ void fill(int *out) { out[threadIdx.x] = threadIdx.x; }

int main() {
  nvtxRangePushA("fill");
  int *d = nullptr;
  cudaMalloc(&d, 64 * sizeof(int));
  fill<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  cudaFree(d);
  nvtxRangePop();
  return 0;
}
"""


def test_cmake_links_rocTX_where_cuda_linked_the_nvtx3_target(scratch: Path, sid: Launcher) -> None:
    """``CUDA::nvtx3`` has no ROCm target: the port links the roctx64 library that an inserted
    ``find_library`` finds, and the program that calls rocTX links."""
    src = scratch / "tracing"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(NVTX_CMAKE)
    (src / "main.cu").write_text(NVTX_MAIN)
    out = scratch / "tracing-hip"
    report = port_tree(src, out, options=OPTIONS, jobs=1)
    assert report.counts["unsupported"] == 0 and report.counts["unknown"] == 0, report.counts
    assert "${ROCTX64_LIBRARY}" in (out / "CMakeLists.txt").read_text()
    build, log = _cmake_build(sid, out)
    assert "libroctx64.so" in log
    assert (build / "tracing").is_file()


CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"


@pytest.mark.slow
def test_llmc_links_rocTX_where_its_sources_call_it(scratch: Path, sid: Launcher) -> None:
    """llm.c: NVTX 3 is header-only, so its Makefile links nothing for it; the ported rocTX calls
    (nvtxRangePush -> roctxRangePushA) need libroctx64: its GPU targets get -lroctx64, the
    cuDNN object (-c) does not, and train_gpt2cu links in the sid root."""
    if not (CORPUS / "llm.c").is_dir():
        pytest.skip(f"the real-world corpus is missing at {CORPUS}")
    out = scratch / "llm.c"
    options = PortOptions(rocm="6.4", offload_arch=("gfx942",))
    port_tree(CORPUS / "llm.c", out, options=options, jobs=1)
    text = (out / "Makefile").read_text()
    links = [line for line in text.splitlines() if line.startswith("\t$(NVCC)")]
    assert [line.endswith(" -lroctx64") for line in links] == [False, *[True] * 5], links
    made = sid.run(
        "make",
        ["GPU_COMPUTE_CAPABILITY=90", "FORCE_NVCC_O=0", "NO_MULTI_GPU=1", "train_gpt2cu"],
        cwd=out,
        timeout=600,
    )
    log = _ok(made, "make train_gpt2cu")
    assert "--offload-arch=gfx942" in log and "-lroctx64" in log
    assert (out / "train_gpt2cu").is_file()
