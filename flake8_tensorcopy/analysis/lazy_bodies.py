"""A module parsed without the bodies of its functions, each parsed when first read.

The project analysis reads the modules a file imports, but asks each only a few questions:
what one function returns, what one class keeps on ``self``, what ``from m import *``
binds. Parsing all of a module for that is most of the work when a module holds thousands
of lines of function bodies and one of them is asked about. Here the text is cut
first, each def's body (a method's too) replaced by ``...``, and the rest parsed: the
statements Python runs on import, the class bodies, every def's header, with the lines
and columns where they are. Each def then holds a :class:`LazyBody`, a list that parses
that body from the text the first time anything reads it, so a walk over the whole tree
still sees all of it and only what is read is parsed.

The text's structure is read with comments and strings blanked (``blanking``), so a
quote, a bracket or a ``def`` inside a string decides nothing; the lines kept are the
original ones. Where the blanked text misleads (an f-string's field at column 0 looks like
code), the cut does not parse and the caller parses the whole module; a def whose body
holds a line that starts with a string at the def's own indentation or less (a text
template's closing quotes, or a string statement after the body) is left whole, for the
blanked text cannot tell where such a body ends. ``tests/test_lazy_bodies.py`` checks on
the installed packages' sources that the tree, every body read, is the one the whole
text parses to; a def's end column is that of its last line of code as the text shows it,
without a comment (``ast`` would say otherwise after a ``;``).
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from collections.abc import Iterator
from typing import Any

from ..imports import COMPOUND_STATEMENTS, FUNCTION_DEFS, child_blocks, iter_statements

_DEFINITION = re.compile(r"^([ \t]*)(?:async[ \t]+)?(?:def|class)\b", re.MULTILINE)
_HEADER_STOP = re.compile(r"[][(){}:]")
_OPENING = "([{"


class UnparsedBody(Exception):
    """A function body whose text does not parse: the module would not import."""


class Cut:
    """Where one def lies in the module: the lines of its ``def`` and its body (0-based),
    the offsets in the text of those lines and of the first line after it."""

    __slots__ = ("header", "indent", "last", "header_at", "body_at", "end_at")

    def __init__(self, header: int, indent: str, last: tuple[int, int], offsets: tuple[int, int, int]) -> None:
        self.header, self.indent = header, indent
        self.last = last  # (line, column) where its last statement ends
        self.header_at, self.body_at, self.end_at = offsets


def cut_bodies(source: str) -> tuple[str, list[Cut]]:
    """``source`` with every def's body (and all nested in it) replaced by ``...``, line
    numbers kept (the first line of a body says ``...``, the rest are empty), and where
    each body was cut. A class's body stays: the defs in it are cut one by one."""
    # imported here: prefilter imports the module summary, which imports the project
    from ..blanking import blank_comments_and_strings

    structure = blank_comments_and_strings(source)
    lines = source.split("\n")
    if structure.count("\n") != len(lines) - 1:
        return source, []  # not blanked line for line: read it all
    code_lines = structure.split("\n")
    kept: list[str] = []
    cuts: list[Cut] = []
    offsets: list[int] = []  # where each line starts in ``source``, once a body is cut
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
        if structure[definition.start() : position].lstrip().startswith("class"):
            continue
        body = _body_start(structure, position)
        if body is None:
            continue  # a one-line def or class: kept as it is
        indent = definition.group(1)
        header_line = line_at(definition.start())
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
        if _string_at_margin(lines, body_line, end_line, len(indent)):
            if end is None:
                break
            position = end.start()  # left whole: where it ends is not sure
            continue
        kept.extend(lines[kept_to:body_line])
        kept.append(f"{indent} ...")
        kept.extend([""] * (end_line - body_line - 1))
        if not offsets:
            offsets = list(itertools.accumulate(map((1).__add__, map(len, lines)), initial=0))
        cuts.append(Cut(
            header_line, indent, _last_code(lines, code_lines, body_line, end_line),
            (offsets[header_line], offsets[body_line], offsets[end_line]),
        ))
        kept_to = end_line
        if end is None:
            break
        position = end.start()
    kept.extend(lines[kept_to:])
    return "\n".join(kept), cuts


def parse_lazily(source: str) -> tuple[ast.Module, ParsedText]:
    """The module's tree, each def's body a :class:`LazyBody` parsed when first read, and
    the text its bodies are parsed from. Raises SyntaxError where the text, cut so, does
    not parse (the caller reads it all)."""
    if "\r" in source and "\r" in source.replace("\r\n", ""):
        raise SyntaxError("lines end in a lone carriage return")  # ``ast`` counts lines otherwise
    top_level, cuts = cut_bodies(source)
    tree = ast.parse(top_level)
    if not cuts:
        return tree, ParsedText.whole(source)
    text = ParsedText(source, len(top_level))
    by_line = {cut.header + 1: cut for cut in cuts}
    attached = 0
    for statement in iter_statements(tree, into=lambda s: not isinstance(s, FUNCTION_DEFS)):
        found = by_line.get(statement.lineno) if isinstance(statement, FUNCTION_DEFS) else None
        if found is not None:
            statement.body = LazyBody(text, found)
            # where the text shows the def ends: set once, so that no answer depends on
            # whether the body was read before it was asked
            statement.end_lineno, statement.end_col_offset = found.last
            attached += 1
    if attached != len(cuts):
        raise SyntaxError("a cut body has no def")  # never seen: read it all
    _end_where_blocks_end(tree.body)
    return tree, text


def _end_where_blocks_end(block: list[ast.stmt]) -> None:
    """Give each compound statement (a class, an ``if``...) the end of its last statement,
    as ``ast`` does: where a cut def is last in it, the cut text ended it early."""
    for statement in block:
        if isinstance(statement, COMPOUND_STATEMENTS) and not isinstance(statement, FUNCTION_DEFS):
            blocks = [inner for inner in child_blocks(statement) if inner]
            for inner in blocks:
                _end_where_blocks_end(inner)
            if blocks:
                last = blocks[-1][-1]
                statement.end_lineno, statement.end_col_offset = last.end_lineno, last.end_col_offset


class ParsedText:
    """The module's text, shared by its lazy bodies (none: empty), and how many characters
    of it its tree holds parsed (what bounds the summaries kept: see
    ``project.CACHED_CHARACTERS``)."""

    __slots__ = ("source", "characters")

    def __init__(self, source: str, characters: int) -> None:
        self.source = source
        self.characters = characters

    @classmethod
    def whole(cls, source: str) -> ParsedText:
        """A text parsed all at once: no body is left to parse from it."""
        return cls("", len(source))


class LazyBody(list):
    """A def's body, parsed from the module's text the first time it is read."""

    __slots__ = ("_text", "_cut", "parsed", "_failure")

    def __init__(self, text: ParsedText, cut: Cut) -> None:
        super().__init__()
        self._text = text
        self._cut = cut
        self.parsed = False
        self._failure: str | None = None  # why its text did not parse, once tried

    def fill(self) -> None:
        """Parse the body, once (every read of the list does first)."""
        if self.parsed:
            return
        if self._failure is not None:
            raise UnparsedBody(self._failure)
        text, cut = self._text, self._cut
        segment = text.source[cut.header_at : cut.end_at]
        if cut.indent:  # a method, or a def in a block: a header at column 0 holds it
            lead = "\n" * (cut.header - 1) + "if 1:\n"
        else:
            lead = "\n" * cut.header
        try:
            definition = ast.parse(lead + segment).body[0]
            if cut.indent:
                definition = definition.body[0]
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            self._failure = f"line {cut.header + 1}: {error}"
            raise UnparsedBody(self._failure) from None
        self.parsed = True
        text.characters += len(segment)
        list.extend(self, definition.body)

    def spells(self, word: str) -> bool:
        """Whether the body's text (read or not) spells ``word``."""
        return self._text.source.find(word, self._cut.body_at, self._cut.end_at) != -1

    def __iter__(self) -> Iterator[Any]:
        self.fill()
        return list.__iter__(self)

    def __reversed__(self) -> Iterator[Any]:
        self.fill()
        return list.__reversed__(self)

    def __len__(self) -> int:
        self.fill()
        return list.__len__(self)

    def __getitem__(self, index):  # type: ignore[override]
        self.fill()
        return list.__getitem__(self, index)

    def __contains__(self, item: object) -> bool:
        self.fill()
        return list.__contains__(self, item)

    def __eq__(self, other: object) -> bool:
        self.fill()
        return list.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other):  # type: ignore[override]
        self.fill()
        return list.__add__(self, other)

    def __repr__(self) -> str:  # not read for it: a failing parse would raise in a repr
        return list.__repr__(self) if self.parsed else f"<the body of line {self._cut.header + 1}, not read>"

    def index(self, *arguments):  # type: ignore[override]
        self.fill()
        return list.index(self, *arguments)

    def count(self, item: object) -> int:
        self.fill()
        return list.count(self, item)

    def copy(self) -> list[Any]:
        self.fill()
        return list(list.__iter__(self))

    def __reduce_ex__(self, protocol):  # copied or pickled: a plain list of the statements
        self.fill()
        return list, (list(list.__iter__(self)),)


def spells(body: list[ast.stmt], word: str) -> bool:
    """Whether a def's ``body`` may spell ``word``: a body not yet read, only if its text
    does; one already read (or never lazy), always (it costs nothing more to look)."""
    return not unread(body) or body.spells(word)


def unread(body: object) -> bool:
    """Whether ``body`` is a def's body not parsed yet."""
    return type(body) is LazyBody and not body.parsed


def _last_code(lines: list[str], code_lines: list[str], start: int, end: int) -> tuple[int, int]:
    """(line, column) where the code of lines ``start`` to ``end`` ends, the column in
    UTF-8 bytes as ``ast`` counts: its last line that holds code (comments blanked) or a
    string's end, without a comment after it."""
    # imported here: prefilter imports the module summary, which imports the project
    from ..blanking import COMMENT_OR_STRING

    for number in range(end - 1, start - 1, -1):
        line, code = lines[number], code_lines[number]
        if code.strip():
            if code.lstrip()[:1] == line.lstrip()[:1]:  # it starts in code: its comment is found so
                for token in COMMENT_OR_STRING.finditer(line):
                    if token.group().startswith("#"):
                        line = line[: token.start()]
                        break
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        return number + 1, len(line.rstrip().encode("utf-8", "surrogatepass"))
    return start + 1, 0


_STRING_START = re.compile(r"[ \t]*(?:[rRbBuUfFtT]{1,2})?['\"]")


def _string_at_margin(lines: list[str], start: int, end: int, indent: int) -> bool:
    """Whether a line of ``start`` to ``end`` starts with a string at most ``indent``
    columns in: the blanked text cannot tell a string that ends the body (at column 0,
    as text templates do) from one that starts the next statement after it."""
    return any(
        line[: indent + 1].strip() and _STRING_START.match(line) for line in lines[start:end]
    )


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
