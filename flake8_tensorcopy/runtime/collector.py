"""Pausing Python's cycle collector while the analysis allocates, from any thread.

Parsing and analysing allocate hundreds of thousands of container objects (``ast`` and
LibCST nodes, the summary's tables) that live only as long as one lint. Left to run, the
collector scans them again and again, and every one that outlives a young collection is
promoted: a lint of a 3,000-line file in the language server promoted its whole ``ast``
and summary, and each few lints set off a full collection over everything the process
holds, some 150 ms each (a third of the server's CPU in its soak benchmark).

``gc.disable()`` is process-wide, so pauses are counted: the first turns the collector off
(when the host has it on), the last turns it back on, whichever thread they come from. The
trees hold no reference cycles and go by reference counting; what does form cycles (a
module summary and its scopes' facts) is freed by the next collection. With
``collect`` the last pause to end collects at once, as the collector would have had it
run: the youngest generation, where everything allocated while paused still is (so it
scans only that, frees those cycles, and promotes only what was kept, cached results,
not the trees); then the older ones on the collector's own schedule (the middle one every
``threshold1`` young collections, all of them every ``threshold2`` of those). Explicit
collections keep no schedule of their own: without this, a process that allocates little
between pauses would never collect its older generations, and a cycle that lived through
one young collection (an entry of a cache, later dropped) would stay for good."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_pauses = 0  # under way, all threads together
_resume = False  # whether the collector was on when the first of them began


@contextlib.contextmanager
def paused(collect: bool = False) -> Iterator[None]:
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            if _resume:
                gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            resumed = _pauses == 0 and _resume
            if resumed:
                gc.enable()
        if resumed and collect:
            _collect()


def _collect() -> None:
    gc.collect(0)  # counts one for the middle generation
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if counts[1] > thresholds[1]:
        gc.collect(2 if counts[2] >= thresholds[2] else 1)
