"""The table generators of ``scripts/``, loaded as modules (they are scripts, not a package)."""

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_generator(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module: its ``TABLE`` path and its ``generate()``."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
