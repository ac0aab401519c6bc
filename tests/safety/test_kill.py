"""``kill -9`` during ``port --in-place`` and ``scan --fix`` on a 2000-file tree, ten times in
each (``ROCPORT_KILLS`` to change it), at random moments of the writing (the seed is
printed; ``ROCPORT_KILL_SEED`` repeats a run), every other one aimed at the replacing of the
originals, which follows the writing of all backups: afterwards every file is its original or its
complete new version, every changed original has a whole backup, and after the next run every
file is new, every backup whole, and no temporary file is left."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import KERNEL

FILES = 2000
KILLS = int(os.environ.get("ROCPORT_KILLS", "10"))  # per command
#: any temporary file: ours (``.NAME.rocport-XXXX.tmp``) or another tool's ``.NAME.XXXX.tmp``
TEMPORARY = re.compile(r"\..*\.tmp")

COMMANDS = {
    "port --in-place": ["port", "{tree}", "--in-place"],
    "scan --fix": ["scan", "{tree}", "--fix"],
}


def make_tree(root: Path) -> dict[str, bytes]:
    originals = {}
    for i in range(FILES):
        rel = f"d{i % 20:02d}/k{i:04d}.cu"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        data = KERNEL.replace("void k(", f"void k{i}(").encode()
        (root / rel).write_bytes(data)
        originals[rel] = data
    return originals


def start(command: str, tree: Path) -> subprocess.Popen:
    argv = [a.format(tree=tree) for a in COMMANDS[command]]
    with open(tree.with_name(tree.name + ".err"), "wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "rocport", *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )


def finish(command: str, tree: Path) -> None:
    proc = start(command, tree)
    proc.wait(timeout=600)
    err = tree.with_name(tree.name + ".err").read_text()
    assert proc.returncode in (0, 1), err  # scan exits 1 while findings remain


def replaced(tree: Path, originals: dict[str, bytes]) -> bool:
    """Whether the first file of the tree holds its new version already."""
    try:
        return (tree / "d00" / "k0000.cu").read_bytes() != originals["d00/k0000.cu"]
    except FileNotFoundError:  # between the unlink and the rename of a replacement
        return False


def all_replaced(tree: Path, originals: dict[str, bytes]) -> bool:
    """Whether every file holds its new version (stops at the first one that does not)."""
    try:
        return all((tree / rel).read_bytes() != data for rel, data in originals.items())
    except FileNotFoundError:
        return False


def listing(tree: Path) -> set[str]:
    return {p.relative_to(tree).as_posix() for p in tree.rglob("*") if not p.is_dir()}


def check_after_kill(tree: Path, originals: dict, new: dict) -> int:
    """The invariants that hold at any moment; returns how many files are new already."""
    done = 0
    for rel, original in originals.items():
        data = (tree / rel).read_bytes()
        backup = tree / f"{rel}.orig"
        assert data in (original, new[rel]), f"{rel} is neither the original nor the new text"
        if backup.exists():
            assert backup.read_bytes() == original, f"{rel}.orig is not the whole original"
        if data == new[rel]:
            assert backup.exists(), f"{rel} was changed without a backup"
            done += 1
    assert not [name for name in listing(tree) if re.search(r"\.orig\.\d+$", name)]
    return done


def check_after_next_run(tree: Path, originals: dict, new: dict) -> None:
    for rel, original in originals.items():
        assert (tree / rel).read_bytes() == new[rel], rel
        assert (tree / f"{rel}.orig").read_bytes() == original, rel
    names = listing(tree)
    assert not [n for n in names if TEMPORARY.fullmatch(n.rsplit("/", 1)[-1])]
    assert names == set(originals) | {f"{rel}.orig" for rel in originals}


@pytest.mark.slow
@pytest.mark.parametrize("command", list(COMMANDS))
def test_kill_9_never_loses_an_original(tmp_path: Path, command: str) -> None:
    pristine = tmp_path / "pristine"
    originals = make_tree(pristine)
    reference = tmp_path / "reference"
    shutil.copytree(pristine, reference)
    # the reference run: the new version of every file, and how long the writing takes
    anchor = reference / "d00" / "k0000.cu.orig"  # the first backup written
    proc = start(command, reference)
    while proc.poll() is None and not anchor.exists():
        time.sleep(0.005)
    writing = time.monotonic()
    while proc.poll() is None and not replaced(reference, originals):
        time.sleep(0.005)
    replacing = time.monotonic()
    # the replacing ends with the last file, not with the process: scan --fix prints its
    # findings after it, and kills aimed at that printing found every file new
    while proc.poll() is None and not all_replaced(reference, originals):
        time.sleep(0.005)
    replacing_span = max(time.monotonic() - replacing, 0.05)
    proc.wait(timeout=600)
    span = max(time.monotonic() - writing, 0.05)
    new = {rel: (reference / rel).read_bytes() for rel in originals}
    assert all(new[rel] != originals[rel] for rel in originals)
    check_after_next_run(reference, originals, new)

    seed = int(os.environ.get("ROCPORT_KILL_SEED", time.time_ns() % 100_000))
    rng = random.Random(seed)
    kills, moments, attempts = 0, [], 0
    while kills < KILLS and attempts < 3 * KILLS:
        attempts += 1
        tree = tmp_path / f"trial{attempts}"
        shutil.copytree(pristine, tree)
        proc = start(command, tree)
        anchor = tree / "d00" / "k0000.cu.orig"
        while proc.poll() is None and not anchor.exists():
            time.sleep(0.005)
        if attempts % 2:  # anywhere in the writing
            time.sleep(rng.uniform(0, span))
        else:  # while the originals are being replaced
            while proc.poll() is None and not replaced(tree, originals):
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.8 * replacing_span))
        if proc.poll() is not None:  # it finished first: not a kill, try again
            shutil.rmtree(tree)
            continue
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        done = check_after_kill(tree, originals, new)
        moments.append(done)
        finish(command, tree)  # the next run completes the work and removes what was left
        check_after_next_run(tree, originals, new)
        shutil.rmtree(tree)
    print(f"{command}: seed {seed}, {kills} kills, files new at each kill: {moments}")
    assert kills == KILLS, f"only {kills} of {attempts} runs were killed while writing"
    assert any(0 < done < FILES for done in moments), (
        f"no kill landed while files were being replaced (seed {seed}): {moments}"
    )
