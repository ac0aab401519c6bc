"""Mixed precision for a training loop: autocast, loss scaling and a non-finite watch.

    mp = MixedPrecision(model, optimizer, device_type="cuda", dtype=torch.float16)
    for x, y in loader:
        with mp.autocast():
            loss = loss_fn(model(x), y)
        mp.step(loss)          # backward, unscale, check, step, update, zero_grad

fp16 uses :class:`torch.amp.GradScaler` (the current API; ``torch.cuda.amp`` is
deprecated); bf16 has fp32's exponent range and needs no scaler. A step whose scaled
gradients overflow is skipped by the scaler as designed; what is reported as a problem
is a non-finite loss, non-finite gradients without a scaler, or a scale that collapses.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

import torch

#: below this loss scale, fp16 gradients have lost most of their range: a real problem
MIN_SCALE = 1.0


class NonFiniteError(FloatingPointError):
    """Raised by :meth:`MixedPrecision.step` when a problem is found and the policy is ``raise``."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class Problem:
    """What went wrong at one step."""

    step: int
    kind: str  # "nonfinite_loss", "nonfinite_grad" or "scale_collapse"
    message: str
    parameters: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepRecord:
    """One optimizer step as the monitor saw it."""

    step: int
    loss: float
    scale: float | None  # the loss scale used for this step (None without a scaler)
    grads_finite: bool
    skipped: bool
    nonfinite_parameters: tuple[str, ...] = ()


@dataclass
class MixedPrecision:
    """Autocast, GradScaler (fp16 only) and a check of every step's loss and gradients.

    ``on_problem`` is ``"raise"`` (a :class:`NonFiniteError`), ``"record"`` (kept in
    :attr:`problems`) or a callable taking the :class:`Problem`.
    """

    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    device_type: str = "cuda"
    dtype: torch.dtype | None = torch.float16  # None: plain fp32
    on_problem: str | Callable[[Problem], None] = "raise"
    init_scale: float = 2.0**16
    history: list[StepRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.dtype not in (None, torch.float16, torch.bfloat16):
            raise ValueError(
                f"dtype must be None, torch.float16 or torch.bfloat16, not {self.dtype}"
            )
        if not (callable(self.on_problem) or self.on_problem in ("raise", "record")):
            raise ValueError("on_problem must be 'raise', 'record' or a callable")
        self.scaler = torch.amp.GradScaler(
            self.device_type, init_scale=self.init_scale, enabled=self.dtype == torch.float16
        )

    @property
    def uses_scaler(self) -> bool:
        return self.scaler.is_enabled()

    def autocast(self) -> AbstractContextManager:
        """The forward-pass context: autocast to ``dtype``, or nothing for fp32."""
        if self.dtype is None:
            return nullcontext()
        return torch.autocast(self.device_type, dtype=self.dtype)

    def step(self, loss: torch.Tensor) -> StepRecord:
        """Backward, check and apply one step; return what happened."""
        index = len(self.history)
        scale = self.scaler.get_scale() if self.uses_scaler else None
        self.scaler.scale(loss).backward()
        if self.uses_scaler:
            self.scaler.unscale_(self.optimizer)
        bad = self._nonfinite_parameters()
        if self.uses_scaler:
            self.scaler.step(self.optimizer)  # skips the update itself if grads are not finite
            self.scaler.update()
            skipped = self.scaler.get_scale() < scale
        else:
            skipped = bool(bad)
            if not skipped:
                self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        loss_value = float(loss.detach().float())
        record = StepRecord(index, loss_value, scale, not bad, skipped, tuple(bad[:8]))
        self.history.append(record)
        self._check(record)
        return record

    def _nonfinite_parameters(self) -> list[str]:
        named = [(n, p.grad) for n, p in self.model.named_parameters() if p.grad is not None]
        if not named:
            return []
        finite = torch.stack([g.isfinite().all() for _, g in named]).tolist()  # one sync
        return [n for (n, _), ok in zip(named, finite, strict=True) if not ok]

    def _check(self, record: StepRecord) -> None:
        problem = None
        if record.loss != record.loss or abs(record.loss) == float("inf"):
            problem = Problem(
                record.step,
                "nonfinite_loss",
                f"step {record.step}: loss is {record.loss} (forward pass overflowed)",
            )
        elif not record.grads_finite and not self.uses_scaler:
            problem = Problem(
                record.step,
                "nonfinite_grad",
                f"step {record.step}: non-finite gradients in "
                f"{', '.join(record.nonfinite_parameters)}",
                record.nonfinite_parameters,
            )
        elif self.uses_scaler and self.scaler.get_scale() < MIN_SCALE:
            problem = Problem(
                record.step,
                "scale_collapse",
                f"step {record.step}: loss scale fell to {self.scaler.get_scale():g}: "
                "gradients overflow at every scale",
            )
        if problem is None:
            return
        self.problems.append(problem)
        if self.on_problem == "raise":
            raise NonFiniteError(problem)
        if callable(self.on_problem):
            self.on_problem(problem)
