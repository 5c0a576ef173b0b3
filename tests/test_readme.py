"""The README stays true and short: its codes table lists every rule, its first commands
are what CI runs, and every link in it and in docs/ leads somewhere."""

import re
from pathlib import Path

import pytest
from doc_blocks import PAGES, blocks

from flake8_tensorcopy.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\((?!https?://|mailto:)(?P<target>[^)\s]+)\)")


def test_codes_table_lists_every_rule_with_its_page():
    rows = re.findall(r"^\| \[(TCP\d{3})\]\(rules/(TCP\d{3})\.md\) \| ([\w-]+) \|", README, re.MULTILINE)
    assert [(code, page) for code, page, _ in rows] == [(r.code, r.code) for r in ALL_RULES]
    assert [name for _, _, name in rows] == [r.name for r in ALL_RULES]


def test_ci_runs_the_readme_test_command():
    blocks = re.findall(r"```bash\n(.*?)```", README, re.DOTALL)
    test_command = next(b.strip() for b in blocks if "pytest" in b)
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines


def test_readme_is_read_in_five_minutes():
    assert len(README.splitlines()) <= 250


def test_readme_opens_with_the_set_up_commands_then_the_quick_check():
    first = [block.body.strip() for block in blocks(ROOT / "README.md", "bash")[:3]]
    assert first[0].startswith("python3 -m pip install . && ") and "flake8 --select TC" in first[0]
    assert first[1] == "python3 -m pip install -q -e '.[test]' && python3 -m pytest -q -p no:cacheprovider"
    assert first[2] == 'python3 -m pytest -q -m "not slow"'


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of ``page``."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_leads_to_a_file_and_heading(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    for target in LINK.findall(text):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name} links to {target}: no such file"
        if anchor:
            assert anchor in _anchors(linked), f"{page.name} links to {target}: no such heading"


def test_codes_table_says_which_rules_are_opt_in():
    rows = dict(re.findall(r"^\| \[(TCP\d{3})\]\(rules/TCP\d{3}\.md\) \| [\w-]+ \| (on|opt-in)\b", README, re.MULTILINE))
    assert rows == {rule.code: "on" if rule.enabled_by_default else "opt-in" for rule in ALL_RULES}
