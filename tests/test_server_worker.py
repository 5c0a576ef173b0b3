"""The lint thread runs what the editor waits on (pulls, hovers) before the pieces of
code actions that were queued first, and stops at shutdown."""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError

import pytest

from flake8_tensorcopy.server.worker import Worker


def test_urgent_work_goes_before_queued_code_action_pieces():
    worker = Worker("test-worker")
    busy, ran = threading.Event(), []
    worker.submit(busy.wait, urgent=False)  # a piece under way
    pieces = [worker.submit(lambda n=n: ran.append(f"piece {n}"), urgent=False) for n in range(3)]
    pull = worker.submit(lambda: ran.append("pull") or "report")
    busy.set()
    assert pull.result(timeout=10) == "report"
    for piece in pieces:
        piece.result(timeout=10)
    assert ran == ["pull", "piece 0", "piece 1", "piece 2"]
    worker.shutdown()


@pytest.mark.slow
def test_errors_reach_the_caller_and_shutdown_cancels_what_waits():
    worker = Worker("test-worker")
    busy = threading.Event()
    failing = worker.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result(timeout=10)
    started = threading.Event()
    under_way = worker.submit(lambda: started.set() or busy.wait())
    waiting = worker.submit(lambda: "never")
    assert started.wait(10)
    worker.shutdown()
    busy.set()
    assert under_way.result(timeout=10) is True
    with pytest.raises(CancelledError):
        waiting.result(timeout=10)
