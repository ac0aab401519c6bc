"""Fixtures for the bench tests: one tiny suite run shared by the whole module."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="rocport bench needs PyTorch (the 'torch' extra)")
pytest.importorskip("torchvision", reason="rocport bench needs torchvision (the 'torch' extra)")


@pytest.fixture(scope="session", autouse=True)
def one_cpu_thread():
    """One intra-op thread: on a loaded two-core host, spinning thread pools stall."""
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(saved)


@pytest.fixture(scope="session")
def tiny_document(one_cpu_thread):
    """The results document of the tiny preset on the CPU."""
    from rocport.bench.suite import preset, run_suite

    return run_suite(preset("tiny"), device="cpu", quiet=True)
