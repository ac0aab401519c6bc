"""The 64-lane CPU path: ports made by rocport, built with HIP-CPU at 64 lanes and compared with
the same port at 32 lanes (what the CUDA original computes on a 32-lane warp).

Kernels are cut from ../shared/corpus at test time (llm.c's warp and block reductions) or
written here; the known 64-lane bugs are a ``warpSize / 2`` reduction that keeps 32-lane warp
indices, and a 32-bit ballot counted with ``__popc`` by a ``% 32`` leader.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocport.verify import Status, VerifyOptions, verify

from .conftest import CORPUS, ROOT, port

pytestmark = pytest.mark.slow

LLMC = CORPUS / "llm.c" / "llmc" / "cuda_utils.cuh"

HARNESS = """#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define WARP_SIZE 32
%s
int main() {
    const int n = 100000;
    float* h = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) h[i] = (float)((i %% 13) - 5);
    float *d, *r, out = 0.0f;
    cudaMalloc(&d, n * sizeof(float));
    cudaMalloc(&r, sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    global_sum_single_block_kernel<float><<<1, 512>>>(r, d, n);
    cudaMemcpy(&out, r, sizeof(float), cudaMemcpyDeviceToHost);
    printf("sum %%.1f\\n", out);
    return 0;
}
"""

BALLOT = """#include <cstdio>
#include <cuda_runtime.h>
__global__ void count_positive(const float* in, unsigned* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool positive = in[i] > 0.0f;
    %s
}
int main() {
    const int n = 256 * 64;
    float h[n];
    for (int i = 0; i < n; ++i) h[i] = (i %% 64) < 16 ? 1.0f : -1.0f;  // lanes 0-15 of 64
    float* d;
    unsigned* c;
    unsigned count = 0;
    cudaMalloc(&d, sizeof(h));
    cudaMalloc(&c, sizeof(unsigned));
    cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
    cudaMemset(c, 0, sizeof(unsigned));
    count_positive<<<n / 256, 256>>>(d, c);
    cudaMemcpy(&count, c, sizeof(unsigned), cudaMemcpyDeviceToHost);
    printf("positive %%u\\n", count);
    return 0;
}
"""
BALLOT_32 = """unsigned ballot = __ballot_sync(0xffffffff, positive);
    if (threadIdx.x % 32 == 0) atomicAdd(count, __popc(ballot));"""
BALLOT_64 = """unsigned long long ballot = __ballot_sync(0xffffffff, positive);
    if (threadIdx.x % warpSize == 0) atomicAdd(count, (unsigned)__popcll(ballot));"""


def _cut(text: str, start: str) -> str:
    """From ``start`` to the end of the function (brace-matched) that it begins."""
    at = text.index(start)
    depth, i = 0, text.index("{", at)
    while True:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            return text[at:i]


def _llmc_reduction() -> str:
    if not LLMC.is_file():
        pytest.skip(f"{LLMC} is missing (the corpus lives in ../shared/corpus)")
    text = LLMC.read_text()
    return "\n".join(
        [
            _cut(text, "__device__ inline float warpReduceSum"),
            text[text.index("using reduction_func_t") : text.index("template<reduction_func_t")],
            _cut(text, "template<reduction_func_t warp_reduction>"),
            _cut(text, "template<class Float>\n__global__ void global_sum_single_block_kernel"),
        ]
    )


def _verify(tmp: Path, name: str, cuda: str, hip_cpu: Path):
    src = tmp / name
    src.write_text(cuda)
    out = port(src, tmp / f"hip-{name}")
    return verify(src, out, VerifyOptions(path="cpu", hip_cpu=hip_cpu, timeout=60)).programs[0]


def test_llmc_block_reduction_is_right_at_64_lanes(tmp_path: Path, hip_cpu: Path) -> None:
    program = _verify(tmp_path, "llmc_sum.cu", HARNESS % _llmc_reduction(), hip_cpu)
    assert program.status is Status.SAME, (program.reason, program.difference)
    assert program.outside_limits == []


def test_half_warp_reduction_with_32_lane_indices_is_caught(tmp_path: Path, hip_cpu: Path) -> None:
    """A translator's change: the shuffles start at warpSize / 2, the warp index stays % 32."""
    cut = _llmc_reduction().replace("for (int offset = 16;", "for (int offset = warpSize / 2;")
    program = _verify(tmp_path, "llmc_sum_half.cu", HARNESS % cut, hip_cpu)
    assert program.status is Status.DIFFERS
    assert program.difference.what == "stdout"
    assert program.difference.reference == "sum 99982.0"  # the true sum: what 32 lanes give
    fixed = re.sub(r"(threadIdx\.x|blockDim\.x) ([%/]) WARP_SIZE", r"\1 \2 warpSize", cut)
    assert fixed != cut
    program = _verify(tmp_path, "llmc_sum_fixed.cu", HARNESS % fixed, hip_cpu)
    assert program.status is Status.SAME, (program.reason, program.difference)


def test_32_bit_ballot_is_caught_and_64_bit_form_passes(tmp_path: Path, hip_cpu: Path) -> None:
    program = _verify(tmp_path, "ballot32.cu", BALLOT % BALLOT_32, hip_cpu)
    assert program.status is Status.DIFFERS
    assert (program.difference.reference, program.difference.ported) == (
        "positive 4096",
        "positive 8192",
    )
    program = _verify(tmp_path, "ballot64.cu", BALLOT % BALLOT_64, hip_cpu)
    assert program.status is Status.SAME, (program.reason, program.difference)


EXPECTED_EXAMPLES = {
    "vector_add.cu": Status.SAME,
    "constant_memory.cu": Status.SAME,
    "warp_reduce.cu": Status.NOT_JUDGED,
    "cublas_gemm.cu": Status.NOT_COVERED,
    "cooperative_groups.cu": Status.NOT_COVERED,
}


def test_bundled_examples(tmp_path: Path, hip_cpu: Path) -> None:
    src = tmp_path / "cuda"
    src.mkdir()
    for name in [*EXPECTED_EXAMPLES, "device_helpers.cuh"]:
        (src / name).write_bytes((ROOT / "examples" / "cuda" / name).read_bytes())
    out = port(src, tmp_path / "hip")
    report = verify(src, out, VerifyOptions(path="cpu", hip_cpu=hip_cpu, timeout=60))
    found = {p.name: p for p in report.programs}
    assert {name: p.status for name, p in found.items()} == EXPECTED_EXAMPLES
    limits = found["warp_reduce.cu"].outside_limits
    assert [(k.kernel, k.line) for k in limits] == [("block_sum", 46)]
    assert "hipBLAS" in found["cublas_gemm.cu"].reason
    assert report.exit_code == 2


SHUFFLE = """#include <cstdio>
#include <cuda_runtime.h>
__global__ void warp_totals(const int* in, int* out) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % 32 == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
int main() {
    const int n = 4096;
    int h[n], w[n / 32], *d, *o;
    for (int i = 0; i < n; ++i) h[i] = (i * 37) % 101;
    cudaMalloc(&d, sizeof(h));
    cudaMalloc(&o, sizeof(w));
    cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
    warp_totals<<<n / 256, 256>>>(d, o);
    cudaMemcpy(w, o, sizeof(w), cudaMemcpyDeviceToHost);
    long total = 0;
    for (int k = 0; k < n / 32; ++k) total += w[k];
    printf("total %ld\\n", total);
    return 0;
}
"""


def test_broken_shuffle_direction_is_caught_against_expected(tmp_path: Path, hip_cpu: Path) -> None:
    """Lane 0 of each 32-lane group reads only lanes 0-31, so the right port prints the true
    total on 64 lanes too; a port whose __shfl_down became __shfl_up does not."""
    src = tmp_path / "shuffle.cu"
    src.write_text(SHUFFLE)
    good = port(src, tmp_path / "shuffle-hip.cu")
    broken = tmp_path / "broken" / "shuffle-hip.cu"
    broken.parent.mkdir()
    broken.write_text(good.read_text().replace("__shfl_down(", "__shfl_up("))
    assert broken.read_text() != good.read_text()
    expected = tmp_path / "expected.txt"
    expected.write_text(f"total {sum((i * 37) % 101 for i in range(4096))}\n")
    options = VerifyOptions(path="cpu", hip_cpu=hip_cpu, expected=expected, timeout=60)
    assert verify(src, good, options).programs[0].status is Status.SAME
    program = verify(src, broken, options).programs[0]
    assert program.status is Status.DIFFERS
    assert program.difference.reference == expected.read_text().strip()


def test_folder_program_with_c_sources(tmp_path: Path, hip_cpu: Path) -> None:
    """C files of a program are compiled as C (Rodinia's backprop.c, timer.c), the rest as HIP."""
    src = tmp_path / "prog"
    src.mkdir()
    (src / "timer.c").write_text(
        "#include <sys/time.h>\n"
        "double now(void) { struct timeval t; gettimeofday(&t, 0); return t.tv_sec; }\n"
        "int scale(int x) { int new = 3; return x * new; }\n"  # `new` is C, not C++
    )
    (src / "main.cu").write_text(
        '#include <cstdio>\n#include <cuda_runtime.h>\nextern "C" int scale(int);\n'
        "__global__ void k(int* a) { a[threadIdx.x] = threadIdx.x; }\n"
        "int main() { int h[64], *d; cudaMalloc(&d, sizeof(h)); k<<<1, 64>>>(d);\n"
        "  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);\n"
        '  printf("%d\\n", scale(h[63])); return 0; }\n'
    )
    out = port(src, tmp_path / "prog-hip")
    program = verify(src, out, VerifyOptions(path="cpu", hip_cpu=hip_cpu, timeout=60)).programs[0]
    assert program.status is Status.SAME, (program.reason, program.difference)
    assert [b.ok for b in program.builds] == [True, True]
