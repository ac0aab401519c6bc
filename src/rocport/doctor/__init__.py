"""``rocport doctor``: is this machine ready for ROCm, and how to get there."""

from __future__ import annotations

from rocport.doctor.engine import run_doctor
from rocport.doctor.model import CheckResult, Report, Status

__all__ = ["CheckResult", "Report", "Status", "run_doctor"]
