"""Mask what legitimately changes from run to run: pointer values, timings, throughputs.

Each :class:`Normaliser` rule is a regex and its replacement; the defaults cover hexadecimal
addresses (``0x7f3a...``) and a number followed by a time or rate unit (``1.23 ms``,
``time: 4.5 s``, ``812.3 GB/s``). Users add their own with ``--mask REGEX``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rocport.errors import InputError

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_UNITS = (
    r"(?:ms|us|µs|ns|s|sec|secs|seconds?|msec|milliseconds?|microseconds?|"
    r"[KMGT]i?B/s|[KMGTP]?FLOP/?s|[KMGTP]?FLOPS|[KMGT]?ops/s|it/s)"
)

DEFAULT_MASKS: tuple[tuple[str, str], ...] = (
    (r"0x[0-9a-fA-F]{6,}", "0x<addr>"),
    (rf"{_NUMBER}\s*{_UNITS}(?![\w/])", "<time>"),
)


@dataclass(frozen=True, slots=True)
class Normaliser:
    rules: tuple[tuple[re.Pattern[str], str], ...]

    @classmethod
    def build(cls, extra: tuple[str, ...] = (), *, defaults: bool = True) -> Normaliser:
        """The defaults (unless ``defaults`` is false), then ``extra``, each masked as ``<*>``."""
        rules = [(re.compile(p), r) for p, r in DEFAULT_MASKS] if defaults else []
        for pattern in extra:
            try:
                rules.append((re.compile(pattern), "<*>"))
            except re.error as exc:
                raise InputError(f"--mask {pattern!r} is not a regular expression: {exc}") from None
        return cls(tuple(rules))

    def __call__(self, text: str) -> str:
        for pattern, replacement in self.rules:
            text = pattern.sub(replacement, text)
        return text
