"""The one rule for every report path (``--json``, ``--csv``, ``scan -o``, ``bench --out``, …).

A report path names a file whose folder already exists (output *trees* such as ``port -o``
are created; a report's folder is not, so that a typo does not scatter folders). It may not
name one of the command's inputs, nor an existing file inside an input tree that the command
reads (``reads`` says which; by default every file, as ``port`` copies them all): a report never
replaces the code it reports on, while an earlier report beside the code may be replaced.
Checked before any work starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from rocport.errors import OutputError


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_report_path(
    value: str | os.PathLike[str] | None,
    *,
    inputs: Iterable[Path] = (),
    option: str = "report",
    reads: Callable[[Path], bool] = lambda path: True,
) -> Path | None:
    """Refuse ``value`` as a report path (see the module); ``None`` and ``-`` (stdout) pass."""
    if value is None or str(value) == "-":
        return None
    path = Path(value)
    if path.is_dir():
        raise OutputError(f"{option} {path}: is a folder; name a file")
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{option} {path}: {folder} is not a folder")
    if not folder.is_dir():
        raise OutputError(f"{option} {path}: folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK):
        raise OutputError(f"{option} {path}: folder {folder} is not writable")
    target = path.resolve()
    for source in inputs:
        source = Path(source)
        if not source.exists():
            continue
        root = source.resolve()
        if target == root:
            raise OutputError(f"{option} {path}: is an input of this command; choose another path")
        if root.is_dir() and path.exists() and _inside(target, root) and reads(target):
            raise OutputError(
                f"{option} {path}: would replace a file inside the input tree {source}; "
                "write the report outside it"
            )
    return path
