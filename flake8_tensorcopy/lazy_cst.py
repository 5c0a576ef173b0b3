"""LibCST, imported on first use: ``from .lazy_cst import cst``.

Detection runs on flake8's ``ast``; LibCST only writes fixes. Modules that hold a fix
builder name LibCST's classes through this handle, so that importing them (a flake8 run,
a CLI run without ``--fix``) never imports LibCST itself.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class _LazyLibCST:
    """Stands for the ``libcst`` module; the first attribute read imports it."""

    __slots__ = ("_module",)

    def __init__(self) -> None:
        self._module: ModuleType | None = None

    def __getattr__(self, name: str) -> object:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module("libcst")
        return getattr(module, name)

    @property
    def loaded(self) -> bool:
        return self._module is not None


cst = _LazyLibCST()
