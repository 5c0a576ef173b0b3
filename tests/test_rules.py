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
