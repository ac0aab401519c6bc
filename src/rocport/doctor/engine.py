"""Run every check against a host and collect the report."""

from __future__ import annotations

from pathlib import Path

from rocport.doctor import data
from rocport.doctor.checks import ALL_CHECKS, Check
from rocport.doctor.context import Context, installed_rocm
from rocport.doctor.data import resolve_release
from rocport.doctor.host import Host
from rocport.doctor.model import CheckResult, Report, Status


def installed_or_newest(host: Host) -> str:
    """The installed release when the data knows it, else the newest known one."""
    version, _ = installed_rocm(host)
    return (data.release_of(version) if version else None) or data.newest_release()


def run_doctor(
    *,
    root: Path | None = None,
    rocm: str | None = None,
    python: str | None = None,
    timeout: float = 20.0,
) -> Report:
    """Check the live machine, or the tree under ``root``, against ROCm release ``rocm``."""
    host = Host(root, timeout=timeout)
    release = resolve_release(rocm) if rocm else installed_or_newest(host)
    ctx = Context(host, release, python=python)
    by_id = {c.id: c for c in ALL_CHECKS}
    done = ctx.results

    def result(check: Check) -> CheckResult:
        if check.id not in done:
            blocked = [done_of(n) for n in check.needs if n in by_id]
            failed = [r for r in blocked if r.status is Status.FAIL or r.details.get("blocked")]
            if failed:
                cause = failed[0]
                while cause.details.get("blocked"):  # name the root cause, not the chain
                    cause = done[cause.details["blocked"]]
                done[check.id] = _skipped(check, cause)
            else:
                done[check.id] = _run(check, ctx)
        return done[check.id]

    def done_of(check_id: str) -> CheckResult:
        return result(by_id[check_id])

    results = tuple(result(c) for c in ALL_CHECKS)
    return Report(release, str(root) if root else None, results)


def _skipped(check: Check, cause: CheckResult) -> CheckResult:
    return CheckResult(
        check.id,
        check.group,
        check.title,
        Status.SKIP,
        f"skipped because {cause.id} did not pass: {cause.found}",
        None,
        {"blocked": cause.id},
    )


def _run(check: Check, ctx: Context) -> CheckResult:
    try:
        return check(ctx)
    except Exception as exc:  # a check bug must not hide the other results
        return CheckResult(
            check.id,
            check.group,
            check.title,
            Status.FAIL,
            f"internal error in this check: {type(exc).__name__}: {exc}",
            "Please report this as a rocport bug.",
        )
