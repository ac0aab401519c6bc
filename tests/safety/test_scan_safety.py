"""``rocport scan`` and ``scan --fix`` under careless and hostile input: backups are never
overwritten, modes and symlinks are kept, a file edited meanwhile is left alone, special files
and unreadable folders neither hang nor vanish, file names are shown escaped."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from rocport import _fs
from rocport.check.model import CheckReport, Diagnostic, Mode, Status, UnitResult
from rocport.check.render import print_report
from rocport.scan import fixer
from rocport.scan.engine import scan_paths
from rocport.scan.rules import RULES

from .conftest import KERNEL, cli, cli_child, unprivileged


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fix_then_unsafe_fix_keeps_the_first_original(project: Path, capsys) -> None:
    kernel = project / "src" / "k.cu"
    original = KERNEL + "__device__ int f(bool p) { unsigned m = __ballot(p); return m; }\n"
    kernel.write_text(original)
    cli(["scan", "src", "--fix"], capsys)
    safe = kernel.read_text()
    assert safe != original and "unsigned m" in safe  # the widening is an unsafe fix
    cli(["scan", "src", "--fix", "--unsafe-fixes"], capsys)
    assert "unsigned long long m" in kernel.read_text()
    assert (project / "src" / "k.cu.orig").read_text() == original
    assert (project / "src" / "k.cu.orig.1").read_text() == safe


def test_a_users_own_orig_file_is_kept(project: Path, capsys) -> None:
    mine = project / "src" / "k.cu.orig"
    mine.write_text("my notes\n")
    _, _, err = cli(["scan", "src", "--fix"], capsys)
    assert mine.read_text() == "my notes\n"
    assert (project / "src" / "k.cu.orig.1").read_text() == KERNEL
    assert "k.cu.orig.1" in err and "held other bytes" in err


@pytest.mark.parametrize("file_mode", [0o755, 0o444])
def test_fixed_files_keep_their_mode_and_reports_honour_the_umask(
    project: Path, capsys, file_mode: int
) -> None:
    kernel = project / "src" / "k.cu"
    kernel.chmod(file_mode)
    old = os.umask(0o022)
    try:
        cli(["scan", "src", "--fix", "--format", "json", "-o", "report.json"], capsys)
    finally:
        os.umask(old)
    assert kernel.read_text() != KERNEL
    assert stat.S_IMODE(kernel.stat().st_mode) == file_mode  # not 0600
    assert stat.S_IMODE((project / "report.json").stat().st_mode) == 0o644


def test_a_symlinked_source_is_kept_and_its_target_edited_once(project: Path, capsys) -> None:
    (project / "src" / "alias.cu").symlink_to("k.cu")
    outside = project / "outside.cu"
    outside.write_text(KERNEL)
    (project / "src" / "far.cu").symlink_to(outside)
    _, _, err = cli(["scan", "src", "--fix"], capsys)
    assert (project / "src" / "alias.cu").is_symlink()
    assert (project / "src" / "far.cu").is_symlink()
    assert (project / "src" / "k.cu").read_text() != KERNEL
    assert outside.read_text() != KERNEL and (project / "outside.cu.orig").read_text() == KERNEL
    assert (project / "src" / "k.cu.orig").read_text() == KERNEL
    assert not (project / "src" / "k.cu.orig.1").exists()  # the target was fixed once
    assert "far.cu: a symlink: its target" in err


def test_a_file_edited_during_the_fix_is_left_as_the_user_wrote_it(project: Path) -> None:
    report = scan_paths([Path("src")], RULES)
    fixed = fixer.fix_report(report, RULES)
    assert fixed
    edit = KERNEL + "// the user's edit\n"
    (project / "src" / "k.cu").write_text(edit)  # after the scan, before the write
    outcomes = fixer.write(fixed)
    assert (project / "src" / "k.cu").read_text() == edit
    assert not (project / "src" / "k.cu.orig").exists()
    assert outcomes[0].done is None and "changed after it was scanned" in outcomes[0].message
    assert "Fixed 0 findings in 0 files" in fixer.summary(outcomes)[0]


def test_a_second_fix_on_a_locked_folder_is_refused(project: Path, capsys) -> None:
    with _fs.folder_lock(project / "src"):
        code, _, err = cli(["scan", "src", "--fix"], capsys)
    assert code == 2 and "being written by another rocport run" in err
    assert (project / "src" / "k.cu").read_text() == KERNEL
    assert not (project / "src" / "k.cu.orig").exists()


def test_temporaries_left_by_a_killed_fix_are_removed(project: Path, capsys) -> None:
    stale = _fs.temp_path(project / "src" / "k.cu")
    stale.write_text("half")
    cli(["scan", "src", "--fix"], capsys)
    assert not stale.exists()


def test_a_fifo_is_skipped_with_a_note(project: Path) -> None:
    os.mkfifo(project / "src" / "pipe.cu")
    run = cli_child(["scan", "src"], cwd=project)
    assert run.returncode == 1, run.stderr  # the findings of k.cu
    assert "src/pipe.cu: skipped: a FIFO, not a regular file" in run.stdout
    alone = cli_child(["scan", "src/pipe.cu", "--fix"], cwd=project)
    assert alone.returncode == 0 and "a FIFO, not a regular file" in alone.stdout


def test_an_unreadable_folder_is_reported_and_exits_2(
    shared_tmp: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    (shared_tmp / "src").mkdir()
    (shared_tmp / "src" / "k.cu").write_text(KERNEL)
    (shared_tmp / "private").mkdir()
    (shared_tmp / "private" / "hidden.cu").write_text(KERNEL)
    (shared_tmp / "private").chmod(0o000)
    monkeypatch.chdir(shared_tmp)
    with unprivileged():
        code, out, err = cli(["scan", "."], capsys)
    assert code == 2
    assert "private: skipped: cannot read folder" in out
    assert "could not be read; the scan is incomplete" in err


def test_escape_sequences_in_file_names_are_shown_escaped(project: Path, capsys) -> None:
    name = "evil\x1b[2J\x1b]8;;x\x07\u202e.cu"
    (project / "src" / name).write_text(KERNEL)
    code, out, err = cli(["scan", "src", "--diff"], capsys)
    code, text, _ = cli(["scan", "src"], capsys)
    for shown in (out, err, text):
        assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "evil\\x1b[2J\\x1b]8;;x\\x07\\u202e.cu" in out and "\\x1b[2J" in text


def test_check_output_shows_file_names_escaped() -> None:
    name = "k\x1b[2J.cu"
    unit = UnitResult(name, Status.FAILED, Mode.FULL, 0.1, ["hipcc"])
    unit.diagnostics.append(Diagnostic(name, 3, 1, "error", "bad \x1b[31m thing"))
    report = CheckReport(
        ".",
        {"hip_version": "6.4", "release": "6.4", "clang_version": "19", "name": "sid"},
        ["gfx90a"],
        [],
        [unit],
    )
    console = Console(file=io.StringIO(), width=200, force_terminal=False)
    print_report(report, console)
    text = console.file.getvalue()
    assert "\x1b" not in text and "k\\x1b[2J.cu" in text


def test_two_fix_runs_at_once_keep_every_original(tmp_path: Path) -> None:
    """Two ``scan --fix`` processes started together on one tree: the second is refused (or,
    if the first has finished, finds nothing left to fix); every backup holds the original."""
    originals = {}
    for i in range(300):
        rel = f"d{i % 5}/k{i:03d}.cu"
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(KERNEL.replace("void k(", f"void k{i}("))
        originals[rel] = (tmp_path / rel).read_text()
    argv = [sys.executable, "-m", "rocport", "scan", ".", "--fix"]
    runs = [
        subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    errors = [run.communicate(timeout=300)[1].decode() for run in runs]
    codes = [run.returncode for run in runs]
    assert 0 in codes, errors
    for code, err in zip(codes, errors, strict=True):
        assert code == 0 or (code == 2 and "being written by another rocport run" in err), err
    for rel, original in originals.items():
        assert (tmp_path / f"{rel}.orig").read_text() == original, rel
        assert (tmp_path / rel).read_text() != original
    assert not list(tmp_path.rglob("*.orig.*"))
