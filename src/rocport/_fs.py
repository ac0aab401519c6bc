"""File writes that never leave a half-written file behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rocport.errors import OutputError


def atomic_write(path: Path, data: bytes | str, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc


def write_if_changed(path: Path, data: bytes | str, *, mode: int | None = None) -> bool:
    """Atomically write ``data`` unless ``path`` already holds it; return whether it wrote."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if Path(path).read_bytes() == payload:
            return False
    except OSError:
        pass
    atomic_write(path, payload, mode=mode)
    return True
