"""The server parses a document's new text from the tree of a text it parsed before
(``server/reparse.py``): the tree must be ``ast.parse``'s, node for node and position for
position, after any edit, and a text that does not parse must fail as ``ast.parse`` fails."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from bench_modules import import_bench_modules

from flake8_tensorcopy import engine
from flake8_tensorcopy.server.reparse import Trees

# What the edits type makes invalid escapes in strings: ast.parse warns, as it would anyway.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::SyntaxWarning")

training_file = import_bench_modules(Path(__file__).resolve().parent.parent / "bench", ("training_code",))[
    "training_code"].training_file

SOURCE = '''\
"""A module."""
from __future__ import annotations

import torch

x = 1; y = 2


@decorated
def first(a):
    if a:
        return 1
    return 2


# a comment between statements

class Model:
    """A class."""

    def forward(self, x):
        return x.clone().detach()

    @property
    def size(self):
        return 3


if x:
    y = 3
z = (1,
     2)
s = """a string
over lines"""
w = 1 + \\
    2
'''

# Lines typed anywhere: some continue the statement above (an else, an indented line),
# some open what the next lines close (a bracket, a string), some do not parse.
TYPED = [
    "else:", "    pass", "        return 4", "@decorated", "x = (", ")", '"""', "w = 3 + \\", "if x:",
    "def g():", "    y = 4", "a = 1; b = 2", "# just a comment", "", "elif y:", "class C: pass",
    "try:", "except Exception:", "finally:", "  bad_indent = 1", "async def h():", "    await x",
    "print(f'{x}')", "lambda: (", "]", "from __future__ import annotations", "x = 1;",
]


def _same_as_a_whole_parse(trees: Trees, text: str) -> bool:
    """Whether ``text`` parses; either way, as ``ast.parse`` has it."""
    try:
        expected = ast.dump(ast.parse(text), include_attributes=True)
    except (SyntaxError, ValueError):
        with pytest.raises(engine.AnalysisError):
            trees.parse(text)
        return False
    assert ast.dump(trees.parse(text), include_attributes=True) == expected, text
    return True


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_any_edit_gives_the_tree_of_a_whole_parse(seed):
    rng = random.Random(seed)
    text = SOURCE if seed % 2 else training_file(300)
    trees = Trees()
    _same_as_a_whole_parse(trees, text)
    valid = 0
    for _ in range(300):
        lines = text.split("\n")
        at = rng.randrange(len(lines) + 1)
        kind = rng.random()
        if kind < 0.4:  # a line typed
            lines[at:at] = [rng.choice(TYPED)]
        elif kind < 0.6 and at < len(lines):  # a line deleted
            del lines[at : at + rng.choice((1, 1, 2, 3))]
        elif kind < 0.8 and at < len(lines):  # a line changed, its count of lines the same
            lines[at] = rng.choice(TYPED)
        elif at < len(lines):  # a character typed into a line
            line = lines[at]
            column = rng.randrange(len(line) + 1)
            lines[at] = line[:column] + rng.choice("x(): \"'#\\,") + line[column:]
        edited = "\n".join(lines)
        if _same_as_a_whole_parse(trees, edited):
            valid += 1
            if rng.random() < 0.7:  # mostly carry on from the edited text, as an editor does
                text = edited
        if rng.random() < 0.1:
            text = SOURCE if seed % 2 else training_file(300)  # an undo back to the start
    print(f"{valid} texts parsed, {trees.reparsed} from an earlier tree")
    assert trees.reparsed > valid / 2  # most from an earlier tree


def test_a_one_line_edit_of_a_long_file_parses_only_around_it():
    source = training_file(1_000)
    trees = Trees()
    trees.parse(source)
    lines = source.split("\n")
    middle = next(n for n in range(len(lines) // 2, len(lines)) if lines[n].startswith("    return "))
    changed = lines[:middle] + [lines[middle] + "  # edited"] + lines[middle + 1 :]
    text = "\n".join(changed)
    tree = trees.parse(text)
    assert trees.reparsed == 1
    assert ast.dump(tree, include_attributes=True) == ast.dump(ast.parse(text), include_attributes=True)
    old = trees.parse(source)  # kept: the same tree again
    shared = sum(a is b for a, b in zip(old.body, tree.body))
    assert shared == len(tree.body) - 2  # every statement but the edited one and the one before it
