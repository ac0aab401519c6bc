"""Build-system migration: CMake, Makefiles and PyTorch ``setup.py`` files from CUDA to HIP.

:func:`migrate` picks the migrator from the file name and returns ``None`` for files it does not
handle. The mapping tables (nvcc options, link libraries, CMake targets) live in ``data/``.
"""

from __future__ import annotations

from pathlib import Path

from rocport.port.model import PortOptions, Translation

__all__ = ["build_system", "migrate"]

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
