"""Build-system migration: CMake, Makefiles and PyTorch ``setup.py`` files from CUDA to HIP.

:func:`migrate` picks the migrator from the file name and returns ``None`` for files it does not
handle. The mapping tables (nvcc options, link libraries, CMake targets) live in ``data/``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from rocport.port.model import PortOptions, Translation

if TYPE_CHECKING:
    from rocport.port.mapping import Mapping

__all__ = ["build_system", "link_needs", "migrate"]

_MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
#: names of make fragments that Makefiles ``include`` (Rodinia's ``common/make.config``)
_MAKE_FRAGMENTS = frozenset({"make.config", "make.inc", "make.def", "make.defs", "make.rules"})
_MAKE_SUFFIXES = (".mk", ".mak", ".make")


def build_system(path: Path) -> str | None:
    """``"cmake"``, ``"make"`` or ``"setuptools"`` for a build file rocport migrates, else None."""
    name = path.name
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name in _MAKEFILES or name in _MAKE_FRAGMENTS or name.endswith(_MAKE_SUFFIXES):
        return "make"
    if name == "setup.py":
        return "setuptools"
    return None


def link_needs(outputs: Iterable[bytes], mapping: Mapping) -> tuple[str, ...]:
    """The libraries that ported sources (``outputs``) call while their CUDA build links nothing
    for them: a family of ``data/link_libraries.json``'s ``header_only`` (NVTX 3) whose HIP
    functions (rocTX's) an output calls."""
    from rocport.port.build._data import table

    calls: dict[str, tuple[bytes, re.Pattern[bytes]]] = {}  # library -> (names' prefix, call)
    for family, row in table("link_libraries")["header_only"].items():
        names = sorted(
            {
                e.hip
                for e in mapping.entries.values()
                if e.family == family and e.hip and e.supported
            }
        )
        if names:
            words = b"|".join(re.escape(n.encode()) for n in names)
            call = re.compile(rb"(?<![\w.>:])(?:" + words + rb")\s*\(")
            calls[row["hip"]] = (os.path.commonprefix(names).encode(), call)
    needed: list[str] = []
    for data in outputs:
        needed += [
            lib
            for lib, (prefix, call) in calls.items()
            if lib not in needed and prefix in data and call.search(data)
        ]  # the literal test first: a regex led by a lookbehind is tried at every byte
        if len(needed) == len(calls):
            break
    return tuple(needed)


def migrate(path: Path, text: str, options: PortOptions) -> Translation | None:
    """The HIP form of one build file (``None`` when ``path`` is not a build file handled here).

    Raises :class:`rocport.errors.InputError` when the file cannot be parsed.
    """
    system = build_system(path)
    if system == "cmake":
        from rocport.port.build import cmake

        return cmake.migrate(text, options)
    if system == "make":
        from rocport.port.build import make

        return make.migrate(text, options)
    if system == "setuptools":
        from rocport.port.build import setuptools

        return setuptools.migrate(text, options, path=path.name)
    return None
