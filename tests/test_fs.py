"""rocport._fs on real files: atomic writes, modes and umask, backups, in-place edits, locks and
the clean-up of temporary files a killed run left."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rocport import _fs
from rocport.errors import InputError, OutputError


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def test_new_files_honour_the_umask_and_replaced_files_keep_their_mode(
    tmp_path: Path, umask_027
) -> None:
    new = tmp_path / "report.json"
    _fs.atomic_write(new, "{}\n")
    assert mode(new) == 0o640  # 0666 less the umask, not mkstemp's 0600
    script = tmp_path / "run.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    _fs.atomic_write(script, "new\n")
    assert mode(script) == 0o755 and script.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "run.sh"]


def test_temporary_names_are_ours_and_recognised(tmp_path: Path) -> None:
    name = _fs.temp_path(tmp_path / "a.cu").name
    assert _fs.TEMP_NAME.fullmatch(name) and name.startswith(".a.cu.rocport-")
    for other in (".a.cu.swp", ".a.cu.abcdefgh.tmp", "a.cu.tmp", ".a.cu.rocport-xyz.tmp"):
        assert not _fs.TEMP_NAME.fullmatch(other)


def test_stale_temporaries_of_ours_are_removed_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    ours = [_fs.temp_path(tmp_path / "a.cu"), _fs.temp_path(tmp_path / "sub" / "b.cu")]
    theirs = [tmp_path / ".a.cu.swp", tmp_path / ".b.cu.abcdefgh.tmp", tmp_path / "a.cu"]
    for path in (*ours, *theirs):
        path.write_text("x")
    assert sorted(_fs.remove_stale_temps(tmp_path)) == sorted(ours)
    assert all(p.exists() for p in theirs)
    again = _fs.temp_path(tmp_path / "a.cu")
    other = _fs.temp_path(tmp_path / "c.cu")
    again.write_text("x")
    other.write_text("x")
    assert _fs.remove_stale_temps(tmp_path, only="a.cu") == [again]
    assert other.exists()


def test_backups_are_never_overwritten_and_reused_when_identical(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_bytes(b"v1")
    st = path.stat()
    assert _fs.make_backup(path, b"v1", st) == (tmp_path / "k.cu.orig", True)
    assert _fs.make_backup(path, b"v1", st) == (tmp_path / "k.cu.orig", False)  # reused
    assert _fs.make_backup(path, b"v2", st) == (tmp_path / "k.cu.orig.1", True)
    assert _fs.make_backup(path, b"v3", st) == (tmp_path / "k.cu.orig.2", True)
    assert _fs.make_backup(path, b"v2", st) == (tmp_path / "k.cu.orig.1", False)
    assert [(tmp_path / n).read_bytes() for n in ("k.cu.orig", "k.cu.orig.1", "k.cu.orig.2")] == [
        b"v1",
        b"v2",
        b"v3",
    ]
    assert not [p for p in tmp_path.iterdir() if _fs.TEMP_NAME.fullmatch(p.name)]


def test_a_backup_name_taken_meanwhile_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process creates FILE.orig between the check and the link: the backup goes to
    FILE.orig.1 and the other file stays as it was."""
    path = tmp_path / "k.cu"
    path.write_bytes(b"mine")
    real_link = os.link

    def racing_link(src, dst, **kw):
        if Path(dst).name == "k.cu.orig":
            Path(dst).write_bytes(b"theirs")
        return real_link(src, dst, **kw)

    monkeypatch.setattr(os, "link", racing_link)
    assert _fs.make_backup(path, b"mine", path.stat()) == (tmp_path / "k.cu.orig.1", True)
    assert (tmp_path / "k.cu.orig").read_bytes() == b"theirs"
    assert (tmp_path / "k.cu.orig.1").read_bytes() == b"mine"


def test_replace_in_place_keeps_mode_backs_up_and_refuses_a_changed_file(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_bytes(b"old")
    path.chmod(0o444)  # read-only files stay read-only (the folder is writable)
    done = _fs.replace_in_place(path, b"new", expected=b"old")
    assert path.read_bytes() == b"new" and mode(path) == 0o444
    assert done.backup == tmp_path / "k.cu.orig" and done.backup.read_bytes() == b"old"
    assert mode(done.backup) == 0o444 and not done.numbered
    with pytest.raises(_fs.ChangedError, match="changed after it was read"):
        _fs.replace_in_place(path, b"newer", expected=b"old")
    assert path.read_bytes() == b"new"
    data, st = _fs.read_regular(path)
    snapshot = _fs.Snapshot.of(data, st)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # touched: same bytes
    with pytest.raises(_fs.ChangedError):
        _fs.replace_in_place(path, b"newer", expected=snapshot)


def test_replace_in_place_edits_a_symlinks_target(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "k.cu"
    target.write_bytes(b"old")
    link = tmp_path / "k.cu"
    link.symlink_to("real/k.cu")
    done = _fs.replace_in_place(link, b"new", expected=b"old")
    assert link.is_symlink() and os.readlink(link) == "real/k.cu"
    assert target.read_bytes() == b"new" and done.target == target.resolve()
    assert (tmp_path / "real" / "k.cu.orig").read_bytes() == b"old"


def test_special_files_are_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.cu"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="a FIFO, not a regular file"):
        _fs.read_regular(fifo)  # would block forever on a plain open()
    with pytest.raises(InputError, match="a FIFO"):
        _fs.copy_if_changed(fifo, tmp_path / "copy.cu")


def test_a_fifo_at_an_output_path_is_replaced_not_read(tmp_path: Path) -> None:
    out = tmp_path / "out.cu"
    os.mkfifo(out)  # reading it to compare would block forever
    assert _fs.write_if_changed(out, "int x;\n", mode=0o644)
    assert stat.S_ISREG(os.lstat(out).st_mode) and out.read_text() == "int x;\n"
    assert not _fs.write_if_changed(out, "int x;\n", mode=0o644)
    fifo_source = tmp_path / "copy.cu"
    os.mkfifo(fifo_source)
    assert _fs.copy_if_changed(out, fifo_source)
    assert stat.S_ISREG(os.lstat(fifo_source).st_mode)


def test_a_second_lock_on_a_folder_is_refused(tmp_path: Path) -> None:
    with (
        _fs.folder_lock(tmp_path),
        pytest.raises(OutputError, match="being written by another rocport run"),
        _fs.folder_lock(tmp_path),
    ):
        pass
    with _fs.folder_lock(tmp_path):  # released
        pass
    assert list(tmp_path.iterdir()) == []  # the lock adds no file
