"""Giving the memory of LibCST's parses back to the system.

A parse allocates tens of MiB through C's malloc (the native parser's buffers, the large
lists and dicts of the tree). Once the tree is freed, glibc keeps that memory in the
process, fragmented, where the host's later allocations (Python's own arenas are mapped
apart) cannot use it: in a long flake8 run it stays as dead weight under flake8's peak.
glibc's ``malloc_trim(0)`` hands the free pages back, in well under a millisecond. Pages
handed back must be faulted in again by the next allocations, though: after every file
that cost 2% of a flake8 run of application code, so only a large parse (the few big
training functions, where the peak comes from) is worth it. Other C libraries (musl,
macOS, Windows) have no such call; there nothing is done.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable


def _find_malloc_trim() -> Callable[[int], int] | None:
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc; TypeError: Windows' CDLL(None)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_MALLOC_TRIM = _find_malloc_trim()
# Characters of source parsed in one file from which the freed trees are worth giving back
# (27 of the 415 files that parse anything in the application benchmark).
WORTH_RELEASING = 5_000


def release_freed(parsed: int) -> None:
    """After ``parsed`` characters of source were parsed and their trees freed: return the
    C heap's free pages to the system when that was a large parse (glibc only)."""
    if _MALLOC_TRIM is not None and parsed >= WORTH_RELEASING:
        _MALLOC_TRIM(0)
