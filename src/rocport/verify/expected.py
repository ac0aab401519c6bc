"""Recorded results of the original (``--record FILE`` writes them, ``--expected FILE`` reads them).

A record is JSON: ``{"program": ..., "runs": [{"exit_code", "stdout", "stderr", "files":
{name: base64 or null}}, ...]}``, one run or two (two: the lines that differ between them are
unstable). A file that is not JSON is taken as the original's standard output, with exit code 0
and empty standard error.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from rocport._fs import atomic_write
from rocport.errors import InputError
from rocport.verify.model import Run


def _run_to_dict(run: Run) -> dict:
    files = {k: None if v is None else base64.b64encode(v).decode() for k, v in run.files.items()}
    return {"exit_code": run.exit_code, "stdout": run.stdout, "stderr": run.stderr, "files": files}


def write_record(path: Path, program: str, runs: list[Run]) -> None:
    payload = {"program": program, "runs": [_run_to_dict(r) for r in runs]}
    atomic_write(path, json.dumps(payload, indent=2) + "\n")


def read_expected(path: Path) -> list[Run]:
    """The recorded runs of ``path`` (see the module)."""
    try:
        raw = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"--expected {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return [Run(0, raw, "")]
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, list) or not runs:
        raise InputError(f"--expected {path}: JSON without a list of runs (write it with --record)")
    result = []
    for item in runs:
        try:
            files = {
                k: None if v is None else base64.b64decode(v)
                for k, v in (item.get("files") or {}).items()
            }
            result.append(Run(item["exit_code"], item["stdout"], item["stderr"], files))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise InputError(f"--expected {path}: a run is malformed ({exc})") from None
    return result
