"""Run one function over many items in worker processes, results as they come.

Linting is CPU-bound Python, so only processes run it in parallel. On Linux the workers
are forked: they start at once with LibCST and the rules already imported (importing
them costs ~0.4 s a process). Elsewhere (macOS, Windows) they are spawned, fork being
unsafe or missing there. A worker that dies (killed, out of memory) fails only its
items: they come back as the exception, and the run goes on reporting the rest.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def default_jobs() -> int:
    """The cores this process may run on."""
    if hasattr(os, "process_cpu_count"):  # 3.13+
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def run(
    work: Callable[[Item], Result], items: Sequence[Item], jobs: int
) -> Iterator[tuple[Item, Result | BaseException]]:
    """``(item, work(item))`` in completion order; the exception instead when it raised.

    With ``jobs`` 1 (or one item) everything runs in this process: no worker is worth its
    start-up for a single file.
    """
    jobs = min(jobs, len(items))
    if jobs <= 1:
        for item in items:
            try:
                yield item, work(item)
            except Exception as error:
                yield item, error
        return
    method = "fork" if sys.platform == "linux" else "spawn"
    try:
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method),
                                   initializer=_ignore_interrupts)
    except OSError:  # no shared-memory semaphores here (some sandboxes): one process it is
        yield from run(work, items, jobs=1)
        return
    try:
        futures = {pool.submit(work, item): item for item in items}
        for future in as_completed(futures):
            error = future.exception()
            yield futures[future], future.result() if error is None else error
    finally:
        # Ctrl-C or a caller that stops early: start no more items, wait for the running ones.
        pool.shutdown(wait=True, cancel_futures=True)


def _ignore_interrupts() -> None:
    """Ctrl-C reaches every process of the terminal's group: let only the parent react, so
    that workers finish their file (a fix is never left half done) instead of each printing
    a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
