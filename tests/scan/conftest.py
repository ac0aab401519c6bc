"""Fixtures shared by the scan tests."""

from __future__ import annotations

import pytest

from rocport.scan.rules import RULES


@pytest.fixture(params=[rule.id for rule in RULES])
def rule_id(request) -> str:
    return request.param
