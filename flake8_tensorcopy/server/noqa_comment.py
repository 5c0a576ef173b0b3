"""The "disable TCPnnn for this line" edit: add the code to the line's ``# noqa:``
comment, or add such a comment.

``# noqa: F401`` becomes ``# noqa: F401, TCP001``; a line without one gets
``  # noqa: TCP001`` (after any other comment). A bare ``# noqa`` or ``# noqa: TCP``
already silences every TCP code, so there is nothing to add. Where a finding's line is
part of a multi-line string or a backslash-continued line, flake8 reads the noqa of the
whole group, and the comment goes at the end of its last line (a comment cannot follow
a backslash). Every edit is checked with flake8's own matching before it is offered.

Given the file's ``ast``, only the top-level statement that holds the line is tokenized:
a statement is whole tokens, so its noqa groups are those the whole file has (the whole of
a 3,000-line file took 230 ms, three tokenizations, each time the cursor moved).
"""

from __future__ import annotations

import ast
import bisect
import tokenize

from flake8 import defaults

from .. import noqa, prefilter
from .fixes import Edit
from .text import LineIndex


def noqa_edit(text: str, line: int, code: str, tree: ast.Module | None = None) -> Edit | None:
    """The edit that silences ``code`` on ``line`` (1-based); None when there is none to make.
    ``tree``: the ``ast`` of ``text``, if known."""
    if tree is not None:
        first, last = _statement_lines(tree, line)
        starts = LineIndex.of(text).starts
        start = starts[first - 1]
        end = starts[last] if last < len(starts) else len(text)
        edit = noqa_edit(text[start:end], line - first + 1, code)
        return None if edit is None else Edit(edit.start + start, edit.end + start, edit.new_text)
    if noqa.Silencer(text).silences(code, line):
        return None
    index = LineIndex(text)
    target = _comment_line(text, line)
    physical = index.line_text(target - 1)
    start_of_line = index.starts[target - 1]
    match = defaults.NOQA_INLINE_REGEXP.search(physical)
    comment_column = _comment_columns(text).get(target)
    if match is not None and match.group("codes") and comment_column is not None and match.start() >= comment_column:
        end = match.end("codes")
        while physical[end - 1] in ", \t":  # the separators after the last code
            end -= 1
        edit = Edit(start_of_line + end, start_of_line + end, f", {code}")
    else:
        content = physical.rstrip(" \t")
        edit = Edit(start_of_line + len(content), start_of_line + len(physical), f"  # noqa: {code}")
    edited = text[: edit.start] + edit.new_text + text[edit.end :]
    return edit if noqa.Silencer(edited).silences(code, line) else None


def _statement_lines(tree: ast.Module, line: int) -> tuple[int, int]:
    """(first, last) lines of the top-level statement that holds ``line``, decorators
    included; ``line`` alone outside every statement."""
    for statement in tree.body:
        first = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", ())])
        if first <= line <= statement.end_lineno:
            return first, statement.end_lineno
    return line, line


def _comment_line(text: str, line: int) -> int:
    """The line whose comment flake8 reads for ``line``: the last of its group."""
    groups = noqa.line_groups(noqa.split_lines(prefilter.normalise_newlines(text)))
    position = bisect.bisect_right(groups, (line, float("inf"))) - 1
    if position >= 0 and groups[position][0] <= line <= groups[position][1]:
        return groups[position][1]
    return line


def _comment_columns(text: str) -> dict[int, int]:
    """Line -> the column where its comment starts (a ``# noqa`` in a string is no comment)."""
    lines = noqa.split_lines(prefilter.normalise_newlines(text))
    columns = {}
    try:
        for token in tokenize.generate_tokens(iter(lines).__next__):
            if token.type == tokenize.COMMENT:
                columns[token.start[0]] = token.start[1]
    except (tokenize.TokenError, SyntaxError, StopIteration):
        pass
    return columns
