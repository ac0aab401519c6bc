"""Every doctor check, in report order (one module per group, as in ruff's code table)."""

from __future__ import annotations

from rocport.doctor.checks import (
    driver,
    environment,
    frameworks,
    nvidia,
    permissions,
    platform,
    rocm,
    system,
)
from rocport.doctor.checks.base import Check

GROUPS = (system, permissions, driver, rocm, platform, frameworks, environment, nvidia)

ALL_CHECKS: tuple[Check, ...] = tuple(c for module in GROUPS for c in module.CHECKS)

__all__ = ["ALL_CHECKS", "Check"]
