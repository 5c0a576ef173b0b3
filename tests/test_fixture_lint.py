"""Each runtime fixture, linted by the real rules: the rule, its docs and the runtime
truth cannot drift apart. ``risky*`` functions carry exactly their code, once; the
rest of the file (``fixed*`` and the checks) is clean."""

import ast
import re
from pathlib import Path

import pytest

from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES

FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures").glob("tcp*.py"))


def functions_by_line(tree: ast.Module) -> dict[int, str]:
    owner = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for line in range(node.lineno, node.end_lineno + 1):
                owner[line] = node.name
    return owner


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_risky_functions_carry_exactly_their_code(path):
    code = re.match(r"tcp(\d{3})", path.stem).group(0).upper()
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    owner = functions_by_line(tree)
    risky = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("risky")]
    assert risky, "a fixture needs at least one risky function"
    findings = lint_source(source, rules=ALL_RULES)
    by_function = {}
    for finding in findings:
        by_function.setdefault(owner.get(finding.line, "<module>"), []).append(finding.code)
    assert by_function == {name: [code] for name in risky}


def test_every_rule_has_a_fixture():
    fixture_codes = {path.stem[:6].upper() for path in FIXTURES}
    assert fixture_codes == {rule.code for rule in ALL_RULES}
