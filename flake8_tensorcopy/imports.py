"""The per-file import-alias table.

Built from the stdlib ``ast`` tree (which flake8 has already parsed), so it costs one
walk over the statements and no LibCST metadata. It maps each local name bound by an
import to the dotted name it stands for: ``import torch as th`` gives ``th -> torch``,
``from torch.nn import functional as F`` gives ``F -> torch.nn.functional``.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst


FUNCTION_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# The statements that hold other statements; any other one is a leaf.
COMPOUND_STATEMENTS = (
    *FUNCTION_DEFS, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
    ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match,
)


def iter_statements(tree: ast.Module, into: Callable[[ast.stmt], bool] | None = None) -> Iterator[ast.stmt]:
    """Every statement of the module at any depth, in source order, without visiting
    expressions; with ``into``, only the compound statements it accepts are looked into."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        statement = stack.pop()
        yield statement
        if isinstance(statement, COMPOUND_STATEMENTS) and (into is None or into(statement)):
            for block in reversed(child_blocks(statement)):
                stack.extend(reversed(block))


# The compound statements whose only block is their body, and those with an ``else`` too:
# most of those a walk meets, told apart by their type alone.
_BODY_ONLY = frozenset({*FUNCTION_DEFS, ast.ClassDef, ast.With, ast.AsyncWith})
_BODY_AND_ELSE = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While})


def child_blocks(statement: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists nested directly in a compound statement, in source order (an
    empty ``else`` or ``finally`` left out)."""
    kind = type(statement)
    if kind in _BODY_ONLY:
        return [statement.body]
    if kind in _BODY_AND_ELSE:
        return [statement.body, statement.orelse] if statement.orelse else [statement.body]
    blocks = []
    body = getattr(statement, "body", None)
    if isinstance(body, list):
        blocks.append(body)
    for clause in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
        blocks.append(clause.body)
    for field in ("orelse", "finalbody"):
        block = getattr(statement, field, None)
        if block:
            blocks.append(block)
    return blocks


def _lines_saying_import(source: str) -> list[int]:
    """The (sorted) numbers of the lines where ``import`` appears, in code or not."""
    if "\r" in source:  # the lines ``ast`` counts
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines, line, counted = [], 1, 0
    for match in re.finditer("import", source):
        line += source.count("\n", counted, match.start())
        counted = match.start()
        lines.append(line)
    return lines


def _any_between(sorted_numbers: list[int], first: int, last: int) -> bool:
    position = bisect.bisect_left(sorted_numbers, first)
    return position < len(sorted_numbers) and sorted_numbers[position] <= last


class ImportTable:
    """Local name -> dotted name, for every import anywhere in the file."""

    def __init__(self, aliases: dict[str, str], stars: tuple[str, ...] = ()) -> None:
        self.aliases = aliases
        self.stars = stars  # the modules of ``from m import *``, as dotted (maybe relative) names

    @classmethod
    def from_ast(cls, tree: ast.Module, source: str | None = None, top_level: bool = False) -> ImportTable:
        """The table of ``tree`` (``top_level``: of the module's own imports, not those in its
        functions and classes); with its ``source``, compound statements whose lines never
        say ``import`` are not looked into."""
        import_lines = None if source is None else _lines_saying_import(source)

        def says_import(statement: ast.stmt) -> bool:
            if top_level and isinstance(statement, (*FUNCTION_DEFS, ast.ClassDef)):
                return False
            return import_lines is None or _any_between(import_lines, statement.lineno, statement.end_lineno)

        aliases: dict[str, str] = {}
        stars: list[str] = []
        for statement in iter_statements(tree, into=says_import):
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.partition(".")[0]
                        aliases[top] = top
            elif isinstance(statement, ast.ImportFrom):
                # A relative import keeps its dots (``from ..data import load`` gives
                # ``..data.load``): no library's name starts so, and the project's
                # resolver (``analysis/project.py``) reads the module from them.
                prefix = "." * statement.level + (f"{statement.module}." if statement.module else "")
                for alias in statement.names:
                    if alias.name != "*":
                        aliases[alias.asname or alias.name] = f"{prefix}{alias.name}"
                    else:
                        stars.append(prefix[:-1] if statement.module else prefix)
        return cls(aliases, tuple(stars))

    def with_stars(self, aliases: dict[str, str]) -> ImportTable:
        """The table with what ``from m import *`` brought in (``aliases``, read from the
        modules), below the names the file imports itself."""
        return ImportTable({**aliases, **self.aliases}, self.stars)

    def qualify(self, node: cst.CSTNode) -> str | None:
        """The dotted name of ``th.nn.init.normal_``-like expressions, or None."""
        import libcst as cst  # only analysed files pay for importing LibCST

        if isinstance(node, cst.Name):
            return self.aliases.get(node.value)
        if isinstance(node, cst.Attribute):
            base = self.qualify(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None

    def qualify_expression(self, node: ast.expr) -> str | None:
        """:meth:`qualify` for flake8's ``ast`` nodes (the prefilter's gates)."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualify_expression(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def local_names(self, qualified: set[str]) -> set[str]:
        """Local names under which any of ``qualified`` is imported (for the prefilter)."""
        return {local for local, name in self.aliases.items() if name in qualified}
