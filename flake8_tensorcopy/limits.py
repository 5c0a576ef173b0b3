"""What LibCST can parse in reasonable time, judged on the cheap stdlib ``ast``.

LibCST's parser takes cubic time on long left-nested chains: 1,000 terms of
``a * a * ...`` or ``x.f().f()...`` take seconds, 3,000 take minutes, and deeper ones
overflow the C stack and kill the process. Real code stays far below these limits;
generated code may not. Such code is skipped (and said so), never parsed.

Even shallow code costs LibCST 50-150 µs a token to parse, visit and locate (the
dearer end when every function holds a finding), so a generated file of 50,000 lines
full of triggers would take minutes. :class:`Budget` caps what one file may send to
LibCST at :data:`MAX_ANALYSED_TOKENS`, a few seconds: the largest torch sources need
under half of it. The cap counts tokens, not seconds, so that a file's findings never
depend on how loaded the machine is.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from .imports import iter_statements

MAX_EXPRESSION_DEPTH = 250
MAX_PARSE_BYTES = 2 << 20  # about 6 s of LibCST parsing on a 2-core machine
MAX_ANALYSED_TOKENS = 40_000  # per file: 2-6 s of LibCST on a 2-core machine
# The fixer parses, analyses, locates and regenerates the whole file, twice at least:
# some 200-600 µs a token, so a 10,000-line file would take minutes.
MAX_FIXED_TOKENS = 25_000

# Roughly Python's tokens: a comment or a string literal is one, so is a name, a
# number or an operator character. Only an estimate of LibCST's work; linear time.
_TOKEN = re.compile(
    r"\#[^\n]*+"  # a comment
    r"|[rRbBuUfFtT]{0,2}(?:'''(?:[^\\]|\\.)*?'''"  # a string
    r'|"""(?:[^\\]|\\.)*?"""'
    r"""|'(?:[^'\\\n]|\\.)*+'|"(?:[^"\\\n]|\\.)*+")"""
    r"|\w++|\S",  # a name or a number; an operator character
    re.DOTALL,
)


class Budget:
    """How many tokens of one file may still go to LibCST (see :data:`MAX_ANALYSED_TOKENS`)."""

    def __init__(self, tokens: int = MAX_ANALYSED_TOKENS, what: str = "analysis") -> None:
        self.limit = tokens
        self.what = what
        # Code is charged by its characters, a bound on its tokens (a token takes one at
        # least), and its tokens counted only once a part does not fit by that bound: the
        # same parts fit as if each were counted, and most files are never counted at all.
        self._left_at_least = tokens
        self._uncounted: list[str] = []

    @property
    def left(self) -> int:
        """The tokens left."""
        self._count()
        return self._left_at_least

    def spend(self, code: str) -> str | None:
        """Charge ``code`` to the budget; or, when it does not fit, why not (nothing charged)."""
        if len(code) <= self._left_at_least:
            self._left_at_least -= len(code)
            self._uncounted.append(code)
            return None
        left = self.left
        cost = 0
        for cost, _ in enumerate(_TOKEN.finditer(code), 1):
            if cost > left:
                return f"over the {self.what} budget of {self.limit:,} tokens a file (LibCST would take too long)"
        self._left_at_least = left - cost
        return None

    def _count(self) -> None:
        for code in self._uncounted:
            self._left_at_least += len(code) - len(_TOKEN.findall(code))
        self._uncounted.clear()


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
