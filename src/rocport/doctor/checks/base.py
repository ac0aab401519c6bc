"""The decorator that turns a function into a doctor check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rocport.doctor.context import Context
from rocport.doctor.model import CheckResult, Status


@dataclass(frozen=True)
class Check:
    id: str
    group: str
    title: str
    func: Callable[[Context, Check], CheckResult]
    #: ids of checks whose failure makes this one meaningless (it is then skipped)
    needs: tuple[str, ...] = ()

    def __call__(self, ctx: Context) -> CheckResult:
        return self.func(ctx, self)

    def result(
        self, status: Status, found: str, fix: str | None = None, **details: Any
    ) -> CheckResult:
        return CheckResult(self.id, self.group, self.title, status, found, fix, details)


def check(
    id: str, group: str, title: str, *, needs: tuple[str, ...] = ()
) -> Callable[[Callable[..., CheckResult]], Check]:
    def wrap(func: Callable[..., CheckResult]) -> Check:
        return Check(id, group, title, func, needs)

    return wrap


def gib(n_bytes: int | float | None) -> str:
    return "?" if n_bytes is None else f"{n_bytes / 1024**3:.1f} GiB"
