"""The training-loop helper: scaler use, problem policies, hooks."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="rocport.amp needs PyTorch")

from rocport.amp import ActivationWatch, MixedPrecision, NonFiniteError, first_overflow  # noqa: E402


def _setup(dtype, on_problem="raise"):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, MixedPrecision(model, opt, device_type="cpu", dtype=dtype, on_problem=on_problem)


def test_fp16_uses_grad_scaler_and_bf16_does_not():
    assert _setup(torch.float16)[1].uses_scaler
    assert not _setup(torch.bfloat16)[1].uses_scaler
    assert not _setup(None)[1].uses_scaler


def test_healthy_steps_update_the_weights():
    model, mp = _setup(torch.bfloat16)
    before = model[0].weight.detach().clone()
    x, y = torch.randn(4, 8), torch.randint(0, 2, (4,))
    with mp.autocast():
        out = model(x)
    rec = mp.step(torch.nn.functional.cross_entropy(out.float(), y))
    assert rec.grads_finite and not rec.skipped
    assert not torch.equal(before, model[0].weight)


def test_nonfinite_loss_raises_with_the_step():
    model, mp = _setup(None)
    loss = model(torch.randn(2, 8)).sum() * float("inf")
    with pytest.raises(NonFiniteError, match="step 0: loss is") as exc:
        mp.step(loss)
    assert exc.value.problem.kind == "nonfinite_loss"


def test_nonfinite_gradient_without_scaler_skips_and_calls_back():
    seen = []
    model, mp = _setup(torch.bfloat16, on_problem=seen.append)
    before = model[2].weight.detach().clone()
    out = model(torch.randn(2, 8))
    loss = (out * torch.tensor([1.0, float("nan")])).nan_to_num(0.0).sum() + 0 * out.sum()
    # poison one gradient through a hook
    model[2].weight.register_hook(lambda g: g * float("inf"))
    rec = mp.step(loss)
    assert rec.skipped and "2.weight" in rec.nonfinite_parameters
    assert torch.equal(before, model[2].weight)
    assert seen and seen[0].kind == "nonfinite_grad"


def test_watch_names_the_first_overflowing_layer_not_its_successors():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4), torch.nn.ReLU())
    with torch.no_grad():
        model[1].weight.fill_(1e38)
    watch = ActivationWatch(model)
    model(torch.ones(1, 4) * 10)
    stats = watch.collect()
    watch.close()
    assert [s.name for s in stats] == ["0", "1", "2"]
    hit = first_overflow(stats)
    assert hit.name == "1" and hit.kind == "Linear"
    assert not stats[2].overflowed  # its input was already non-finite


def test_bad_policy_is_refused():
    with pytest.raises(ValueError):
        _setup(None, on_problem="ignore")
