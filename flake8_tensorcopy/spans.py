"""Where an ``ast`` node lies in its text, in the units findings use.

``ast`` counts columns in UTF-8 bytes; flake8, editors and LibCST count code points.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

Span = tuple[tuple[int, int], tuple[int, int]]


def span_of(node: ast.AST, lines: Sequence[str]) -> Span:
    """Where ``node`` starts and ends: lines 1-based, columns 0-based in code points
    (``ast`` counts columns in UTF-8 bytes)."""
    return (
        (node.lineno, code_points(lines, node.lineno, node.col_offset)),
        (node.end_lineno, code_points(lines, node.end_lineno, node.end_col_offset)),
    )


def code_points(lines: Sequence[str], line: int, byte_column: int) -> int:
    """The column in code points of the ``byte_column``-th UTF-8 byte of ``line`` (1-based)."""
    if line - 1 >= len(lines):
        return byte_column
    text = lines[line - 1]
    if text.isascii():
        return byte_column
    return len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))
