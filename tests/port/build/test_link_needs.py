"""Which libraries the ported sources call while their CUDA build linked nothing for them."""

from __future__ import annotations

import pytest

from rocport.port.build import link_needs
from rocport.port.mapping import load_mapping


@pytest.mark.parametrize(
    ("outputs", "needed"),
    [
        ([b'roctxRangePushA("step");'], ("roctx64",)),
        ([b"int x;", b"  roctxMarkA (name);\n"], ("roctx64",)),
        ([b"myroctxMarkA(name);"], ()),  # another function whose name ends the same
        ([b"tracer.roctxMarkA(name);", b"p->roctxRangePop();"], ()),  # members
        ([b"roctxRangePushA;"], ()),  # named, not called
        ([b"/* roctx */ int roctx = 0;"], ()),  # the names' common prefix alone
        ([], ()),
    ],
)
def test_link_needs_finds_rocTX_calls_only(outputs: list[bytes], needed: tuple[str, ...]) -> None:
    assert link_needs(outputs, load_mapping(rocm="6.4")) == needed
