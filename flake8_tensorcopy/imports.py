"""The per-file import-alias table.

Built from the stdlib ``ast`` tree (which flake8 has already parsed), so it costs one
walk over the statements and no LibCST metadata. It maps each local name bound by an
import to the dotted name it stands for: ``import torch as th`` gives ``th -> torch``,
``from torch.nn import functional as F`` gives ``F -> torch.nn.functional``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst


def iter_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement of the module at any depth, without visiting expressions."""
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        statement = stack.pop()
        yield statement
        for block in reversed(list(child_blocks(statement))):
            stack.extend(reversed(block))


def child_blocks(statement: ast.AST) -> Iterator[list[ast.stmt]]:
    """The statement lists nested directly in a compound statement, in source order."""
    body = getattr(statement, "body", None)
    if isinstance(body, list):
        yield body
    for clause in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
        yield clause.body
    for field in ("orelse", "finalbody"):
        block = getattr(statement, field, None)
        if block:
            yield block


class ImportTable:
    """Local name -> dotted name, for every import anywhere in the file."""

    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases

    @classmethod
    def from_ast(cls, tree: ast.Module) -> ImportTable:
        aliases: dict[str, str] = {}
        for statement in iter_statements(tree):
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.partition(".")[0]
                        aliases[top] = top
            elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                for alias in statement.names:
                    if alias.name != "*":
                        aliases[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
        return cls(aliases)

    def qualify(self, node: cst.CSTNode) -> str | None:
        """The dotted name of ``th.nn.init.normal_``-like expressions, or None."""
        import libcst as cst  # only analysed files pay for importing LibCST

        if isinstance(node, cst.Name):
            return self.aliases.get(node.value)
        if isinstance(node, cst.Attribute):
            base = self.qualify(node.value)
            return f"{base}.{node.attr.value}" if base else None
        return None

    def local_names(self, qualified: set[str]) -> set[str]:
        """Local names under which any of ``qualified`` is imported (for the prefilter)."""
        return {local for local, name in self.aliases.items() if name in qualified}
