"""Where labels, candidates and findings meet: the first line of a statement.

A finding's own line depends on the rule (the call, the target, the value); a label must
not. So every position is normalised to the first line of the innermost statement that
covers its line, and matching is done on that.
"""

from __future__ import annotations

import ast


def statement_starts(tree: ast.Module) -> dict[int, int]:
    """line -> first line of the innermost statement covering it (lines outside any: absent)."""
    starts: dict[int, int] = {}
    # ast.walk goes breadth first, so an enclosing statement is always seen before the
    # statements nested in it, which then overwrite its lines with their own start.
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            first = first_line(node)
            for line in range(first, (node.end_lineno or node.lineno) + 1):
                starts[line] = first
    return starts


def first_line(statement: ast.stmt) -> int:
    """Where a statement starts: a decorated def or class starts at its first decorator."""
    decorators = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def statement_line(starts: dict[int, int], line: int) -> int:
    return starts.get(line, line)
