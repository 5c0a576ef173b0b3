"""The ``ast`` of a document's new text from the ``ast`` of a text parsed before: only the
top-level statements that the edit touched are parsed again (``ast.parse`` of a 3,000-line
file takes 22 ms, a third of a lint; a quick fix's check parses the file as fixed, which
differs from the text linted just before in one function).

The tree is the one ``ast.parse`` would give, node for node, positions included; what is
not changed is shared with the tree it came from (no one changes a tree once made).
Between two top-level statements the tokenizer is at rest (no open bracket or string,
no indentation), and an edit changes the lines between a common head and a common tail
of the two texts. So the statements that end before the edit and that start after it
parse as they did, and the lines from the start of the last statement before the edit
(the edit may extend it: an ``else:`` typed below an ``if``) to the line before the
first statement after it parse on their own, as a module, at their lines (blank lines
stand for the ones above). When the edit added or removed lines, every statement after
it moved: those lines are parsed again too, as there is no cheap way to move a tree.

Statements that share a line (``a = 1; b = 2``) at either end of the edit are parsed
again with it. Lines that do not parse on their own (a bracket or string left open, a
decorator with nothing under it) get ``ast.parse`` of the whole text, and so the error it
gives; so does a text that names ``barry_as_FLUFL`` (that ``__future__`` import changes
the grammar; no other does, and ``ast.parse`` does not check where they stand).
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass

from .. import engine
from ..runtime.bounded import BoundedCache


@dataclass(frozen=True)
class _Parsed:
    lines: list[str]
    tree: ast.Module


class Trees:
    """The trees of the last texts parsed (a few: the document's versions, and the fixes
    checked), to parse the next text from the one it shares most lines with."""

    def __init__(self, entries: int = 3, characters: int = 600_000) -> None:
        self._parsed: BoundedCache[_Parsed] = BoundedCache(entries, characters)
        self.reparsed = 0  # trees made from another (for tests and benchmarks)

    def parse(self, text: str) -> ast.Module:
        """``ast.parse(text)`` (newlines normalised), or :class:`engine.AnalysisError` as
        ``engine.parse_ast`` raises it."""
        known = self._parsed.get(text)
        if known is not None:
            return known.tree
        lines = text.split("\n")
        tree = None
        closest = max(self._parsed.values(), key=lambda parsed: _shared(parsed.lines, lines), default=None)
        if closest is not None and "barry_as_FLUFL" not in text:
            tree = reparse(closest.lines, closest.tree, lines)
        if tree is None:
            tree = engine.parse_ast(text)
        else:
            self.reparsed += 1
        self._parsed.put(text, _Parsed(lines, tree), len(text))
        return tree


def reparse(old_lines: list[str], old_tree: ast.Module, new_lines: list[str]) -> ast.Module | None:
    """The tree of the text of ``new_lines`` from ``old_tree``, that of ``old_lines``; None
    when it must be parsed whole (see the module's docstring)."""
    head, tail = _common(old_lines, new_lines)
    if head == len(old_lines) == len(new_lines):
        return old_tree
    body = old_tree.body
    if not body:
        return None
    starts = [_first_line(statement) for statement in body]
    ends = [statement.end_lineno for statement in body]
    first_changed, last_changed = head + 1, len(old_lines) - tail  # in the old text; none changed if last < first
    # From the start of the last statement that ends before the edit ...
    before = bisect.bisect_left(ends, first_changed) - 1
    while before > 0 and starts[before] <= ends[before - 1]:  # `a = 1; b = 2`: both
        before -= 1
    begin = 0 if before < 0 else before
    first_line = 1 if before < 0 else starts[before]
    # ... to the line before the first statement that starts after it, on a line of its own.
    after = bisect.bisect_right(starts, max(last_changed, head))
    while 0 < after < len(body) and starts[after] <= ends[after - 1]:
        after += 1
    shift = len(new_lines) - len(old_lines)
    if after == len(body) or shift:
        last_line, kept = len(new_lines), []
    else:
        last_line, kept = starts[after] - 1, body[after:]
    part = "\n" * (first_line - 1) + "\n".join(new_lines[first_line - 1 : last_line])
    if last_line < len(new_lines):
        part += "\n"  # as in the text (its last line ends the text as it does)
    try:
        parsed = ast.parse(part)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # the whole text's parse says why
    return ast.Module(body=body[:begin] + parsed.body + kept, type_ignores=[])


def _common(old: list[str], new: list[str]) -> tuple[int, int]:
    """How many lines the two texts share at their start, and then at their end."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail


def _shared(old: list[str], new: list[str]) -> int:
    head, tail = _common(old, new)
    return head + tail


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno
