"""What the language server's work costs, counted (never timed: timing lives in
``bench/server_soak.py``): what a lint leaves for the cycle collector, when the collector
runs, how often a request parses the file, and who waits for whom between the lint
thread and the fix thread."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import pytest
from bench_modules import import_bench_modules

from flake8_tensorcopy import engine, limits
from flake8_tensorcopy.runtime import collector, yielding
from flake8_tensorcopy.analysis.summary import ModuleSummary

training_file = import_bench_modules(Path(__file__).resolve().parent.parent / "bench", ("training_code",))[
    "training_code"].training_file

PATH = "/virtual/train.py"  # a file that is not there: no project is read


@pytest.fixture
def collector_off():
    """The automatic collector off, so that only what the code under test does frees cycles."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    yield
    if enabled:
        gc.enable()


@pytest.fixture
def summaries(monkeypatch):
    """Weak references to every module summary made."""
    made: list[weakref.ref] = []
    of = ModuleSummary.of.__func__

    def recording(cls, *args, **kwargs):
        summary = of(cls, *args, **kwargs)
        made.append(weakref.ref(summary))
        return summary

    monkeypatch.setattr(ModuleSummary, "of", classmethod(recording))
    return made


@pytest.fixture
def parses(monkeypatch):
    """How many times a whole file is parsed with ``ast`` (engine.parse_ast)."""
    count = [0]
    parse = engine.parse_ast

    def counting(source):
        count[0] += 1
        return parse(source)

    monkeypatch.setattr(engine, "parse_ast", counting)
    return count


@pytest.mark.slow
def test_a_lint_leaves_no_reference_cycle_behind(collector_off, summaries):
    """The summary's scopes referred back to it: every lint left its summary and its whole
    ``ast`` (44,000 objects on 3,000 lines) for the cycle collector, which the server paid
    for in full collections of 150 ms. Reference counting frees them now."""
    findings = engine.lint_source(training_file(300), path=PATH)
    assert findings and summaries
    assert all(summary() is None for summary in summaries)


@pytest.mark.slow
def test_the_server_frees_each_lint_at_once(collector_off, summaries):
    pytest.importorskip("pygls")
    from flake8_tensorcopy.server.linting import Linter

    linter = Linter()
    rules = engine.rules_for()
    source = training_file(300)
    for text in (source, source + "\nx = 1\n"):
        linter.diagnose(text, rules, PATH)
        assert summaries and all(summary() is None for summary in summaries)


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_fix_thread_steps_aside_while_the_lint_thread_has_urgent_work():
    pytest.importorskip("pygls")
    from flake8_tensorcopy.server.worker import Worker

    worker = Worker("test-worker")
    try:
        pull_started, pull_may_end = threading.Event(), threading.Event()
        order = []

        def pull():
            pull_started.set()
            pull_may_end.wait(10)
            order.append("pull")

        def fix():
            with yielding.stepping_aside(worker.wait_for_urgent):
                yielding.checkpoint()
                order.append("fix")

        pulling = worker.submit(pull)
        assert pull_started.wait(10)
        fixing = threading.Thread(target=fix)
        fixing.start()
        fixing.join(0.2)
        assert fixing.is_alive() and order == []  # waits at its checkpoint
        pull_may_end.set()
        pulling.result(timeout=10)
        fixing.join(10)
        assert order == ["pull", "fix"]
        yielding.checkpoint()  # no wait installed on this thread: returns at once
    finally:
        worker.shutdown()


def test_the_analysis_has_checkpoints_between_its_steps():
    source = training_file(300)
    planned = engine.plan_source(source, path=PATH)
    steps = [0]
    with yielding.stepping_aside(lambda: steps.__setitem__(0, steps[0] + 1)):
        engine.lint_source(source, path=PATH)
    assert steps[0] > len(planned.chunks())  # after the parse, per rule's triggers, per chunk


def test_a_quick_fix_parses_and_plans_only_the_fixed_text(parses, monkeypatch):
    """The quick fix parsed, summarised and planned the file again (the lint had just done
    it) to find its chunk, and its check parsed the whole fixed file again; and the check's
    lint, on a linter of its own, did not serve the pull after the fix is applied. Its
    chunk is cut from the tree now (no plan: the prefilter's gates are a third of a lint),
    the tree is the lint's, and the check parses only around the fix."""
    pytest.importorskip("pygls")
    from lsprotocol import types

    from flake8_tensorcopy import prefilter
    from flake8_tensorcopy.server import protocol
    from flake8_tensorcopy.server.documents import LoneDocument
    from flake8_tensorcopy.server.settings import Settings

    plans = []
    plan = prefilter.plan
    monkeypatch.setattr(prefilter, "plan", lambda *args, **kwargs: plans.append(1) or plan(*args, **kwargs))
    server = protocol.build_server()
    settings = Settings()
    server.settings = lambda uri: settings
    server.encoding = lambda: "utf-16"
    source = training_file(400)
    linted = LoneDocument("file://" + PATH, source, 1)
    before = server.linter.diagnose(source, settings.rules, linted.path)
    assert parses[0] == 1 and len(plans) == 1
    target = next(f for f in before.findings if f.code == "TCP002")
    span = types.Range(types.Position(target.line - 1, target.col), types.Position(target.end_line - 1, target.end_col))
    found = server.findings_in(linted, linted.uri, span)
    lint = server.lint_for_fixes(settings.rules, linted, before)
    tree = server.linter.tree(source)
    fix, _ = [action for one in found for action in protocol.quick_fixes(
        linted, linted.uri, one, settings, "utf-16", lint, tree)]
    assert fix.title == "TCP002: swap to .detach().clone()"
    # The fixed text's lint, to check it: planned, and parsed around the fix only.
    assert parses[0] == 1 and server.linter.trees.reparsed == 1 and len(plans) == 2
    (edit,) = fix.edit.document_changes
    index = protocol.text.LineIndex(source)
    start, end = (index.column(protocol._position(p)) for p in (edit.edits[0].range.start, edit.edits[0].range.end))
    lines = source.split("\n")
    fixed_line = lines[start[0] - 1][: start[1]] + edit.edits[0].new_text + lines[end[0] - 1][end[1]:]
    fixed = "\n".join(lines[: start[0] - 1] + [fixed_line] + lines[end[0]:])
    server.linter.diagnose(fixed, settings.rules, linted.path)  # the pull once it is applied
    assert parses[0] == 1 and len(plans) == 2


def test_repeated_requests_on_a_text_count_its_tokens_once(monkeypatch):
    pytest.importorskip("pygls")
    from flake8_tensorcopy.server import protocol
    from flake8_tensorcopy.server.documents import LoneDocument
    from flake8_tensorcopy.server.linting import Linter
    from flake8_tensorcopy.server.settings import Settings

    counted = []
    spend = limits.Budget.spend

    def counting(self, code):
        counted.append(len(code))
        return spend(self, code)

    monkeypatch.setattr(limits.Budget, "spend", counting)
    source = training_file(200)
    linter, settings = Linter(), Settings()
    linter.diagnose(source, settings.rules, PATH)
    assert len(source) not in counted  # under the server's limit in characters: no count needed
    linted = LoneDocument("file://" + PATH, source, 1)
    for _ in range(3):  # the lightbulb, as the cursor moves
        assert protocol.fix_all_applies(linter, linted, settings) is True
    assert counted.count(len(source)) == 1
