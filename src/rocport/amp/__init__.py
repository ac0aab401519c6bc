"""Mixed-precision health: the training-loop helper and the ``rocport amp-check`` run."""

from rocport.amp.monitor import MixedPrecision, NonFiniteError, Problem, StepRecord
from rocport.amp.watch import ActivationWatch, LayerStat, first_overflow

__all__ = [
    "ActivationWatch",
    "LayerStat",
    "MixedPrecision",
    "NonFiniteError",
    "Problem",
    "StepRecord",
    "first_overflow",
]
