"""What the language server's work costs, counted (never timed: timing lives in
``bench/server_soak.py``): what a lint leaves for the cycle collector, when the collector
runs, how often a request parses the file, and who waits for whom between the lint
thread and the fix thread."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from flake8_tensorcopy import collector

@pytest.fixture
def collector_off():
    """The automatic collector off, so that only what the code under test does frees cycles."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    yield
    if enabled:
        gc.enable()


def test_work_on_the_lint_thread_runs_with_the_collector_off_and_frees_its_cycles():
    pytest.importorskip("pygls")
    from flake8_tensorcopy.server.worker import Worker

    class Node:
        pass

    def work():
        node = Node()
        node.itself = node  # a cycle only the collector frees
        return gc.isenabled(), weakref.ref(node)

    gc.collect()
    worker = Worker("test-worker")
    try:
        enabled_inside, cycle = worker.submit(work).result(timeout=10)
        assert gc.isenabled() and not enabled_inside
        assert cycle() is None  # the collection after the piece of work freed it
    finally:
        worker.shutdown()


def test_the_collector_pauses_are_counted_across_threads(collector_off):
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def long_pause():
        with collector.paused():
            inside.set()
            release.wait(10)

    other = threading.Thread(target=long_pause)
    other.start()
    assert inside.wait(10)
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause is still under way
    release.set()
    other.join(10)
    assert gc.isenabled()


def test_a_cycle_that_outlived_its_piece_of_work_is_freed_on_the_collectors_schedule(collector_off):
    """Explicit collections keep no schedule of their own: a server that allocates little
    between pieces of work never collected its older generations, and an entry of a cache
    dropped after a piece or two stayed for good."""
    gc.enable()

    class Node:
        pass

    held = []
    with collector.paused(collect=True):
        node = Node()
        node.itself = node
        held.append(node)
    with collector.paused(collect=True):  # promoted past the youngest generation
        pass
    cycle = weakref.ref(held.pop())
    del node
    thresholds = gc.get_threshold()
    for _ in range((thresholds[1] + 1) * (thresholds[2] + 1)):
        with collector.paused(collect=True):
            pass
        if cycle() is None:
            break
    assert cycle() is None
