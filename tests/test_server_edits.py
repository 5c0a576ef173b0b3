"""The language server's pure parts, without a client: positions in each encoding,
minimal edits, and the noqa comment edit (checked against flake8's own matching)."""

from __future__ import annotations

import ast

import pytest

from flake8_tensorcopy import noqa
from flake8_tensorcopy.server.fixes import Edit, minimal_edits
from flake8_tensorcopy.server.noqa_comment import noqa_edit
from flake8_tensorcopy.server.text import LineIndex, Position


@pytest.mark.parametrize(("encoding", "character"), [("utf-8", 11), ("utf-16", 8), ("utf-32", 7)])
def test_positions_round_trip_in_each_encoding(encoding, character):
    source = "a = 1\r\nb = 'é😀' + c\rd\n"
    index = LineIndex(source, encoding)
    assert index.position(2, 7) == Position(1, character)  # just before the closing quote of 'é😀'
    assert index.column(Position(1, character)) == (2, 7)
    assert index.position_of_offset(source.index("d")) == Position(2, 0)


def _edited(source: str, line: int, code: str) -> str | None:
    edit = noqa_edit(source, line, code)
    # Given the tree, only the statement is tokenized: the same edit.
    assert noqa_edit("import os\n\n" + source + "y = 2\n", line + 2, code, ast.parse(
        "import os\n\n" + source + "y = 2\n")) == (None if edit is None else Edit(
            edit.start + 11, edit.end + 11, edit.new_text))
    return None if edit is None else source[: edit.start] + edit.new_text + source[edit.end :]


@pytest.mark.parametrize(("source", "line", "expected"), [
    ("x = f(y)\n", 1, "x = f(y)  # noqa: TCP001\n"),
    ("x = f(y)  # noqa: F401\n", 1, "x = f(y)  # noqa: F401, TCP001\n"),
    ("x = f(y)  # noqa:F401,E501 why\n", 1, "x = f(y)  # noqa:F401,E501, TCP001 why\n"),
    ("x = f(y)  # why   \r\n", 1, "x = f(y)  # why  # noqa: TCP001\r\n"),
    ("x = f(a,\n      b)\n", 1, "x = f(a,  # noqa: TCP001\n      b)\n"),  # flake8 reads the physical line
    ("x = f(a) + \\\n    b\n", 1, "x = f(a) + \\\n    b  # noqa: TCP001\n"),  # no comment after a backslash
    ('x = f("""a\nb""")  # noqa: E1\n', 1, 'x = f("""a\nb""")  # noqa: E1, TCP001\n'),
])
def test_the_noqa_edit_silences_exactly_as_flake8_reads_it(source, line, expected):
    edited = _edited(source, line, "TCP001")
    assert edited == expected
    before, after = noqa.Silencer(source), noqa.Silencer(edited)
    assert after.silences("TCP001", line)
    assert not after.silences("TCP002", line), "the edit silences only the code asked for"
    for code in ("F401", "E501", "E101"):  # what the comment silenced before, it still does, and nothing more
        assert after.silences(code, line) == before.silences(code, line), code


@pytest.mark.parametrize("source", [
    "x = f(y)  # noqa\n",  # blanket: already silenced
    "x = f(y)  # noqa: TCP\n",  # a prefix without digits silences every TCP code
    'x = "# noqa: F401"\n',  # flake8 would read the string's noqa first: no edit can help
])
def test_no_noqa_edit_where_none_is_needed_or_possible(source):
    assert _edited(source, 1, "TCP001") is None


def test_minimal_edits_touch_only_what_changed():
    old = "import torch\n\ndef f(w):\n    return w.clone().detach()\n"
    new = "import copy\nimport torch\n\ndef f(w):\n    return w.detach().clone()\n"
    edits = minimal_edits(old, new)
    assert [(old[e.start : e.end], e.new_text) for e in edits] == [
        ("", "import copy\n"), ("clone().detach", "detach().clone")
    ]
    text = old
    for edit in reversed(edits):
        text = text[: edit.start] + edit.new_text + text[edit.end :]
    assert text == new
