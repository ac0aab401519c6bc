"""Warp fixes executed: kernels cut from the corpus run before and after ``rocport scan --fix``
(and ``--unsafe-fixes``) under 64-lane wavefront semantics (HIP-CPU), against CPU references.

llm.c's kernels (block reductions, layernorm, softmax) use 32 lanes everywhere and so compute
the right results on 64 lanes; the scan must leave them right. The per-site fixes the scan once
offered are reproduced to show what they did (a shuffle loop moved alone: 4x the block sum, rows
of layernorm mixed; ``tid / 32`` moved alone in ggml's q2_K/q6_K dequantization: wrong values),
and the grouped fix is run on a 32-lane and on a mixed variant of the block reduction.
"""

from __future__ import annotations

import math
import random
import shutil
import struct
from pathlib import Path

import pytest

from rocport.cli.main import main
from rocport.scan.context import CudaSource

from . import _hipcpu

CORPUS = Path(__file__).parents[2].parent / "shared" / "corpus"
LLMC = CORPUS / "llm.c"
GGML = CORPUS / "llama.cpp-ggml"

pytestmark = pytest.mark.slow


def _corpus(tree: Path) -> Path:
    if not tree.is_dir():
        pytest.skip(f"corpus tree {tree} not found")
    return tree


def _scan(args: list[str]) -> int:
    try:
        main(["scan", *args])
    except SystemExit as exc:
        return exc.code or 0
    return 0


def _fixed_copy(tree: Path, tmp: Path, mode: str) -> Path:
    """A copy of ``tree`` after ``rocport scan --fix`` (``safe``/``unsafe``), or as it is."""
    copy = tmp / f"{tree.name}-{mode}"
    shutil.copytree(_corpus(tree), copy)
    if mode != "as-is":
        extra = ["--unsafe-fixes"] if mode == "unsafe" else []
        _scan([str(copy), "--fix", "--no-backup", "-j1", *extra])
    return copy


def _function(text: str, name: str) -> str:
    """The definition of ``name`` with the ``template<...>`` line before it."""
    src = CudaSource("cut.cu", text)
    function = next(f for f in src.functions if f.name == name)
    start = text.rfind("\n", 0, function.start) + 1
    previous = text.rfind("\n", 0, start - 1) + 1
    if text[previous:start].lstrip().startswith("template"):
        start = previous
    return text[start : function.body[1] + 1] + "\n"


def _between(text: str, first: str, stop: str) -> str:
    return text[text.index(first) : text.index(stop)]


# -- llm.c ------------------------------------------------------------------------------

LLMC_PRELUDE = """
typedef float floatX;
__device__ static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }  // not in HIP-CPU
#define __stcs(p, v) (*(p) = (v))
#define __ldcs(p) (*(p))
"""
REDUCE_TEST = """
__global__ void block_reduce_test(const float* in, float* out) {
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    float s = blockReduce<warpReduceSum>(v);
    float m = blockReduce<warpReduceMax>(v);
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = s; out[2 * blockIdx.x + 1] = m; }
}
"""
B, T = 4, 256  # blocks of 256 threads: 8 warps of 32, 4 wavefronts of 64
N, C = 16, 96  # layernorm rows and channels (8 rows per block of 256)
SN, ST = 2, 32  # softmax: SN * ST rows of ST
REDUCE_BODY = """
    const float* h = (const float*)p;
    float* red_in = to_device<float>(h, B * T * 4); h += B * T;
    float* red_out = zeros<float>(2 * B);
    hipLaunchKernelGGL(block_reduce_test, dim3(B), dim3(T), 0, 0, red_in, red_out);
    hipDeviceSynchronize();
    take(red_out, 2 * B);
"""
LLMC_BODY = (
    REDUCE_BODY
    + """
    float* ln_in = to_device<float>(h, N * C * 4); h += N * C;
    float* ln_w = to_device<float>(h, C * 4); h += C;
    float* ln_b = to_device<float>(h, C * 4); h += C;
    float* ln_out = zeros<float>(N * C);
    float* ln_mean = zeros<float>(N);
    float* ln_rstd = zeros<float>(N);
    hipLaunchKernelGGL(layernorm_forward_kernel3, dim3(N / 8), dim3(256), 0, 0,
                       ln_out, ln_mean, ln_rstd, ln_in, ln_w, ln_b, N, C);
    hipDeviceSynchronize();
    take(ln_out, N * C); take(ln_mean, N); take(ln_rstd, N);
    float* sm_in = to_device<float>(h, SN * ST * ST * 4); h += SN * ST * ST;
    float* sm_out = zeros<float>(SN * ST * ST);
    hipLaunchKernelGGL(softmax_forward_kernel5, dim3(SN * ST / 8), dim3(256), 0, 0,
                       sm_out, 0.5f, sm_in, SN, ST);
    take(sm_out, SN * ST * ST);
"""
)
SIZES = f"const int B = {B}, T = {T}, N = {N}, C = {C}, SN = {SN}, ST = {ST};\n"


def _llmc_inputs() -> tuple[bytes, list[float]]:
    """Inputs and the CPU reference of the three kernels."""
    rng = random.Random(20)
    reduce_in = [rng.uniform(-1, 1) for _ in range(B * T)]
    for b in range(B):
        reduce_in[b * T + 40] = 5.0  # in lanes 32-63 of the first wavefront
    reduce_in = [struct.unpack("f", struct.pack("f", v))[0] for v in reduce_in]
    ref = []
    for b in range(B):
        block = reduce_in[b * T : (b + 1) * T]
        ref += [math.fsum(block), max(block)]
    ln_in = [rng.uniform(-2, 2) for _ in range(N * C)]
    weight = [rng.uniform(0.5, 1.5) for _ in range(C)]
    bias = [rng.uniform(-0.5, 0.5) for _ in range(C)]
    outs, means, rstds = [], [], []
    for row in range(N):
        x = ln_in[row * C : (row + 1) * C]
        mean = math.fsum(x) / C
        rstd = 1 / math.sqrt(math.fsum((v - mean) ** 2 for v in x) / C + 1e-5)
        outs += [(v - mean) * rstd * w + c for v, w, c in zip(x, weight, bias, strict=True)]
        means.append(mean)
        rstds.append(rstd)
    ref += outs + means + rstds
    sm_in = [rng.uniform(-3, 3) for _ in range(SN * ST * ST)]
    for row in range(SN * ST):
        own = row % ST
        x = sm_in[row * ST : row * ST + own + 1]
        top = max(x)
        exps = [math.exp(0.5 * (v - top)) for v in x]
        total = math.fsum(exps)
        ref += [e / total for e in exps] + [0.0] * (ST - own - 1)
    data = struct.pack(f"{len(reduce_in)}f", *reduce_in)
    for part in (ln_in, weight, bias, sm_in):
        data += struct.pack(f"{len(part)}f", *part)
    return data, ref


def llmc_prelude(tree: Path) -> tuple[str, str]:
    """(the kernels' prelude with llm.c's WARP_SIZE definition, llmc/cuda_utils.cuh)."""
    common = (tree / "llmc" / "cuda_common.h").read_text()
    warp_size = next(line for line in common.splitlines() if "define WARP_SIZE" in line)
    return LLMC_PRELUDE + warp_size + "\n", (tree / "llmc" / "cuda_utils.cuh").read_text()


def _llmc_program(tree: Path) -> str:
    prelude, utils = llmc_prelude(tree)
    kernels = (
        SIZES
        + prelude
        + _reduction(utils)
        + REDUCE_TEST
        + _function((tree / "llmc" / "layernorm.cuh").read_text(), "layernorm_forward_kernel3")
        + _function((tree / "llmc" / "attention.cuh").read_text(), "softmax_forward_kernel5")
    )
    return _hipcpu.program(kernels, LLMC_BODY)


def _reduction(utils: str) -> str:
    """warpReduceSum, warpReduceMax and blockReduce as llm.c's cuda_utils.cuh has them."""
    return _between(
        utils, "__device__ inline float warpReduceSum", "// Performs a _deterministic_ sum"
    )


def _run(source: str, inputs: bytes, tmp: Path) -> list[float]:
    exe = _hipcpu.build(source, tmp / "build")
    return list(_hipcpu.run(exe, inputs, tmp / "build"))


def _close(got: list[float], want: list[float]) -> bool:
    return len(got) == len(want) and all(
        math.isclose(g, w, rel_tol=1e-4, abs_tol=1e-5) for g, w in zip(got, want, strict=True)
    )


@pytest.mark.parametrize("mode", ["as-is", "safe", "unsafe"])
def test_llmc_kernels_stay_right_on_64_lanes(mode: str, tmp_path: Path) -> None:
    _hipcpu.include_dir()
    tree = _fixed_copy(LLMC, tmp_path, mode)
    if mode != "as-is":  # the fix did change these files (the 32-bit shuffle masks)
        fixed = (tree / "llmc" / "cuda_utils.cuh").read_text()
        assert "0xFFFFFFFF" not in _reduction(fixed) and "0xffffffffffffffffULL" in fixed
    inputs, ref = _llmc_inputs()
    got = _run(_llmc_program(tree), inputs, tmp_path)
    assert _close(got[: 2 * B], ref[: 2 * B]), (got[: 2 * B], ref[: 2 * B])
    assert _close(got, ref)


def test_shuffle_loop_moved_alone_breaks_llmc(tmp_path: Path) -> None:
    """What the per-site fix once did to llm.c: 4x the block sum and rows of layernorm mixed.
    The scan no longer offers it: the loop is a note whose fix, if any, moves the whole model."""
    _hipcpu.include_dir()
    tree = _fixed_copy(LLMC, tmp_path, "as-is")
    utils = tree / "llmc" / "cuda_utils.cuh"
    assert _scan([str(utils), "--select", "RP105", "--fail-on", "warning", "--format", "json"]) == 0
    utils.write_text(utils.read_text().replace("int offset = 16;", "int offset = warpSize / 2;"))
    inputs, ref = _llmc_inputs()
    got = _run(_llmc_program(tree), inputs, tmp_path)
    sums, want = got[0 : 2 * B : 2], ref[0 : 2 * B : 2]
    assert _close(sums, [4 * s for s in want]), (sums, want)
    layernorm = slice(2 * B, 2 * B + N * C)
    assert not _close(got[layernorm], ref[layernorm])


def _reduce_program(kernels: str) -> str:
    return _hipcpu.program(SIZES + kernels, REDUCE_BODY)


def _reduce_variant(tmp: Path, name: str, edit) -> Path:
    """A .cu file with llm.c's block reduction written with literal 32s, edited by ``edit``."""
    utils = (_corpus(LLMC) / "llmc" / "cuda_utils.cuh").read_text()
    literal = _reduction(utils).replace("WARP_SIZE", "32")
    folder = tmp / name
    folder.mkdir()
    (folder / "hipcpu_shim.h").write_text(_hipcpu.SHIM)
    path = folder / "reduce.cu"
    path.write_text('#include "hipcpu_shim.h"\n' + edit(literal) + REDUCE_TEST)
    return path


def _reduce_inputs() -> tuple[bytes, list[float]]:
    data, ref = _llmc_inputs()
    return data[: B * T * 4], ref[: 2 * B]


def test_grouped_fix_of_consistent_32_lane_reduction(tmp_path: Path) -> None:
    """32 lanes everywhere: right on 64 lanes, a note; --fix leaves it, --unsafe-fixes moves
    the shuffle loops and the lane math together, and the sums stay right."""
    _hipcpu.include_dir()
    path = _reduce_variant(tmp_path, "consistent", lambda text: text)
    inputs, ref = _reduce_inputs()
    before = path.read_text()
    assert _close(_run(_reduce_program(before), inputs, tmp_path), ref)
    assert _scan([str(path), "--select", "RP1", "--fail-on", "warning", "--format", "json"]) == 0
    _scan([str(path), "--fix", "--no-backup"])
    assert path.read_text() == before
    _scan([str(path), "--fix", "--unsafe-fixes", "--no-backup"])
    after = path.read_text()
    assert "offset = warpSize / 2" in after and "threadIdx.x % warpSize" in after
    assert "threadIdx.x / warpSize" in after and "blockDim.x / warpSize" in after
    assert _close(_run(_reduce_program(after), inputs, tmp_path), ref)


def test_grouped_fix_of_mixed_reduction(tmp_path: Path) -> None:
    """Lane ids by warpSize, warp ids and shuffle loops by 32: the block max loses the 5.0 of
    lanes 32-63; the scan reports it and --fix moves every 32-lane spot, which makes it right."""
    _hipcpu.include_dir()
    mixed = _reduce_variant(
        tmp_path, "mixed", lambda text: text.replace("threadIdx.x % 32", "threadIdx.x % warpSize")
    )
    inputs, ref = _reduce_inputs()
    got = _run(_reduce_program(mixed.read_text()), inputs, tmp_path)
    assert [got[1 + 2 * b] for b in range(B)] != [5.0] * B
    assert _scan([str(mixed), "--select", "RP103,RP105", "--format", "json"]) == 1
    _scan([str(mixed), "--fix", "--no-backup"])
    after = mixed.read_text()
    assert "offset = 16" not in after and "threadIdx.x / warpSize" in after
    assert _close(_run(_reduce_program(after), inputs, tmp_path), ref)
    assert _scan([str(mixed), "--select", "RP103,RP105", "--format", "json"]) == 0


# -- ggml -------------------------------------------------------------------------------

GGML_PRELUDE = """
#define QK_K 256
struct half2_shim { float x, y; };  // the two halves of ggml's dm, as floats
__host__ __device__ static inline float __low2half(half2_shim h) { return h.x; }
__host__ __device__ static inline float __high2half(half2_shim h) { return h.y; }
typedef struct { uint8_t scales[QK_K / 16]; uint8_t qs[QK_K / 4]; half2_shim dm; } block_q2_K;
typedef struct { uint8_t ql[QK_K / 2]; uint8_t qh[QK_K / 4]; int8_t scales[QK_K / 16]; float d; }
    block_q6_K;
"""
NB = 6  # super-blocks of 256 values
GGML_BODY = f"""
    const int nb = {NB};
    block_q2_K* q2 = to_device<block_q2_K>(p, nb * sizeof(block_q2_K));
    p += nb * sizeof(block_q2_K);
    block_q6_K* q6 = to_device<block_q6_K>(p, nb * sizeof(block_q6_K));
    float* y2 = zeros<float>(nb * QK_K);
    float* y6 = zeros<float>(nb * QK_K);
    hipLaunchKernelGGL(dequantize_block_q2_K<float>, dim3(nb), dim3(64), 0, 0, q2, y2);
    hipLaunchKernelGGL(dequantize_block_q6_K<float>, dim3(nb), dim3(64), 0, 0, q6, y6);
    hipDeviceSynchronize();
    take(y2, nb * QK_K);
    take(y6, nb * QK_K);
"""


def _ggml_inputs() -> tuple[bytes, list[float]]:
    """q2_K and q6_K super-blocks and their values as ggml's CPU dequantization gives them."""
    rng = random.Random(6)
    data, y2, y6 = b"", [], []
    for _ in range(NB):
        scales, qs = bytes(rng.randrange(256) for _ in range(16)), rng.randbytes(64)
        d, dmin = rng.uniform(0.01, 0.1), rng.uniform(0.0, 0.05)
        data += struct.pack("<16s64s2f", scales, qs, d, dmin)
        d, dmin = struct.unpack("<2f", struct.pack("<2f", d, dmin))
        block = [0.0] * 256
        for n in range(2):
            for j in range(4):
                for lane in range(32):
                    sc = scales[8 * n + 2 * j + lane // 16]
                    q = (qs[32 * n + lane] >> (2 * j)) & 3
                    block[128 * n + 32 * j + lane] = d * (sc & 0xF) * q - dmin * (sc >> 4)
        y2 += block
    for _ in range(NB):
        ql, qh = rng.randbytes(128), rng.randbytes(64)
        sc = [rng.randrange(-128, 128) for _ in range(16)]
        d = struct.unpack("<f", struct.pack("<f", rng.uniform(0.001, 0.01)))[0]
        data += struct.pack("<128s64s16bf", ql, qh, *sc, d)
    for index in range(NB):
        ql, qh, *rest = struct.unpack_from("<128s64s16bf", data, NB * 88 + index * 212)
        sc, d = rest[:16], rest[16]
        block = [0.0] * 256
        for n in range(2):
            for lane in range(32):
                s = 8 * n + lane // 16
                a, b, h = ql[64 * n + lane], ql[64 * n + lane + 32], qh[32 * n + lane]
                q1 = ((a & 0xF) | (((h >> 0) & 3) << 4)) - 32
                q2 = ((b & 0xF) | (((h >> 2) & 3) << 4)) - 32
                q3 = ((a >> 4) | (((h >> 4) & 3) << 4)) - 32
                q4 = ((b >> 4) | (((h >> 6) & 3) << 4)) - 32
                base = 128 * n + lane
                block[base] = d * sc[s] * q1
                block[base + 32] = d * sc[s + 2] * q2
                block[base + 64] = d * sc[s + 4] * q3
                block[base + 96] = d * sc[s + 6] * q4
        y6 += block
    return data, y2 + y6


def _ggml_program(convert: str) -> str:
    kernels = GGML_PRELUDE + "".join(
        _function(convert, name) for name in ("dequantize_block_q2_K", "dequantize_block_q6_K")
    )
    return _hipcpu.program(kernels, GGML_BODY)


CONVERT = Path("ggml") / "src" / "ggml-cuda" / "convert.cu"


@pytest.mark.parametrize("mode", ["as-is", "safe", "unsafe"])
def test_ggml_dequantization_stays_right_on_64_lanes(mode: str, tmp_path: Path) -> None:
    _hipcpu.include_dir()
    tree = _fixed_copy(GGML, tmp_path, mode)
    convert = (tree / CONVERT).read_text()
    original = (GGML / CONVERT).read_text()
    for name in ("dequantize_block_q2_K", "dequantize_block_q6_K"):
        assert _function(convert, name) == _function(original, name)
    inputs, ref = _ggml_inputs()
    assert _close(_run(_ggml_program(convert), inputs, tmp_path), ref)


def test_tid_by_warp_size_alone_breaks_ggml_dequantization(tmp_path: Path) -> None:
    """``tid / 32`` tiles data here (with ``32 * n`` beside it): moving it alone to warpSize,
    as the scan once planned, gives wrong values on 64 lanes; the scan reports nothing there."""
    _hipcpu.include_dir()
    convert = (_corpus(GGML) / CONVERT).read_text()
    broken = convert.replace("tid/32;", "tid/warpSize;")
    assert broken.count("tid/warpSize;") == 2
    inputs, ref = _ggml_inputs()
    assert not _close(_run(_ggml_program(broken), inputs, tmp_path), ref)
    path = tmp_path / "convert.cu"
    path.write_text(convert)
    assert _scan([str(path), "--select", "RP103", "--format", "json"]) == 0
