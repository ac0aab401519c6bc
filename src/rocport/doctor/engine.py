"""Run every check against a host and collect the report."""

from __future__ import annotations

from pathlib import Path

from rocport.doctor.checks import ALL_CHECKS
from rocport.doctor.context import Context
from rocport.doctor.data import resolve_release
from rocport.doctor.host import Host
from rocport.doctor.model import CheckResult, Report, Status


def run_doctor(
    *,
    root: Path | None = None,
    rocm: str | None = None,
    python: str | None = None,
    timeout: float = 20.0,
) -> Report:
    """Check the live machine, or the tree under ``root``, against ROCm release ``rocm``."""
    release = resolve_release(rocm)
    ctx = Context(Host(root, timeout=timeout), release, python=python)
    results = []
    for check in ALL_CHECKS:
        try:
            results.append(check(ctx))
        except Exception as exc:  # a check bug must not hide the other results
            results.append(
                CheckResult(
                    check.id,
                    check.group,
                    check.title,
                    Status.FAIL,
                    f"internal error in this check: {type(exc).__name__}: {exc}",
                    "Please report this as a rocport bug.",
                )
            )
    return Report(release, str(root) if root else None, tuple(results))
