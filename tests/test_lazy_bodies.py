"""A module parsed without its functions' bodies, each parsed when read
(``analysis/lazy_bodies.py``): how the project analysis reads the modules a file imports.

The cut must keep every statement the module runs on import, where it is, and drop every
def's body, whatever the strings, comments, brackets and layout around them; text it
cannot follow must fail to parse (the project then reads all of it), never parse into
something else. Every body read, the tree must be the one the whole text parses to, lines
and columns too. Checked on written shapes and on the installed packages' own sources.
"""

import ast
import sys
from pathlib import Path

import flake8
import libcst
import pycodestyle
import pytest

from flake8_tensorcopy.analysis.summary import ModuleSummary, _declared_all, _top_level_names
from flake8_tensorcopy.analysis.lazy_bodies import LazyBody, UnparsedBody, cut_bodies, parse_lazily, unread
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


def read_whole(tree: ast.Module) -> str:
    """The tree as ``ast.dump`` gives it with lines and columns: every body read."""
    return ast.dump(tree, include_attributes=True)


def test_the_bodies_go_and_the_top_level_stays_where_it_was() -> None:
    cut, cuts = cut_bodies(TRICKY)
    assert len(cut.split("\n")) == len(TRICKY.split("\n"))
    assert top_level(ast.parse(cut)) == top_level(ast.parse(TRICKY))
    kept = cut.split("\n")
    for number, line in enumerate(TRICKY.split("\n")):
        if line.startswith(("import", "__all__", "X =", "Z =", "@decorator", "class ", "    Y = 1", "def a(",
                            "    x = 1", "    import hidden_too")):
            assert kept[number] == line  # the top level and the class bodies, line for line
    assert "def not_a_def():" in cut  # in the module's docstring
    assert "def inner():\n    import hidden\n" in cut  # amp's string ends at column 0: amp is left whole
    for gone in ("if x:", "message", "\tpass", "# in the body", "3)"):
        assert gone not in cut
    assert [TRICKY.split("\n")[c.header].lstrip() for c in cuts] == [
        "def a(", "async def c():", "def later(p, q=lambda: 0) -> \"D\":",
    ]
    names = top_level(ast.parse(cut))[1]
    assert names == ["amp", "__all__", "a", "B", "X", "Y", "one", "Two", "c", "later", "Z"]


def test_each_body_is_parsed_when_read_into_the_tree_the_whole_text_gives() -> None:
    tree, text = parse_lazily(TRICKY)
    defs = {
        statement.name: statement
        for statement in iter_statements(tree, into=lambda s: not isinstance(s, FUNCTION_DEFS))
        if isinstance(statement, FUNCTION_DEFS)
    }
    function = defs["a"]
    assert type(function.body) is LazyBody and unread(function.body)
    assert (function.end_lineno, function.end_col_offset) == (27, 2)  # where its last line ends, unread
    before = text.characters
    assert isinstance(function.body[0], ast.If)  # read on first use...
    assert not unread(function.body) and text.characters > before  # ...and counted as held
    assert unread(defs["later"].body)  # the others are not read
    assert read_whole(tree) == read_whole(ast.parse(TRICKY))
    assert text.characters >= len(TRICKY) - TRICKY.count("\n")


def test_a_body_that_does_not_parse_says_so_when_read() -> None:
    source = "import torch\n\n\ndef fine():\n    return torch.ones(1)\n\n\ndef broken():\n    print 'py2'\n"
    tree, _ = parse_lazily(source)
    fine, broken = tree.body[1:]
    assert isinstance(fine.body[0], ast.Return)
    with pytest.raises(UnparsedBody):
        list(broken.body)


def test_the_summary_indexes_a_nested_def_when_asked_for_it() -> None:
    source = "def outer():\n    def inner():\n        return 1\n    return inner\n\n\ndef other():\n    pass\n"
    tree, _ = parse_lazily(source)
    summary = ModuleSummary.of(tree, source)
    outer, other = tree.body
    assert summary.definition("outer") is outer and unread(outer.body)
    inner = summary.definition("outer.inner")
    assert inner is outer.body[0] and summary.qualname(inner) == "outer.inner"
    assert unread(other.body)  # not read to find ``outer.inner``


def test_text_it_cannot_follow_does_not_parse() -> None:
    """A string whose lines start at column 0 with a bracket hides where a body ends: the
    def is left whole, or the cut fails to parse and the project reads the whole module."""
    source = 'def f():\n    s = """\n)"""\n    return s\nX = 1\n'
    assert read_whole(parse_lazily(source)[0]) == read_whole(ast.parse(source))
    odd = 'def f():\n    s = """\nx = (1,\n"""\n    return s\n'  # code-like text at column 0
    try:
        tree, _ = parse_lazily(odd)
    except SyntaxError:
        return
    assert read_whole(tree) == read_whole(ast.parse(odd))


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_other_line_ends_give_the_same_tree(newline: str) -> None:
    source = TRICKY.replace("\n", newline)
    try:
        tree, _ = parse_lazily(source)
    except SyntaxError:
        assert newline == "\r"  # lines ``ast`` counts otherwise: the whole text is read
        return
    assert read_whole(tree) == read_whole(ast.parse(source))


def test_a_string_statement_after_a_body_stays_at_the_top_level() -> None:
    source = 'def f():\n    return 1\n"""\nA note between definitions.\n"""\nclass C:\n    pass\n'
    tree, _ = parse_lazily(source)
    assert read_whole(tree) == read_whole(ast.parse(source))


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
def test_installed_packages_read_alike() -> None:
    """On each module of the installed packages: the cut parses to the same top level as
    the whole text, and every body read, to the same tree, lines and columns; or it does
    not parse at all (where a string hides a body's end)."""
    compared, fallen_back, placed_otherwise = 0, [], []
    for path in _package_sources():
        source = path.read_text(encoding="utf-8")
        try:
            whole = ast.parse(source)
        except SyntaxError:
            continue
        try:
            tree, _ = parse_lazily(source)
        except SyntaxError:
            fallen_back.append(path)
            continue
        assert top_level(tree) == top_level(whole), path
        if read_whole(tree) != read_whole(whole):
            assert ast.dump(tree) == ast.dump(whole), path
            placed_otherwise.append(path)  # a def's end column, where its last line says more
        compared += 1
    assert compared > 300
    assert len(fallen_back) <= compared // 100, fallen_back
    assert len(placed_otherwise) <= compared // 100, placed_otherwise
