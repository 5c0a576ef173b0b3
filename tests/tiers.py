"""Which parametrised cases belong to the slow tier (`pytest -m "not slow"` leaves them out).

Tests that run over real source files cost in proportion to the file: the small ones keep
the check in the fast tier, the large ones (the plugin's biggest modules, torch's) run in
the whole suite only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SLOW_SOURCE_BYTES = 6_000


def by_size(paths: list[Path]) -> list:
    """One case per path, named by its file name, marked slow when the file is large."""
    return [
        pytest.param(path, id=path.name, marks=[pytest.mark.slow] if path.stat().st_size > SLOW_SOURCE_BYTES else [])
        for path in paths
    ]
