"""One intra-op thread for the amp tests (steady on a loaded two-core host)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def one_cpu_thread():
    torch = pytest.importorskip("torch", reason="amp-check needs PyTorch")
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(saved)
