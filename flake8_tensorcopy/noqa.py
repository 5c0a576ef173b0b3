"""``# noqa`` exactly as flake8 reads it, for the CLI and the fixer.

flake8's own pieces do the matching: ``defaults.NOQA_INLINE_REGEXP`` finds the
comment and ``Violation.is_inline_ignored`` decides (``# noqa`` and ``# noqa: TCP``
are blanket, ``# noqa: TCP001,E501`` and ``# noqa:tcp0`` name codes or prefixes, case
does not matter). Like flake8, a comment anywhere in a multi-line string or a
backslash-continued line covers every line of it (``FileProcessor._noqa_line_mapping``),
but not the lines of a bracketed continuation. ``# flake8: noqa`` alone on a line
silences the whole file.
"""

from __future__ import annotations

import re
import tokenize

from flake8 import defaults
from flake8.violation import Violation

_MENTIONS_NOQA = re.compile(r"noqa", re.IGNORECASE)


class Silencer:
    def __init__(self, source: str) -> None:
        self.active = bool(_MENTIONS_NOQA.search(source))
        if self.active and "\r" in source:
            source = source.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = split_lines(source) if self.active else []
        self._mapping: dict[int, str] | None = None

    def file_is_silenced(self) -> bool:
        """``# flake8: noqa`` on a line of its own (flake8 then skips the file)."""
        return self.active and any(defaults.NOQA_FILE.match(line) for line in self.lines)

    def silences(self, code: str, line: int) -> bool:
        """Whether a ``code`` finding on ``line`` (1-based) is silenced by ``# noqa``."""
        if not self.active:
            return False
        physical = self.mapping.get(line)
        if physical is None:
            physical = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Violation(code, "-", line, 0, "", physical).is_inline_ignored(disable_noqa=False)

    @property
    def mapping(self) -> dict[int, str]:
        """Line -> the text searched for its noqa (flake8's ``_noqa_line_mapping``)."""
        if self._mapping is None:
            self._mapping = {}
            for first, last in line_groups(self.lines):
                joined = "".join(self.lines[first - 1 : last])
                self._mapping.update(dict.fromkeys(range(first, last + 1), joined))
        return self._mapping


def line_groups(lines: list[str]) -> list[tuple[int, int]]:
    """(first, last) physical lines whose noqa flake8 reads as one: a multi-line string or
    a backslash-continued line (a bracketed continuation is one group per line); none
    when ``lines`` do not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(iter(lines).__next__))
    except (tokenize.TokenError, SyntaxError, StopIteration):
        return []
    groups = []
    first, last = len(lines) + 2, -1
    for kind, _, (start, _), (end, _), _ in tokens:
        if kind in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        first, last = min(first, start), max(last, end)
        if kind in (tokenize.NL, tokenize.NEWLINE):
            groups.append((first, last))
            first, last = len(lines) + 2, -1
    return groups


def split_lines(source: str) -> list[str]:
    """Lines ending at ``\\n`` only (``str.splitlines`` also splits at ``\\f``, ``\\x1c``, ...)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", source)
