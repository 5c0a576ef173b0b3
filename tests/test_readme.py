"""The README stays true: its codes table lists every rule, and its test command is
exactly what CI runs."""

import re
from pathlib import Path

from flake8_tensorcopy.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_codes_table_lists_every_rule_with_its_page():
    rows = re.findall(r"^\| \[(TCP\d{3})\]\(rules/(TCP\d{3})\.md\) \| ([\w-]+) \|", README, re.MULTILINE)
    assert [(code, page) for code, page, _ in rows] == [(r.code, r.code) for r in ALL_RULES]
    assert [name for _, _, name in rows] == [r.name for r in ALL_RULES]


def test_ci_runs_the_readme_test_command():
    blocks = re.findall(r"```bash\n(.*?)```", README, re.DOTALL)
    test_command = next(b.strip() for b in blocks if "pytest" in b)
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_command in ci_lines
