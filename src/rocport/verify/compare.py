"""Compare two runs: exit codes, standard output and error, named output files.

Text is compared line by line after normalising (:mod:`rocport.verify.normalise`); with a
:class:`Tolerance`, numbers within a line may differ by ``atol + rtol * |reference|`` while the
text between them must match exactly. Binary output files are compared byte for byte, or as
arrays of ``float32``/``float64`` with the tolerance. Lines that differ between two runs of the
reference itself are *unstable* and left out (:func:`unstable_lines`).
"""

from __future__ import annotations

import array
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from rocport.verify.model import Difference, Run

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)", re.I)
_DTYPES = {"f32": "f", "f64": "d"}


@dataclass(frozen=True, slots=True)
class Tolerance:
    rtol: float = 0.0
    atol: float = 0.0

    @property
    def exact(self) -> bool:
        return self.rtol == 0.0 and self.atol == 0.0

    def close(self, reference: float, ported: float) -> bool:
        if math.isnan(reference) or math.isnan(ported):
            return math.isnan(reference) and math.isnan(ported)
        if math.isinf(reference) or math.isinf(ported):
            return reference == ported
        return abs(reference - ported) <= self.atol + self.rtol * abs(reference)


def lines_match(reference: str, ported: str, tol: Tolerance) -> bool:
    if reference == ported:
        return True
    if tol.exact:
        return False
    ref_parts, port_parts = _NUMBER.split(reference), _NUMBER.split(ported)
    if ref_parts != port_parts:
        return False
    return all(
        tol.close(float(a), float(b))
        for a, b in zip(_NUMBER.findall(reference), _NUMBER.findall(ported), strict=True)
    )


def unstable_lines(first: str, second: str) -> set[int]:
    """0-based lines that differ between two runs of the same program (all lines past the
    shorter output too)."""
    a, b = first.splitlines(), second.splitlines()
    unstable = {i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y}
    unstable.update(range(min(len(a), len(b)), max(len(a), len(b))))
    return unstable


def compare_text(
    what: str, reference: str, ported: str, tol: Tolerance, skip: set[int] = frozenset()
) -> Difference | None:
    ref_lines, port_lines = reference.splitlines(), ported.splitlines()
    for i in range(max(len(ref_lines), len(port_lines))):
        if i in skip:
            continue
        ref = ref_lines[i] if i < len(ref_lines) else "<no line>"
        port = port_lines[i] if i < len(port_lines) else "<no line>"
        if i >= len(ref_lines) or i >= len(port_lines) or not lines_match(ref, port, tol):
            return Difference(what, i + 1, ref, port)
    return None


def compare_binary(
    what: str, reference: bytes, ported: bytes, tol: Tolerance, dtype: str | None
) -> Difference | None:
    if reference == ported:
        return None
    if dtype is None:
        if len(reference) != len(ported):
            return Difference(what, None, f"{len(reference)} bytes", f"{len(ported)} bytes")
        at = next(i for i, (x, y) in enumerate(zip(reference, ported, strict=True)) if x != y)
        return Difference(what, at, f"{reference[at]:#04x}", f"{ported[at]:#04x}", "byte")
    code = _DTYPES[dtype]
    size = array.array(code).itemsize
    if len(reference) != len(ported) or len(reference) % size:
        return Difference(what, None, f"{len(reference)} bytes", f"{len(ported)} bytes")
    ref_values, port_values = array.array(code, reference), array.array(code, ported)
    for i, (x, y) in enumerate(zip(ref_values, port_values, strict=True)):
        if not tol.close(x, y):
            return Difference(what, i, repr(x), repr(y), "element")
    return None


def compare_runs(
    reference: Run,
    ported: Run,
    *,
    normalise: Callable[[str], str],
    tol: Tolerance,
    unstable: dict[str, set[int]] | None = None,
    dtype: str | None = None,
) -> Difference | None:
    """The first difference, in this order: exit code, stdout, stderr, each output file."""
    unstable = unstable or {}
    if reference.exit_code != ported.exit_code:
        return Difference("exit code", None, str(reference.exit_code), str(ported.exit_code))
    for what in ("stdout", "stderr"):
        diff = compare_text(
            what,
            normalise(getattr(reference, what)),
            normalise(getattr(ported, what)),
            tol,
            unstable.get(what, set()),
        )
        if diff is not None:
            return diff
    for name, ref_data in reference.files.items():
        port_data = ported.files.get(name)
        what = f"file {name}"
        if ref_data is None or port_data is None:
            if ref_data is not port_data:
                return Difference(what, None, _present(ref_data), _present(port_data))
            continue
        diff = _compare_file(what, ref_data, port_data, normalise, tol, dtype)
        if diff is not None:
            return diff
    return None


def _present(data: bytes | None) -> str:
    return "not written" if data is None else f"{len(data)} bytes"


def _compare_file(what, ref_data, port_data, normalise, tol, dtype) -> Difference | None:
    if dtype is None:
        try:
            ref_text, port_text = ref_data.decode(), port_data.decode()
        except UnicodeDecodeError:
            return compare_binary(what, ref_data, port_data, tol, None)
        return compare_text(what, normalise(ref_text), normalise(port_text), tol)
    return compare_binary(what, ref_data, port_data, tol, dtype)
