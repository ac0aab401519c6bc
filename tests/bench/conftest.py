"""Fixtures for the bench tests: one tiny suite run shared by the whole module."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="rocport bench needs PyTorch (the 'torch' extra)")
pytest.importorskip("torchvision", reason="rocport bench needs torchvision (the 'torch' extra)")


@pytest.fixture(scope="session")
def tiny_document():
    """The results document of the tiny preset on the CPU (about 15 s on two cores)."""
    from rocport.bench.suite import preset, run_suite

    return run_suite(preset("tiny"), device="cpu", quiet=True)
