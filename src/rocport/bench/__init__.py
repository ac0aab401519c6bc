"""The validation suite behind ``rocport bench``: measured right, compared side by side.

``rocport.bench.suite.run_suite`` runs it (and needs PyTorch); the names below load
without PyTorch, so that ``compare`` and ``report`` work on any machine.
"""

from rocport.bench.results import Check, Result, Skipped, load, validate, write
from rocport.bench.timing import Timing, measure

__all__ = ["Check", "Result", "Skipped", "Timing", "load", "measure", "validate", "write"]
