"""Models for amp-check: ``resnet50`` and friends, or a user's ``module:function``."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from rocport.errors import InputError

BUILTIN = ("resnet18", "resnet34", "resnet50", "resnet101")


def load_factory(spec: str) -> Callable[[], object]:
    """A zero-argument callable that builds a fresh model.

    ``spec`` is a torchvision ResNet name, ``package.module:function`` or
    ``path/to/file.py:function``.
    """
    if spec in BUILTIN:

        def build() -> object:
            import torchvision

            return getattr(torchvision.models, spec)(weights=None)

        return build
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"model {spec!r}: expected one of {', '.join(BUILTIN)} or module:function")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise InputError(f"model {spec!r}: no such file {path}")
        mod_spec = importlib.util.spec_from_file_location(f"rocport_user_model_{path.stem}", path)
        module = importlib.util.module_from_spec(mod_spec)
        try:
            mod_spec.loader.exec_module(module)
        except Exception as exc:  # the user's module may raise anything
            raise InputError(f"model {spec!r}: importing {path} failed: {exc}") from exc
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise InputError(f"model {spec!r}: cannot import {module_name}: {exc}") from exc
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise InputError(f"model {spec!r}: {module_name} has no callable {attr!r}")
    return fn
