"""The mask fixes ``rocport scan --fix`` applies to llm.c, executed: the 32-bit shuffle masks of
``matmul_backward_bias_kernel9`` (``llmc/matmul.cuh``, sub-warp shuffles of width 4) become
64-bit masks. Before the fix the kernel does not compile where HIP declares the mask-taking
shuffles (6.4 with ``-DHIP_ENABLE_WARP_SYNC_BUILTINS``, 7.2); after it, it computes the same bias
gradient under 64-lane semantics as with the mask dropped (what llm.c-amd's HIP layer does) and as
the CPU reference.

Sub-warp shuffles are outside what HIP-CPU gets right by itself, so the shim builds them on HIP's
own formula over a full-width ``__shfl``; the first test checks that shim against HIP's documented
semantics lane by lane.
"""

from __future__ import annotations

import math
import random
import struct
from pathlib import Path

import pytest

from . import _hipcpu
from .test_warp_execution import LLMC, _close, _fixed_copy, _function, llmc_prelude

pytestmark = pytest.mark.slow

WIDTHS = ((1, 4), (2, 4), (3, 8), (5, 16), (16, 32), (1, 64))
SHUFFLE_TEST = """
__global__ void shuffle_test(float* out) {
    int lane = threadIdx.x;
    int k = 0;
    for (auto [delta, width] : {DELTAS})
        out[(k++) * blockDim.x + lane] = __shfl_down_sync(~0ull, (float)lane, delta, width);
}
""".replace(
    "{DELTAS}", "{" + ", ".join(f"std::pair<int, int>{{{d}, {w}}}" for d, w in WIDTHS) + "}"
)
SHUFFLE_BODY = """
    float* o = zeros<float>(6 * 128);
    hipLaunchKernelGGL(shuffle_test, dim3(1), dim3(128), 0, 0, o);
    hipDeviceSynchronize();
    take(o, 6 * 128);
"""


def _shfl_down_reference(lane: int, delta: int, width: int) -> int:
    """HIP's __shfl_down on a 64-lane wavefront (HIP programming guide, warp shuffle functions:
    a source lane outside the caller's width segment leaves the caller's own value)."""
    self = lane % 64
    return lane if (self % width) + delta >= width else lane + delta


def test_sub_warp_shuffle_shim_follows_hip_semantics(tmp_path: Path) -> None:
    _hipcpu.include_dir()
    source = _hipcpu.program("#include <utility>\n" + SHUFFLE_TEST, SHUFFLE_BODY)
    got = list(_hipcpu.run(_hipcpu.build(source, tmp_path), b"", tmp_path))
    want = [float(_shfl_down_reference(lane, d, w)) for d, w in WIDTHS for lane in range(128)]
    assert got == want


#: HIP-CPU numbers the threads of a multi-dimensional block z fastest (``extrude`` in its
#: detail/types.hpp), AMD x fastest, so its wavefronts would hold other threads: the kernel runs in
#: a 1-D block of 128 and sees the (4, 8, 4) block AMD lays out, x fastest
AMD_BLOCK = """
__device__ inline dim3 rocport_amd_thread_idx() {
    return dim3(threadIdx.x % 4, threadIdx.x / 4 % 8, threadIdx.x / 32);
}
#define threadIdx rocport_amd_thread_idx()
#define blockDim dim3(4, 8, 4)
"""
OC, BT = 64, 48  # output channels (2 blocks of 32) and rows of dout (B * T)
BIAS_BODY = f"""
    const float* h = (const float*)p;
    float* dout = to_device<float>(h, {BT * OC} * 4); h += {BT * OC};
    float* dbias = to_device<float>(h, {OC} * 4);
    auto kernel = matmul_backward_bias_kernel9<float, false>;
    // llm.c's launch shape (4, 8, block_size / WARP_SIZE) with 4 in z (AMD_BLOCK), so that every
    // lane of the block reaches each shuffle (HIP-CPU's shuffles are block-wide); one block in y,
    // as llm.c launches the UseAuxBuffer=false form
    hipLaunchKernelGGL(kernel, dim3({OC // 32}, 1), dim3(128), 0, 0,
                       dbias, dout, {BT}, 1, {OC}, std::bool_constant<false>{{}});
    hipDeviceSynchronize();
    take(dbias, {OC});
"""


def _bias_inputs() -> tuple[bytes, list[float]]:
    rng = random.Random(7)
    dout = [rng.uniform(-1, 1) for _ in range(BT * OC)]
    dbias = [rng.uniform(-1, 1) for _ in range(OC)]
    dout = [struct.unpack("f", struct.pack("f", v))[0] for v in dout]
    ref = [dbias[oc] + math.fsum(dout[bt * OC + oc] for bt in range(BT)) for oc in range(OC)]
    return struct.pack(f"{BT * OC + OC}f", *dout, *dbias), ref


def _packed128(utils: str) -> str:
    """Packed128 and its load/store helpers, as cuda_utils.cuh has them."""
    start = utils.index("template<class ElementType>\nstruct alignas(16) Packed128")
    return utils[start : utils.index("\n// ---", start)]


def _bias_program(tree: Path, hip_masks: bool) -> str:
    prelude, utils = llmc_prelude(tree)
    kernels = (
        prelude
        + _packed128(utils)
        + "\ntypedef Packed128<floatX> x128;\n"
        + _function((tree / "llmc" / "matmul.cuh").read_text(), "matmul_backward_bias_kernel9")
    )
    prefix = "#define ROCPORT_HIP_SYNC_MASKS\n" if hip_masks else ""
    return prefix + _hipcpu.program(
        AMD_BLOCK + kernels + "#undef threadIdx\n#undef blockDim\n", BIAS_BODY
    )


@pytest.mark.parametrize("mode", ["safe", "unsafe"])
def test_mask_fix_of_matmul_backward_bias(mode: str, tmp_path: Path) -> None:
    _hipcpu.include_dir()
    inputs, ref = _bias_inputs()
    original = _fixed_copy(LLMC, tmp_path, "as-is")
    fixed = _fixed_copy(LLMC, tmp_path, mode)
    kernel = _function((fixed / "llmc" / "matmul.cuh").read_text(), "matmul_backward_bias_kernel9")
    assert "0xffffffff," not in kernel and kernel.count("0xffffffffffffffffULL") == 4

    exe, errors = _hipcpu.try_build(_bias_program(original, hip_masks=True), tmp_path / "before")
    assert exe is None and "The mask must be a 64-bit integer" in errors
    dropped = _hipcpu.build(_bias_program(original, hip_masks=False), tmp_path / "dropped")
    before = list(_hipcpu.run(dropped, inputs, tmp_path / "dropped"))
    after_exe = _hipcpu.build(_bias_program(fixed, hip_masks=True), tmp_path / "after")
    after = list(_hipcpu.run(after_exe, inputs, tmp_path / "after"))
    assert after == before
    assert _close(after, ref)
