"""Each parser on a fixture in its tool's real format (see fixtures/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocport.errors import InputError
from rocport.profile.parsers import parse_file, rocprofv3

FIXTURES = Path(__file__).with_name("fixtures")


def test_legacy_rocprof_stats():
    table = parse_file(FIXTURES / "results.stats.csv")
    assert table.tool == "rocprof"
    top = table.kernels[0]
    assert top.name.startswith("Cijk_Ailk_Bljk_SB_MT128x128x16")
    assert (top.calls, top.total_ns) == (20, 41883212)
    assert top.mean_ns == pytest.approx(2094160.6)
    assert top.share == pytest.approx(0.7890812745)
    assert [k.calls for k in table.kernels] == [20, 40, 6]


def test_rocprofv3_kernel_stats_keeps_min_max():
    table = parse_file(FIXTURES / "run_kernel_stats.csv")
    assert table.tool == "rocprofv3"
    bn = table.kernels[0]
    assert bn.name == "MIOpenBatchNormFwdTrainSpatial"
    assert bn.calls == 530 and bn.share == pytest.approx(0.4137)
    assert bn.extra == {"min_ns": 6009, "max_ns": 51117}
    assert "launch_clamp_scalar" in table.kernels[2].name  # a quoted name full of commas


def test_rocprofv3_counters_give_bandwidth_hit_rate_and_valu_busy():
    counters = parse_file(FIXTURES / "run_counter_collection.csv")
    (bn,) = counters.kernels
    assert bn.calls == 2 and bn.total_ns == 40000
    # dispatch 1: 24 MiB in 10 us; dispatch 2: 24 MiB in 30 us; time-weighted mean
    bw1, bw2 = 24576 * 1024 / 10000, 24576 * 1024 / 30000
    assert bn.bandwidth_gbs == pytest.approx((bw1 * 10000 + bw2 * 30000) / 40000)
    assert bn.cache_hit_pct == pytest.approx((75.0 * 10000 + 50.0 * 30000) / 40000)
    assert bn.utilization_pct == pytest.approx((40 * 10000 + 60 * 30000) / 40000)
    timed = rocprofv3.attach_counters(parse_file(FIXTURES / "run_kernel_stats.csv"), counters)
    assert timed.kernels[0].cache_hit_pct == pytest.approx(bn.cache_hit_pct)
    assert timed.has_counters


def test_ncu_details_page_with_units_and_thousands_separators():
    table = parse_file(FIXTURES / "ncu_details.csv")
    assert table.tool == "ncu"
    add, gemm = table.kernels
    assert "vectorized_elementwise_kernel" in add.name and add.calls == 2
    assert add.total_ns == pytest.approx((1891.36 + 1908.64) * 1e3)
    assert add.bandwidth_gbs == pytest.approx((4260 * 1891.36 + 4220 * 1908.64) / 3800.0)
    assert add.cache_hit_pct == pytest.approx((33.41 * 1891.36 + 33.59 * 1908.64) / 3800.0)
    assert gemm.name.startswith("nvjet_tst") and gemm.total_ns == pytest.approx(1.42e6)
    assert gemm.bandwidth_gbs == pytest.approx(541.27) and gemm.utilization_pct == pytest.approx(
        88.73
    )


def test_ncu_raw_page():
    (k,) = parse_file(FIXTURES / "ncu_raw.csv").kernels
    assert k.name == "triton_poi_fused_add_0" and k.calls == 2
    assert k.total_ns == pytest.approx((1120.32 + 1125.60) * 1e3)
    assert k.bandwidth_gbs == pytest.approx(4300, rel=1e-2)
    assert k.cache_hit_pct == pytest.approx(32.2, rel=1e-2)


def test_nsys_kernel_summary():
    table = parse_file(FIXTURES / "nsys_cuda_gpu_kern_sum.csv")
    assert table.tool == "nsys"
    assert [k.calls for k in table.kernels] == [1200, 3600, 2400]
    assert table.kernels[0].share == pytest.approx(0.624)
    assert "launch_clamp_scalar" in table.kernels[2].name


def test_torch_key_averages_cuda_takes_kernel_rows_only():
    table = parse_file(FIXTURES / "key_averages_cuda.txt")
    names = [k.name for k in table.kernels]
    assert len(names) == 3
    assert names[0].startswith("sm90_xmma_fprop") and names[0].endswith("...")
    assert not any(n.startswith("aten::") or n == "cudaLaunchKernel" for n in names)
    assert table.kernels[0].total_ns == pytest.approx(61.172e6)
    assert table.kernels[1].calls == 1800
    assert sum(k.share for k in table.kernels) == pytest.approx(1.0)


def test_torch_key_averages_cpu_ranks_operators_by_self_cpu():
    table = parse_file(FIXTURES / "key_averages_cpu.txt")
    assert table.kernels[0].name == "aten::mm"
    assert table.kernels[0].total_ns == pytest.approx(459.366e6)
    assert "self CPU" in table.notes[0]


def test_torch_chrome_trace_sums_kernel_events():
    table = parse_file(FIXTURES / "trace_cuda.json")
    conv, bn = table.kernels
    assert conv.calls == 2 and conv.total_ns == pytest.approx((101.953 + 98.047) * 1e3)
    assert bn.calls == 1
    assert all("Memcpy" not in k.name for k in table.kernels)


def test_unknown_file_is_an_input_error(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not a profiler output"):
        parse_file(bad)


def test_bad_number_is_an_input_error(tmp_path):
    bad = tmp_path / "results.stats.csv"
    bad.write_text('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k",n/a,1,1,1\n')
    with pytest.raises(InputError, match="Calls"):
        parse_file(bad)
