"""``doctor --root DIR`` reads only regular files inside DIR, and shows nothing it should not.

Symbolic links are resolved inside the root (an absolute target starts again at DIR, ``..``
stops there), FIFOs and devices are never opened for reading, a file is read up to a size cap,
secrets in HSA_* variables are shown by shape only, and escape sequences in what the machine
reports (os-release) are shown escaped.
"""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from rocport.doctor.host import READ_LIMIT, Host

from .helpers import FIXTURES, doctor_json, invoke

SECRET = "root:$6$TOPSECRETHASH:19000:0:99999:7:::\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of a real fixture root, and a secret file next to it (outside the root)."""
    copy = tmp_path / "root"
    shutil.copytree(FIXTURES / "radeon_debian12", copy, symlinks=True)
    (tmp_path / "shadow").write_text(SECRET)
    return copy


@pytest.fixture
def no_hang():
    """Fail (rather than hang the suite) if a read blocks for 20 seconds."""

    def timeout(*_):
        raise TimeoutError("a read under --root blocked")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _replace(path: Path, make) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    make(path)


def test_symlinks_out_of_the_root_are_not_followed(root: Path, capsys) -> None:
    outside = root.parent / "shadow"
    _replace(root / "etc/os-release", lambda p: p.symlink_to(outside))  # absolute
    _replace(root / "etc/group", lambda p: p.symlink_to("../../shadow"))  # relative, via ..
    _replace(root / ".rocport-probes/id.txt", lambda p: p.symlink_to(outside))
    (root / "sys/escape").symlink_to(root.parent, target_is_directory=True)
    host = Host(root)
    assert host.read_text("/etc/os-release") is None
    assert host.read_text("/etc/group") is None
    assert host.read_text("/sys/escape/shadow") is None
    assert host.run("id", ["id"]).status == "missing"
    assert host.glob("/sys/escape/*") == []
    for args in (("doctor", "--root", str(root)), ("doctor", "--json", "--root", str(root))):
        _, out, err = invoke(capsys, *args)
        assert "TOPSECRET" not in out + err


def test_symlinks_inside_the_root_are_resolved_inside_it(root: Path) -> None:
    text = (root / "etc/os-release").read_text()
    (root / "usr/lib").mkdir(parents=True)
    (root / "usr/lib/os-release").write_text(text)
    _replace(root / "etc/os-release", lambda p: p.symlink_to("/usr/lib/os-release"))
    (root / "etc/loop").symlink_to("loop")  # a link to itself: absent, not a hang
    host = Host(root)
    assert host.read_text("/etc/os-release") == text
    assert host.read_text("/etc/../../../etc/os-release") == text  # ".." stops at the root
    assert host.read_text("/etc/loop") is None


def test_a_fifo_is_never_read(root: Path, no_hang, capsys) -> None:
    _replace(root / "etc/os-release", os.mkfifo)
    _replace(root / ".rocport-probes/rocminfo.txt", os.mkfifo)
    host = Host(root)
    assert host.read_text("/etc/os-release") is None
    assert host.run("rocminfo", ["rocminfo"]).status == "missing"
    code, report = doctor_json(capsys, "--root", str(root))
    assert report["checks"]


def test_devices_are_never_read_and_files_are_capped(root: Path, no_hang) -> None:
    _replace(root / "proc/self/environ", lambda p: p.symlink_to("/dev/zero"))
    assert Host(root).environ() == {}  # /dev/zero resolved inside the root: absent
    assert Host(Path("/")).read_text("/dev/zero") is None  # a device, even where it exists
    assert Host().read_text("/dev/zero") is None
    big = root / "etc/os-release"
    with big.open("wb") as f:
        f.truncate(64 * READ_LIMIT)  # sparse: 256 MiB of NUL bytes
    assert len(Host(root).read_text("/etc/os-release")) == READ_LIMIT


def test_hsa_values_are_shown_by_shape_only(tmp_path: Path, capsys) -> None:
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / "nvidia_h200", root, symlinks=True)
    environ = root / "proc/self/environ"
    raw = environ.read_bytes()
    secret = "HSA_TOOLS_LIB=/home/alice/token-abc123SECRET/libtool.so"
    environ.write_bytes(raw + f"{secret}\0HSA_XNACK=1\0AWS_SECRET=SECRETKEY\0".encode())
    _, report = doctor_json(capsys, "--root", str(root))
    env = next(c for c in report["checks"] if c["id"] == "env.gpu_vars")
    dumped = str(env)
    assert "SECRET" not in dumped and "AWS" not in dumped
    assert "HSA_TOOLS_LIB" in dumped and "characters" in dumped
    assert "'HSA_XNACK': '1'" in dumped or "HSA_XNACK='1'" in dumped


def test_escape_sequences_from_os_release_are_shown_escaped(root: Path, capsys) -> None:
    release = root / "etc/os-release"
    text = release.read_text()
    evil = 'PRETTY_NAME="Debian \x1b]0;pwned\x07\x1b[2J"\nID=debian\nVERSION_ID="99\x1b[31m"\n'
    release.write_text(
        evil
        + "\n".join(
            line
            for line in text.splitlines()
            if not line.startswith(("PRETTY_NAME", "ID=", "VERSION_ID"))
        )
    )
    _, out, _ = invoke(capsys, "doctor", "--root", str(root))
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b" in out
