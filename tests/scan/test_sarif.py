"""SARIF output validates against the official 2.1.0 schema and carries what UIs need."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest

from rocport.scan.engine import scan_paths
from rocport.scan.output import sarif
from rocport.scan.rules import RULES

from ._helpers import FIXTURES

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every positive fixture in one tree, scanned from its root (relative paths)."""
    for folder in FIXTURES.iterdir():
        for path in folder.glob("positive.*"):
            if ".fixed" not in path.name:
                shutil.copy(path, tmp_path / f"{folder.name}_{path.name}")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    (tmp_path / "latin1.cu").write_bytes("// caf\xe9\n".encode("latin-1"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _log(tree: Path) -> dict:
    report = scan_paths([Path(".")], RULES)
    return json.loads(sarif.render(report, RULES))


def test_validates_against_schema(tree: Path) -> None:
    log = _log(tree)
    jsonschema.validate(log, SCHEMA)
    assert log["version"] == "2.1.0"


def test_rules_and_results(tree: Path) -> None:
    run = _log(tree)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in RULES]
    for descriptor in rules:
        assert descriptor["shortDescription"]["text"]
        assert "## Why is this bad?" in descriptor["help"]["text"]
        assert descriptor["helpUri"].endswith(
            "#" + descriptor["id"].lower() + "-" + descriptor["name"]
        )
        assert descriptor["defaultConfiguration"]["level"] in ("error", "warning", "note")
    results = run["results"]
    assert {r["ruleId"] for r in results} == {r.id for r in RULES}
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert not uri.startswith("/") and Path(uri).exists()
    fingerprints = [r["partialFingerprints"]["rocportFingerprint/v1"] for r in results]
    assert len(set(fingerprints)) == len(fingerprints)
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert {n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in notes} == {
        "latin1.cu"
    }  # blob.bin has an unknown extension and is not read at all


def test_fixes_point_at_the_replaced_text(tree: Path) -> None:
    results = _log(tree)["runs"][0]["results"]
    with_fixes = [r for r in results if "fixes" in r]
    assert {r["ruleId"] for r in with_fixes} >= {"RP101", "RP103", "RP105", "RP302"}
    for result in with_fixes:
        change = result["fixes"][0]["artifactChanges"][0]
        lines = Path(change["artifactLocation"]["uri"]).read_text().splitlines()
        for replacement in change["replacements"]:
            region = replacement["deletedRegion"]
            assert region["startLine"] == region["endLine"]
            line = lines[region["startLine"] - 1]
            deleted = line[region["startColumn"] - 1 : region["endColumn"] - 1]
            if result["ruleId"] == "RP101":
                assert deleted.lower().startswith(("0xffffffff", "~0", "-1"))
            if result["ruleId"] == "RP105":  # the loop, with the kernel's lane math
                assert deleted in ("16", "32", "31", ">> 5")


def test_fingerprints_survive_inserted_lines(tree: Path) -> None:
    before = {
        (r["ruleId"], r["message"]["text"]): r["partialFingerprints"]
        for r in _log(tree)["runs"][0]["results"]
    }
    target = tree / "RP105_positive.cu"
    target.write_text("// a new first line\n\n" + target.read_text())
    after = {
        (r["ruleId"], r["message"]["text"]): r["partialFingerprints"]
        for r in _log(tree)["runs"][0]["results"]
    }
    assert before == after


def test_artifact_uris_are_percent_encoded_uri_references(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A space, ``#``, ``?``, ``%``, ``:`` or a non-ASCII letter in a file name: every
    artifactLocation.uri is a valid RFC 3986 uri-reference (the schema's format) that decodes
    back to the file's path, relative and absolute alike."""
    checker = jsonschema.FormatChecker()
    # the check needs rfc3986-validator (the dev extra); without it every string would pass
    assert not checker.conforms("a b#c#d", "uri-reference"), "rfc3986-validator is missing"
    names = ["with space.cu", "hash#1.cu", "what?.cu", "50%.cu", "x:y.cu", "café.cu", "日本.cu"]
    body = next((FIXTURES / "RP105").glob("positive.cu")).read_text()
    tree = tmp_path / "tree"
    (tree / "dir #?").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    for name in names:
        (tree / "dir #?" / name).write_text(body)
    for cwd, root in ((tree, Path(".")), (tmp_path / "elsewhere", tree)):
        monkeypatch.chdir(cwd)
        log = json.loads(sarif.render(scan_paths([root], RULES), RULES))
        jsonschema.validate(log, SCHEMA, format_checker=checker)
        uris = set()
        for result in log["runs"][0]["results"]:
            location = result["locations"][0]["physicalLocation"]["artifactLocation"]
            uris.add(location["uri"])
        decoded = {unquote(u.removeprefix("file://")) for u in uris}
        base = "" if root == Path(".") else f"{tree}/"
        assert decoded == {f"{base}dir #?/{name}" for name in names}
        assert not any(c in u for u in uris for c in " ?é日") and all("#" not in u for u in uris)
