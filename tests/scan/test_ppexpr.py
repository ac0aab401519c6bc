"""The ``#if`` evaluator against a real preprocessor (gcc's, in C++ mode) on generated
conditions: a decided condition must be decided as gcc decides it for every definition of the
unknown macros, and a condition over known macros only must be decided."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocport.scan.ppexpr import UNDEFINED, UNKNOWN, Macro, Span, evaluate, truth

GCC = shutil.which("g++") or shutil.which("gcc")

#: known macros: a value, an empty body or undefined
KNOWN = {
    "ONE": Macro("1"),
    "ZERO": Macro("0"),
    "BIG": Macro("0xffffffffffffffff"),
    "NEG": Macro("(-3)"),
    "EMPTYISH": Macro("(ONE + 1)"),
    "TWICE": Macro("((x) * 2)", ("x",)),
    "GONE": UNDEFINED,
}
#: unknown to the evaluator; gcc gets each of these definitions in turn
UNKNOWN_NAMES = ("U", "V")
ASSIGNMENTS = (None, "0", "1", "2", "-1", "0xffffffffffffffffu")


def _lookup(name: str):
    if name in KNOWN:
        return KNOWN[name]
    return UNKNOWN if name in UNKNOWN_NAMES else UNDEFINED


_known_leaf = st.one_of(
    st.integers(-20, 40).map(str),
    st.sampled_from(["0u", "1u", "7u", "0x10", "010", "'a'", "true", "false", "3LL"]),
    st.sampled_from([*sorted(KNOWN), "NOPE", "defined(ONE)", "defined GONE", "TWICE(3)"]),
)
_unknown_leaf = st.sampled_from(
    ["U", "V", "defined(U)", "!defined(V)", "TWICE(U)", "__has_include(<vector>)"]
)


def _extend(inner):
    binary = st.sampled_from(
        ["+", "-", "*", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=", "&&", "||"]
    )
    return st.one_of(
        st.tuples(inner, binary, inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["-", "!", "~", "+"]), inner).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(inner, st.sampled_from(["/", "%"]), st.sampled_from(["3", "-2", "7u"])).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(inner, st.sampled_from(["<<", ">>"]), st.integers(0, 8)).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
    )


known_conditions = st.recursive(_known_leaf, _extend, max_leaves=10)
mixed_conditions = st.recursive(st.one_of(_known_leaf, _unknown_leaf), _extend, max_leaves=10)


def _gcc_decisions(conditions: list[str], assignment: dict[str, str | None]) -> list[bool | None]:
    """What gcc decides for each condition (None where gcc rejects it, or where the
    condition uses a __has_ operator, whose answer depends on the installed headers)."""
    lines = []
    for name, macro in KNOWN.items():
        if macro is UNDEFINED:
            continue
        params = f"({','.join(macro.params)})" if macro.params else ""
        lines.append(f"#define {name}{params} {macro.body}")
    for name, value in assignment.items():
        if value is not None:
            lines.append(f"#define {name} {value}")
    for index, condition in enumerate(conditions):
        lines += [f"#if {condition}", f"yes_{index}", "#else", f"no_{index}", "#endif"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.cpp"
        path.write_text("\n".join(lines) + "\n")
        result = subprocess.run(
            [GCC, "-x", "c++", "-std=c++17", "-E", "-P", "-w", str(path)],
            capture_output=True,
            text=True,
        )
    if result.returncode != 0:
        # one bad condition fails the whole file: decide them one by one
        if len(conditions) == 1:
            return [None]
        return [d for c in conditions for d in _gcc_decisions([c], assignment)]
    words = set(result.stdout.split())
    return [None if "__has" in c else f"yes_{i}" in words for i, c in enumerate(conditions)]


@pytest.mark.skipif(GCC is None, reason="needs gcc (g++) as the reference preprocessor")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(known_conditions, min_size=15, max_size=30))
def test_known_conditions_are_decided_as_gcc_decides(conds: list[str]) -> None:
    theirs = _gcc_decisions(conds, {})
    for condition, decision in zip(conds, theirs, strict=True):
        if decision is None:
            continue  # gcc rejects it (a division by zero, say)
        mine = truth(evaluate(condition, _lookup))
        assert mine is decision, f"#if {condition}: evaluator {mine}, gcc {decision}"


@pytest.mark.skipif(GCC is None, reason="needs gcc (g++) as the reference preprocessor")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mixed_conditions, min_size=15, max_size=30))
def test_a_decided_condition_holds_for_every_definition_of_the_unknown(conds: list[str]) -> None:
    decided_by_gcc: list[set[bool | None]] = [set() for _ in conds]
    for value in ASSIGNMENTS:
        for other in ASSIGNMENTS[:3]:
            for index, decision in enumerate(_gcc_decisions(conds, {"U": value, "V": other})):
                decided_by_gcc[index].add(decision)
    for condition, theirs in zip(conds, decided_by_gcc, strict=True):
        mine = truth(evaluate(condition, _lookup))
        if mine is not None and None not in theirs:  # None: gcc rejects it, or __has_ is asked
            assert theirs == {mine}, f"#if {condition}: evaluator {mine}, gcc {theirs}"


#: ``c ? a : b`` has the type both arms convert to, the arm not taken included
CONDITIONAL_TYPES = [
    ("(NEG < (0 ? U : 0))", None),  # U unsigned makes the 0 unsigned: -3 < 0u is false
    ("(NEG < (1 ? 0 : U))", None),
    ("((0 ? U : 0u) > NEG)", False),  # unsigned whatever U is
    ("(NEG < (1 ? 0 : 0u))", False),
    ("(NEG < (1 ? 0 : 5))", True),
    ("(NEG < (0 ? 7u : ONE))", False),
]


@pytest.mark.skipif(GCC is None, reason="needs gcc (g++) as the reference preprocessor")
def test_a_conditional_takes_the_type_of_both_arms() -> None:
    conditions = [condition for condition, _ in CONDITIONAL_TYPES]
    decided_by_gcc: list[set[bool | None]] = [set() for _ in conditions]
    for value in ASSIGNMENTS:
        for index, decision in enumerate(_gcc_decisions(conditions, {"U": value})):
            decided_by_gcc[index].add(decision)
    for (condition, expected), theirs in zip(CONDITIONAL_TYPES, decided_by_gcc, strict=True):
        assert truth(evaluate(condition, _lookup)) is expected, condition
        if expected is not None:
            assert theirs == {expected}, f"#if {condition}: gcc {theirs}"
        else:
            assert len(theirs) == 2, f"#if {condition}: gcc {theirs}"


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("defined(ONE) && !defined GONE", True),
        ("U && 0", False),  # short-circuit decides whatever U is
        ("0 && U", False),
        ("U || 1", True),
        ("U", None),
        ("U >= 800", None),
        ("GONE >= 800", False),  # an undefined macro reads as 0
        ("-1 < 0u", False),  # unsigned comparison
        ("1 / 0", None),
        ("0 && 1 / 0", False),
        ("TWICE(ONE) == 2", True),
        ("__has_include(<cuda.h>)", None),
        ('__has_include("x.h") || ONE', True),
        ("1.5 > 1", None),
        ('"text"', None),
    ],
)
def test_known_answers(condition: str, expected: bool | None) -> None:
    assert truth(evaluate(condition, _lookup)) is expected


def test_span_decides_only_what_the_whole_range_agrees_on() -> None:
    hip = {"HIP_VERSION": Macro("", span=Span(60400000, 60499999))}

    def look(name: str):
        return hip.get(name, UNKNOWN)

    assert truth(evaluate("HIP_VERSION >= 60200000", look)) is True
    assert truth(evaluate("HIP_VERSION < 70000000", look)) is True
    assert truth(evaluate("HIP_VERSION >= 60403000", look)) is None
    assert truth(evaluate("HIP_VERSION == 50200000", look)) is False
    assert truth(evaluate("HIP_VERSION + 1 > 0", look)) is None  # arithmetic on a range
