"""Positions in a document: code-point offsets and columns (what LibCST and the engine
count) <-> LSP positions in the encoding negotiated at ``initialize``.

LSP counts lines at ``\\r\\n``, ``\\r`` and ``\\n`` only, as Python's tokenizer does (not
at ``\\f`` or ``\\x1c``, where ``str.splitlines`` would), and characters in UTF-16 code
units unless the client offered utf-8 or utf-32.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ..runtime.bounded import BoundedCache

_LINE_END = re.compile(r"\r\n|\r|\n")

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(text: str, encoding: str) -> int:
    """How many code units ``text`` is in ``encoding``."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


@dataclass(frozen=True)
class Position:
    """An LSP position: 0-based line, ``character`` in the encoding's code units."""

    line: int
    character: int


class LineIndex:
    """Where each line of ``text`` starts, to convert positions both ways. Not changed
    once made: :meth:`of` shares one between the requests about a text."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0, *(match.end() for match in _LINE_END.finditer(text))]

    @classmethod
    def of(cls, text: str, encoding: str = UTF16) -> LineIndex:
        """The index of ``text``, made once for all the requests about it (a code action
        wants one per finding and per edit: 2 ms each on a 3,000-line file)."""
        index = _INDEXES.get((text, encoding))
        if index is None:
            index = cls(text, encoding)
            _INDEXES.put((text, encoding), index, len(text))
        return index

    def line_text(self, line: int) -> str:
        """Line ``line`` (0-based) without its line end."""
        if line >= len(self.starts):
            return ""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line] : end].rstrip("\r\n")

    def position(self, line: int, column: int) -> Position:
        """The LSP position of ``line`` (1-based, as the engine counts) and ``column`` (code points)."""
        return Position(line - 1, units(self.line_text(line - 1)[:column], self.encoding))

    def position_of_offset(self, offset: int) -> Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        return Position(line, units(self.text[self.starts[line] : offset], self.encoding))

    def column(self, position: Position) -> tuple[int, int]:
        """(line 1-based, column in code points) of an LSP position, clamped to the line
        (a character in the middle of a surrogate pair or a UTF-8 sequence counts as after it)."""
        if position.line >= len(self.starts):
            return len(self.starts), 0
        text = self.line_text(position.line)
        if self.encoding == UTF32:
            return position.line + 1, min(position.character, len(text))
        counted = 0
        for index, char in enumerate(text):
            if counted >= position.character:
                return position.line + 1, index
            counted += units(char, self.encoding)
        return position.line + 1, len(text)


# The texts the last requests were about (a few per document); they hold no text of their own.
_INDEXES: BoundedCache[LineIndex] = BoundedCache(entries=4, characters=1_000_000)
