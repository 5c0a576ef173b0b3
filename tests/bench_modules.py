"""Import the bench scripts' modules for tests.

The bench modules import each other by flat, generic names (`run`, `report`, `corpus`,
`score`...), so a test imports them once, with their folder on sys.path; an import that
resolves anywhere else fails loudly instead of testing the wrong file.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType


def import_bench_modules(folder: Path, names: tuple[str, ...]) -> dict[str, ModuleType]:
    sys.path.insert(0, str(folder))
    try:
        modules = {name: importlib.import_module(name) for name in names}
    finally:
        sys.path.remove(str(folder))
    for name, module in modules.items():
        where = Path(getattr(module, "__file__", "") or "").resolve()
        if where != folder / f"{name}.py":
            raise ImportError(f"`import {name}` gave {where}, not {folder / f'{name}.py'}: another module of "
                              "that name was imported first or shadows it")
    return modules
