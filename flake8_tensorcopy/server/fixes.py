"""Fixes as text edits: one finding's quick fix, and every fix at once.

Both run ``fixer.fix_source`` (one fix alone with ``only=``), so an edit is offered only
after the fixed code re-parsed and re-linted clean, as ``--fix`` checks it. The edits
are minimal: only the lines that changed, trimmed to the characters that changed, so a
quick fix touches its finding's span (and the import it adds, if any) and nothing else.
"""

from __future__ import annotations

import difflib
import os.path
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .. import engine, fixer
from ..rule import Rule


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (code-point offsets) with ``new_text``."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True)
class FixEdits:
    edits: tuple[Edit, ...]  # empty when the fixes could not be applied
    failure: str | None = None


def quick_fix(text: str, finding: engine.Finding, rules: Sequence[type[Rule]], kept_lines: str = "") -> FixEdits:
    """The edits of ``finding``'s fix (safe or not: the user picked this one). No fix
    rewrites a line holding ``kept_lines`` (a notebook's cell marks and stand-ins)."""
    return _fixed(text, tuple(rules), True, (finding.line, finding.col, finding.code), kept_lines)


def fix_all(text: str, rules: Sequence[type[Rule]], unsafe: bool, kept_lines: str = "") -> FixEdits:
    return _fixed(text, tuple(rules), unsafe, None, kept_lines)


@lru_cache(maxsize=32)  # code-action requests repeat as the cursor moves; the text rarely changes
def _fixed(text: str, rules: tuple[type[Rule], ...], unsafe: bool, only: tuple[int, int, str] | None,
           kept_lines: str) -> FixEdits:
    try:
        result = fixer.fix_source(text, rules, unsafe=unsafe, only=only, keep_lines_with=kept_lines)
    except (fixer.FixError, engine.AnalysisError) as error:
        return FixEdits((), str(error))
    except Exception as error:  # a bug of ours: no edit, and the server lives on
        return FixEdits((), f"internal error ({type(error).__name__}: {error}); please report it")
    return FixEdits(tuple(minimal_edits(text, result.source)))


_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def minimal_edits(old: str, new: str) -> list[Edit]:
    """Edits that turn ``old`` into ``new``, one per run of changed lines, each trimmed to
    the characters that differ."""
    old_lines, new_lines = _LINES.findall(old), _LINES.findall(new)
    old_starts = _offsets(old_lines)
    new_starts = _offsets(new_lines)
    edits = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
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
