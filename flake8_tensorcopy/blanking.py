"""Source text with its comments and strings blanked out, line numbers kept.

What the trigger search and the top-level cut read: code only, so that a word in a
comment or a string triggers nothing.
"""

from __future__ import annotations

import re


# Comments and string literals, matched left to right so that a quote inside a comment
# or a hash inside a string is consumed by the token that really holds it. Every
# alternative starts with `#` or a quote, so `re` skips ahead to those characters: a
# string's prefix (`rb`, `f`) is read from the text before the match. A string's body is
# runs of plain characters between escapes (and, triple-quoted, lone quotes), taken
# possessively: `re` steps through it a run at a time, not a character at a time. The
# last alternative, a lone quote, opens what the others cannot match: a 3.12 f-string
# whose braces span lines.
COMMENT_OR_STRING = re.compile(
    r"""
    \#[^\n]*+
    | '''[^'\\]*+(?:(?:\\.|'(?!''))[^'\\]*+)*+'''
    | \"\"\"[^"\\]*+(?:(?:\\.|"(?!""))[^"\\]*+)*+\"\"\"
    | '[^'\\\n]*+(?:\\.[^'\\\n]*+)*+' | "[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"
    | ['"]
    """,
    re.VERBOSE | re.DOTALL,
)
_STRING_PREFIX = re.compile(r"(?<!\w)[rRbBuUfFtT]{1,2}\Z")
# Where something happens in an f-string's literal text, and in the code of its braces.
_LITERAL_STOP = re.compile(r"""[\\{}'"]""")
_CODE_STOP = re.compile(r"""[][(){}:#'"]""")


_PREFIX_LETTERS = frozenset("rRbBuUfFtT")


class _FStringRunsOn(Exception):
    """An f-string ends past where the pattern's match of it does (PEP 701: its code
    holds its own quote)."""


def blank_comments_and_strings(source: str) -> str:
    """``source`` with comments and strings removed (a string's prefix letters stay),
    line numbers kept. Of an f-string, the quotes, the braces and the code in them stay."""
    try:
        return COMMENT_OR_STRING.sub(_blanked, source)  # the scan in C, a call a token
    except _FStringRunsOn:
        return _blank_token_by_token(source)


def _blanked(match: re.Match[str]) -> str:
    """What replaces the comment or string ``match`` found, for a token that ends where the
    match does (else :class:`_FStringRunsOn`)."""
    text = match.group()
    if text[0] == "#":
        return ""  # a comment holds no newline
    source, start = match.string, match.start()
    letters = _fstring_letters(source, start)
    if letters:
        pieces: list[str] = []
        if _fstring(source, start, "r" in letters, pieces) != match.end():
            raise _FStringRunsOn
        return "".join(pieces)
    if len(text) == 1:  # a lone quote, in code Python rejects: keep it
        return text
    return "\n" * text.count("\n")


def _blank_token_by_token(source: str) -> str:
    """:func:`blank_comments_and_strings`, resuming each search where the last token ended."""
    pieces: list[str] = []
    position = 0
    while match := COMMENT_OR_STRING.search(source, position):
        pieces.append(source[position : match.start()])
        position = _blank(match, pieces)
    pieces.append(source[position:])
    return "".join(pieces)


def _blank(match: re.Match[str], pieces: list[str]) -> int:
    """Append the comment or string ``match`` found, blanked, to ``pieces``; return
    where the text after it starts."""
    source, start = match.string, match.start()
    letters = "" if source[start] == "#" else _fstring_letters(source, start)
    if letters:
        # Since 3.12 (PEP 701) the code in the braces may hold the f-string's own
        # quote: where the match ends says nothing, the f-string is read as Python does.
        return _fstring(source, start, "r" in letters, pieces)
    pieces.append(_blanked(match))
    return match.end()


def _fstring_letters(source: str, start: int) -> str:
    """The prefix of the string whose quote is at ``start``, lowered, when it makes an
    f-string or a t-string; else the empty string."""
    if not start or source[start - 1] not in _PREFIX_LETTERS:
        return ""
    prefix = _STRING_PREFIX.search(source, max(0, start - 3), start)
    letters = prefix.group().lower() if prefix else ""
    return letters if "f" in letters or "t" in letters else ""


def _fstring(source: str, start: int, raw: bool, pieces: list[str]) -> int:
    """Blank the f-string (or t-string) whose quote is at ``start``; return the offset
    after its closing quote."""
    quote = source[start] * 3 if source.startswith(source[start] * 3, start) else source[start]
    pieces.append(quote)
    position = _literal(source, start + len(quote), quote, raw, pieces)
    pieces.append(quote)
    return position + len(quote)


def _literal(source: str, position: int, quote: str, raw: bool, pieces: list[str], spec: bool = False) -> int:
    """Blank literal text up to the closing ``quote`` (in a format ``spec``: up to the
    ``}`` that ends the field), going into the replacement fields; return its offset."""
    while match := _LITERAL_STOP.search(source, position):
        pieces.append("\n" * source.count("\n", position, match.start()))
        position, char = match.start(), match.group()
        if source.startswith(quote, position) or (spec and char == "}"):
            return position
        if char == "\\":
            end = position + _escape_length(source, position, raw)
            pieces.append("\n" * source.count("\n", position, end))
            position = end
        elif source.startswith(("{{", "}}"), position) and not spec:
            position += 2  # an escaped brace
        elif char == "{":
            pieces.append("{")
            position = _replacement_field(source, position + 1, quote, raw, pieces)
            pieces.append("}")
            position += 1
        else:  # another quote, or a lone `}` (an error)
            position += 1
    pieces.append("\n" * source.count("\n", position))  # unterminated: code Python rejects
    return len(source)


def _escape_length(source: str, position: int, raw: bool) -> int:
    """How many characters the backslash at ``position`` takes. It never takes a brace:
    ``\\{x}`` is a backslash and a field; ``\\N{DASH}`` is one escape, but not in a raw string."""
    following = source[position + 1 : position + 3]
    if following[:1] in ("{", "}"):
        return 1
    if following == "N{" and not raw:
        end = source.find("}", position)
        return end + 1 - position if end != -1 else len(source) - position
    return 2


def _replacement_field(source: str, position: int, quote: str, raw: bool, pieces: list[str]) -> int:
    """Blank the code of the replacement field starting at ``position`` as code (its
    strings and, since 3.12, comments), then its format spec; return the offset of the
    ``}`` that closes it."""
    depth = 0
    while match := _CODE_STOP.search(source, position):
        pieces.append(source[position : match.start()])
        position, char = match.start(), match.group()
        if char in "#'\"":
            position = _blank(COMMENT_OR_STRING.match(source, position), pieces)
            continue
        if depth == 0 and char == "}":
            return position
        if depth == 0 and char == ":":
            pieces.append(":")
            return _literal(source, position + 1, quote, raw, pieces, spec=True)
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        pieces.append(char)
        position += 1
    pieces.append(source[position:])
    return len(source)
