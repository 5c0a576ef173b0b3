"""Frozen values behave as the frozen dataclasses they replace: equal by class and fields,
hashed and printed by them, immutable, and copied and pickled whole (the disk cache and
the command's worker processes move them). Findings compare and sort by where they start,
their code and message, as before."""

from __future__ import annotations

import copy
import pickle

import pytest

from flake8_tensorcopy.analysis.values import ClassObject, Instance, LibraryObject
from flake8_tensorcopy.analysis.vocabulary import FRESH, TENSOR, TensorInfo
from flake8_tensorcopy.engine import Finding
from flake8_tensorcopy.rule import Fix, FixPlan
from flake8_tensorcopy.runtime.frozen import Frozen


def test_equal_by_class_and_fields():
    assert Instance("Trainer") == Instance("Trainer", "")
    assert Instance("Trainer") != Instance("Trainer", "other.py")
    assert Instance("Trainer") != ClassObject("Trainer")  # the same fields, another kind of value
    assert TensorInfo(fresh=True) == FRESH and TensorInfo() == TENSOR and FRESH != TENSOR
    assert Instance("Trainer") != ("Trainer", "")  # not a tuple: a function's `return a, b` is one


def test_hashed_by_fields_so_equal_values_are_one_key():
    assert len({Instance("A"), Instance("A"), Instance("B"), ClassObject("A")}) == 3
    assert {LibraryObject("torchvision.datasets.MNIST"): 1}[LibraryObject("torchvision.datasets.MNIST")] == 1
    assert hash(TensorInfo(index=True, fresh=True)) == hash(TensorInfo(False, True, True))


def test_printed_with_fields():
    assert repr(Instance("Trainer", "t.py")) == "Instance(cls='Trainer', module='t.py')"
    assert repr(LibraryObject("x.Y")) == "LibraryObject(qualified='x.Y')"


def test_immutable():
    value = Instance("Trainer")
    with pytest.raises(AttributeError, match="cannot assign"):
        value.cls = "Other"
    with pytest.raises(AttributeError, match="cannot delete"):
        del value.module
    with pytest.raises(AttributeError):
        value.extra = 1  # no __dict__ either
    assert value == Instance("Trainer")


@pytest.mark.parametrize("value", [
    Instance("Trainer", "t.py"), ClassObject("Loader"), LibraryObject("x.Y"), FRESH, TensorInfo(parameter=True),
    Fix(replacements=(), safe=True, description="swap", needs_import="torch", wrap_with="torch.no_grad()"),
])
def test_copied_and_pickled_whole(value):
    for twin in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert twin == value and type(twin) is type(value) and repr(twin) == repr(value)


def test_a_class_without_fields_is_refused():
    with pytest.raises(TypeError, match="names no fields"):
        class Empty(Frozen):
            __slots__ = ()


def test_findings_compare_and_sort_by_place_code_and_message():
    first = Finding(3, 4, "TCP001", "a", fix=None, end_line=3, end_col=9)
    same_place = Finding(3, 4, "TCP001", "a", fix=Fix((), True, "swap"))  # the fix and ends do not count
    later = Finding(3, 5, "TCP001", "a")
    assert first == same_place and hash(first) == hash(same_place)
    assert sorted([later, first, Finding(1, 0, "TCP009", "z")]) == [Finding(1, 0, "TCP009", "z"), first, later]
    assert first < later and later > first and first <= same_place and first >= same_place
    assert first != (3, 4, "TCP001", "a")


def test_a_finding_moved_keeps_the_rest():
    finding = Finding(3, 4, "TCP001", "a", fix=Fix((), True, "swap"), end_line=5, end_col=1)
    moved = finding.replace(line=10, end_line=12)
    assert (moved.line, moved.col, moved.code, moved.message) == (10, 4, "TCP001", "a")
    assert (moved.end_line, moved.end_col) == (12, 1)
    assert moved.fix is finding.fix and finding.line == 3
    assert pickle.loads(pickle.dumps(moved)).end_line == 12


def test_a_fix_without_edits_keeps_what_it_says():
    fix = Fix(replacements=((object(), object()),), safe=False, description="copy", needs_import="copy",
              wrap=(object(),), wrap_with="torch.no_grad()")
    shown = fix.without_edits()
    assert shown.replacements == () and shown.wrap == ()
    assert (shown.safe, shown.description) == (False, "copy")
    assert (shown.needs_import, shown.wrap_with) == ("copy", "torch.no_grad()")


def test_fix_plans_offering_the_same_fix_are_equal():
    def build(site):
        return None

    assert FixPlan(True, "swap", build, (object(),)) == FixPlan(True, "swap", lambda site: None)
    assert FixPlan(True, "swap", build) != FixPlan(False, "swap", build)
    assert repr(FixPlan(True, "swap", build)) == "FixPlan(safe=True, description='swap')"
    assert FixPlan(True, "swap", build).offer() == Fix((), True, "swap")
