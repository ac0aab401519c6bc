"""File writes that never leave a half-written file or lose a user's original.

- every write goes to a temporary file of our own naming (``.NAME.rocport-XXXXXXXXXXXX.tmp``) in
  the destination's folder, then is renamed over the destination; a run killed in between
  leaves only such a file, which the next run on that tree removes (:func:`remove_stale_temps`);
- a new file gets ``0666`` less the umask; a replaced file keeps its mode;
- :func:`replace_all` edits a user's files: it checks that each file still holds the bytes
  that were read, writes a whole backup (``FILE.orig``, or ``FILE.orig.1``, ``.2`` ... when an
  earlier backup holds other bytes; never overwritten), syncs the backups to disk, and only
  then replaces the files; a symlink is followed and its target edited;
- :func:`folder_lock` takes an exclusive ``flock`` on a folder, so that two runs never write
  into one tree at once.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from rocport.errors import InputError, OutputError

BACKUP_SUFFIX = ".orig"
#: the temporary files this module creates, and only those
TEMP_NAME = re.compile(r"\..+\.rocport-[0-9a-f]{12}\.tmp")
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # O_NONBLOCK: a FIFO never blocks the open


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def temp_path(path: Path) -> Path:
    """A fresh temporary name beside ``path`` that :data:`TEMP_NAME` matches."""
    return path.with_name(f".{path.name}.rocport-{os.urandom(6).hex()}.tmp")


def _write_temp(
    path: Path, payload: bytes, mode: int | None, durable: bool, *, make_parents: bool = False
) -> Path:
    """Write ``payload`` to a new temporary file beside ``path``; return its name. With
    ``make_parents``, a missing folder of ``path`` is created first (tried only when the file
    cannot be created: the folder is there for all files but the first)."""
    tmp = temp_path(path)
    try:
        fd = os.open(tmp, _NEW_FILE, 0o666)  # the umask applies
    except (FileNotFoundError, NotADirectoryError):
        if not make_parents:
            raise
        path.parent.mkdir(parents=True, exist_ok=True)  # raises where it cannot be a folder
        fd = os.open(tmp, _NEW_FILE, 0o666)
    try:
        try:
            with memoryview(payload) as view:
                written = 0
                while written < len(view):
                    written += os.write(fd, view[written:])
            if mode is not None:
                os.fchmod(fd, mode)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _existing_mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def atomic_write(path: Path, data: bytes | str, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    ``mode`` defaults to the mode of the file replaced, or ``0666`` less the umask for a new
    one."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path = Path(path)
    if mode is None:
        mode = _existing_mode(path)
    _replace_with(path, payload, mode, make_parents=True)


def _replace_with(path: Path, payload: bytes, mode: int, *, make_parents: bool = False) -> None:
    """Write ``payload`` to a temporary file beside ``path`` and rename it over ``path``."""
    try:
        tmp = _write_temp(path, payload, mode, durable=False, make_parents=make_parents)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_why(exc)}") from exc
    try:
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {_why(exc)}") from exc


def write_if_changed(path: Path, data: bytes | str, *, mode: int | None = None) -> bool:
    """Atomically write ``data`` unless ``path`` already holds it (and, when given, has
    ``mode``); return whether it wrote."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if _regular_file_holds(path, payload) and (mode is None or _existing_mode(path) == mode):
        return False
    atomic_write(path, payload, mode=mode)
    return True


def _regular_file_holds(path: Path, payload: bytes) -> bool:
    """Whether ``path`` is a regular file (not a symlink) that holds ``payload``; a FIFO or
    device there is never opened for reading (it could block), but replaced."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        fd = os.open(path, _READ | os.O_NOFOLLOW)
    except OSError:  # not there (nothing to compare), or unreadable: written anew
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(payload):
            return False
        with open(fd, "rb", buffering=0, closefd=False) as file:
            return file.readall() == payload
    except OSError:
        return False
    finally:
        os.close(fd)


def open_regular(path: Path) -> tuple[int, os.stat_result]:
    """Open ``path`` for reading; raise :class:`InputError` unless it is a readable regular
    file (a FIFO or device is never read: it could block or never end)."""
    try:
        fd = os.open(path, _READ)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {_why(exc)}") from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputError(f"cannot read {path}: {special_kind(st.st_mode)}, not a regular file")
    return fd, st


def read_regular(path: Path) -> tuple[bytes, os.stat_result]:
    """The bytes and status of the regular file ``path`` (see :func:`open_regular`)."""
    fd, st = open_regular(path)
    try:
        with open(fd, "rb", buffering=0, closefd=False) as fh:
            data = fh.readall()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {_why(exc)}") from exc
    finally:
        os.close(fd)
    return data, st


def special_kind(st_mode: int) -> str:
    """What a file that is not regular is, in words (``"a FIFO"``, ``"a socket"``)."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(st_mode):
            return name
    return "a special file"


def copy_if_changed(src: Path, dest: Path) -> bool:
    """Copy bytes, mode and timestamps atomically unless ``dest`` already holds the same bytes.

    A failure to read ``src`` is an :class:`InputError`, a failure to write ``dest`` an
    :class:`OutputError`."""
    fd, st = open_regular(src)
    try:
        with open(fd, "rb", closefd=False) as fsrc:
            if _holds(dest, fsrc, st.st_size):
                return False
            fsrc.seek(0)
            try:
                dest.parent.mkdir(parents=True, exist_ok=True)
                tmp = temp_path(dest)
                out = os.open(tmp, _NEW_FILE, 0o600)
            except OSError as exc:
                raise OutputError(f"cannot write {dest}: {_why(exc)}") from exc
            try:
                with open(out, "wb") as fdst:
                    _copy_stream(fsrc, fdst, src, dest)
                    os.fchmod(fdst.fileno(), stat.S_IMODE(st.st_mode))
                os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
                os.replace(tmp, dest)
            except BaseException as exc:
                tmp.unlink(missing_ok=True)
                if isinstance(exc, OSError):
                    raise OutputError(f"cannot write {dest}: {_why(exc)}") from exc
                raise
    finally:
        os.close(fd)
    return True


def _copy_stream(fsrc, fdst, src: Path, dest: Path) -> None:
    while True:
        try:
            chunk = fsrc.read(1 << 20)
        except OSError as exc:
            raise InputError(f"cannot read {src}: {_why(exc)}") from exc
        if not chunk:
            return
        fdst.write(chunk)


def _holds(dest: Path, fsrc, size: int) -> bool:
    """Whether the regular file ``dest`` (not a symlink) holds the bytes of ``fsrc``."""
    try:
        st = os.lstat(dest)
        if not stat.S_ISREG(st.st_mode) or st.st_size != size:
            return False
        with open(dest, "rb") as fdest:
            while True:
                a, b = fsrc.read(1 << 20), fdest.read(1 << 20)
                if a != b:
                    return False
                if not a:
                    return True
    except OSError:
        return False


# -- in-place edits ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a file held when it was read: size, modification time and a digest of its bytes."""

    size: int
    mtime_ns: int
    digest: bytes

    @classmethod
    def of(cls, data: bytes, st: os.stat_result) -> Snapshot:
        return cls(len(data), st.st_mtime_ns, digest(data))

    def matches(self, data: bytes, st: os.stat_result) -> bool:
        same_stat = st.st_size == self.size and st.st_mtime_ns == self.mtime_ns
        return same_stat and digest(data) == self.digest


def digest(data: bytes) -> bytes:
    import hashlib  # (only in-place edits need it: not loaded at every start)

    return hashlib.blake2b(data, digest_size=16).digest()


class ChangedError(OutputError):
    """The file changed after it was read; it was left as it is."""


@dataclass(frozen=True, slots=True)
class Replaced:
    """Where an in-place edit went: the file written (a symlink's target) and its backup."""

    target: Path
    backup: Path | None
    backup_written: bool  # False: an existing backup already held these bytes

    @property
    def numbered(self) -> bool:
        """The backup is ``FILE.orig.N``, because ``FILE.orig`` holds other bytes."""
        return self.backup is not None and self.backup.suffix != BACKUP_SUFFIX


def backup_names(path: Path) -> Iterator[Path]:
    """``FILE.orig``, ``FILE.orig.1``, ``FILE.orig.2`` ..."""
    yield path.with_name(path.name + BACKUP_SUFFIX)
    for n in count(1):
        yield path.with_name(f"{path.name}{BACKUP_SUFFIX}.{n}")


@dataclass(frozen=True, slots=True)
class FileEdit:
    """One in-place edit: the file, its new bytes, and what it held when it was read (its
    bytes, or a :class:`Snapshot`)."""

    path: Path
    payload: bytes
    expected: bytes | Snapshot


def replace_all(edits: Sequence[FileEdit], *, backup: bool = True) -> list[Replaced | ChangedError]:
    """Apply ``edits`` to the files (a symlink's target is edited), keeping each file's mode.

    First each file is checked to hold what was read, and with ``backup`` the bytes to be
    replaced are kept (:func:`make_backup`); once every backup is written they are synced to
    disk together (``sync``), and only then is each file replaced, if it still holds the bytes
    that were backed up. A file that changed gives a :class:`ChangedError` in the result list
    and is left as it is."""
    staged: list[tuple[FileEdit, Path, bytes, Path | None, bool] | ChangedError] = []
    for edit in edits:
        target = Path(os.path.realpath(edit.path))
        try:
            current, st = read_regular(target)
        except InputError:  # deleted or replaced by something else since it was read
            staged.append(_changed(edit.path))
            continue
        expected = edit.expected
        same = current == expected if isinstance(expected, bytes) else expected.matches(current, st)
        if not same:
            staged.append(_changed(edit.path))
            continue
        kept, written = make_backup(target, current, st, sync=False) if backup else (None, False)
        staged.append((edit, target, digest(current), kept, written))
    if any(not isinstance(s, ChangedError) and s[4] for s in staged):
        os.sync()  # every new backup on disk before any original is touched
    results: list[Replaced | ChangedError] = []
    for entry in staged:
        if isinstance(entry, ChangedError):
            results.append(entry)
            continue
        edit, target, backed_up, kept, written = entry
        try:
            current, st = read_regular(target)
        except InputError:
            current = None
        if current is None or digest(current) != backed_up:  # changed after its backup
            results.append(_changed(edit.path))
            continue
        _replace_with(target, edit.payload, stat.S_IMODE(st.st_mode))
        results.append(Replaced(target, kept, written))
    return results


def replace_in_place(
    path: Path, payload: bytes, *, expected: bytes | Snapshot, backup: bool = True
) -> Replaced:
    """:func:`replace_all` for one file; a changed file raises :class:`ChangedError`."""
    result = replace_all([FileEdit(path, payload, expected)], backup=backup)[0]
    if isinstance(result, ChangedError):
        raise result
    return result


def _changed(path: Path) -> ChangedError:
    return ChangedError(f"{path} changed after it was read; left as it is, run again")


def make_backup(
    path: Path, data: bytes, st: os.stat_result, *, sync: bool = True
) -> tuple[Path, bool]:
    """Keep ``data`` (the bytes of ``path``, with status ``st``) in the first backup name of
    :func:`backup_names` that is free, or reuse a backup that already holds exactly these bytes;
    return the backup and whether it was written now. The backup is complete under its final
    name (written to a temporary file, then linked: never half a backup) and, with ``sync``,
    synced to disk before this returns; an existing backup is never overwritten."""
    tmp: Path | None = None
    try:
        for name in backup_names(path):
            if os.path.lexists(name):
                if _same_file_bytes(name, data):
                    return name, False
                continue
            if tmp is None:
                tmp = _write_temp(path, data, stat.S_IMODE(st.st_mode), durable=sync)
                os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
            try:
                os.link(tmp, name)  # fails if ``name`` appeared meanwhile: never overwrites
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK):
                    raise
                if not _create_exclusive(name, data, st):  # no hard links on this filesystem
                    continue
            if sync:
                _sync_folder(path.parent)
            return name, True
    except OSError as exc:
        raise OutputError(f"cannot write a backup of {path}: {_why(exc)}") from exc
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    raise AssertionError("unreachable")


def _create_exclusive(name: Path, data: bytes, st: os.stat_result) -> bool:
    try:
        fd = os.open(name, _NEW_FILE, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode))
        fh.flush()
        os.fsync(fh.fileno())
    return True


def _same_file_bytes(path: Path, data: bytes) -> bool:
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return False
        return Path(path).read_bytes() == data
    except OSError:
        return False


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- locks and leftovers -------------------------------------------------------------------


#: the descriptors of the locks this process holds (a forked worker closes its copies, so that
#: the lock ends with the run even when the run is killed and its workers linger)
_HELD_LOCKS: set[int] = set()


def _close_inherited_locks() -> None:
    for fd in _HELD_LOCKS:
        with suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


os.register_at_fork(after_in_child=_close_inherited_locks)


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (``flock`` on the folder itself, so nothing is
    added to it); a second run that asks for it gets an :class:`OutputError` at once."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise OutputError(f"cannot lock {folder}: {_why(exc)}") from exc
    _HELD_LOCKS.add(fd)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(
                f"{folder} is being written by another rocport run; try again when it has finished"
            ) from None
        except OSError:
            pass  # a filesystem without flock: go on unlocked
        yield
    finally:
        _HELD_LOCKS.discard(fd)
        os.close(fd)


def remove_stale_temps(
    root: Path, skip: frozenset[str] = frozenset(), *, only: str | None = None
) -> list[Path]:
    """Remove the temporary files of ours (:data:`TEMP_NAME`) that a killed run left under the
    folder ``root`` (symlinks not followed, folders named in ``skip`` left out), or with
    ``only``, those of the file of that name in ``root``. Call it while holding
    :func:`folder_lock` on ``root``. Returns what was removed."""
    removed = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [] if only is not None else [d for d in dirs if d not in skip]
        for name in names:
            if TEMP_NAME.fullmatch(name) and (only is None or _temp_of(name) == only):
                path = Path(folder, name)
                try:
                    path.unlink()
                except OSError:
                    continue
                removed.append(path)
    return removed


def _temp_of(name: str) -> str:
    """The file name that the temporary file ``name`` was for."""
    return name[1 : name.rindex(".rocport-")]
