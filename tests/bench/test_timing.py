"""The timer against independent measurements."""

from __future__ import annotations

import time

import pytest

from rocport.bench.timing import Timing, measure, rotation_count


def test_sleep_of_known_length_is_timed_within_5_percent():
    nominal = 0.03
    measure(lambda i: time.sleep(nominal), "cpu", warmup=1, repeats=1)
    t0 = time.perf_counter()
    timing = measure(lambda i: time.sleep(nominal), "cpu", warmup=0, repeats=8)
    wall = (time.perf_counter() - t0) / 8
    assert timing.median_s == pytest.approx(nominal, rel=0.05)
    # means on both sides: a slow repeat on a busy host counts in both
    mean = sum(timing.samples_s) / len(timing.samples_s)
    assert mean == pytest.approx(wall, rel=0.05)
    assert timing.min_s <= timing.median_s <= timing.max_s


def test_fn_gets_a_running_call_index_for_rotating_inputs():
    seen: list[int] = []
    measure(seen.append, "cpu", warmup=2, repeats=3, inner=2)
    assert seen == list(range(8))


def test_timing_a_workload_of_changing_length_reports_its_spread():
    lengths = iter([0.0, 0.005, 0.01, 0.02, 0.01])
    timing = measure(lambda i: time.sleep(next(lengths)), "cpu", warmup=1, repeats=4)
    assert timing.min_s < timing.median_s < timing.max_s
    assert timing.max_s == pytest.approx(0.02, rel=0.25)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        measure(lambda i: None, "cpu", warmup=0, repeats=0)


def test_to_dict_is_in_milliseconds():
    d = Timing((0.001, 0.002, 0.004)).to_dict()
    assert d == {"median_ms": 2.0, "min_ms": 1.0, "max_ms": 4.0, "repeats": 3}


def test_rotation_covers_four_times_the_cache():
    assert rotation_count(1 << 20, 16 << 20) == 16  # capped
    assert rotation_count(8 << 20, 16 << 20) == 8
    assert rotation_count(1 << 30, 16 << 20) == 1
