"""A module's top level without the bodies of its functions and classes.

What ``from m import *`` binds (``ModuleSummary.star_exports``) is read from m's top level
alone: its imports, ``__all__``, and the names its defs, classes and assignments bind, in
``if``/``try`` blocks too. Parsing the whole of m for that was half of the project
analysis's parses on the application corpus (a star-imported ``utils/general.py`` is
thousands of lines of function bodies). Here the bodies are dropped from the text first,
each def or class kept as its header over ``...``, so the parse sees only the top level:
the statements Python would run on import, with the lines where they are.

The text's structure is read with comments and strings blanked (``prefilter``), so a
quote, a bracket or a ``def`` inside a string decides nothing; the lines kept are the
original ones. Where the blanked text misleads (an f-string's field at column 0 looks like
code), the cut does not parse and the caller parses the whole module: over the corpus's
8,809 modules, 1 such, and no cut that parsed into another top level
(``tests/test_top_level.py`` checks the installed packages' sources the same way).
"""

from __future__ import annotations

import functools
import re

_DEFINITION = re.compile(r"^([ \t]*)(?:async[ \t]+)?(?:def|class)\b", re.MULTILINE)
_HEADER_STOP = re.compile(r"[][(){}:]")
_OPENING = "([{"


def top_level_code(source: str) -> str:
    """``source`` with every def and class body (and all nested in it) replaced by
    ``...``, line numbers kept: the first line of a body says ``...``, the rest are empty."""
    # imported here: prefilter imports the module summary, which imports the project
    from ..blanking import blank_comments_and_strings

    structure = blank_comments_and_strings(source)
    lines = source.split("\n")
    if structure.count("\n") != len(lines) - 1:
        return source  # not blanked line for line: read it all
    kept: list[str] = []
    kept_to = 0  # the lines before it are in ``kept`` (or dropped)
    counted, counted_lines = 0, 0  # newlines in ``structure`` before offset ``counted``

    def line_at(offset: int) -> int:
        nonlocal counted, counted_lines
        counted_lines += structure.count("\n", counted, offset)
        counted = offset
        return counted_lines

    position = 0
    while definition := _DEFINITION.search(structure, position):
        position = definition.end()
        body = _body_start(structure, position)
        if body is None:
            continue  # a one-line def or class: kept as it is
        indent = definition.group(1)
        body_line = line_at(body)
        for end in _body_end(len(indent)).finditer(structure, body):
            end_line = line_at(end.start())
            code, column = lines[end_line], end.end() - 1 - end.start()
            if (
                code[column : column + 1] == structure[end.end() - 1] and not code[:column].strip()
                and not _open(structure, body, end.start())
            ):
                break  # else the line starts in a string, or goes on a bracket or a backslash
        else:
            end, end_line = None, len(lines)
        kept.extend(lines[kept_to:body_line])
        kept.append(f"{indent} ...")
        kept.extend("" for _ in range(body_line + 1, end_line))
        kept_to = end_line
        if end is None:
            break
        position = end.start()
    kept.extend(lines[kept_to:])
    return "\n".join(kept)


@functools.lru_cache(maxsize=64)
def _body_end(indent: int) -> re.Pattern[str]:
    """The first line of code indented no deeper than ``indent``: where a body ends."""
    return re.compile(rf"^[ \t]{{0,{indent}}}\S", re.MULTILINE)


def _open(structure: str, start: int, end: int) -> bool:
    """Whether a bracket opened between ``start`` and ``end`` (a line's start) is still open
    at ``end``, or the line before goes on with a backslash."""
    opened = sum(structure.count(bracket, start, end) for bracket in _OPENING)
    closed = sum(structure.count(bracket, start, end) for bracket in ")]}")
    return opened > closed or structure[start : end - 1].endswith("\\")


def _body_start(structure: str, position: int) -> int | None:
    """Where the body of the def or class whose header goes on from ``position`` starts
    (the line after its header's ``:``); None when the body is on the header's line."""
    depth = 0
    while stop := _HEADER_STOP.search(structure, position):
        char, position = stop.group(), stop.end()
        if char in _OPENING:
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ":" and depth <= 0:
            newline = structure.find("\n", position)
            rest = structure[position : newline if newline != -1 else len(structure)]
            if rest.strip() not in ("", "\\"):
                return None
            return newline + 1 if newline != -1 else None
    return None
