"""The GPU spec table: shape, sources, and name matching."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from rocport.bench.specs import PEAK_KEYS, all_specs, load_table, lookup

REQUIRED = {
    "MI100",
    "MI210",
    "MI250X",
    "MI300X",
    "MI325X",
    "MI355X",
    "A100-SXM4-80GB",
    "H100-SXM",
    "H200-SXM",
}


def test_table_has_schema_and_every_required_gpu():
    table = load_table()
    assert table["schema"] == 1
    keys = [row["key"] for row in table["gpus"]]
    assert len(keys) == len(set(keys)), "duplicate keys"
    assert set(keys) >= REQUIRED


def test_json_has_no_duplicate_object_keys():
    def no_dupes(pairs):
        names = [k for k, _ in pairs]
        assert len(names) == len(set(names)), names
        return dict(pairs)

    text = (resources.files("rocport.bench") / "data" / "gpu_specs.json").read_text("utf-8")
    json.loads(text, object_pairs_hook=no_dupes)


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.key)
def test_every_row_is_sourced_and_plausible(spec):
    assert spec.source.startswith("https://") and (
        "amd.com" in spec.source or "nvidia.com" in spec.source
    )
    assert 500 < spec.memory_bandwidth_gbs < 20000
    rates = [v for v in spec.tflops.values() if v is not None]
    assert all(0 < v < 5000 for v in rates)
    # matrix-unit half precision is always faster than plain fp32
    assert spec.tflops["fp16"] > spec.tflops["fp32_vector"]
    assert set(spec.tflops) == {k for keys in PEAK_KEYS.values() for k in keys}


@pytest.mark.parametrize(
    ("device_name", "key"),
    [
        ("NVIDIA H200", "H200-SXM"),
        ("NVIDIA H200 NVL", "H200-NVL"),
        ("NVIDIA H100 80GB HBM3", "H100-SXM"),
        ("NVIDIA H100 PCIe", "H100-PCIe"),
        ("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB"),
        ("AMD Instinct MI300X", "MI300X"),
        ("AMD Instinct MI250X/MI250", "MI250X"),
        ("AMD Instinct MI210", "MI210"),
        ("gfx950", "MI355X"),
    ],
)
def test_lookup_prefers_the_longest_pattern(device_name, key):
    assert lookup(device_name).key == key


def test_unknown_device_has_no_peak():
    assert lookup("NVIDIA GeForce RTX 3050") is None
    assert lookup(None) is None


def test_package_of_two_dies_is_halved_per_device():
    spec = lookup("AMD Instinct MI250X/MI250")
    assert spec.peak_tflops("bf16") == ("bf16", pytest.approx(383.0 / 2))
    assert spec.peak_bandwidth_gbs() == pytest.approx(3276.8 / 2)


def test_fp32_peak_uses_matrix_cores_where_they_exist():
    assert lookup("AMD Instinct MI300X").peak_tflops("fp32")[0] == "fp32_matrix"
    assert lookup("NVIDIA H200").peak_tflops("fp32")[0] == "fp32_vector"
    assert lookup("AMD Instinct MI210").peak_tflops("tf32") is None


def test_results_on_a_known_gpu_carry_peak_and_percent():
    from rocport.bench.context import Context
    from rocport.bench.device import DeviceInfo
    from rocport.bench.results import Result

    info = DeviceInfo(
        "cuda:0", "NVIDIA H200", "cuda", "13.0", "580", "sm_90", None, 132, None, "H200-SXM"
    )
    ctx = Context(
        device="cuda:0", info=info, spec=lookup(info.name), warmup=0, repeats=1, quiet=True
    )
    peak = ctx.peak_tflops("bf16")
    assert peak["value"] == pytest.approx(989.4) and "nvidia.com" in peak["source"]
    r = Result(
        "gemm/torch/bf16/8192x8192x8192", "gemm", "TFLOP/s", 791.5, "torch.matmul", peak=peak
    )
    assert r.percent_of_peak == pytest.approx(80.0, abs=0.01)
    assert ctx.peak_bandwidth()["value"] == pytest.approx(4800.0)
    assert ctx.cache_bytes == 64 * 2**20  # no L2 reported: the CPU default
