"""A module's top level without its bodies (``analysis/top_level.py``): what ``from m
import *`` reads of m, parsed from a fraction of its text.

The cut must keep every statement the module runs on import, where it is, and drop every
def and class body, whatever the strings, comments, brackets and layout around them; text
it cannot follow must fail to parse (the project then reads all of it), never parse into
something else. Checked on written shapes and on the installed packages' own sources.
"""

import ast
import sys
from pathlib import Path

import flake8
import libcst
import pycodestyle
import pytest

from flake8_tensorcopy.analysis.summary import _declared_all, _top_level_names
from flake8_tensorcopy.analysis.top_level import top_level_code
from flake8_tensorcopy.imports import FUNCTION_DEFS, iter_statements

TRICKY = '''\
"""Module doc
def not_a_def():
"""
import os
try:
    from apex import amp
except ImportError:
    def amp(x,
            y):
        return """
def inner():
    import hidden
"""
__all__ = ["a",
           "B"]

@decorator(
    1)
def a(
    x,
) -> int:
    if x:
        return 1
    # a comment at column 0 follows
# in the body
    return (2 +
3)
class B(object):
    x = 1
    def m(self): pass
    import hidden_too
X = """
text
""" + "y"
if True:
    Y = 1
def one(): return 1
class Two: pass
async def c():
\tpass
def later(p, q=lambda: 0) -> "D":
    message = ("a string that goes on \\
at column 0")
    s = """
)"""
Z = 3
'''


def top_level(tree: ast.Module) -> tuple:
    """What ``from m import *`` reads of a tree: ``__all__``, the names its own code binds,
    and its own imports (not those in its functions and classes)."""
    imports = [
        ast.dump(statement)
        for statement in iter_statements(tree, into=lambda s: not isinstance(s, (*FUNCTION_DEFS, ast.ClassDef)))
        if isinstance(statement, (ast.Import, ast.ImportFrom))
    ]
    return _declared_all(tree), list(_top_level_names(tree)), imports


def test_the_bodies_go_and_the_top_level_stays_where_it_was() -> None:
    cut = top_level_code(TRICKY)
    assert len(cut.split("\n")) == len(TRICKY.split("\n"))
    assert top_level(ast.parse(cut)) == top_level(ast.parse(TRICKY))
    kept = cut.split("\n")
    for number, line in enumerate(TRICKY.split("\n")):
        if line.startswith(("import", "__all__", "X =", "Z =", "@decorator", "class ", "    Y = 1", "def a(")):
            assert kept[number] == line  # the top level, line for line
    assert "def not_a_def():" in cut  # in the module's docstring
    for gone in ("if x:", "x = 1", "hidden", "def inner", "message", "\tpass", "# in the body", "3)"):
        assert gone not in cut
    names = top_level(ast.parse(cut))[1]
    assert names == ["amp", "__all__", "a", "B", "X", "Y", "one", "Two", "c", "later", "Z"]


def test_text_it_cannot_follow_does_not_parse() -> None:
    """A string whose lines start at column 0 with a bracket hides where a body ends: the
    cut fails to parse, and the project reads the whole module instead."""
    source = 'def f():\n    s = """\n)"""\n    return s\nX = 1\n'
    assert top_level(ast.parse(top_level_code(source))) == top_level(ast.parse(source))
    odd = 'def f():\n    s = """\nx = (1,\n"""\n    return s\n'  # code-like text at column 0
    try:
        cut = ast.parse(top_level_code(odd))
    except SyntaxError:
        return
    assert top_level(cut) == top_level(ast.parse(odd))


def _package_sources() -> list[Path]:
    """The sources of installed packages no one here wrote: real layouts of every kind."""
    roots = [Path(module.__file__).parent for module in (flake8, libcst)] + [Path(pycodestyle.__file__)]
    try:
        import torch

        roots += [Path(torch.__file__).parent / folder for folder in ("nn", "optim", "utils/data")]
    except ImportError:
        pass
    paths = [path for root in roots for path in ([root] if root.is_file() else sorted(root.rglob("*.py")))]
    return [path for path in paths if "test" not in path.parts]


@pytest.mark.slow
@pytest.mark.skipif(sys.version_info < (3, 11), reason="the packages' own syntax")
def test_installed_packages_cut_alike() -> None:
    """On each module of the installed packages: the cut parses to the same top level as
    the whole text, or it does not parse at all (where a string hides a body's end)."""
    compared, fallen_back = 0, []
    for path in _package_sources():
        source = path.read_text(encoding="utf-8")
        try:
            whole = ast.parse(source)
        except SyntaxError:
            continue
        try:
            cut = ast.parse(top_level_code(source))
        except SyntaxError:
            fallen_back.append(path)
            continue
        assert top_level(cut) == top_level(whole), path
        compared += 1
    assert compared > 300
    assert len(fallen_back) <= compared // 100, fallen_back
