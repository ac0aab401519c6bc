"""What ``rocport verify`` found: one :class:`ProgramReport` per program."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field


class Status(enum.Enum):
    SAME = "same"
    DIFFERS = "differs"
    BUILD_FAILED = "could-not-build"
    RUN_FAILED = "could-not-run"
    NOT_JUDGED = "not-judged"  # ran, but a kernel is outside what the 64-lane CPU path gets right
    NOT_COVERED = "not-covered"  # needs a library that the chosen path does not have


@dataclass(slots=True)
class BuildError:
    """A compiler error, with the CUDA line it comes from when it is in the port and maps back."""

    file: str | None
    line: int | None
    message: str
    cuda_file: str | None = None
    cuda_line: int | None = None
    changed: list[str] = field(default_factory=list)  # "cudaX -> hipX" on that CUDA line

    def describe(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file else ""
        text = f"{where}{self.message}"
        if self.cuda_file and self.cuda_line:
            text += f" (from CUDA {self.cuda_file}:{self.cuda_line}"
            text += f": {', '.join(self.changed)})" if self.changed else ")"
        return text


@dataclass(slots=True)
class Build:
    """One compile: the command, whether it produced a binary, and its errors."""

    side: str  # "original" or "port"
    command: list[str]
    binary: str | None
    output: str
    seconds: float
    errors: list[BuildError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.binary is not None


@dataclass(slots=True)
class Run:
    """One execution of a binary in a temporary folder of its own."""

    exit_code: int | None  # None: it could not be started or timed out
    stdout: str
    stderr: str
    files: dict[str, bytes | None] = field(default_factory=dict)  # None: not written
    seconds: float = 0.0
    error: str | None = None  # why it did not run to an exit code


@dataclass(frozen=True, slots=True)
class Difference:
    """The first place where the port's results differ from the reference."""

    what: str  # "exit code", "stdout", "stderr" or "file NAME"
    line: int | None  # where, in ``unit``s: None for the whole value
    reference: str
    ported: str
    unit: str = "line"  # "line" (1-based), "element" or "byte" (0-based, binary files)

    def where(self) -> str:
        return self.what if self.line is None else f"{self.what}, {self.unit} {self.line}"


@dataclass(frozen=True, slots=True)
class KernelLimit:
    """A kernel whose cross-lane code is outside what HIP-CPU runs correctly."""

    kernel: str
    line: int
    reason: str


@dataclass(slots=True)
class ProgramReport:
    name: str
    status: Status
    path: str  # "nvidia" or "cpu"
    reference: str  # what the port was compared against
    reason: str | None = None
    difference: Difference | None = None
    unstable: list[str] = field(default_factory=list)  # reference lines ignored as unstable
    outside_limits: list[KernelLimit] = field(default_factory=list)
    builds: list[Build] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["status"] = self.status.value
        for build in data["builds"]:
            build["output"] = build["output"][-4000:]
        return data


@dataclass(slots=True)
class VerifyReport:
    programs: list[ProgramReport]

    @property
    def exit_code(self) -> int:
        """0: every program the same; 1: one differs; 2: one could not be built, run or judged."""
        statuses = {p.status for p in self.programs}
        if Status.DIFFERS in statuses:
            return 1
        return 0 if statuses <= {Status.SAME} and statuses else 2

    def to_dict(self) -> dict:
        counts: dict[str, int] = {}
        for program in self.programs:
            counts[program.status.value] = counts.get(program.status.value, 0) + 1
        return {
            "exit_code": self.exit_code,
            "counts": counts,
            "programs": [p.to_dict() for p in self.programs],
        }
