"""Run one function over many items in worker processes, results as they come.

Linting is CPU-bound Python, so only processes run it in parallel. On Linux the workers
are forked: they start at once with LibCST and the rules already imported (importing
them costs ~0.4 s a process). Elsewhere (macOS, Windows) they are spawned, fork being
unsafe or missing there. A worker that dies (killed, out of memory) fails only its
items: they come back as the exception, and the run goes on reporting the rest.

Workers die with the parent: a parent killed by SIGKILL (a CI timeout, an editor) runs
no clean-up, and its workers would wait for work forever. On Linux the kernel sends them
SIGKILL (``PR_SET_PDEATHSIG``); everywhere, each watches a pipe (forked) or its parent's
sentinel (spawned) that becomes readable when the parent is gone, and exits. A fix is
written atomically (``cli.write_atomic``), so a worker killed mid-fix leaves no half file.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
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
    # Forked workers inherit the write end, so each closes its copy: the parent's is then
    # the last, and the pipe reads EOF when the parent dies. Spawned ones inherit nothing.
    lifeline = os.pipe() if method == "fork" else None
    try:
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method),
                                   initializer=_start_worker, initargs=(os.getpid(), lifeline))
    except OSError:  # no shared-memory semaphores here (some sandboxes): one process it is
        _close(lifeline)
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
        _close(lifeline)


def _close(lifeline: tuple[int, int] | None) -> None:
    for end in lifeline or ():
        os.close(end)


def _start_worker(parent: int, lifeline: tuple[int, int] | None) -> None:
    """Ctrl-C reaches every process of the terminal's group: let only the parent react, so
    that workers finish their file (a fix is never left half done) instead of each printing
    a traceback. And exit when the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform == "linux":
        _set_parent_death_signal()
    if lifeline is not None:
        read_end, write_end = lifeline
        os.close(write_end)
        watched = read_end
    else:
        watched = multiprocessing.parent_process().sentinel
    if os.getppid() != parent:  # it died before the signal was set up or the watch began
        os._exit(1)
    threading.Thread(target=_exit_when_ready, args=(watched,), name="tensorcopy-parent-watch", daemon=True).start()


def _set_parent_death_signal() -> None:
    """SIGKILL this process when the thread that forked it exits (``prctl(2)``); a libc
    without ``prctl`` leaves the pipe watch alone to do it."""
    PR_SET_PDEATHSIG = 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _exit_when_ready(watched: int) -> None:
    """Block until ``watched`` is readable (EOF: the parent is gone), then exit at once."""
    multiprocessing.connection.wait([watched])
    os._exit(1)
