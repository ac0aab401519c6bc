"""The one check that ``bench`` and ``amp-check`` make before touching PyTorch."""

from __future__ import annotations

import importlib.util

from rocport.errors import ToolError


def require_torch(command: str) -> None:
    """Raise :class:`ToolError` (one line, exit 2) unless torch and torchvision import."""
    missing = [name for name in ("torch", "torchvision") if importlib.util.find_spec(name) is None]
    if missing:
        raise ToolError(
            f"{command} needs {' and '.join(missing)}, which this Python does not have "
            "(install them with: pip install 'rocport[torch]')"
        )
