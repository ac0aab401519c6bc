"""The data tables: shape, sources, no duplicated keys, internal consistency."""

from __future__ import annotations

import json
import pkgutil
import re
from importlib import resources

import pytest
from packaging.version import Version

from rocport.doctor import checks, data


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    duplicated = {k for k in keys if keys.count(k) > 1}
    assert not duplicated, f"duplicated keys: {duplicated}"
    return dict(pairs)


@pytest.mark.parametrize("name", data.TABLES)
def test_table_has_schema_and_no_duplicate_keys(name) -> None:
    text = resources.files("rocport.doctor").joinpath("data", name).read_text()
    table = json.loads(text, object_pairs_hook=_no_duplicates)
    assert table["schema"] == 1


def test_every_release_has_sources_matrix_repositories_and_wheel_index() -> None:
    for key, rel in data.releases().items():
        assert Version(rel["release"]).base_version.startswith(key)
        assert {"os", "repositories", "pytorch"} <= set(rel["sources"])
        assert rel["pytorch_index"] == f"https://download.pytorch.org/whl/rocm{key}"
        rows = [(r["id"], r["version"]) for r in rel["os"]]
        assert len(rows) == len(set(rows)), key
        for row in rel["os"]:
            assert row["kernels"] and all(re.fullmatch(r"\d+\.\d+", k) for k in row["kernels"])
            if row["id"] in ("ubuntu", "debian"):
                assert row["suite"] in ("jammy", "noble")
        for url in rel["repositories"].values():
            assert url.startswith("https://repo.radeon.com/")


def test_newest_release_is_the_default() -> None:
    assert data.resolve_release(None) == max(data.releases(), key=Version)
    assert data.resolve_release("6.4.1") == "6.4"


def test_gpu_and_override_tables_agree() -> None:
    by_target = data.gpu_by_target()
    for gfx in by_target:
        assert re.fullmatch(r"gfx[0-9a-f]{3,4}", gfx)
    rows = data.load("gfx_overrides.json")["overrides"]
    assert len({r["gfx"] for r in rows}) == len(rows)
    for row in rows:
        major, minor, step = row["value"].split(".")
        assert row["runs_as"] == f"gfx{major}{minor}{step}"  # the override names the target run
        assert row["gfx"][:5] == row["runs_as"][:5] or row["family"] == "RDNA3.5"
    for release in data.releases():
        assert data.supported_targets(release), release


def test_every_check_module_is_registered_with_unique_ids() -> None:
    modules = {m.name for m in pkgutil.iter_modules(checks.__path__)} - {"base"}
    assert modules == {m.__name__.rsplit(".", 1)[-1] for m in checks.GROUPS}
    ids = [c.id for c in checks.ALL_CHECKS]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z]+(\.[a-z_]+)?", i) for i in ids)


@pytest.mark.parametrize(
    ("os_id", "version", "label"),
    [
        ("ol", "9.6", "Oracle Linux 9"),
        ("rhel", "9.6", "RHEL 9.6"),
        ("rhel", "9.5", None),
        ("rhel", "9", None),
        ("debian", "12", "Debian 12"),
        ("debian", "13", None),
        ("ubuntu", "24.04", "Ubuntu 24.04.3"),
    ],
)
def test_os_rows_match_os_release_versions(os_id, version, label) -> None:
    from rocport.doctor.context import match_os

    row = match_os(data.releases()["7.0"]["os"], {"ID": os_id, "VERSION_ID": version})
    assert (row["label"] if row else None) == label
