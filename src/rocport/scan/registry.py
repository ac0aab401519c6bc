"""Rule declarations: the :func:`rule` decorator and the :class:`Rule` record it builds.

A rule is a small module with a docstring (its documentation) and one decorated ``check``
function that yields findings for one file. The registry in :mod:`rocport.scan.rules` lists the
modules explicitly, one line per rule.
"""

from __future__ import annotations

import enum
import inspect
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rocport._diagnostics import Finding, Severity

#: Where ``helpUri`` points: the generated rule reference in the project's documentation.
DOCS_URL = "https://github.com/rocport/rocport/blob/main/docs/scan.md"

RULE_ID = re.compile(r"^RP\d{3}$")
REQUIRED_SECTIONS = ("What it does", "Why is this bad?", "Example", "Fix safety")


class Language(enum.Enum):
    """Which files a rule reads."""

    CUDA = "cuda"  # C, C++, CUDA and HIP sources and headers
    PYTHON = "python"


class FixAvailability(enum.Enum):
    """Whether a rule offers edits (ruff's terms)."""

    NONE = "none"
    SOMETIMES = "sometimes"
    ALWAYS = "always"


#: caches of what one scan learnt about the tree (headers' macros, say): emptied when a scan
#: starts, so that a process that scans again sees files as they are then
_SCAN_CACHES: list[dict] = []


def scan_cache() -> dict:
    """A dict that :func:`start_scan` empties."""
    cache: dict = {}
    _SCAN_CACHES.append(cache)
    return cache


def start_scan() -> None:
    """Forget what earlier scans learnt about the tree."""
    for cache in _SCAN_CACHES:
        cache.clear()


@dataclass(frozen=True, slots=True)
class Rule:
    """One registered rule."""

    id: str
    name: str
    severity: Severity
    language: Language
    fix: FixAvailability
    check: Callable[..., Iterator[Finding]]
    doc: str
    #: literals of which at least one occurs in any code the rule can report on (empty: any);
    #: the blanked code for C/C++/CUDA, the text for Python
    triggers: tuple[str, ...] = ()
    #: a cheap test of the parsed source that is true wherever the rule can report (or None)
    gate: Callable[..., bool] | None = None

    def may_fire(self, src) -> bool:
        """Whether the rule can report on ``src``: one of its triggers is in it (``src.has``
        answers that, cached per file and shared by all rules) and its gate lets it through."""
        if self.triggers and not any(map(src.has, self.triggers)):
            return False
        return self.gate is None or self.gate(src)

    @property
    def summary(self) -> str:
        """The first docstring line without its ``RPnnn name:`` prefix."""
        first = self.doc.strip().splitlines()[0]
        text = first.split(":", 1)[1].strip() if ":" in first else first
        return text[:1].upper() + text[1:]

    @property
    def anchor(self) -> str:
        """The GitHub-style heading anchor of this rule in ``docs/scan.md``."""
        return f"{self.id.lower()}-{self.name}"

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URL}#{self.anchor}"

    def section(self, title: str) -> str:
        """The text of one ``## title`` docstring section (empty when absent)."""
        match = re.search(
            rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", self.doc, re.MULTILINE | re.DOTALL
        )
        return match.group(1).strip() if match else ""


def rule(
    *,
    id: str,
    name: str,
    severity: Severity,
    language: Language,
    fix: FixAvailability = FixAvailability.NONE,
    triggers: tuple[str, ...] = (),
    gate: Callable[..., bool] | None = None,
) -> Callable[[Callable[..., Iterator[Finding]]], Callable[..., Iterator[Finding]]]:
    """Mark ``check`` as a rule; the rule record is stored on the function as ``rule``.

    ``triggers`` and ``gate`` are necessary conditions for a finding, derived from the rule's
    own patterns: literals of which every match contains one, and a test of the blanked code.
    The engine skips the rule where they fail, so they may only ever skip files the rule would
    find nothing in.
    """

    def decorate(check: Callable[..., Iterator[Finding]]) -> Callable[..., Iterator[Finding]]:
        doc = inspect.cleandoc(sys.modules[check.__module__].__doc__ or "")
        check.rule = Rule(  # type: ignore[attr-defined]
            id, name, severity, language, fix, check, doc, tuple(triggers), gate
        )
        return check

    return decorate
