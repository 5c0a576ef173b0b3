"""Each rule's inline examples: flagged ones at the expected place, clean ones clean.

The examples live on the rule (one source for tests and docs); shortcuts on and off
must agree on every one of them. Opt-in rules are tested like the others; a clean example
must be clean under every rule.
"""

import pytest

from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES


def _example_id(code: str, text: str, line: int | None = None) -> str:
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return f"{code}:{text.splitlines()[line - 1].strip() if line else lines[-1]}"


FLAGGED = [
    pytest.param(rule, example, id=_example_id(rule.code, example.code, example.expect[0][0]))
    for rule in ALL_RULES
    for example in rule.flagged
]
CLEAN = [pytest.param(rule, code, id=_example_id(rule.code, code)) for rule in ALL_RULES for code in rule.clean]


@pytest.mark.parametrize("shortcuts", [True, False], ids=["prefiltered", "whole-file"])
@pytest.mark.parametrize("rule, example", FLAGGED)
def test_flagged_example(rule, example, shortcuts):
    findings = lint_source(example.code, rules=[rule], shortcuts=shortcuts)
    assert [(f.line, f.col + 1, f.code) for f in findings] == [(line, col, rule.code) for line, col in example.expect]
    assert all(f.message.startswith(f"{rule.code} ") and "\n" not in f.message for f in findings)


@pytest.mark.parametrize("rule, code", CLEAN)
def test_clean_example(rule, code):
    assert lint_source(code, rules=ALL_RULES, shortcuts=False) == []


def test_codes_are_distinct_and_well_formed():
    codes = [rule.code for rule in ALL_RULES]
    assert len(set(codes)) == len(codes)
    assert codes == sorted(codes)
    assert all(code.startswith("TCP") and code[3:].isdigit() and len(code) == 6 for code in codes)
    assert len({rule.name for rule in ALL_RULES}) == len(codes)


def test_every_rule_has_examples_both_ways():
    for rule in ALL_RULES:
        assert rule.flagged and rule.clean, rule.code


@pytest.mark.parametrize("write", ["sd[key].data.fill_(0.)", "sd[key].data += 1"])
def test_a_state_dict_written_into_is_a_handle_on_the_weights_not_a_snapshot(write):
    """Averaging learners by writing through the target's state_dict (FedEM's shape): the
    aliasing is the point. TCP001 still flags the writes through `.data`; TCP008 is silent.
    Written through another name, the same weights move under the snapshot: flagged."""
    (rule,) = [rule for rule in ALL_RULES if rule.code == "TCP008"]
    handle = f"def average(target):\n    sd = target.state_dict(keep_vars=True)\n    for key in sd:\n        {write}\n"
    assert lint_source(handle, rules=[rule]) == []
    assert [f.code for f in lint_source(handle, rules=ALL_RULES)] == ["TCP001"]
    moved = "def average(target):\n    sd = target.state_dict()\n    for p in target.parameters():\n" \
            "        p.data.fill_(0.)\n    target.load_state_dict(sd)\n"
    assert [(f.line, f.code) for f in lint_source(moved, rules=[rule])] == [(2, "TCP008")]
