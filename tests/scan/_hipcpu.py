"""Run CUDA kernels under 64-lane wavefront semantics on the CPU with AMD's HIP-CPU runtime.

HIP-CPU (ROCm/HIP-CPU, header-only) runs each GPU thread as a fiber and makes ``warpSize`` 64.
It is right for converged code (every lane of the block reaches each cross-lane call); it is
not an oracle for cross-lane calls in divergent branches or for shuffle widths below 64
(``../shared/notes/hip-cpu.md``), so the kernels run here call their shuffles from the whole
block. Its sub-warp ``__shfl_down`` is wrong for widths below 64 (it tests the source index
against the width after adding the segment's base): :data:`SHIM` builds ``__shfl_down_sync`` on
HIP's own formula over a full-width ``__shfl``, which HIP-CPU gets right. It has no mask-taking
``*_sync`` intrinsics: :data:`SHIM` declares them as the mask-free forms (as ROCm ports of these
projects do in a header), or, with ``ROCPORT_HIP_SYNC_MASKS`` defined, as HIP 6.4 (with
``-DHIP_ENABLE_WARP_SYNC_BUILTINS``) and 7.2 declare them: a mask that is not 64 bits wide does
not compile.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from array import array
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CACHE = ROOT / ".cache" / "hip-cpu"
GET = ROOT.parent / "shared" / "tools" / "get-hip-cpu"
INCLUDE = CACHE / "hip-cpu-e112c93" / "include"

SHIM = """\
// The mask-taking warp intrinsics as their mask-free forms (HIP-CPU declares only those).
#pragma once
#include <hip/hip_runtime.h>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>
#ifdef ROCPORT_HIP_SYNC_MASKS  // hip/amd_detail/amd_warp_sync_functions.h (HIP 6.4, 7.2)
#define ROCPORT_MASK_CHECK(M) static_assert(std::is_integral<M>::value && sizeof(M) == 8, \
    "The mask must be a 64-bit integer. "                                              \
    "Implicitly promoting a smaller integer is almost always an error.")
#else
#define ROCPORT_MASK_CHECK(M)
#endif
// hip/amd_detail/amd_warp_functions.h's __shfl_down: a source past the lane's width segment
// gives the lane its own value; the permute itself is a full-width __shfl
template <class T>
__device__ T rocport_shfl_down(T var, unsigned int delta, int width) {
    int self = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % warpSize;
    int index = self + (int)delta;
    index = (int)((self & (width - 1)) + delta) >= width ? self : index;
    return __shfl(var, index);
}
template <class M, class T>
__device__ T __shfl_xor_sync(M mask, T var, int lane_mask, int width = warpSize) {
    ROCPORT_MASK_CHECK(M);
    return __shfl_xor(var, lane_mask, width);
}
template <class M, class T>
__device__ T __shfl_down_sync(M mask, T var, unsigned int delta, int width = warpSize) {
    ROCPORT_MASK_CHECK(M);
    return rocport_shfl_down(var, delta, width);
}
"""


def include_dir() -> Path:
    """HIP-CPU's include folder, unpacked under .cache/hip-cpu (skips when it cannot be had)."""
    if not (INCLUDE / "hip" / "hip_runtime.h").exists() and GET.exists():
        subprocess.run(["bash", str(GET), str(CACHE)], capture_output=True, timeout=120)
    if not (INCLUDE / "hip" / "hip_runtime.h").exists():
        pytest.skip(f"HIP-CPU is not under {CACHE} (bash ../shared/tools/get-hip-cpu {CACHE})")
    if shutil.which("g++") is None:
        pytest.skip("g++ not found: HIP-CPU programs need it (apt-get install g++)")
    if not any(Path(p).exists() for p in ("/usr/include/tbb/tbb.h", "/usr/include/oneapi/tbb.h")):
        pytest.skip("TBB headers not found: HIP-CPU needs them (apt-get install libtbb-dev)")
    return INCLUDE


_BUILT: dict[str, Path] = {}


def build(source: str, folder: Path) -> Path:
    """Compile a HIP-CPU program (cached by its text for the session)."""
    exe, errors = try_build(source, folder)
    assert exe is not None, errors[-4000:]
    return exe


def try_build(source: str, folder: Path) -> tuple[Path | None, str]:
    """Compile a HIP-CPU program: (the executable, or None and the compiler's messages)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    if key in _BUILT and _BUILT[key].exists():
        return _BUILT[key], ""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hipcpu_shim.h").write_text(SHIM)
    cpp = folder / f"prog-{key}.cpp"
    cpp.write_text(source)
    exe = folder / f"prog-{key}"
    command = ["g++", "-std=c++17", "-O1", "-w", f"-I{include_dir()}", f"-I{folder}", str(cpp)]
    result = subprocess.run(
        [*command, "-o", str(exe), "-ltbb", "-pthread"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        return None, result.stderr
    _BUILT[key] = exe
    return exe, ""


def run(exe: Path, inputs: bytes, folder: Path) -> array:
    """Run ``exe in.bin out.bin`` and read ``out.bin`` as float32 values."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "in.bin").write_bytes(inputs)
    out = folder / "out.bin"
    out.unlink(missing_ok=True)
    result = subprocess.run(
        [str(exe), str(folder / "in.bin"), str(out)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-4000:]
    values = array("f")
    values.frombytes(out.read_bytes())
    return values


#: main() that reads ``in.bin`` into ``in``, lets BODY run kernels and writes ``out``
MAIN = """
static std::vector<unsigned char> read_all(const char* path) {
    FILE* f = std::fopen(path, "rb");
    std::vector<unsigned char> data;
    int c;
    while ((c = std::fgetc(f)) != EOF) data.push_back((unsigned char)c);
    std::fclose(f);
    return data;
}
template <class T> static T* to_device(const void* host, size_t bytes) {
    T* device = nullptr;
    hipMalloc((void**)&device, bytes);
    hipMemcpy(device, host, bytes, hipMemcpyHostToDevice);
    return device;
}
template <class T> static T* zeros(size_t count) {
    std::vector<T> host(count);
    return to_device<T>(host.data(), count * sizeof(T));
}
static std::vector<float> out;
template <class T> static void take(const T* device, size_t count) {
    std::vector<T> host(count);
    hipMemcpy(host.data(), device, count * sizeof(T), hipMemcpyDeviceToHost);
    for (auto v : host) out.push_back((float)v);
}
int main(int argc, char** argv) {
    std::vector<unsigned char> in = read_all(argv[1]);
    const unsigned char* p = in.data();
BODY
    hipDeviceSynchronize();
    FILE* f = std::fopen(argv[2], "wb");
    std::fwrite(out.data(), sizeof(float), out.size(), f);
    std::fclose(f);
    return 0;
}
"""


def program(kernels: str, body: str) -> str:
    return '#include "hipcpu_shim.h"\n' + kernels + MAIN.replace("BODY", body)
