"""Where reported nodes start (and end), without LibCST's PositionProvider.

PositionProvider generates the whole module's code and builds a range object for every
node: on application code that was a sixth of the plugin's time, for the few nodes a
finding needs. :func:`starts` generates the code once with a state that only counts
lines and columns and notes the start of the nodes asked for, by the same rules
PositionProvider follows (``tests/test_positions.py`` compares the two on real code):

- a node whose code calls ``record_syntactic_position`` starts where that context
  opens, or where its ``start_node`` starts;
- any other node starts where its code generation begins.

:func:`ranges` also notes where they end (the language server underlines the whole
node), by the same rules: where the syntactic context closes, or where its ``end_node``
ends; else where the node's code generation ends. The flake8 plugin only asks for starts
and pays nothing for ends: its generation stops once the last start asked for is known.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState  # the base of LibCST's own position states


class _AllStartsKnown(Exception):
    """Raised through LibCST's code generation to end it: nothing after would be noted."""


class _StartsState(CodegenState):
    """Generates code, keeping only the line and column and the starts of ``wanted``."""

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted
        self.pending = set(wanted)  # the starts asked for not known yet (start nodes join ``wanted``)
        self.starts: dict[int, tuple[int, int]] = {}
        self.line = 1  # 1-based
        self.column = 0  # 0-based, in code points

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        newlines = value.count("\n") + value.count("\r") - value.count("\r\n")
        if newlines:
            self.line += newlines
            self.column = len(value) - 1 - max(value.rfind("\n"), value.rfind("\r"))
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted:
            self.starts[id(node)] = (self.line, self.column)

    def after_codegen(self, node: cst.CSTNode) -> None:
        # Known for good once the node is generated (a syntactic position inside wins); the
        # code after the last one need not be generated.
        if id(node) in self.pending:
            self.pending.discard(id(node))
            if not self.pending:
                raise _AllStartsKnown

    @contextlib.contextmanager
    def record_syntactic_position(
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: Any = None
    ) -> Iterator[None]:
        if id(node) not in self.wanted:
            yield
            return
        start = (self.line, self.column)
        if start_node is not None:
            self.wanted.add(id(start_node))  # generated inside this context
        yield
        self.starts[id(node)] = self.starts[id(start_node)] if start_node is not None else start


class _RangesState(_StartsState):
    """Also notes where ``wanted`` nodes end (so generates the whole code)."""

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(module, wanted)
        self.ends: dict[int, tuple[int, int]] = {}

    def after_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted and id(node) not in self.ends:  # a syntactic end wins
            self.ends[id(node)] = (self.line, self.column)

    @contextlib.contextmanager
    def record_syntactic_position(
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: Any = None
    ) -> Iterator[None]:
        if id(node) in self.wanted and end_node is not None:
            self.wanted.add(id(end_node))  # generated inside this context
        with super().record_syntactic_position(node, start_node=start_node):
            yield
        if id(node) in self.wanted:
            self.ends[id(node)] = self.ends[id(end_node)] if end_node is not None else (self.line, self.column)


Position = tuple[int, int]  # (line 1-based, column 0-based in code points)


def starts(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, Position]:
    """id(node) -> (line, column) where PositionProvider would say each of ``nodes`` starts."""
    state = _StartsState(module, {id(node) for node in nodes})
    with contextlib.suppress(_AllStartsKnown):
        module._codegen(state)
    return state.starts


def ranges(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, tuple[Position, Position]]:
    """id(node) -> (start, end) where PositionProvider would say each of ``nodes`` starts and ends."""
    state = _RangesState(module, {id(node) for node in nodes})
    module._codegen(state)
    return {key: (start, state.ends[key]) for key, start in state.starts.items()}
