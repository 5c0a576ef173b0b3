"""The lint thread: one thread (lints run one at a time, each with all the CPU) that runs
what the editor waits on to show (pulls, pushes, hovers) before what code actions ask of
it (the findings under the cursor, whether a fix-all applies: a whole lint when the text
is new), so that a pull sent behind a code action does not queue behind its work. Work on
other threads (the fixes) steps aside for that urgent work at its checkpoints
(``yielding``): :meth:`Worker.wait_for_urgent`.

Each piece of work runs with the cycle collector paused, and the collections after it
(``collector``): the trees of a lint are never promoted, so no full collection over the
whole process (150 ms with a 3,000-line file open) lands in the middle of a pull."""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from ..runtime import collector

Result = TypeVar("Result")
URGENT, LATER, STOP = 1, 2, 0
# The longest a checkpoint waits for urgent work: a stream of pulls must not starve a fix.
MAX_STEP_ASIDE_S = 1.0


class Worker:
    def __init__(self, name: str) -> None:
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()  # first in, first out within a priority
        self._urgent = 0  # urgent pieces queued or under way
        self._lock = threading.Lock()
        self._no_urgent = threading.Event()
        self._no_urgent.set()
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(self, work: Callable[[], Result], urgent: bool = True) -> Future[Result]:
        future: Future[Result] = Future()
        if urgent:
            with self._lock:
                self._urgent += 1
                self._no_urgent.clear()
        self._queue.put((URGENT if urgent else LATER, next(self._order), work, future))
        return future

    def wait_for_urgent(self, timeout: float = MAX_STEP_ASIDE_S) -> bool:
        """Block (another thread) while urgent work is queued or under way, at most
        ``timeout`` seconds; whether none is left."""
        return self._no_urgent.wait(timeout)

    def shutdown(self) -> None:
        """Stop after the piece of work under way; what waits is cancelled."""
        self._queue.put((STOP, next(self._order), None, None))

    def _run(self) -> None:
        stopped = False
        while True:
            priority, _, work, future = self._queue.get()
            if work is None:
                stopped = True
                continue
            try:
                if stopped or not future.set_running_or_notify_cancel():
                    future.cancel()
                    continue
                try:
                    with collector.paused(collect=True):
                        result = work()
                except BaseException as error:  # handed to the request that waits for it
                    future.set_exception(error)
                else:
                    future.set_result(result)
            finally:
                if priority == URGENT:
                    with self._lock:
                        self._urgent -= 1
                        if not self._urgent:
                            self._no_urgent.set()
