"""The data tables: shape, sources, internal consistency, and agreement with AMD's pages."""

from __future__ import annotations

import importlib.util
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from packaging.version import Version

from rocport.doctor import checks, data
from rocport.errors import InputError

from . import sources

ROOT = Path(__file__).resolve().parents[2]


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    duplicated = {k for k in keys if keys.count(k) > 1}
    assert not duplicated, f"duplicated keys: {duplicated}"
    return dict(pairs)


@pytest.mark.parametrize("name", sorted(data.TABLES))
def test_table_has_schema_and_no_duplicate_keys(name) -> None:
    text = resources.files("rocport.doctor").joinpath("data", name).read_text()
    table = json.loads(text, object_pairs_hook=_no_duplicates)
    assert table["schema"] == data.TABLES[name]


def test_every_release_from_57_to_the_newest_is_known_with_sources() -> None:
    known = sorted(data.releases(), key=Version)
    assert known[0] == "5.7.0" and Version(known[-1]) >= Version("7.2.1")
    for line in ("5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"):
        assert any(r.startswith(line + ".") for r in known), line
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", data.read_date())
    for key, rel in data.releases().items():
        assert rel["release"] == key and key.startswith(rel["line"] + ".")
        assert {"os", "matrix", "repositories", "pytorch"} <= set(rel["sources"])
        rows = [(r["id"], r["version"]) for r in rel["os"]]
        assert rows and len(rows) == len(set(rows)), key
        for row in rel["os"]:
            assert all(re.fullmatch(r"\d+\.\d+", k) for k in row.get("kernels", []))
        for url in rel["repositories"].values():
            assert url.startswith("https://repo.radeon.com/")


def test_os_rows_and_targets_match_amds_historical_matrix() -> None:
    for release, col in sources.matrix_columns().items():
        for name in release.split("/"):
            rel = data.releases()[name.strip()]
            labels = {row["label"] for row in rel["os"]}
            for cell in col["os"]:
                first = re.split(r",", cell)[0]
                assert first in labels or first.replace("Ubuntu ", "Ubuntu ") in labels, (
                    name,
                    first,
                )
            assert set(rel["gfx"]) == {g.split()[0] for g in col["gfx"]}, name


def test_pytorch_indexes_are_exactly_the_published_ones() -> None:
    pairs = sources.pytorch_pairs()
    for release, rel in data.releases().items():
        v = Version(release)
        expected: dict[str, list[str]] = {}
        for torch, url in pairs:
            index = url.rsplit("rocm", 1)[1]
            if index in (f"{v.major}.{v.minor}", release):
                expected.setdefault(url, []).append(torch)
        got = {p["index"]: sorted(p["torch"], key=Version) for p in rel["pytorch"]}
        assert got == {u: sorted(t, key=Version) for u, t in expected.items()}, release
    assert data.releases()["7.0.0"]["pytorch"] == []


def test_amd_pytorch_commands_match_amds_pytorch_pages() -> None:
    """7.0.x and 7.2.x carry the wheel command of AMD's PyTorch page for their line (excerpts of
    its 7.0.0 and 7.2.0 revisions), with that page as the source; its URLs are PyTorch's or
    AMD's own hosts."""
    for release, rel in data.releases().items():
        for entry in rel["amd_pytorch"]:
            assert entry["index"].startswith(
                ("https://download.pytorch.org/whl/", "https://repo.radeon.com/rocm/manylinux/")
            ), release
        page = sources.amd_pytorch_page(release)
        if page is None:
            continue
        name, command = page
        [entry] = rel["amd_pytorch"]
        pre = "--pre " if entry["pre"] else ""
        args = f"{pre}{' '.join(entry['packages'])} --index-url {entry['index']}"
        assert f"pip3 install {args}" == command, release
        revision = name.split("-")[1]
        assert f"validated for ROCm {revision}." in sources.text(name)
        assert rel["sources"]["amd_pytorch"].startswith(
            f"https://rocm.docs.amd.com/projects/install-on-linux/en/docs-{revision}/"
        ) and rel["sources"]["amd_pytorch"].endswith(f"tests/doctor/fixtures/sources/{name})")
    for release in ("7.0.0", "7.0.1", "7.0.2", "7.2.0", "7.2.1"):
        assert data.releases()[release]["amd_pytorch"], release


def test_70_kernels_and_radeon_limits_match_the_system_requirements_page() -> None:
    page = sources.text("rocm-7.0-system-requirements.rst")
    rel = data.releases()["7.0.0"]
    for label, kernel in re.findall(r'^\s+"([^"]+)", "([^"]+)", "[\d.]+"', page, re.M):
        row = next(r for r in rel["os"] if r["label"] == label)
        assert row["kernel_text"] == kernel
    limit = next(lim for lim in rel["gpu_os_limits"] if "AMD Radeon RX 7900 XTX" in lim["gpus"])
    assert limit["os"] == ["Ubuntu 24.04.3", "Ubuntu 22.04.5", "RHEL 9.6"]
    debian = next(r for r in rel["os"] if r["label"] == "Debian 12")
    assert debian["only_gpus"][:2] == ["AMD Instinct MI300X", "AMD Instinct MI300A"]
    assert "AMD Instinct MI100" not in debian["only_gpus"]
    rhel8 = next(r for r in rel["os"] if r["label"] == "RHEL 8.10")
    assert "AMD Instinct MI100" in rhel8["only_gpus"]


def test_721_distributions_match_its_conf_py() -> None:
    conf = sources.text("rocm-7.2.1-conf.py.txt")
    rows = {(r["id"], r["version"]) for r in data.releases()["7.2.1"]["os"]}
    for version in re.search(r"rhel_version_numbers = \[(.*)\]", conf)[1].split(","):
        assert ("rhel", version.strip(" '")) in rows


def test_721_gpu_targets_match_the_compatibility_matrix_excerpt() -> None:
    """7.2.1's gfx targets are the 7.2.2/7.2.1 column of ROCm/legacy-rocm-build
    docs/compatibility/compatibility-matrix.rst at fff7efbd0c87 (the historical CSV read has no
    7.2.1 column)."""
    name = "compatibility-matrix-7.2.4-gpu-targets.rst"
    columns = sources.current_table_gpu_columns(name)
    rel = data.releases()["7.2.1"]
    assert sorted(rel["gfx"]) == sorted(columns["7.2.2/7.2.1"]) and len(rel["gfx"]) == 9
    assert rel["sources"]["gfx"] == (
        "ROCm/legacy-rocm-build docs/compatibility/compatibility-matrix.rst at fff7efbd0c87, "
        f"column 7.2.2/7.2.1 (excerpt tests/doctor/fixtures/sources/{name})"
    )
    assert rel["sources"]["matrix"] == rel["sources"]["os"]  # the driver and OS rows: conf.py
    for release, other in data.releases().items():  # every other list is the matrix's own
        if release != "7.2.1":
            assert other["gfx"] and other["sources"]["gfx"] == other["sources"]["matrix"]


def test_current_table_reader_agrees_with_the_excerpts() -> None:
    parse = _script("release_sources")
    page = sources.text("compatibility-matrix-7.2.4-gpu-targets.rst")
    column, targets = parse.current_table_gfx(page, "7.2.1")
    assert column == "7.2.2/7.2.1" and sorted(targets) == sorted(data.releases()["7.2.1"]["gfx"])
    assert parse.current_table_gfx(page, "7.2.0") is None
    older = sources.text("compatibility-matrix-6.4.3-footnotes.rst")  # also in the historical CSV
    for release in ("6.4.3", "6.4.2"):
        assert sorted(parse.current_table_gfx(older, release)[1]) == sorted(
            data.releases()[release]["gfx"]
        )


def _script(name: str):
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def test_refresh_parsers_rebuild_the_pytorch_table_from_the_excerpt() -> None:
    parse = _script("release_sources")
    pairs = parse.parse_pytorch(sources.text("pytorch-previous-versions.txt"))
    for release, rel in data.releases().items():
        assert parse.pytorch_for(release, pairs) == rel["pytorch"], release
    assert parse.expand_os("SLES 15 SP7, SP6") == [
        ("sles", "15.7", "SLES 15 SP7"),
        ("sles", "15.6", "SLES 15 SP6"),
    ]
    for release in ("7.0.2", "7.2.1"):
        name, _ = sources.amd_pytorch_page(release)
        got = parse.parse_amd_pytorch(sources.text(name))
        assert got == data.releases()[release]["amd_pytorch"], release
    assert parse.kernel_series("6.40-150700.51") == ["6.4"]
    assert parse.kernel_series("5.15 [GA], 6.8 [HWE]") == ["5.15", "6.8"]


def test_refresh_tool_rebuilds_os_rows_and_targets_from_a_git_snapshot(tmp_path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git not found: the refresh tool reads git snapshots of the docs")
    repo = tmp_path / "rocm"
    target = repo / "docs/compatibility/compatibility-matrix-historical-6.0.csv"
    target.parent.mkdir(parents=True)
    lines = sources.text("compatibility-matrix-historical-6.0.csv").splitlines(keepends=True)
    target.write_text("".join(line for line in lines if not line.startswith("#")))
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "PATH": os.environ.get("PATH", "")}  # fmt: skip
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run([git, "-C", str(repo), *args], check=True, env=env)
    refresh = _script("refresh_release_data")
    out = tmp_path / "releases.json"
    code = refresh.main(
        ["--rocm-git", str(repo / ".git"), "--extracts", str(sources.SOURCES),
         "--date", data.read_date(), "-o", str(out)]
    )  # fmt: skip
    assert code == 0
    rebuilt = json.loads(out.read_text())["releases"]
    for release, rel in rebuilt.items():
        if release in ("7.2.1",) or release.startswith("5."):
            continue  # from the conf.py excerpt / the 5.7 branches, not the matrix
        committed = data.releases()[release]
        assert [(r["id"], r["version"]) for r in rel["os"]] == [
            (r["id"], r["version"]) for r in committed["os"]
        ], release
        assert rel["gfx"] == committed["gfx"] and rel["pytorch"] == committed["pytorch"]
        assert rel["repositories"] == committed["repositories"], release
        if Version(release) >= Version("7.0"):  # from the PyTorch page excerpts
            assert rel["amd_pytorch"] == committed["amd_pytorch"], release
            assert rel["sources"].get("amd_pytorch") == committed["sources"].get("amd_pytorch")
    assert rebuilt["7.2.1"]["gfx"] == data.releases()["7.2.1"]["gfx"]  # the table excerpt's
    assert rebuilt["7.2.1"]["sources"]["gfx"] == data.releases()["7.2.1"]["sources"]["gfx"]


def test_release_resolution_never_maps_a_point_release_silently() -> None:
    assert data.resolve_release(None) == max(data.releases(), key=Version)
    assert data.resolve_release("6.4.1") == "6.4.1"
    assert data.resolve_release("6.4") == "6.4.3"
    with pytest.raises(InputError, match=r"6\.4\.3, 7\.0\.0"):
        data.resolve_release("6.4.4")
    assert data.release_of("6.4.1-86") == "6.4.1"
    assert data.release_of("7.0.0-38") == "7.0.0"


def test_gpu_and_override_tables_agree() -> None:
    for gfx in data.gpu_by_target():
        assert re.fullmatch(r"gfx[0-9a-f]{3,4}", gfx)
    rows = data.load("gfx_overrides.json")["overrides"]
    assert len({r["gfx"] for r in rows}) == len(rows)
    for row in rows:
        major, minor, step = row["value"].split(".")
        assert row["runs_as"] == f"gfx{major}{minor}{step}"
        assert row["gfx"][:5] == row["runs_as"][:5] or row["family"] == "RDNA3.5"


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
        ("debian", "12", "Debian 12"),
        ("debian", "13", None),
        ("ubuntu", "24.04", "Ubuntu 24.04.3"),
    ],
)
def test_os_rows_match_os_release_versions(os_id, version, label) -> None:
    from rocport.doctor.context import match_os

    row = match_os(data.releases()["7.0.0"]["os"], {"ID": os_id, "VERSION_ID": version})
    assert (row["label"] if row else None) == label


def test_folder_rule_and_minor_releases_match_the_conf_py_excerpts() -> None:
    """conf.py's rocm_multi_versions name the folders: 7.0 for 7.0.0, 6.4.3 for 6.4.3."""
    for name in ("rocm-7.0.0-conf.py.txt", "rocm-7.2.1-conf.py.txt"):
        folders = re.search(r"rocm_multi_versions = '([^']*)'", sources.text(name))[1].split()
        for item in folders:
            release = item if item.count(".") == 2 else item + ".0"
            assert sources.folder(release) == item
            assert data.releases()[release]["repositories"]["rocm_apt"].endswith("/" + item)
    rows = {r["label"]: r for r in data.releases()["7.0.0"]["os"]}
    assert rows["Rocky Linux 9"]["el_version"] == "9.6"
    assert rows["Oracle Linux 9"]["el_version"] == "9.6"
    assert rows["Oracle Linux 8"]["el_version"] == "8.10"


def test_matrix_footnotes_become_os_and_gpu_limits() -> None:
    parse = _script("release_sources")
    page = sources.text("compatibility-matrix-6.4.3-footnotes.rst")
    for release in ("6.4.3", "6.4.2"):
        os_limits, gpu_limits = parse.matrix_footnotes(page, release)
        rel = data.releases()[release]
        assert rel["gpu_os_limits"] == gpu_limits
        rows = {r["label"]: r for r in rel["os"]}
        assert rows["Debian 12"]["only_gpus"] == os_limits["Debian 12"]["gpus"]
        assert rows["Oracle Linux 9"]["only_gpus"] == os_limits["Oracle Linux"]["gpus"]
        assert "only_gpus" not in rows["Ubuntu 24.04.2"]
    limit = next(g for g in gpu_limits if g["gpus"] == ["AMD Radeon RX 7700 XT"])
    assert limit["os"] == ["Ubuntu 24.04.2", "RHEL 9.6"]


def test_lookup_table_reads_zero_padded_ubuntu_point_releases() -> None:
    """The 6.2.x matrix's OS table spells Ubuntu point releases "22.04.05" (ROCm/ROCm
    docs/compatibility/compatibility-matrix.rst at 516b6c8ebc18, the table 6.1.5 is read from)."""
    parse = _script("release_sources")
    text = (
        ".. _OS-kernel-versions:\n\n.. csv-table:: \n"
        '   :header: "OS", "Version", "Kernel"\n\n'
        '   `Ubuntu <https://ubuntu.com/about/release-cycle>`_, 22.04.05, "5.15 GA, 6.8 HWE"\n'
        '   , 22.04.04, "5.15 GA, 6.5 HWE"\n'
        '   `Ubuntu <https://ubuntu.com/about/release-cycle>`_, 20.04.06, "5.15 HWE"\n'
    )
    table = parse.lookup_table(text)
    assert table[("ubuntu", "22.04.5")]["kernel"] == "5.15 GA, 6.8 HWE"
    assert set(table) == {("ubuntu", "22.04.5"), ("ubuntu", "22.04.4"), ("ubuntu", "20.04.6")}
    rows = {r["label"]: r for r in data.releases()["6.1.5"]["os"]}
    assert rows["Ubuntu 22.04.5"]["kernels"] == ["5.15", "6.8", "6.5", "6.2"]
    assert rows["Ubuntu 20.04.6"]["kernels"] == ["5.15"]
