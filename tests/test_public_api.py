"""Guard the public names of the package (httpx style)."""

import rocport


def test_all_is_sorted_and_resolvable() -> None:
    assert rocport.__all__ == sorted(rocport.__all__)
    for name in rocport.__all__:
        assert hasattr(rocport, name), name
