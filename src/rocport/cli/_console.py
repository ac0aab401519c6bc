"""The rich console every report is printed on.

A terminal gets its own width; a pipe or a CI log (where rich would assume 80 columns and
fold file names and kernel names) gets ``PIPE_WIDTH``, unless ``COLUMNS`` says otherwise.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

PIPE_WIDTH = 200


def report_console(*, stderr: bool = False, **options) -> Console:
    """A console for tables: no soft wrap, and a wide page when not writing to a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() or "COLUMNS" in os.environ else PIPE_WIDTH
    return Console(stderr=stderr, width=width, soft_wrap=False, **options)
