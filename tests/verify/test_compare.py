"""Comparison, normalising and the static limits of the 64-lane CPU path, on small texts."""

from __future__ import annotations

from rocport.verify.compare import Tolerance, compare_binary, compare_runs, unstable_lines
from rocport.verify.limits import libraries, outside_limits
from rocport.verify.model import Run
from rocport.verify.normalise import Normaliser

EXACT = Tolerance()


def _runs(a: str, b: str, **kw):
    return compare_runs(Run(0, a, ""), Run(0, b, ""), normalise=Normaliser.build(), tol=EXACT, **kw)


def test_exact_by_default_and_first_difference_has_both_sides() -> None:
    assert _runs("sum 1.0\nok\n", "sum 1.0\nok\n") is None
    diff = _runs("sum 1.0\nok\n", "sum 1.0000001\nok\n")
    assert (diff.what, diff.line, diff.reference, diff.ported) == (
        "stdout",
        1,
        "sum 1.0",
        "sum 1.0000001",
    )
    assert _runs("a\n", "a\nb\n").ported == "b"


def test_exit_code_is_compared_first() -> None:
    diff = compare_runs(Run(0, "x", ""), Run(1, "y", ""), normalise=str, tol=EXACT)
    assert (diff.what, diff.reference, diff.ported) == ("exit code", "0", "1")


def test_tolerance_applies_to_numbers_only() -> None:
    tol = Tolerance(rtol=1e-5)
    norm = Normaliser.build()
    a, b = Run(0, "sum 1.0 of 3\n", ""), Run(0, "sum 1.000001 of 3\n", "")
    assert compare_runs(a, b, normalise=norm, tol=tol) is None
    c = Run(0, "sum 1.000001 off 3\n", "")
    assert compare_runs(a, c, normalise=norm, tol=tol) is not None
    assert compare_runs(a, Run(0, "sum 1.1 of 3\n", ""), normalise=norm, tol=tol) is not None


def test_masks_hide_addresses_and_timings() -> None:
    norm = Normaliser.build()
    assert norm("ptr 0x7ffd1234abcd time: 1.23 ms, 812.5 GB/s") == norm(
        "ptr 0x7ffd9999abcd time: 4.5 ms, 790 GB/s"
    )
    assert norm("value 0x10") != norm("value 0x20")  # short hex is data, not an address
    assert Normaliser.build((r"seed=\d+",))("seed=42") == "<*>"


def test_unstable_lines_are_skipped() -> None:
    unstable = unstable_lines("a\nt=1\nc\n", "a\nt=2\nc\n")
    assert unstable == {1}
    assert _runs("a\nt=1\nc\n", "a\nt=9\nc\n", unstable={"stdout": unstable}) is None
    assert _runs("a\nt=1\nc\n", "a\nt=9\nd\n", unstable={"stdout": unstable}).line == 3


def test_binary_float_arrays() -> None:
    import array

    a = array.array("f", [1.0, 2.0, 3.0]).tobytes()
    b = array.array("f", [1.0, 2.0000002, 3.0]).tobytes()
    diff = compare_binary("file out.bin", a, b, EXACT, "f32")
    assert (diff.line, diff.unit, diff.where()) == (1, "element", "file out.bin, element 1")
    assert compare_binary("file out.bin", a, b, Tolerance(rtol=1e-6), "f32") is None
    assert compare_binary("file out.bin", a, a[:-4], Tolerance(rtol=1e-6), "f32") is not None


DIVERGENT = """
__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);
    return v;
}
__global__ void whole(float* out) {
    float v = warp_sum(threadIdx.x);
    if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}
__global__ void half(float* out) {
    const int warp = threadIdx.x / 32;
    float v = threadIdx.x;
    if (warp == 0) {
        v = warp_sum(v);
    }
    out[threadIdx.x] = v;
}
__global__ void early(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = __ballot(out[i] > 0);
}
__global__ void narrow(float* out) {
    out[threadIdx.x] = __shfl_xor(out[threadIdx.x], 1, 32);
}
"""


def test_outside_limits_finds_divergent_and_narrow_cross_lane_calls() -> None:
    found = {(limit.kernel, limit.reason.split(" ")[0]) for limit in outside_limits(DIVERGENT)}
    assert found == {("half", "warp_sum"), ("early", "__ballot"), ("narrow", "__shfl_xor")}
    narrow = [limit for limit in outside_limits(DIVERGENT) if limit.kernel == "narrow"]
    assert "width 32" in narrow[0].reason and narrow[0].line == 24


def test_libraries() -> None:
    text = "#include <hipblas/hipblas.h>\n#include <thrust/sort.h>\n#include <cstdio>\n"
    assert libraries(text) == ["hipBLAS", "Thrust"]


def test_programs_of_a_folder(tmp_path) -> None:
    from rocport.verify.build import parse_errors
    from rocport.verify.engine import pair_programs

    for side in ("cuda", "hip"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "main.cu").write_text('#include "kernel.cu"\nint main() {}\n')
        (tmp_path / side / "kernel.cu").write_text("__global__ void k() {}\n")
        (tmp_path / side / "util.cpp").write_text("int helper() { return 1; }\n")
    ((cuda, port),) = pair_programs(tmp_path / "cuda", tmp_path / "hip")
    assert [s.name for s in cuda.sources] == ["main.cu", "util.cpp"]  # kernel.cu is included
    assert [s.name for s in port.sources] == ["main.cu", "util.cpp"]
    (tmp_path / "cuda" / "two.cu").write_text("int main() { return 2; }\n")
    (tmp_path / "hip" / "two.hip").write_text("int main() { return 2; }\n")
    names = [
        (c.name, p.sources[0].name) for c, p in pair_programs(tmp_path / "cuda", tmp_path / "hip")
    ]
    assert names == [("main.cu", "main.cu"), ("two.cu", "two.hip")]
    log = "/usr/bin/ld: a.o: in function `main':\na.cu:(.text+0x5): undefined reference to `f()'\n"
    assert [
        e.message for e in parse_errors(log + "collect2: error: ld returned 1 exit status\n")
    ] == ["a.cu:(.text+0x5): undefined reference to `f()'"]
    assert parse_errors('x.cu(12): error: identifier "y" is undefined\n')[0].line == 12


def test_a_loop_step_is_not_tainted_by_the_loop_body() -> None:
    text = """__global__ void k(const int* in, int* out) {
    int v = in[threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    out[threadIdx.x] = v;
}"""
    assert outside_limits(text) == []
    assert outside_limits(text.replace("offset > 0", "offset > v")) != []


def test_record_and_expected_round_trip(tmp_path) -> None:
    import pytest

    from rocport.errors import InputError
    from rocport.verify.expected import read_expected, write_record

    runs = [Run(0, "t=1\n", "", {"o.bin": b"\x00\x01", "gone": None}), Run(0, "t=2\n", "")]
    write_record(tmp_path / "r.json", "p.cu", runs)
    back = read_expected(tmp_path / "r.json")
    assert [(r.exit_code, r.stdout, r.files) for r in back] == [
        (0, "t=1\n", {"o.bin": b"\x00\x01", "gone": None}),
        (0, "t=2\n", {}),
    ]
    (tmp_path / "plain.txt").write_text("hello\n")
    assert read_expected(tmp_path / "plain.txt")[0].stdout == "hello\n"
    (tmp_path / "bad.json").write_text('{"runs": [{"stdout": 1}]}')
    with pytest.raises(InputError, match="malformed"):
        read_expected(tmp_path / "bad.json")


def test_multi_dimensional_blocks_with_cross_lane_calls_are_not_judged() -> None:
    """HIP-CPU numbers a block's threads z fastest (AMD: x fastest): llm.c's
    matmul_backward_bias_kernel9 (a 4 x 8 x N block, width-4 shuffles) gave wrong sums there."""
    text = """__global__ void k(float* out) {
    float v = out[threadIdx.x + 4 * threadIdx.y];
    v += __shfl_down(v, 1);
    out[threadIdx.x + 4 * threadIdx.y] = v;
}
__global__ void plain(float* out) { out[threadIdx.x + blockDim.y] = 1.0f; }
"""
    (limit,) = outside_limits(text)
    assert limit.kernel == "k" and limit.line == 2 and "z fastest" in limit.reason
    assert outside_limits(text.replace("threadIdx.y", "blockIdx.y")) == []
