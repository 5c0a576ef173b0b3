"""The lint thread: one thread (the linter and its caches are not thread-safe) that runs
what the editor waits on to show (pulls, pushes, hovers) before what code actions ask of
it (the findings under the cursor, whether a fix-all applies: a whole lint when the text
is new), so that a pull sent behind a code action does not queue behind its work.

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

from .. import collector

Result = TypeVar("Result")
URGENT, LATER, STOP = 1, 2, 0


class Worker:
    def __init__(self, name: str) -> None:
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()  # first in, first out within a priority
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(self, work: Callable[[], Result], urgent: bool = True) -> Future[Result]:
        future: Future[Result] = Future()
        self._queue.put((URGENT if urgent else LATER, next(self._order), work, future))
        return future

    def shutdown(self) -> None:
        """Stop after the piece of work under way; what waits is cancelled."""
        self._queue.put((STOP, next(self._order), None, None))

    def _run(self) -> None:
        stopped = False
        while True:
            _, _, work, future = self._queue.get()
            if work is None:
                stopped = True
                continue
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
