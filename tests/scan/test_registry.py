"""The registry: ids, names, docs and fixtures all line up."""

from __future__ import annotations

import importlib
import pkgutil

import rocport.scan.rules as rules_package
from rocport.scan.registry import REQUIRED_SECTIONS, RULE_ID, FixAvailability, Language
from rocport.scan.rules import BY_ID, RULES, resolve

from ._helpers import FIXTURES, fixture


def test_ids_and_names_are_unique_and_well_formed() -> None:
    ids = [r.id for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(ids)) == len(ids)
    assert len(set(names)) == len(names)
    assert ids == sorted(ids)
    for rule in RULES:
        assert RULE_ID.match(rule.id), rule.id
        assert rule.id.startswith("RP1" if rule.language is Language.CUDA else "RP3")


def test_every_rule_module_is_registered() -> None:
    registered = {r.check.__module__ for r in RULES}
    for language in ("cuda", "python"):
        package = importlib.import_module(f"rocport.scan.rules.{language}")
        for module in pkgutil.iter_modules(package.__path__):
            if not module.name.startswith("_"):
                name = f"{rules_package.__name__}.{language}.{module.name}"
                assert name in registered, f"{name} is not in RULES"


def test_docstrings_have_every_section(rule_id: str) -> None:
    rule = BY_ID[rule_id]
    assert rule.doc.splitlines()[0].startswith(f"{rule.id} {rule.name}: ")
    for section in REQUIRED_SECTIONS:
        assert rule.section(section), f"{rule.id} lacks '## {section}'"
    assert rule.check.__module__.rsplit(".", 1)[-1] == rule.name.replace("-", "_")


def test_fixtures_exist(rule_id: str) -> None:
    assert fixture(rule_id, "positive") is not None
    assert fixture(rule_id, "negative") is not None
    rule = BY_ID[rule_id]
    has_fixed = fixture(rule_id, "positive.fixed") or fixture(rule_id, "positive.unsafe.fixed")
    assert bool(has_fixed) == (rule.fix is not FixAvailability.NONE)


def test_no_stray_fixture_folders() -> None:
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == set(BY_ID)


def test_resolve_by_id_prefix_and_name() -> None:
    assert [r.id for r in resolve("RP105")] == ["RP105"]
    assert [r.id for r in resolve("shuffle-loop-from-16")] == ["RP105"]
    assert {r.id for r in resolve("RP10")} == {r.id for r in RULES if r.id.startswith("RP10")}
    assert all(r.language is Language.PYTHON for r in resolve("RP3"))
