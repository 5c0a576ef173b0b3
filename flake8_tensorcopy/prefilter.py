"""Decide which parts of a file need a LibCST parse at all.

flake8 runs every plugin on every file, so parsing every file with LibCST would add
about 80% to a flake8 run. Instead each rule declares trigger regexes: text that must
appear for the rule to report anything. They run over the source with comments and
plain strings blanked out. A finding always lies in the innermost function enclosing
the trigger match, and the analysis is function-local (see ``inference``), so only
those functions are parsed. A match outside every function means the whole file.

``tests/test_prefilter_exact.py`` proves on a real corpus that this loses no finding.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .imports import ImportTable, child_blocks
from .rule import Rule

# Comments and string literals, matched left to right so that a quote inside a comment
# or a hash inside a string is consumed by the token that really holds it. f-strings
# are kept as they are (their braces hold code).
_COMMENT_OR_STRING = re.compile(
    r"""
    \#[^\n]*
    | (?P<prefix>\b[rRbBuUfFtT]{1,2})?
      (?: '''(?:[^\\]|\\.)*?''' | \"\"\"(?:[^\\]|\\.)*?\"\"\"
        | '(?:[^'\\\n]|\\.)*' | "(?:[^"\\\n]|\\.)*" )
    """,
    re.VERBOSE | re.DOTALL,
)


def _blank(match: re.Match[str]) -> str:
    prefix = match.group("prefix")
    if prefix and not set(prefix.lower()) <= {"r", "b", "u"}:
        return match.group(0)  # an f-string or t-string: keep the code in its braces
    return "\n" * match.group(0).count("\n")


def blank_comments_and_strings(source: str) -> str:
    """``source`` with comments and strings removed, line numbers kept."""
    return _COMMENT_OR_STRING.sub(_blank, source)


@dataclass(frozen=True)
class Plan:
    """What to parse: the whole file, or these (first, last) line spans."""

    whole_file: bool
    spans: tuple[tuple[int, int], ...] = ()


WHOLE_FILE = Plan(whole_file=True)
NOTHING = Plan(whole_file=False)


def plan(source: str, tree: ast.Module, rules: Iterable[type[Rule]], imports: ImportTable) -> Plan:
    text = blank_comments_and_strings(source)
    index = _LineIndex(text)
    locator = _FunctionLocator(tree)
    spans: set[tuple[int, int]] = set()
    for rule in rules:
        primary, *secondary = rule.trigger_patterns(imports)
        position = 0
        while match := primary.search(text, position):
            span = locator.innermost_function(index.line_of(match.start()))
            if span is None:
                if all(p.search(text) for p in secondary):
                    return WHOLE_FILE
                position = match.end()
                continue
            start, end = index.offset_of_line(span[0]), index.offset_of_line(span[1] + 1)
            if all(p.search(text, start, end) for p in secondary):
                spans.add(span)
            position = max(end, match.end())
    return Plan(whole_file=False, spans=_outermost(spans))


def _outermost(spans: set[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Drop spans nested in another one: parsing the outer one covers them."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
        if kept and start >= kept[-1][0] and end <= kept[-1][1]:
            continue
        kept.append((start, end))
    return tuple(kept)


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return self._starts

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def offset_of_line(self, line: int) -> int:
        return self.starts[line - 1] if line <= len(self.starts) else len(self.text)


def statement_start(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


class _FunctionLocator:
    """Finds the innermost ``def`` around a line by descending the ``ast`` tree."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self._module_starts = [statement_start(s) for s in tree.body]

    def innermost_function(self, line: int) -> tuple[int, int] | None:
        found = None
        statement = _containing(self.tree.body, self._module_starts, line)
        while statement is not None:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found = (statement_start(statement), statement.end_lineno)
            block = [s for b in child_blocks(statement) for s in b]
            statement = _containing(block, [statement_start(s) for s in block], line)
        return found


def _containing(block: list[ast.stmt], starts: list[int], line: int) -> ast.stmt | None:
    position = bisect.bisect_right(starts, line) - 1
    if position >= 0 and line <= block[position].end_lineno:
        return block[position]
    return None
