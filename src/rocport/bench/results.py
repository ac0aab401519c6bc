"""One benchmark result, the results document, and its JSON schema."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from rocport._fs import atomic_write
from rocport.bench.timing import Timing
from rocport.errors import InputError

SCHEMA_VERSION = 1


@dataclass
class Result:
    """One measured figure: ``value`` in ``unit``, with its timing and its device peak."""

    id: str
    workload: str
    unit: str
    value: float
    implementation: str
    params: dict[str, Any] = field(default_factory=dict)
    timing: Timing | None = None
    higher_is_better: bool = True
    peak: dict[str, Any] | None = None  # {"key": ..., "value": ..., "unit": ...}
    notes: str | None = None

    @property
    def percent_of_peak(self) -> float | None:
        if not self.peak or not self.peak.get("value"):
            return None
        return 100.0 * self.value / self.peak["value"]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "workload": self.workload,
            "implementation": self.implementation,
            "params": self.params,
            "unit": self.unit,
            "value": self.value,
            "higher_is_better": self.higher_is_better,
            "time": self.timing.to_dict() if self.timing else None,
            "peak": self.peak,
            "percent_of_peak": self.percent_of_peak,
        }
        if self.notes:
            out["notes"] = self.notes
        return out


@dataclass(frozen=True)
class Skipped:
    """A workload that did not run here, and why."""

    id: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "reason": self.reason}


@dataclass(frozen=True)
class Check:
    """A ratio between two results of one run, held against optional bounds."""

    name: str
    value: float
    numerator: str
    denominator: str
    minimum: float | None = None
    maximum: float | None = None

    @property
    def passed(self) -> bool | None:
        if self.minimum is None and self.maximum is None:
            return None
        return (self.minimum is None or self.value >= self.minimum) and (
            self.maximum is None or self.value <= self.maximum
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "passed": self.passed,
            "numerator": self.numerator,
            "denominator": self.denominator,
        }


def build_document(
    *,
    device: dict[str, Any],
    software: dict[str, Any],
    settings: dict[str, Any],
    results: list[Result],
    skipped: list[Skipped],
    checks: list[Check],
) -> dict[str, Any]:
    """The results document that ``--out`` writes and ``compare``/``report`` read."""
    return {
        "schema": SCHEMA_VERSION,
        "tool": "rocport bench",
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "metadata": {"device": device, "software": software, "settings": settings},
        "results": [r.to_dict() for r in results],
        "checks": [c.to_dict() for c in checks],
        "skipped": [s.to_dict() for s in skipped],
    }


@cache
def schema() -> dict[str, Any]:
    """The JSON schema (draft 2020-12) of a results document."""
    path = resources.files("rocport.bench") / "data" / "results.schema.json"
    return json.loads(path.read_text("utf-8"))


def validate(document: dict[str, Any], *, source: str = "results") -> bool:
    """Raise :class:`InputError` unless ``document`` follows the schema.

    Returns False, without checking, where the optional ``jsonschema`` package is
    missing (results are still written and read; the tests always validate).
    """
    try:
        import jsonschema
    except ImportError:
        return False
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "(top)"
        raise InputError(f"{source}: not a rocport bench results file: {where}: {first.message}")
    return True


def write(document: dict[str, Any], path: Path) -> None:
    """Validate and atomically write ``document`` as indented JSON.

    Without ``jsonschema`` the file is written unvalidated, said once per process (a run
    rewrites its file after every result).
    """
    if not validate(document, source=str(path)):
        _note_unvalidated(str(path))
    atomic_write(path, json.dumps(document, indent=2, sort_keys=False) + "\n")


@cache
def _note_unvalidated(path: str) -> None:
    import sys

    print(
        f"rocport: note: {path} written without schema validation (no jsonschema)",
        file=sys.stderr,
    )


def load(path: Path) -> dict[str, Any]:
    """Read and validate a results file."""
    try:
        document = json.loads(Path(path).read_text("utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON: {exc.msg} at line {exc.lineno}") from exc
    if not isinstance(document, dict) or document.get("tool") != "rocport bench":
        raise InputError(f"{path}: not a rocport bench results file")
    validate(document, source=str(path))
    return document
