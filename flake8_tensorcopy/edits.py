"""Fixes as text edits: the smallest edits that turn a text into its fixed form, and one
finding's fix as edits by position (what the CLI's JSON carries, what the language
server's quick fixes send)."""

from __future__ import annotations

import bisect
import difflib
import os.path
import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import engine
from .rule import Rule


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (code-point offsets) with ``new_text``."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True)
class Placed:
    """An edit by position: lines 1-based, columns 0-based in code points (as findings)."""

    line: int
    col: int
    end_line: int
    end_col: int
    new_text: str
    cell: int | None = None  # in a notebook: the cell the lines count in


def finding_edits(source: str, finding: engine.Finding, rules: Sequence[type[Rule]], *,
                  keep_lines_with: str = "", path: str | None = None) -> list[Placed]:
    """The edits of ``finding``'s fix alone, applied and re-linted as a quick fix is;
    none where it cannot be applied on its own (the CLI's ``--fix`` may still apply it)."""
    from . import chunk_fix, fixer  # LibCST: only where a fix is asked for

    try:
        fixed = chunk_fix.fix_finding(source, (finding.line, finding.col, finding.code), rules,
                                      keep_lines_with=keep_lines_with, path=path, offered=finding.fix)
    except (fixer.FixError, engine.AnalysisError):
        return []
    return placed(source, minimal_edits(source, fixed))


def placed(text: str, edits: Sequence[Edit]) -> list[Placed]:
    starts = _offsets(_LINES.findall(text))

    def position(offset: int) -> tuple[int, int]:
        line = max(0, bisect.bisect_right(starts, offset) - 1)
        return line + 1, offset - starts[line]

    return [Placed(*position(edit.start), *position(edit.end), edit.new_text) for edit in edits]


_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def minimal_edits(old: str, new: str) -> list[Edit]:
    """Edits that turn ``old`` into ``new``, one per run of changed lines, each trimmed to
    the characters that differ."""
    old_lines, new_lines = _LINES.findall(old), _LINES.findall(new)
    old_starts = _offsets(old_lines)
    new_starts = _offsets(new_lines)
    # The lines before the first change and after the last are the same: difflib, quadratic
    # at worst, compares only the lines between (a fix in one function of a 3,000-line file).
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < min(len(old_lines), len(new_lines)) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    edits = []
    matcher = difflib.SequenceMatcher(None, old_lines[head : len(old_lines) - tail],
                                      new_lines[head : len(new_lines) - tail], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        start, end = old_starts[i1], old_starts[i2]
        replacement = new[new_starts[j1] : new_starts[j2]]
        original = old[start:end]
        prefix = len(os.path.commonprefix([original, replacement]))
        suffix = len(os.path.commonprefix([original[prefix:][::-1], replacement[prefix:][::-1]]))
        edits.append(Edit(start + prefix, end - suffix, replacement[prefix : len(replacement) - suffix]))
    return edits


def _offsets(lines: list[str]) -> list[int]:
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets
