"""The tiny suite on the CPU: every workload runs, the JSON validates, checks are derived."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from rocport.bench.results import schema, validate
from rocport.errors import InputError


def test_document_validates_against_the_shipped_schema(tiny_document):
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.validate(tiny_document, schema())
    validate(json.loads(json.dumps(tiny_document)))


def test_metadata_names_device_backend_and_versions(tiny_document):
    meta = tiny_document["metadata"]
    assert meta["device"]["backend"] == "cpu"
    assert meta["software"]["torch"]
    assert meta["settings"]["repeats"] == 3


def test_every_workload_produced_results(tiny_document):
    workloads = {r["workload"] for r in tiny_document["results"]}
    assert workloads == {"calibration", "gemm", "copy", "vector_add", "resnet"}
    ids = {r["id"] for r in tiny_document["results"]}
    assert "resnet/resnet50/training/fp32/contiguous/b2/r32" in ids
    assert "gemm/torch/bf16/48x96x80" in ids
    for r in tiny_document["results"]:
        assert r["value"] > 0
        if r["time"]:
            assert r["time"]["min_ms"] <= r["time"]["median_ms"] <= r["time"]["max_ms"]


def test_gemm_results_are_checked_against_float64(tiny_document):
    for r in tiny_document["results"]:
        if r["workload"] == "gemm":
            assert r["params"]["relative_error"] < 3e-2


def test_resnet_counts_its_flops(tiny_document):
    r = next(
        r for r in tiny_document["results"] if r["id"].startswith("resnet/resnet50/inference/fp32")
    )
    # ResNet-50 at 32x32 is about (32/224)^2 of 8.2 GFLOP per image, two images
    assert 0.1e9 < r["params"]["flops_per_step"] < 0.5e9


def test_triton_kernels_are_verified_under_the_interpreter_not_timed(tiny_document):
    reasons = {s["id"]: s["reason"] for s in tiny_document["skipped"]}
    for rid in ("vector_add/naive/fp32", "vector_add/vectorized/fp32"):
        assert "Triton interpreter" in reasons[rid] and "(ok)" in reasons[rid]
    assert not any(r["implementation"].startswith("triton") for r in tiny_document["results"])


def test_timer_checks_pass(tiny_document):
    checks = {c["name"]: c for c in tiny_document["checks"]}
    for name in ("timer vs known sleep", "timer vs the loop's wall clock"):
        assert checks[name]["passed"] is True, checks[name]


def test_cpu_has_no_peak(tiny_document):
    assert all(r["peak"] is None and r["percent_of_peak"] is None for r in tiny_document["results"])


def test_schema_rejects_a_broken_document(tiny_document):
    broken = copy.deepcopy(tiny_document)
    broken["results"][0].pop("unit")
    with pytest.raises(InputError, match="unit"):
        validate(broken)
    broken = copy.deepcopy(tiny_document)
    broken["metadata"]["device"]["backend"] = "metal"
    with pytest.raises(InputError):
        validate(broken)


def test_partial_documents_follow_every_result_and_validate():
    from rocport.bench.suite import preset, run_suite

    config = preset("tiny")
    config.workloads = ("calibration", "copy", "vector_add")
    seen: list[int] = []

    def partial(doc):
        validate(doc)
        seen.append(len(doc["results"]) + len(doc["skipped"]))

    final = run_suite(config, device="cpu", quiet=True, on_partial=partial)
    assert seen == list(range(1, len(seen) + 1))
    assert seen[-1] == len(final["results"]) + len(final["skipped"])


def test_unknown_workload_and_preset_are_input_errors():
    from rocport.bench.suite import SuiteConfig, preset, run_suite

    with pytest.raises(InputError, match="unknown preset"):
        preset("huge")
    with pytest.raises(InputError, match="teleport"):
        run_suite(SuiteConfig(workloads=("teleport",)), device="cpu", quiet=True)
