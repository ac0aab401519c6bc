"""Plain data passed between the translator, the tree driver and the reports."""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field


class Outcome(enum.Enum):
    """What became of one CUDA reference."""

    TRANSLATED = "translated"  # rewritten to HIP, or knowingly kept (``<<<>>>``, Thrust, NCCL names)
    UNSUPPORTED = "unsupported"  # a known CUDA name with no HIP equivalent for the target release
    UNKNOWN = "unknown"  # looks like CUDA (by prefix) but is not in the mapping


@dataclass(frozen=True, slots=True)
class PortOptions:
    """Choices that change the translation."""

    rocm: str | None = None  # target ROCm release ("6.4"); None means the newest in the data
    blas: str = "hipblas"  # "hipblas" or "rocblas"
    launch: str = "keep"  # "keep" the <<<...>>> syntax, or "ggl" for hipLaunchKernelGGL
    extra_names: tuple[tuple[str, str], ...] = ()  # project-specific CUDA -> HIP names


@dataclass(frozen=True, slots=True)
class Reference:
    """One CUDA reference in a source file (1-based line and column in the input)."""

    name: str
    line: int
    column: int
    outcome: Outcome
    family: str
    hip: str | None = None
    note: str | None = None

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "line": self.line,
            "column": self.column,
            "outcome": self.outcome.value,
            "family": self.family,
            "hip": self.hip,
            "note": self.note,
        }


@dataclass(slots=True)
class Translation:
    """The result of translating one text."""

    text: str
    references: list[Reference] = field(default_factory=list)
    #: 1-based output lines that the translator inserted (no input line maps to them)
    inserted_lines: list[int] = field(default_factory=list)

    @property
    def counts(self) -> Counter[str]:
        counts = Counter(ref.outcome.value for ref in self.references)
        counts["found"] = len(self.references)
        return counts
