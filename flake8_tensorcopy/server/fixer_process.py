"""The fix-all in a process of its own.

The fix-all sends the whole file through the fixer: LibCST parses, analyses and prints
the whole module, two or three times (1.5 s on a 3,000-line file, 300 ms of it in each
whole-file parse). On the fix thread it ran beside the lint thread, and Python runs one
thread at a time: a pull sent while it was under way got a third of the CPU, or none
while LibCST's parser held it, and waited 250 ms for what takes 50. In a process of its
own, the fix-all runs on another core, and the server only waits for its answer. The
process is started with the first fix-all (``spawn``: a fresh interpreter, none of the
server's threads) and kept for the next ones; it is stopped with the server, and ends
within a second of the server's death. Neither it nor multiprocessing's resource tracker
holds the editor's pipes (the server's stdin and stdout are not inherited): a process
that kept the server's stdout open would keep the editor waiting for its end.

What it fixes must be what the fixer would fix in the server: it reads the file's
project from disk, with the editor's unsaved buffers laid over it as the server lays them
(``Project.overlay``): each request carries the buffers of the document's project. A
document whose project analysis is off is fixed with no project (``path`` None), as the
server's own analysis of it has none. The rules go by code, in the server's order.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..rule import Rule
from .fixes import FixEdits


class FixerProcess:
    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._stopped = False

    def fix_all(self, text: str, rules: Sequence[type[Rule]], unsafe: bool, kept_lines: str,
                path: str | None = None, buffers: dict[str, str] | None = None) -> FixEdits | None:
        """The fix-all's edits of ``text``, the file at ``path`` whose project has the unsaved
        ``buffers`` (no path: no project), computed in the process; None when no process
        could do it (the caller computes them itself)."""
        codes = [rule.code for rule in rules]
        for _ in range(2):  # a process that died (killed, out of memory) is started again once
            pool = self._started()
            if pool is None:
                return None
            try:
                return pool.submit(_fix_all, text, codes, unsafe, kept_lines, path, buffers or {}).result()
            except BrokenProcessPool:
                self._forget(pool)
        return None

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    @property
    def pid(self) -> int | None:
        """The process's id, once started (for benchmarks)."""
        processes = getattr(self._pool, "_processes", None) or {}
        return next(iter(processes), None)

    def _started(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._pool is None and not self._stopped:
                try:
                    for fd in (0, 1):  # the LSP stream: no child of the server gets it
                        os.set_inheritable(fd, False)
                    self._pool = ProcessPoolExecutor(
                        max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_quiet,
                        initargs=(os.getpid(),))
                except (OSError, ValueError):  # no processes here: the caller fixes in the server
                    self._stopped = True
            return self._pool

    def _forget(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)


def _quiet(server: int) -> None:
    """In the process: what it prints goes to the server's stderr (the editor's log), and
    it ends when the server does, however the server ended."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin, sys.stdout = None, sys.stderr

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, name="tensorcopy-parent-watch", daemon=True).start()


def _fix_all(text: str, codes: list[str], unsafe: bool, kept_lines: str, path: str | None,
             buffers: dict[str, str]) -> FixEdits:
    from ..runtime import memory
    from ..analysis import project
    from ..rules import ALL_RULES
    from .fixes import compute_fix_all

    located = project.locate(path)
    if located is not None:
        located[0].lay_buffers(buffers)
    rules = {rule.code: rule for rule in ALL_RULES}
    try:
        return compute_fix_all(text, [rules[code] for code in codes], unsafe, kept_lines,
                                     path if located is not None else None)
    finally:
        memory.release_freed()
