"""The report-path rule shared by port, scan, check, bench, amp-check and profile."""

from __future__ import annotations

import pytest

from rocport.cli._report_path import check_report_path
from rocport.cli.main import main
from rocport.errors import OutputError


def _run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


@pytest.fixture
def tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k() {}\n")
    return src


def test_stdout_and_none_pass():
    assert check_report_path(None) is None
    assert check_report_path("-") is None


def test_missing_folder_is_refused_not_created(tmp_path):
    with pytest.raises(OutputError, match="does not exist; create it first"):
        check_report_path(tmp_path / "nope" / "r.json", option="--json")
    assert not (tmp_path / "nope").exists()


def test_a_folder_is_not_a_report_file(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        check_report_path(tmp_path)


def test_an_input_file_or_an_existing_file_in_the_input_tree_is_refused(tree):
    with pytest.raises(OutputError, match="is an input"):
        check_report_path(tree / "k.cu", inputs=[tree / "k.cu"])
    with pytest.raises(OutputError, match="inside the input tree"):
        check_report_path(tree / "k.cu", inputs=[tree])
    # a new file inside the tree, and any file outside it, are fine
    assert check_report_path(tree / "new.json", inputs=[tree]) == tree / "new.json"
    assert check_report_path(tree.parent / "r.json", inputs=[tree])


def test_a_symlink_to_an_input_is_refused(tree):
    link = tree.parent / "link.json"
    link.symlink_to(tree / "k.cu")
    with pytest.raises(OutputError, match="is an input"):
        check_report_path(link, inputs=[tree / "k.cu"])


@pytest.mark.parametrize(
    "argv",
    [
        ["scan", "{src}", "--format", "json", "-o", "{src}/k.cu"],
        ["port", "{src}", "--examine", "--json", "{src}/k.cu"],
        ["check", "{src}", "--json", "{src}/k.cu"],
    ],
    ids=["scan -o", "port --json", "check --json"],
)
def test_cli_refuses_to_replace_a_source_file(tree, capsys, argv):
    before = (tree / "k.cu").read_bytes()
    code, _, err = _run([a.format(src=tree) for a in argv], capsys)
    assert code == 2, err
    assert err.startswith("rocport: error: ") and err.count("\n") == 1
    assert "input" in err
    assert (tree / "k.cu").read_bytes() == before


@pytest.mark.parametrize(
    "argv",
    [
        ["scan", "{src}", "--format", "json", "-o", "{tmp}/missing/r.json"],
        ["port", "{src}", "-o", "{tmp}/out", "--json", "{tmp}/missing/r.json"],
        ["check", "{src}", "--json", "{tmp}/missing/r.json"],
        ["profile", "--parse", "{src}/k.cu", "--json", "{tmp}/missing/r.json"],
        ["amp-check", "--device", "cpu", "--json", "{tmp}/missing/r.json"],
        ["bench", "report", "{src}/k.cu", "-o", "{tmp}/missing/r.md"],
    ],
    ids=["scan -o", "port --json", "check --json", "profile --json", "amp-check", "bench report"],
)
def test_cli_refuses_a_missing_report_folder(tree, capsys, argv):
    tmp = tree.parent
    code, _, err = _run([a.format(src=tree, tmp=tmp) for a in argv], capsys)
    assert code == 2, err
    assert "does not exist; create it first" in err and err.count("\n") == 1
    assert not (tmp / "missing").exists()
    assert not (tmp / "out").exists()  # refused before any work


def test_scan_replaces_its_earlier_report_inside_the_scanned_tree(tree, capsys):
    report = tree / "results.sarif"
    for _ in range(2):
        code, _, err = _run(["scan", str(tree), "--format", "sarif", "-o", str(report)], capsys)
        assert code == 0, err
    assert report.read_text().lstrip().startswith("{")
    assert (tree / "k.cu").read_text() == "__global__ void k() {}\n"
