"""Which headers a translation unit names that nothing provides, and the tree's own headers.

A project's build passes ``-I`` folders that ``rocport check`` does not know (a CMake
``target_include_directories`` in a file outside the tree, a Makefile variable): a header that
the tree has but the unit's folder, the ``-I`` folders and the tree root do not reach is looked
up in the tree, and its folder is searched from then on, as ``-I`` would make the compiler
do. Only headers that neither the tree nor the toolchain has count as missing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rocport.check.toolchain import Toolchain
from rocport.lexer import compile_scanner

_MAX_INCLUDE_DEPTH = 32
#: folders never searched for units or headers
_SKIPPED_DIRS = frozenset({"__pycache__", "CMakeFiles", "node_modules"})
#: file name -> the tree's files of that name (absolute, sorted)
TreeFiles = Mapping[str, list[Path]]


def tree_files(tree: Path) -> TreeFiles:
    """Every file under ``tree`` (not hidden), by file name."""
    found: dict[str, list[Path]] = {}
    for folder, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            found.setdefault(name, []).append(Path(folder, name))
    return found


@dataclass(slots=True)
class Includes:
    """What resolving a unit's ``#include`` lines found."""

    #: named but provided neither by the tree nor by the toolchain
    missing: list[str] = field(default_factory=list)
    #: folders of the tree that provide headers the search list did not reach
    found_dirs: list[Path] = field(default_factory=list)


def resolve_includes(
    source: Path,
    base: Path,
    include_dirs: Sequence[Path],
    toolchain: Toolchain,
    tree: TreeFiles | None = None,
) -> Includes:
    """Follow the ``#include`` lines of ``source`` and of the project headers it includes.

    Conditional compilation is not evaluated: a header under ``#ifdef`` counts as included.
    """
    scanner = compile_scanner()
    result = Includes()
    seen: set[Path] = set()
    stack = [(source, 0)]
    while stack:
        path, depth = stack.pop()
        if path in seen or depth > _MAX_INCLUDE_DEPTH:
            continue
        seen.add(path)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in scanner.finditer(text):
            if match.lastgroup != "include":
                continue
            written = match["ipath"]
            name = written[1:-1].strip()
            local = [path.parent] if written.startswith('"') else []
            folders = (*local, *include_dirs, base, *result.found_dirs)
            found = next((d / name for d in folders if (d / name).is_file()), None)
            if found is None and toolchain.find_header(name) is None:
                found = _in_tree(name, path, tree)
                if found is not None:
                    result.found_dirs.append(_folder_of(found, name))
                elif name not in result.missing:
                    result.missing.append(name)
            if found is not None:
                stack.append((found.resolve(), depth + 1))
    return result


def _in_tree(name: str, includer: Path, tree: TreeFiles | None) -> Path | None:
    """The tree's file that ``#include "name"`` means: its path ends with ``name`` and it is
    not the including file (a vendor header of a project that includes the system header of
    its own name); of several, the one nearest the including file (the longest shared folder
    path)."""
    if not tree or name.startswith("/") or ".." in Path(name).parts:
        return None
    tail = Path(name).parts
    candidates = [
        p for p in tree.get(tail[-1], ()) if p.parts[-len(tail) :] == tail and p != includer
    ]
    if not candidates:
        return None
    here = includer.parent.parts

    def shared(path: Path) -> int:
        count = 0
        for a, b in zip(path.parts, here, strict=False):
            if a != b:
                break
            count += 1
        return count

    return max(candidates, key=shared)  # max keeps the first (sorted) of equals


def _folder_of(path: Path, name: str) -> Path:
    """The folder that ``-I`` must name for ``#include "name"`` to find ``path``."""
    return Path(*path.parts[: -len(Path(name).parts)])
