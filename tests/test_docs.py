"""Rule pages: one per code, in sync with the rule modules, and their examples honest."""

import email.message
import tomllib
from pathlib import Path

import pytest

from flake8_tensorcopy import docs, metadata
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


def test_a_rules_link_is_its_page_in_the_repository_of_pyproject(monkeypatch, tmp_path):
    """Not a file of the machine (a checkout, a cache folder): the same link from a checkout
    and from an installed wheel, whose metadata carries the repository's URL."""
    repository = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    assert docs.page_url(ALL_RULES[2]) == f"{repository}/blob/main/rules/{ALL_RULES[2].code}.md"
    monkeypatch.setattr(metadata, "CHECKOUT_PYPROJECT", tmp_path / "site-packages" / "pyproject.toml")
    installed = email.message.Message()
    installed["Project-URL"] = f"Repository, {repository}"
    monkeypatch.setattr(metadata.importlib.metadata, "metadata", {"flake8-tensorcopy": installed}.__getitem__)
    metadata.repository_url.cache_clear()
    try:
        assert docs.page_url(ALL_RULES[2]) == f"{repository}/blob/main/rules/{ALL_RULES[2].code}.md"
    finally:
        metadata.repository_url.cache_clear()


def test_a_rule_is_on_by_default_only_when_proven_blind():
    """Issue 45's policy: at least 30 hazards labelled blind in repositories no rule was
    developed on, found at precision 0.98 or better (``_blind.py``, from blind.json)."""
    from flake8_tensorcopy import _blind

    for rule in ALL_RULES:
        if not rule.enabled_by_default:
            continue
        hazards, _, found, false = _blind.FIGURES[rule.analyser().code]
        assert hazards >= _blind.MINIMUM_HAZARDS, rule.code
        assert found / (found + false) >= _blind.MINIMUM_PRECISION, rule.code


def test_the_blind_figures_are_generated_from_the_measurement():
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("blind_figures", ROOT / "bench" / "accuracy" / "blind_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    measured = json.loads((ROOT / "bench" / "accuracy" / "blind.json").read_text(encoding="utf-8"))
    assert (ROOT / "flake8_tensorcopy" / "_blind.py").read_text(encoding="utf-8") == module.render(measured)


@pytest.mark.parametrize("rule", RULES)
def test_each_page_states_its_blind_measurement_and_status(rule):
    page = (ROOT / "rules" / f"{rule.code}.md").read_text(encoding="utf-8")
    assert docs.status_sentence(rule) in page
    assert docs.status_sentence(rule).startswith("on by default" if rule.enabled_by_default else "off by default")
