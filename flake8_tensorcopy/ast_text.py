"""The source text of ``ast`` nodes, where a rule needs what ``ast`` leaves out.

``ast`` drops a node's own parentheses and cannot tell ``x[(a, b)]`` from ``x[a, b]``;
LibCST kept both. These helpers read them back from the walked text (``Context.source``,
split into lines), so a rule on ``ast`` answers as it did on LibCST's tree.
"""

from __future__ import annotations

import ast

_SPACE = " \t\f\n\\"


def segment(lines: list[str], node: ast.AST) -> str:
    """The source text of ``node`` (``ast`` columns count UTF-8 bytes)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset:node.end_col_offset].decode()
    return "\n".join([
        lines[first].encode()[node.col_offset:].decode(), *lines[first + 1:last],
        lines[last].encode()[:node.end_col_offset].decode(),
    ])


def parenthesized(node: ast.Tuple, lines: list[str] | None) -> bool:
    """``(a, b)``, not ``a, b`` nor ``(a), b`` (without ``lines``: only ``()`` is known to be)."""
    if not node.elts:
        return True
    first = node.elts[0]
    if lines is None or (node.lineno, node.col_offset) == (first.lineno, first.col_offset):
        return False
    text = segment(lines, node)
    if not (text.startswith("(") and text.endswith(")")):
        return False
    try:  # the first parenthesis closes at the end: what lies between them is balanced
        ast.parse("[" + text[1:-1] + "]", mode="eval")
    except SyntaxError:
        return False
    return True


def subscript_elements(node: ast.Subscript, lines: list[str] | None) -> list[ast.expr]:
    """The comma-separated parts of ``x[a, b:c]`` as LibCST lists them: one, the tuple, for
    ``x[(a, b)]``."""
    index = node.slice
    if not isinstance(index, ast.Tuple) or parenthesized(index, lines):
        return [index]
    return index.elts


def cst_code(lines: list[str], node: ast.expr, indent: str) -> str:
    """``node`` as LibCST's ``Module([]).code_for_node`` spells it: with its own parentheses
    (and the space inside them), and its continuation lines without ``indent``, the
    indentation of the block holding the statement."""
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    text = "\n".join(lines)

    def offset(line: int, byte_column: int) -> int:
        return starts[line - 1] + len(lines[line - 1].encode()[:byte_column].decode())

    begin, end = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
    while True:  # own parentheses: `(` just before, `)` just after (a receiver is followed by `.` or `[`)
        before, after = begin - 1, end
        while before >= 0 and text[before] in _SPACE:
            before -= 1
        while after < len(text) and text[after] in _SPACE:
            after += 1
        if before < 0 or after >= len(text) or text[before] != "(" or text[after] != ")":
            break
        begin, end = before, after + 1
    first, *rest = text[begin:end].split("\n")
    return "\n".join([first, *(line[len(indent):] if indent and line.startswith(indent) else line for line in rest)])
