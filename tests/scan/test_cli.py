"""``rocport scan`` end to end: formats, exit codes, fixes, backups, selection, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocport.cli.main import main

from ._helpers import FIXTURES

WARP = """\
__device__ float reduce(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}
__global__ void k(float* x) { x[threadIdx.x / 32] = reduce(x[threadIdx.x % warpSize]); }
"""


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(["scan", *args])
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "warp.cu").write_text(WARP)
    (tmp_path / "src" / "clean.cu").write_text("__global__ void k(float* x) { x[0] = 1; }\n")
    (tmp_path / "train.py").write_text(
        "import pynvml\nimport torch\nscaler = torch.cuda.amp.GradScaler()\n"
    )
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.cu").write_text(WARP)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_text_report_groups_by_file(project: Path, capsys) -> None:
    code, out, _ = run(["."], capsys)
    assert code == 1
    assert "src/warp.cu" in out and "train.py" in out and "RP105" in out and "RP301" in out
    assert out.index("build/gen.cu") < out.index("src/warp.cu")


def test_exclude_and_select(project: Path, capsys) -> None:
    _, out, _ = run(
        [".", "--exclude", "build", "--select", "RP105,RP301", "--format", "json"], capsys
    )
    data = json.loads(out)
    assert {f["rule"] for f in data["findings"]} == {"RP105", "RP301"}
    assert {f["path"] for f in data["findings"]} == {"src/warp.cu", "train.py"}
    _, out, _ = run([".", "--ignore", "RP1", "--format", "json"], capsys)
    assert {f["rule"][:3] for f in json.loads(out)["findings"]} == {"RP3"}


def test_fail_on(project: Path, capsys) -> None:
    assert run(["train.py", "--select", "RP301", "--fail-on", "warning"], capsys)[0] == 1
    assert run(["train.py", "--select", "RP301", "--fail-on", "error"], capsys)[0] == 0
    assert run(["src/clean.cu"], capsys)[0] == 0


def test_diff_changes_nothing(project: Path, capsys) -> None:
    code, out, err = run(["src/warp.cu", "--diff"], capsys)
    assert code == 1
    assert "-    for (int offset = 16;" in out and "+    for (int offset = warpSize / 2;" in out
    assert (project / "src" / "warp.cu").read_text() == WARP
    assert not (project / "src" / "warp.cu.orig").exists()
    assert "Would fix 2 findings in 1 file" in err


def test_fix_writes_backup_and_rescans_clean(project: Path, capsys) -> None:
    code, out, err = run(["src", "--fix", "--exclude", "build"], capsys)
    fixed = (project / "src" / "warp.cu").read_text()
    assert "warpSize / 2" in fixed and "0xffffffffffffffffULL" in fixed
    assert "threadIdx.x / warpSize" in fixed and "offset = 16" not in fixed
    assert (project / "src" / "warp.cu.orig").read_text() == WARP
    assert "+    for (int offset = warpSize / 2;" in out  # the diff is shown
    assert "No findings in 2 files" in out
    assert code == 0
    assert "Fixed 2 findings in 1 file" in err
    assert run(["src", "--diff"], capsys)[0] == 0  # nothing left to fix


def test_fix_no_backup_and_unsafe(project: Path, capsys) -> None:
    source = project / "src" / "mask.cu"
    source.write_text("__device__ int f(bool p) { unsigned m = __ballot(p); return m; }\n")
    run([str(source), "--fix", "--no-backup"], capsys)
    assert "unsigned m" in source.read_text()  # the widening is unsafe
    run([str(source), "--fix", "--unsafe-fixes", "--no-backup"], capsys)
    assert "unsigned long long m" in source.read_text()
    assert not source.with_name("mask.cu.orig").exists()


def test_sarif_and_json_to_file(project: Path, capsys) -> None:
    code, _, err = run([".", "--format", "sarif", "-o", "out/report.sarif"], capsys)
    assert code == 2 and "folder out does not exist; create it first" in err
    assert not (project / "out").exists()
    (project / "out").mkdir()
    code, out, _ = run([".", "--format", "sarif", "-o", "out/report.sarif"], capsys)
    assert code == 1 and out == ""
    log = json.loads((project / "out" / "report.sarif").read_text())
    assert log["version"] == "2.1.0" and log["runs"][0]["results"]
    run([".", "--format", "json", "-o", "report.json"], capsys)
    assert json.loads((project / "report.json").read_text())["summary"]["files"] == 4


def test_explain_and_list(capsys) -> None:
    code, out, _ = run(["--explain", "RP105"], capsys)
    assert code == 0 and "## Why is this bad?" in out and "shuffle-loop-from-16" in out
    code, out, _ = run(["--explain", "lane-math-32"], capsys)
    assert code == 0 and out.startswith("RP103 lane-math-32")
    code, out, _ = run(["--list-rules"], capsys)
    assert code == 0 and "RP308" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing/path"], "no such file or directory"),
        ([], "no PATH given"),
        (["--explain", "RP999"], "unknown rule 'RP999'"),
        ([".", "--select", "nope"], "unknown rule 'nope'"),
        ([".", "--unsafe-fixes"], "need --fix or --diff"),
        ([".", "--fail-on", "fatal"], "fatal"),
    ],
)
def test_bad_input_exits_2(
    args: list[str], message: str, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(args, capsys)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    if "fatal" not in args:  # click's own usage errors have a usage header
        assert err.startswith("rocport: error: ") and len(err.strip().splitlines()) == 1


def test_unwritable_output_exits_2(project: Path, capsys) -> None:
    (project / "blocker").write_text("a file, not a folder")
    code, _, err = run([".", "--format", "json", "-o", "blocker/report.json"], capsys)
    assert code == 2 and err == "rocport: error: -o blocker/report.json: blocker is not a folder\n"


def test_skips_binary_and_undecodable_with_a_note(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.cu").write_bytes(b"\x7fELF\0\0\0binary")
    (tmp_path / "b.cu").write_bytes(
        "// caf\xe9 __shfl_down_sync(0xffffffff, v, 1)\n".encode("latin-1")
    )
    (tmp_path / "c.py").write_text("def broken(:\n")
    code, out, _ = run([".", "--format", "json"], capsys)
    notes = {n["path"]: n["message"] for n in json.loads(out)["notes"]}
    assert notes == {
        "a.cu": "skipped: binary file",
        "b.cu": "skipped: not UTF-8 (byte 6)",
        "c.py": "skipped: Python syntax error at line 1",
    }
    assert code == 0


def test_fixture_tree_scans(capsys) -> None:
    code, out, _ = run([str(FIXTURES), "--format", "json", "--fail-on", "error"], capsys)
    assert code == 1 and json.loads(out)["summary"]["files"] > 50
