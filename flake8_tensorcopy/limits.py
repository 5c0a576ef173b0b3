"""What LibCST can parse in reasonable time, judged on the cheap stdlib ``ast``.

LibCST's parser takes cubic time on long left-nested chains: 1,000 terms of
``a * a * ...`` or ``x.f().f()...`` take seconds, 3,000 take minutes, and deeper ones
overflow the C stack and kill the process. Real code stays far below these limits;
generated code may not. Such code is skipped (and said so), never parsed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from .imports import iter_statements

MAX_EXPRESSION_DEPTH = 250
MAX_PARSE_BYTES = 2 << 20  # about 6 s of LibCST parsing on a 2-core machine


def unparsable_reason(statements: Iterable[ast.stmt], size: int) -> str | None:
    """Why code made of ``statements`` (``size`` characters) must not go to LibCST."""
    if size > MAX_PARSE_BYTES:
        return f"{size:,} characters to parse; the limit is {MAX_PARSE_BYTES:,}"
    for statement in statements:
        for expression in _own_expressions(statement):
            if _may_be_deep(expression):
                depth = _depth(expression)
                if depth > MAX_EXPRESSION_DEPTH:
                    return (
                        f"line {expression.lineno}: an expression nested {depth} deep "
                        f"(LibCST is too slow on it; the limit is {MAX_EXPRESSION_DEPTH})"
                    )
    return None


def statements_of(tree: ast.AST) -> Iterable[ast.stmt]:
    """``tree`` itself when it is a statement, and every statement inside it."""
    if isinstance(tree, ast.Module):
        return iter_statements(tree)
    return iter_statements(ast.Module(body=[tree], type_ignores=[]))


def _own_expressions(statement: ast.stmt) -> Iterable[ast.AST]:
    """The expressions of a statement, not those of the statements nested in it."""
    for child in ast.iter_child_nodes(statement):
        if isinstance(child, ast.expr):
            yield child
        elif isinstance(child, (ast.arguments, ast.keyword, ast.withitem, ast.comprehension)):
            yield from (c for c in ast.walk(child) if isinstance(c, ast.expr))


def _may_be_deep(expression: ast.AST) -> bool:
    """Depth needs at least a character per level: short expressions are safe."""
    if expression.lineno != expression.end_lineno:
        return True
    return expression.end_col_offset - expression.col_offset > MAX_EXPRESSION_DEPTH


def _depth(expression: ast.AST) -> int:
    deepest = 0
    stack = [(expression, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest
