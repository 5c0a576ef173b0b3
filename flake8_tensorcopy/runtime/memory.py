"""Giving the memory of parses back to the system.

A parse allocates tens of MiB through C's malloc (the native parser's buffers, the large
lists and dicts of the tree). Once the tree is freed, glibc keeps that memory in the
process, fragmented, where the host's later allocations (Python's own arenas are mapped
apart) cannot use it: in a long flake8 run it stays as dead weight under flake8's peak.
glibc's ``malloc_trim(0)`` hands the free pages back after each file that parsed anything
(its chunks, and the project's modules read for it), once a process has linted a few: a
lower peak for a long run, paid in page faults when the heap grows again (what it saves and
costs is in bench/RESULTS.md and the notes). Other C libraries (musl, macOS, Windows) have no
such call; there nothing is done.
"""

from __future__ import annotations

import functools
from collections.abc import Callable


@functools.cache  # found on first use: a run that parses nothing with LibCST never loads ctypes
def _find_malloc_trim() -> Callable[[int], int] | None:
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc; TypeError: Windows' CDLL(None)
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_freed() -> None:
    """Return the C heap's free pages to the system (glibc only)."""
    trim = _find_malloc_trim()
    if trim is not None:
        trim(0)


# mallopt's parameter for the number of arenas (glibc's malloc.h)
_M_ARENA_MAX = -8


def _find_mallopt() -> Callable[[int, int], int] | None:
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):
        return None
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt


def single_arena() -> bool:
    """Have every thread allocate from one C heap (glibc only; whether it was set).

    glibc gives each thread that allocates its own heap, an "arena", so that threads need
    not wait for each other; each keeps the free memory of its own peak. The language
    server's threads take turns anyway (Python's lock), and its lint and fix threads each
    kept their own: 3-4 MiB more over a day of editing (``bench/server_soak.py``). To be
    called before the threads start."""
    mallopt = _find_mallopt()
    return mallopt is not None and mallopt(_M_ARENA_MAX, 1) == 1
