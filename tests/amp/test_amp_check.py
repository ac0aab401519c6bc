"""amp-check on the CPU with small models: overflow found and named, healthy runs pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="amp-check needs PyTorch (the 'torch' extra)")

from rocport.amp.check import CheckConfig, run_check  # noqa: E402
from rocport.amp.factory import load_factory  # noqa: E402
from rocport.cli.main import main  # noqa: E402
from rocport.errors import InputError  # noqa: E402

MODELS = Path(__file__).with_name("models.py")
CFG = CheckConfig(steps=6, batch=8, input_shape=(16,), num_classes=4, lr=0.05)


def _run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_overflowing_layer_is_detected_and_named():
    report = run_check(load_factory(f"{MODELS}:overflowing"), ["fp16", "bf16"], CFG, "cpu")
    fp16 = report["precisions"]["fp16"]
    assert fp16["verdict"] == "fail"
    assert fp16["overflow"]["layer"] == "amplifier"
    assert fp16["overflow"]["kind"] == "Linear"
    assert fp16["overflow"]["step"] == 0
    assert fp16["skipped_steps"] == list(range(6))
    # the scaler halves its scale at each overflowing step
    assert fp16["scale_history"][:3] == [65536.0, 32768.0, 16384.0]
    assert any("amplifier" in note and "65504" in note for note in fp16["notes"])
    # bf16 has the range: same model passes, and fp32 is the healthy reference
    assert report["precisions"]["bf16"]["verdict"] == "pass"
    assert report["precisions"]["fp32"]["verdict"] == "pass"
    assert report["passed"] is False


def test_healthy_model_passes_in_every_precision():
    report = run_check(load_factory(f"{MODELS}:healthy"), ["fp16", "bf16"], CFG, "cpu")
    assert report["passed"] is True
    for name in ("fp16", "bf16"):
        r = report["precisions"][name]
        assert (
            r["skipped_steps"] == [] and r["nonfinite_grad_steps"] == [] and r["overflow"] is None
        )
        assert r["loss_max_rel_diff"] < CFG.rtol
    assert all(v == v for v in report["precisions"]["fp32"]["losses"])


def test_bf16_needs_no_scaler_and_says_so():
    report = run_check(load_factory(f"{MODELS}:healthy"), ["bf16"], CFG, "cpu")
    bf16 = report["precisions"]["bf16"]
    assert bf16["scaler"] is False
    assert set(bf16["scale_history"]) == {None}
    assert any("no loss scaling needed" in n and "GradScaler not used" in n for n in bf16["notes"])


def test_loss_drift_beyond_tolerance_fails():
    tight = CheckConfig(**{**CFG.__dict__, "rtol": 1e-9})
    report = run_check(load_factory(f"{MODELS}:healthy"), ["bf16"], tight, "cpu")
    assert report["precisions"]["bf16"]["verdict"] == "fail"
    assert "differs from fp32" in report["precisions"]["bf16"]["reasons"][0]


def test_cli_exit_status_and_json(tmp_path, capsys):
    out = tmp_path / "amp.json"
    code, stdout, _ = _run(
        [
            "amp-check",
            "--model",
            f"{MODELS}:overflowing",
            "--device",
            "cpu",
            "--steps",
            "4",
            "--batch",
            "4",
            "--input-shape",
            "16",
            "--num-classes",
            "4",
            "--json",
            str(out),
        ],
        capsys,
    )
    assert code == 1
    assert "amplifier (Linear)" in stdout
    assert json.loads(out.read_text())["precisions"]["fp16"]["overflow"]["layer"] == "amplifier"
    code, stdout, _ = _run(
        [
            "amp-check",
            "--model",
            f"{MODELS}:healthy",
            "--device",
            "cpu",
            "--steps",
            "4",
            "--batch",
            "4",
            "--input-shape",
            "16",
            "--num-classes",
            "4",
            "--precisions",
            "bf16",
        ],
        capsys,
    )
    assert code == 0 and "GradScaler not used" in stdout


def test_module_colon_function_factory(monkeypatch):
    monkeypatch.syspath_prepend(str(MODELS.parent))
    model = load_factory("models:healthy")()
    assert isinstance(model, torch.nn.Module)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonsense", "expected one of"),
        ("no_such_module_xyz:f", "cannot import"),
        (f"{MODELS}:missing", "no callable"),
        ("/nope/file.py:f", "no such file"),
    ],
)
def test_bad_factory_is_an_input_error(spec, message):
    with pytest.raises(InputError, match=message):
        load_factory(spec)


def test_factory_returning_non_module_is_one_line(capsys):
    code, _, err = _run(
        [
            "amp-check",
            "--model",
            f"{MODELS}:not_a_module",
            "--device",
            "cpu",
            "--input-shape",
            "16",
            "--num-classes",
            "4",
            "--steps",
            "2",
            "--batch",
            "2",
        ],
        capsys,
    )
    assert code == 2 and err.startswith("rocport: error:") and "not a torch.nn.Module" in err


def test_leading_scaler_skips_are_settling_not_failures():
    from rocport.amp.check import _leading_skips
    from rocport.amp.monitor import StepRecord

    def rec(i, skipped, loss=1.0):
        return StepRecord(i, loss, 2.0 ** (16 - i), not skipped, skipped)

    assert _leading_skips([rec(0, True), rec(1, True), rec(2, False), rec(3, True)]) == 2
    assert _leading_skips([rec(0, True, float("inf")), rec(1, True)]) == 0  # a real overflow
    assert _leading_skips([rec(0, False)]) == 0
