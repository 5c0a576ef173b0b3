"""Issue 6: property tests on generated Python (hypothesmith).

* The flake8 plugin never raises and never reports a bug of its own on any program
  Python's parser accepts (flake8 only calls it on those); the CLI's lint only ever
  raises ``AnalysisError`` ("cannot analyse it").
* ``--fix`` (with unsafe fixes) on generated code spliced with the rules' own risky
  examples either refuses (``FixError``/``AnalysisError``: the file is kept) or gives
  code that parses with ``ast`` and LibCST, and fixing that again changes nothing.

CI runs a bounded, derandomised sample (about a minute). A deeper, random run:

    TENSORCOPY_FUZZ_EXAMPLES=5000 python3 -m pytest -p no:cacheprovider tests/test_fuzz.py

(each property then gets that many examples; allow about 1 s per example on 2 cores).
"""

from __future__ import annotations

import ast
import logging
import os
import textwrap
import warnings
from collections import Counter

import hypothesmith
import libcst
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from flake8_tensorcopy import engine, fixer
from flake8_tensorcopy.plugin import LOG, TensorCopyChecker
from flake8_tensorcopy.rules import ALL_RULES

DEEP = os.environ.get("TENSORCOPY_FUZZ_EXAMPLES")


def fuzz(ci_examples: int) -> settings:
    """``ci_examples`` in CI (sized for about 25 s each on 2 loaded cores), else the deep count."""
    return settings(
        max_examples=int(DEEP) if DEEP else ci_examples,
        derandomize=not DEEP,  # CI: the same sample every run; a deep run explores
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )


# Generated code is odd: its SyntaxWarnings are expected.
pytestmark = [pytest.mark.slow, pytest.mark.compat, pytest.mark.filterwarnings("ignore::SyntaxWarning")]

RISKY = [example.code for rule in ALL_RULES for example in rule.flagged]
CLEAN = [code for rule in ALL_RULES for code in rule.clean]


def parses(source: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings of generated code
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def _splice(parts: tuple[str, list[str], str]) -> str:
    program, snippets, where = parts
    head = "\n".join(snippets)
    if not head.endswith("\n"):
        head += "\n"
    if where == "inside":  # the program becomes the tail of a risky function's body
        return head + textwrap.indent(program, "    ") + "\n"
    if where == "after":
        return program + "\n" + head
    return head + program


# Risky snippets before a generated program, after it, or wrapped around it. (Built with
# map/filter: a @st.composite drawing from hypothesmith is some 50 times slower.)
SPLICED = (
    st.tuples(
        hypothesmith.from_grammar(),
        st.lists(st.sampled_from(RISKY + CLEAN), min_size=1, max_size=3),
        st.sampled_from(["before", "after", "inside"]),
    )
    .map(_splice)
    .filter(lambda source: parses(source) is not None)
)


class _Problems(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def check_plugin(source: str) -> None:
    tree = parses(source)
    assume(tree is not None)
    problems = _Problems()
    LOG.addHandler(problems)
    try:
        found = list(TensorCopyChecker(tree, source.splitlines(True), "generated.py").run())
    finally:
        LOG.removeHandler(problems)
    assert not problems.records, problems.records[0].getMessage()
    lines = source.count("\n") + 1
    for line, col, message, _ in found:
        assert 1 <= line <= lines and col >= 0 and message.startswith("TCP")
    try:
        engine.lint_source(source)
    except engine.AnalysisError:
        pass  # the CLI says "cannot analyse it"; anything else would be a crash


@fuzz(200)
@given(hypothesmith.from_grammar())
def test_plugin_never_raises_on_generated_programs(source):
    check_plugin(source)


@fuzz(30)  # from_node() takes about 1 s an example to generate
@given(hypothesmith.from_node())
def test_plugin_never_raises_on_generated_syntax_trees(source):
    check_plugin(source)


@fuzz(300)
@given(SPLICED)
def test_plugin_never_raises_on_risky_spliced_programs(source):
    check_plugin(source)


def test_fix_output_reparses_and_is_idempotent():
    outcomes: Counter[str] = Counter()

    @fuzz(300)
    @given(SPLICED)
    def check(source: str) -> None:
        try:
            result = fixer.fix_source(source, unsafe=True)
        except (fixer.FixError, engine.AnalysisError):
            outcomes["refused"] += 1  # the caller keeps the original
            return
        outcomes["fixed" if result.changed else "unchanged"] += 1
        ast.parse(result.source)
        libcst.parse_module(result.source)
        again = fixer.fix_source(result.source, unsafe=True)
        assert not again.applied and again.source == result.source

    check()
    print(dict(outcomes))
    # The splicing must really exercise the fixer, not only the "nothing to fix" path.
    assert outcomes["fixed"] >= sum(outcomes.values()) / 3, outcomes
