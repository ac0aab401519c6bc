"""Literal search: the regex path and the ``str.find`` path give the same answers."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocport.scan import literals

TEXT = st.text(alphabet="ab>_ \n", max_size=60)
NEEDLE = st.text(alphabet="ab>_", min_size=1, max_size=7)


def _every_place(text: str, literal: str) -> list[int]:
    return [i for i in range(len(text)) if text.startswith(literal, i)]


@pytest.fixture(params=[True, False], ids=["regex", "str.find"])
def way(request, monkeypatch):
    """Both ways of searching, whatever this interpreter measured."""
    monkeypatch.setattr(literals, "regex_is_faster", lambda: request.param)
    literals.pattern_for.cache_clear()
    yield request.param
    literals.pattern_for.cache_clear()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once, on purpose
@given(text=TEXT, literal=NEEDLE)
def test_contains_and_offsets_match_a_plain_scan(way, text: str, literal: str) -> None:
    assert literals.contains(text, literal) == (literal in text)
    assert literals.offsets(text, literal) == _every_place(text, literal)


def test_overlapping_occurrences_are_all_found(way) -> None:
    assert literals.offsets("a >>> b >> c", ">>") == [2, 3, 8]
    assert literals.offsets("____", "__") == [0, 1, 2]


def test_the_measurement_decides_and_its_probes_are_absent() -> None:
    assert isinstance(literals.regex_is_faster(), bool)
    assert not any(probe in literals._SAMPLE for probe in literals._PROBES)
    assert all(len(probe) in literals.SHORT_NEEDLES for probe in literals._PROBES)
