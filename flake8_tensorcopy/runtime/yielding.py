"""Where long work on one thread may step aside for urgent work on another.

The language server computes fixes on a thread of its own beside the lint thread, so that
a pull never queues behind a code action. But Python runs one thread at a time (the GIL),
switching every few milliseconds: a pull that arrived while a quick fix was computed took
its turns with it, and twice as long. So the analysis calls :func:`checkpoint` between its
steps (the parse, the plan, each chunk; the fixer's passes), and the fix thread installs a
wait there (:func:`stepping_aside`) that returns once the lint thread has no urgent work:
the pull runs alone, and the fix carries on after it. Elsewhere a checkpoint does nothing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

_local = threading.local()


def checkpoint() -> None:
    """Wait here if this thread was told to step aside (see :func:`stepping_aside`)."""
    wait = getattr(_local, "wait", None)
    if wait is not None:
        wait()


@contextlib.contextmanager
def stepping_aside(wait: Callable[[], object]) -> Iterator[None]:
    """Within this block, each :func:`checkpoint` of this thread calls ``wait``."""
    previous = getattr(_local, "wait", None)
    _local.wait = wait
    try:
        yield
    finally:
        _local.wait = previous
