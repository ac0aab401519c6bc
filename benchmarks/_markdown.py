"""The ``--markdown FILE`` option of the benchmark scripts: one ``## `` section of a Markdown
file replaced by a new run's (or appended), and the paths checked before a long run starts."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from rocport._fs import atomic_write
from rocport.cli._report_path import check_report_path
from rocport.errors import OutputError


def replace_section(document: str, section: str) -> str:
    """``document`` with the section that starts with ``section``'s first line (a ``## ``
    heading) replaced by ``section``, up to the next ``## `` heading; appended where absent."""
    heading = section.split("\n", 1)[0]
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
    if pattern.search(document):
        return (
            pattern.sub(lambda _: section.rstrip("\n") + "\n\n", document, count=1).rstrip("\n")
            + "\n"
        )
    return (document.rstrip("\n") + "\n\n" if document.strip() else "") + section


def write_section(path: Path, section: str) -> None:
    """Replace (or append) ``section`` in the Markdown file ``path``, made where missing."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    atomic_write(path, replace_section(old, section))


def check_outputs(parser: argparse.ArgumentParser, *paths: Path | None) -> None:
    """Stop with one line (``parser.error``) before any work where an output cannot be
    written, by the rule of every rocport report path (``check_report_path``)."""
    for path in paths:
        try:
            check_report_path(path, option="output")
        except OutputError as exc:
            parser.error(str(exc))
