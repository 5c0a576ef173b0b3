"""Rule pages: one per code, in sync with the rule modules, and their examples honest."""

from pathlib import Path

import pytest

from flake8_tensorcopy import docs
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
RULES = [pytest.param(rule, id=rule.code) for rule in ALL_RULES]


@pytest.mark.parametrize("rule", RULES)
def test_page_is_generated_from_the_rule(rule):
    page = docs.page_path(ROOT, rule)
    assert page.read_text(encoding="utf-8") == docs.render(rule), (
        f"{page} is stale: run `python -m flake8_tensorcopy.docs`"
    )


def test_no_page_without_a_rule():
    pages = {p.stem for p in (ROOT / "rules").glob("*.md")}
    assert pages == {rule.code for rule in ALL_RULES}


@pytest.mark.parametrize("rule", RULES)
def test_example_is_flagged_and_use_instead_is_clean(rule):
    assert rule.code in {f.code for f in lint_source(rule.docs.example, rules=[rule])}
    assert lint_source(rule.docs.use_instead, rules=ALL_RULES) == []


@pytest.mark.parametrize("rule", RULES)
def test_page_names_an_existing_fixture(rule):
    assert (ROOT / rule.docs.fixture).is_file()
    assert rule.code.lower() in rule.docs.fixture
