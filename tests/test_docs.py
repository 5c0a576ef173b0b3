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


def test_trigger_table_is_generated_from_the_rules():
    """flake8 prefilters with the generated table, the CLI with the rule modules: a stale
    table makes flake8 miss what the CLI reports (a gate's keyword changed in one place)."""
    assert docs.TRIGGER_TABLE.read_text(encoding="utf-8") == docs.render_trigger_table(), (
        f"{docs.TRIGGER_TABLE} is stale: run `python -m flake8_tensorcopy.docs`"
    )


@pytest.mark.parametrize("rule", RULES)
def test_page_states_the_generated_accuracy_figures_once(rule):
    """The figures come from `_accuracy.py` (generated from the committed corpus data by
    `bench/accuracy/score.py --write`, checked by test_accuracy_tools), never by hand."""
    assert rule.docs.known_problems.count(docs.ACCURACY) == 1
    page = docs.render(rule)
    assert docs.ACCURACY not in page
    assert page.count("repositories of application code") == 1
    assert page.count(docs.accuracy_sentence(rule.code)) == 1


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


def test_an_installed_wheel_links_the_page_rendered_into_the_cache(tmp_path, monkeypatch):
    """A wheel carries no rules/: the language server's link is the same page, rendered into
    the user's cache folder (rewritten when it is stale)."""
    monkeypatch.setattr(docs, "CHECKOUT", tmp_path / "site-packages")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    docs.page_url.cache_clear()
    rule = ALL_RULES[2]
    try:
        url = docs.page_url(rule)
        page = tmp_path / "cache" / "flake8-tensorcopy" / docs.__version__ / "rules" / f"{rule.code}.md"
        assert url == page.as_uri() and page.read_text(encoding="utf-8") == docs.render(rule)
        page.write_text("stale", encoding="utf-8")
        docs.page_url.cache_clear()
        assert docs.page_url(rule) == url and page.read_text(encoding="utf-8") == docs.render(rule)
        assert [p.name for p in page.parent.iterdir()] == [page.name]  # no scratch file left
    finally:
        docs.page_url.cache_clear()
