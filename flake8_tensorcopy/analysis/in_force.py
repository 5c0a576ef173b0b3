"""Which of a name's bindings the rules' evaluator may read at a call, on flake8's ``ast``.

The evaluator (``evaluator.py``, driven by ``ast_scopes.py``) follows a scope's code in order: a plain assignment replaces
what a name held, an ``if`` or a loop body is a branch (taken once: no binding made later
in a loop reaches back to its top), and only where the name's binding says nothing does
it fall back to the module summary's view of the whole scope. So where the last statement
before a call that binds the name, on the straight path from the scope's start, is a plain
assignment (or the ``for`` around the call, or a parameter), that statement's binding is
the only one the inference reads there. ``next_obs = torch.Tensor(next_obs)`` after
``next_obs, reward, ... = envs.step(action)`` reads the array ``step`` returned, whatever
the loop's other bindings hold.

Anything less plain is left to the caller's over-approximation (None): a binding in a
branch or a handler, a walrus, ``with ... as``, an augmented assignment (which the
inference does not follow), a call in a statement's header. The caller leaves out calls
in lambdas and comprehensions, whose names may be their own. Each question costs a
descent to the call and a bisection per block on the way, whatever the scope's size. The
module summary asks the same of what a statement puts into a list (``vals.append(h)``).
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Sequence

from ..imports import COMPOUND_STATEMENTS, FUNCTION_DEFS, child_blocks

_LOOPS = (ast.For, ast.AsyncFor)
# Compound statements whose body the inference enters once, in order, with the bindings
# made before them (a ``try`` body too: the handlers are not on that path).
_PASSED_THROUGH = (ast.If, ast.While, ast.With, ast.AsyncWith, ast.Try, *_LOOPS)

Position = tuple[int, int]
_UNCLEAR = object()


class StraightPaths:
    """The statement blocks of one scope, to find the path from its start to a node."""

    def __init__(self, scope: ast.AST) -> None:
        self.scope = scope
        self._starts: dict[int, list[Position]] = {}  # id(block) -> where its statements start
        self._by_line: dict[str, tuple[list[int], list]] = {}  # name -> its bindings but params, by line

    def in_force(self, name: str, bindings: Sequence, node: ast.AST) -> list | None:
        """The bindings of ``name`` (the summary's, for this scope) that alone may be in
        force where ``node`` (a call, an expression) runs, or None when they can't be told
        apart this simply. The caller rules out a node in a lambda or comprehension (whose
        names may be its own)."""
        path = self._path_to((node.lineno, node.col_offset))
        if not path:
            return None
        block, index, _ = path[-1]
        statement = block[index]
        if isinstance(statement, COMPOUND_STATEMENTS):
            return None
        lines, by_line = self._bindings_by_line(name, bindings)
        own = _bound_on(lines, by_line, statement)
        if len(own) > len(_plain_bindings(statement, own) or ()):
            return None  # a walrus before the node, or another statement on its line
        for block, index, owner in reversed(path):
            earlier = self._last_binding_statement(block, index, lines)
            if earlier is _UNCLEAR:
                return None
            if earlier is not None:
                found = _bound_on(lines, by_line, earlier)
                plain = _plain_bindings(earlier, found)
                return plain if plain and len(plain) == len(found) else None
            if owner is self.scope:
                return [b for b in bindings if b.kind == "param"] or None
            if not isinstance(owner, _PASSED_THROUGH) or (isinstance(owner, ast.Try) and block is not owner.body):
                return None
            if block is not owner.body and not isinstance(owner, ast.If):
                return None  # a loop's ``else``
            if _header_binds(owner, name):
                if isinstance(owner, _LOOPS) and block is owner.body:
                    return [b for b in bindings if b.kind == "loop" and b.source is owner.iter] or None
                return None
        return None

    def _bindings_by_line(self, name: str, bindings: Sequence) -> tuple[list[int], list]:
        known = self._by_line.get(name)
        if known is None:
            ordered = sorted((b for b in bindings if b.kind != "param"), key=lambda b: b.line)
            known = self._by_line[name] = ([b.line for b in ordered], ordered)
        return known

    def _last_binding_statement(self, block: list[ast.stmt], index: int, lines: list[int]) -> ast.stmt | object | None:
        """The last of ``block``'s statements before ``index`` that holds a binding (by its
        line); None when there is none; ``_UNCLEAR`` when that line is the first of the
        statement at ``index`` too (``a = f(); b = g(a)``: whose binding it is is unclear),
        or lies in no statement of the block."""
        if index == 0:
            return None
        last = bisect.bisect_right(lines, block[index - 1].end_lineno) - 1
        if last < 0 or lines[last] < block[0].lineno:
            return None
        line = lines[last]
        holder = bisect.bisect_right(self._starts[id(block)], (line, float("inf"))) - 1
        if holder >= index:
            return _UNCLEAR
        return block[holder] if block[holder].end_lineno >= line else _UNCLEAR

    def innermost(self, node: ast.AST) -> ast.stmt | None:
        """The innermost statement of the scope's own code around ``node`` (in a class body
        too); None when none holds it."""
        path = self._path_to((node.lineno, node.col_offset), into_classes=True)
        if not path:
            return None
        block, index, _ = path[-1]
        return block[index]

    def statement_before(self, node: ast.AST) -> ast.stmt | None:
        """The statement just before the innermost statement of the scope's own code around
        ``node``, in the same block; None when that one comes first or none holds ``node``."""
        path = self._path_to((node.lineno, node.col_offset))
        if not path:
            return None
        block, index, _ = path[-1]
        return block[index - 1] if index else None

    def _path_to(self, position: Position, into_classes: bool = False) -> list[tuple[list[ast.stmt], int, ast.AST]]:
        """(block, index, the statement or scope that holds the block) from the scope's body
        down to the innermost statement holding ``position``; empty when none holds it, or
        when a class body does (a namespace of its own) and ``into_classes`` is false."""
        path = []
        owner, block = self.scope, self.scope.body
        while True:
            starts = self._starts.get(id(block))
            if starts is None:
                starts = self._starts[id(block)] = [(s.lineno, s.col_offset) for s in block]
            index = bisect.bisect_right(starts, position) - 1
            if index < 0 or (block[index].end_lineno, block[index].end_col_offset) < position:
                return []
            statement = block[index]
            path.append((block, index, owner))
            if isinstance(statement, FUNCTION_DEFS) or (isinstance(statement, ast.ClassDef) and not into_classes):
                return []  # a def is a scope of its own
            inner = next((b for b in child_blocks(statement) if _holds(b, position)), None)
            if inner is None:
                return path
            owner, block = statement, inner


def _holds(block: list[ast.stmt], position: Position) -> bool:
    first, last = block[0], block[-1]
    return (first.lineno, first.col_offset) <= position <= (last.end_lineno, last.end_col_offset)


def _bound_on(lines: list[int], by_line: list, statement: ast.stmt) -> list:
    """The bindings (sorted by line, ``lines`` theirs) on ``statement``'s lines."""
    return by_line[bisect.bisect_left(lines, statement.lineno) : bisect.bisect_right(lines, statement.end_lineno)]


def _plain_bindings(statement: ast.stmt, found: list) -> list | None:
    """Those of ``found`` that an assignment statement makes through its own targets."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
        return [b for b in found if b.expression is statement.value]
    return None


def _header_binds(statement: ast.stmt, name: str) -> bool:
    """Whether ``name`` is a target in the statement's own header (a ``for`` target, a
    ``with ... as``, a walrus in a test)."""
    if isinstance(statement, (ast.If, ast.While)):
        headers = [statement.test]
    elif isinstance(statement, _LOOPS):
        headers = [statement.target, statement.iter]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        headers = [part for item in statement.items for part in (item.context_expr, item.optional_vars) if part]
    else:
        headers = []
    return any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
        for header in headers
        for node in ast.walk(header)
    )
