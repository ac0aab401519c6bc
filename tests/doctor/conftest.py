"""Fixtures for the doctor tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import FIXTURES


@pytest.fixture
def fixture_copy(tmp_path: Path):
    """Copy a fixture root into tmp_path so that a test can change one file of it."""

    def copy(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(FIXTURES / name, target)
        return target

    return copy
