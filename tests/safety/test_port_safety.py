"""``rocport port`` under careless and hostile input: the user's original and its mode survive,
backups are never overwritten, special files and unreadable folders do not hang or vanish, an
output folder is never mixed with something else or written through a symlink."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from rocport import _fs
from rocport.port import tree
from rocport.port.api import port_tree

from .conftest import KERNEL, cli, cli_child, unprivileged


def make_tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "k.cu").write_text(KERNEL)
    (root / "README.md").write_text("notes\n")
    return root


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_in_place_then_scan_fix_keeps_the_original(tmp_path: Path, capsys, monkeypatch) -> None:
    """``port --in-place`` then ``scan --fix``: FILE.orig still holds the CUDA original, the
    ported text is in FILE.orig.1, and the summary says so. (The port drops the shuffle mask and
    the kernel is consistent 32-lane code, so only the unsafe grouped fix changes it.)"""
    src = make_tree(tmp_path / "proj")
    kernel = src / "src" / "k.cu"
    assert cli(["port", str(src), "--in-place"], capsys)[0] == 0
    ported = kernel.read_bytes()
    monkeypatch.chdir(src)
    code, _, err = cli(["scan", "src", "--fix", "--unsafe-fixes"], capsys)
    assert code == 0, err
    assert kernel.read_bytes() != ported
    assert (src / "src" / "k.cu.orig").read_text() == KERNEL
    assert (src / "src" / "k.cu.orig.1").read_bytes() == ported
    assert "numbered <file>.orig.N" in err and "k.cu.orig.1" in err


def test_a_users_own_orig_file_is_kept(tmp_path: Path, capsys) -> None:
    src = make_tree(tmp_path / "proj")
    mine = src / "src" / "k.cu.orig"
    mine.write_text("my own notes, not a backup\n")
    code, out, _ = cli(["port", str(src), "--in-place"], capsys)
    assert code == 0
    assert mine.read_text() == "my own notes, not a backup\n"
    assert (src / "src" / "k.cu.orig.1").read_text() == KERNEL
    assert "numbered" in out and "k.cu.orig.1" in out


@pytest.mark.parametrize("file_mode", [0o755, 0o444, 0o640])
def test_in_place_keeps_the_file_mode_and_new_reports_honour_the_umask(
    tmp_path: Path, capsys, file_mode: int
) -> None:
    src = make_tree(tmp_path / "proj")
    kernel = src / "src" / "k.cu"
    kernel.chmod(file_mode)
    old = os.umask(0o022)
    try:
        report = tmp_path / "report.json"
        assert cli(["port", str(src), "--in-place", "--json", str(report)], capsys)[0] == 0
    finally:
        os.umask(old)
    assert "hipMalloc" in kernel.read_text()
    assert stat.S_IMODE(kernel.stat().st_mode) == file_mode
    assert stat.S_IMODE((src / "src" / "k.cu.orig").stat().st_mode) == file_mode
    assert stat.S_IMODE(report.stat().st_mode) == 0o644  # 0666 less the umask, not 0600


def test_a_symlinked_source_file_is_kept_and_its_target_edited(tmp_path: Path, capsys) -> None:
    real = tmp_path / "real.cu"
    real.write_text(KERNEL)
    link = tmp_path / "link.cu"
    link.symlink_to("real.cu")
    code, out, _ = cli(["port", str(link), "--in-place"], capsys)
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == "real.cu"
    assert "hipMalloc" in real.read_text()
    assert (tmp_path / "real.cu.orig").read_text() == KERNEL
    assert "its target" in out and "was edited" in out


def test_a_file_edited_during_the_port_is_left_as_the_user_wrote_it(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    kernel = src / "src" / "k.cu"
    edit = KERNEL + "// the user's edit\n"

    def edit_after_reading(done: int, total: int) -> None:  # between read and write
        if done == total:
            kernel.write_text(edit)

    report = port_tree(src, in_place=True, jobs=1, progress=edit_after_reading)
    result = {f.path: f for f in report.files}["src/k.cu"]
    assert kernel.read_text() == edit
    assert not (src / "src" / "k.cu.orig").exists()
    assert not result.written and "changed after it was read" in result.message


def test_a_second_run_on_a_locked_tree_is_refused(tmp_path: Path, capsys) -> None:
    src = make_tree(tmp_path / "proj")
    out = tmp_path / "out"
    out.mkdir()
    with _fs.folder_lock(src):  # another run holds it
        code, _, err = cli(["port", str(src), "--in-place"], capsys)
        assert code == 2 and "being written by another rocport run" in err
        assert err.count("\n") == 1
    assert (src / "src" / "k.cu").read_text() == KERNEL
    with _fs.folder_lock(out):
        code, _, err = cli(["port", str(src), "-o", str(out)], capsys)
        assert code == 2 and "being written by another rocport run" in err
    assert list(out.iterdir()) == []


def test_temporaries_left_by_a_killed_run_are_removed_by_the_next(tmp_path: Path, capsys) -> None:
    src = make_tree(tmp_path / "proj")
    out = tmp_path / "out"
    assert cli(["port", str(src), "-o", str(out)], capsys)[0] == 0
    stale_out = _fs.temp_path(out / "src" / "k.cu")
    stale_src = _fs.temp_path(src / "src" / "k.cu")
    stale_out.write_text("half a file")
    stale_src.write_text("half a file")
    assert cli(["port", str(src), "-o", str(out)], capsys)[0] == 0
    assert not stale_out.exists()
    assert not (out / "src" / stale_src.name).exists()  # never copied into the output
    assert cli(["port", str(src), "--in-place"], capsys)[0] == 0
    assert not stale_src.exists()


def test_a_fifo_is_skipped_with_a_warning(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "proj")
    os.mkfifo(src / "src" / "pipe.cu")
    run = cli_child(["port", "proj", "-o", "out", "--json", "report.json"], cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "pipe.cu" in run.stdout and "a FIFO, not a regular file; skipped" in run.stdout
    report = {f["path"]: f for f in json.loads((tmp_path / "report.json").read_text())["files"]}
    assert report["src/pipe.cu"]["status"] == "skipped"
    assert not (tmp_path / "out" / "src" / "pipe.cu").exists()
    assert "hipMalloc" in (tmp_path / "out" / "src" / "k.cu").read_text()
    alone = cli_child(["port", "proj/src/pipe.cu"], cwd=tmp_path)
    assert alone.returncode == 2 and "is a FIFO, not a source file" in alone.stderr


def test_an_unreadable_folder_stops_the_port(shared_tmp: Path, capsys) -> None:
    src = make_tree(shared_tmp / "proj")
    hidden = src / "private"
    hidden.mkdir()
    (hidden / "secret.cu").write_text(KERNEL)
    hidden.chmod(0o000)
    out = shared_tmp / "out"
    with unprivileged():
        code, _, err = cli(["port", str(src), "-o", str(out)], capsys)
    assert code == 2
    assert err.startswith("rocport: error: cannot read folder") and "private" in err
    assert not (out / "src").exists()  # nothing written


def test_an_unreadable_file_is_blamed_and_nothing_is_written(shared_tmp: Path, capsys) -> None:
    src = make_tree(shared_tmp / "proj")
    (src / "src" / "a.cu").write_text(KERNEL)
    locked = src / "zz-data.bin"  # copied after the sources, in the same phase
    locked.write_bytes(b"\1\2")
    locked.chmod(0o000)
    out = shared_tmp / "out"
    with unprivileged():
        code, _, err = cli(["port", str(src), "-o", str(out)], capsys)
    assert code == 2
    assert f"cannot read {locked}" in err and "cannot write" not in err
    assert sorted(p.name for p in out.rglob("*")) == [tree.OUTPUT_MARKER]  # no partial tree


def test_an_existing_folder_is_not_overwritten_without_force(tmp_path: Path, capsys) -> None:
    src = make_tree(tmp_path / "proj")
    out = tmp_path / "out"
    (out / "src").mkdir(parents=True)
    (out / "src" / "k.cu").write_text("someone else's file\n")
    code, _, err = cli(["port", str(src), "-o", str(out)], capsys)
    assert code == 2 and "exists and is not empty" in err and "--force" in err
    assert (out / "src" / "k.cu").read_text() == "someone else's file\n"
    assert cli(["port", str(src), "-o", str(out), "--force"], capsys)[0] == 0
    assert "hipMalloc" in (out / "src" / "k.cu").read_text()
    assert cli(["port", str(src), "-o", str(out)], capsys)[0] == 0  # its own output: rerun
    other = make_tree(tmp_path / "other")
    code, _, err = cli(["port", str(other), "-o", str(out)], capsys)
    assert code == 2 and "holds the port of" in err


def test_a_symlinked_folder_in_the_output_is_not_written_through(tmp_path: Path, capsys) -> None:
    src = make_tree(tmp_path / "proj")
    out = tmp_path / "out"
    assert cli(["port", str(src), "-o", str(out)], capsys)[0] == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "k.cu").write_text("not to be touched\n")
    for path in (out / "src").iterdir():
        path.unlink()
    (out / "src").rmdir()
    (out / "src").symlink_to(elsewhere, target_is_directory=True)
    code, _, err = cli(["port", str(src), "-o", str(out)], capsys)
    assert code == 2 and "is a symlink; rocport never writes through one" in err
    assert files(elsewhere) == {"k.cu": b"not to be touched\n"}


def test_escape_sequences_in_file_names_are_shown_escaped(tmp_path: Path, capsys) -> None:
    src = tmp_path / "proj"
    src.mkdir()
    name = "evil\x1b[2J\x1b]8;;x\x07[red]name.cu"
    (src / name).write_text(KERNEL.replace("cudaMalloc(d, 64)", "cudaMalloc(d, 64); cudaNope()"))
    code, out, _ = cli(["port", str(src), "-o", str(tmp_path / "out")], capsys)
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b[2J\\x1b]8;;x\\x07[red]name.cu" in out  # markup shown, not applied
