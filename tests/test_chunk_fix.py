"""One finding's fix applied to its chunk gives the text the whole-file fixer gives, for
every fixable finding of a training file and for the places where a chunk differs from
the file: a method (parsed under ``if True:``), module-level code (functions taken out),
a fix that adds an import (after the docstring and ``__future__`` imports), CRLF."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_modules import import_bench_modules

from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy import chunk_fix, engine, fixer

pytestmark = pytest.mark.compat

training_file = import_bench_modules(Path(__file__).resolve().parent.parent / "bench", ("training_code",))[
    "training_code"].training_file

METHOD = '''\
"""Trainer."""
from __future__ import annotations

# the model
import torch


class Trainer:
    def snapshot(self, w: torch.Tensor) -> torch.Tensor:
        return w.clone().detach()

    def train(self, model, batches, evaluate):
        best_loss, best_state = float("inf"), None
        for x in batches:
            val = evaluate(model, x)
            if val < best_loss:
                best_loss, best_state = val, model.state_dict()
        model.load_state_dict(best_state)


def helper(w):
    return w


w = torch.zeros(3, requires_grad=True)
frozen = w.clone().detach()
'''


# Functions in functions: the lint's chunk is the outermost its triggers chose; the quick
# fix tries the innermost function first (it needs no plan), and must fix as the fixer does.
NESTED = '''\
import torch


def train(model, w: torch.Tensor):
    def snapshot():
        return w.clone().detach()

    frozen = w.clone().detach()

    @torch.no_grad()
    def copy_of(x: torch.Tensor):
        return torch.tensor(x)

    return snapshot, frozen, copy_of


class Outer:
    def run(self, w: torch.Tensor):
        def inner():
            return w.clone().detach()
        return inner
'''


def _fixable(source: str) -> list[tuple[int, int, str]]:
    return [(f.line, f.col, f.code) for f in engine.lint_source(source, rules=ALL_RULES) if f.fix is not None]


@pytest.mark.parametrize("source", [
    pytest.param(training_file(400), id="training file"),
    pytest.param(METHOD, id="method, module level, import"),
    pytest.param(METHOD.replace("\n", "\r\n"), id="CRLF"),
    pytest.param(NESTED, id="nested functions"),
])
def test_each_fix_in_its_chunk_is_the_whole_file_fixers(source):
    findings = _fixable(source)
    assert len(findings) >= 3
    for only in findings:
        whole = fixer.fix_source(source, ALL_RULES, unsafe=True, only=only).source
        assert chunk_fix.fix_finding(source, only, ALL_RULES) == whole, only


def test_a_finding_that_is_gone_is_not_fixed():
    with pytest.raises(fixer.FixError, match="not in the current text"):
        chunk_fix.fix_finding(METHOD, (10, 15, "TCP003"), engine.rules_for())
