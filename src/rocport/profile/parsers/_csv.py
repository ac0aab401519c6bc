"""CSV helpers shared by the parsers."""

from __future__ import annotations

import csv
import io

from rocport.errors import InputError


def rows(text: str, source: str, required: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of a CSV table, skipping lines before its header (profiler chatter)."""
    lines = text.splitlines()
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if all(f'"{c}"' in line or c in line.split(",") for c in required)
        ),
        None,
    )
    if start is None:
        raise InputError(f"{source}: no header with {', '.join(required)}")
    body = [line for line in lines[start:] if line.strip() and not line.startswith("==")]
    return list(csv.DictReader(io.StringIO("\n".join(body))))


def number(value: str | None, source: str, column: str) -> float:
    """A number as profilers print it: quotes, thousands separators, 'n/a' refused."""
    text = (value or "").strip().strip('"').replace(",", "")
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{source}: column {column!r}: not a number: {value!r}") from None
