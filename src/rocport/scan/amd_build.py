"""The AMD build a scan reads code for: its macros and, from a compilation database, its files.

    setup, files = from_compile_commands(Path("build/compile_commands.json"), roots, (6, 4))

A database's ``-D``/``-U`` options become the macros of each translation unit; headers get
the ones every unit agrees on. ``files`` holds the real paths of the units inside the roots
and of the headers they include (quoted and ``-I`` includes, followed as ``rocport port
--compile-commands`` follows them).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from rocport.errors import InputError
from rocport.scan.ppexpr import UNDEFINED, Macro
from rocport.scan.preprocessor import Setup, amd_setup, parse_define

__all__ = ["from_compile_commands", "macro_options"]


def macro_options(
    defines: Iterable[str], undefines: Iterable[str], where: str = "-D"
) -> list[tuple[str, Macro | object]]:
    """``-D NAME[=VALUE]`` and ``-U NAME`` texts as ``(name, Macro or UNDEFINED)``, in that
    order (an InputError names a bad one)."""
    found: list[tuple[str, Macro | object]] = []
    for text in defines:
        try:
            found.append(parse_define(text))
        except ValueError as exc:
            raise InputError(f"{where} {text!r}: {exc}") from None
    for text in undefines:
        try:
            found.append((parse_define(text)[0], UNDEFINED))
        except ValueError as exc:
            raise InputError(f"{where} {text!r}: {exc}") from None
    return found


def _entry_macros(macros: Sequence[tuple[str, str]]) -> dict[str, Macro | object]:
    state: dict[str, Macro | object] = {}
    for flag, text in macros:
        try:
            name, macro = parse_define(text)
        except ValueError:
            continue  # the compiler would reject it; nothing to learn
        state[name] = macro if flag == "D" else UNDEFINED
    return state


def from_compile_commands(
    database: Path,
    roots: Sequence[Path],
    rocm: tuple[int, int] | None,
    defines: Sequence[tuple[str, Macro | object]] = (),
) -> tuple[Setup, frozenset[str]]:
    """The setup of the build ``database`` describes (``defines`` from the command line on
    top) and the real paths of the files it compiles or includes below ``roots``."""
    from rocport.port.config import BuildFiles, read_compile_commands

    entries = read_compile_commands(database)
    folders = [os.path.realpath(r if r.is_dir() else r.parent) for r in roots]
    root = Path(os.path.commonpath(folders)) if folders else Path.cwd()
    built = BuildFiles(root, entries).files
    per_entry = {os.path.realpath(e.file): _entry_macros(e.macros) for e in entries}
    tables = list(per_entry.values())
    common = {
        name: value
        for name, value in (tables[0].items() if tables else ())
        if all(table.get(name) == value for table in tables[1:])
    }
    given = {name for name, _ in defines}  # the command line wins over the database
    own = {
        path: {n: v for n, v in table.items() if common.get(n) != v and n not in given}
        for path, table in per_entry.items()
    }
    dirs: list[str] = []
    for entry in entries:
        for folder in (*entry.quote_dirs, *entry.include_dirs):
            if str(folder) not in dirs:
                dirs.append(str(folder))
    setup = amd_setup(
        rocm,
        [*common.items(), *defines],
        files={path: table for path, table in own.items() if table},
        roots=[str(root)],
        include_dirs=dirs,
    )
    return setup, frozenset(os.path.realpath(p) for p in built)
