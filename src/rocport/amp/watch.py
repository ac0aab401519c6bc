"""Forward hooks that find the first layer whose activations overflow.

Each leaf module's hook folds the largest |value| of its inputs and outputs into
device tensors (no synchronisation per layer); :meth:`ActivationWatch.collect` reads
them all at once after a step. The first layer, in execution order, whose output is
non-finite while its inputs were finite is where the overflow starts.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

FP16_MAX = float(torch.finfo(torch.float16).max)


@dataclass(frozen=True)
class LayerStat:
    """Largest |activation| of one layer over one step."""

    name: str
    kind: str
    input_max: float
    output_max: float

    @property
    def overflowed(self) -> bool:
        return not _finite(self.output_max) and _finite(self.input_max)


def _finite(x: float) -> bool:
    return x == x and abs(x) != float("inf")


def _amax(value: object) -> torch.Tensor | None:
    tensors = (
        [value]
        if isinstance(value, torch.Tensor)
        else (
            [v for v in value if isinstance(v, torch.Tensor)]
            if isinstance(value, (tuple, list))
            else []
        )
    )
    tensors = [t for t in tensors if t.is_floating_point() and t.numel()]
    if not tensors:
        return None
    # nan_to_num would hide NaN; keep NaN by mapping it to +inf
    return torch.stack(
        [torch.where(t.isnan(), float("inf"), t).detach().abs().amax().float() for t in tensors]
    ).amax()


class ActivationWatch:
    """Hooks on every leaf module of ``model``; remove with :meth:`close`."""

    def __init__(self, model: torch.nn.Module) -> None:
        self._order: list[str] = []
        self._kinds: dict[str, str] = {}
        self._stats: dict[str, tuple[torch.Tensor | None, torch.Tensor | None]] = {}
        self._handles = [
            module.register_forward_hook(self._hook(name))
            for name, module in model.named_modules()
            if name and not any(True for _ in module.children())
        ]
        self._kinds = {name: type(m).__name__ for name, m in model.named_modules() if name}

    def _hook(self, name: str):
        def hook(module: torch.nn.Module, inputs: tuple, output: object) -> None:
            if name not in self._stats:
                self._order.append(name)
                self._stats[name] = (None, None)
            i, o = _amax(inputs), _amax(output)
            old_i, old_o = self._stats[name]
            self._stats[name] = (
                i if old_i is None or i is None else torch.maximum(old_i, i),
                o if old_o is None or o is None else torch.maximum(old_o, o),
            )

        return hook

    def collect(self) -> list[LayerStat]:
        """The step's per-layer maxima in execution order; resets for the next step."""
        names = [n for n in self._order if self._stats[n][1] is not None]
        flat = []
        for n in names:
            i, o = self._stats[n]
            flat += [i if i is not None else o.new_zeros(()), o]
        values = torch.stack(flat).tolist() if flat else []
        self._stats = {n: (None, None) for n in self._order}
        return [
            LayerStat(n, self._kinds[n], values[2 * k], values[2 * k + 1])
            for k, n in enumerate(names)
        ]

    def close(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()


def first_overflow(stats: list[LayerStat]) -> LayerStat | None:
    """The first layer whose output went non-finite from finite inputs."""
    return next((s for s in stats if s.overflowed), None)
