"""The validation suite behind ``rocport bench``: measured right, compared side by side."""

from rocport.bench.results import Check, Result, Skipped, load, validate, write
from rocport.bench.suite import PRESETS, SuiteConfig, preset, run_suite
from rocport.bench.timing import Timing, measure

__all__ = [
    "PRESETS",
    "Check",
    "Result",
    "Skipped",
    "SuiteConfig",
    "Timing",
    "load",
    "measure",
    "preset",
    "run_suite",
    "validate",
    "write",
]
