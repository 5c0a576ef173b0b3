"""Fixes as text edits: one finding's quick fix, and every fix at once.

A quick fix is applied to the chunk that holds its finding (``chunk_fix``: a function,
not the whole file), the fix-all by ``fixer.fix_source``; either is offered only after
the fixed code re-parsed and re-linted clean, as ``--fix`` checks it. The edits
are minimal: only the lines that changed, trimmed to the characters that changed, so a
quick fix touches its finding's span (and the import it adds, if any) and nothing else.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import chunk_fix, engine, fixer
from ..analysis import project
from ..runtime.bounded import BoundedCache
from ..edits import Edit, minimal_edits
from ..rule import Rule


@dataclass(frozen=True)
class FixEdits:
    edits: tuple[Edit, ...]  # empty when the fixes could not be applied
    failure: str | None = None


# Code-action requests repeat as the cursor moves; the text rarely changes. Bounded by the
# texts they hold: a 3,000-line file is some 110,000 characters.
_QUICK_FIXES: BoundedCache[FixEdits] = BoundedCache(entries=256, characters=1_000_000)
_FIX_ALLS: BoundedCache[FixEdits] = BoundedCache(entries=2, characters=1_000_000)  # asked again for the same text


def quick_fix(text: str, finding: engine.Finding, rules: Sequence[type[Rule]], kept_lines: str = "",
              lint: chunk_fix.Lint | None = None, path: str | None = None,
              tree: ast.Module | None = None) -> FixEdits:
    """The edits of ``finding``'s fix (safe or not: the user picked this one), applied to
    its chunk; ``lint`` re-lints the fixed text. No fix rewrites a line holding
    ``kept_lines`` (a notebook's cell marks and stand-ins). ``path``: the file's, whose
    project the analysis reads; ``tree``: the ``ast`` of ``text``, if known."""
    only = (finding.line, finding.col, finding.code)
    key = (text, tuple(rules), only, kept_lines, path, project.generation())
    edits = _QUICK_FIXES.get(key)
    if edits is None:
        edits = _edits(text, lambda: chunk_fix.fix_finding(text, only, rules, keep_lines_with=kept_lines, lint=lint,
                                                           path=path, tree=tree, offered=finding.fix))
        _QUICK_FIXES.put(key, edits, len(text))
    return edits


def fix_all(text: str, rules: Sequence[type[Rule]], unsafe: bool, kept_lines: str = "",
            path: str | None = None, elsewhere: Callable[..., FixEdits | None] | None = None) -> FixEdits:
    """Every fix at once (``fixer.fix_source``), as edits. ``elsewhere(text, rules, unsafe,
    kept_lines, path, buffers)`` computes them in the server's fixer process, told the
    unsaved buffers of the file's project (no path: the project analysis is off); None from
    it: computed here."""
    key = (text, tuple(rules), unsafe, kept_lines, path, project.generation())
    edits = _FIX_ALLS.get(key)
    if edits is None:
        if elsewhere is not None:
            located = project.locate(path)
            edits = elsewhere(text, rules, unsafe, kept_lines, *(
                (located[1], located[0].buffers()) if located is not None else (None, {})))
        if edits is None:
            edits = compute_fix_all(text, rules, unsafe, kept_lines, path)
        _FIX_ALLS.put(key, edits, len(text))
    return edits


def compute_fix_all(text: str, rules: Sequence[type[Rule]], unsafe: bool, kept_lines: str,
                    path: str | None) -> FixEdits:
    return _edits(text, lambda: fixer.fix_source(
        text, rules, unsafe=unsafe, keep_lines_with=kept_lines, path=path).source)


def _edits(text: str, fixed: Callable[[], str]) -> FixEdits:
    try:
        return FixEdits(tuple(minimal_edits(text, fixed())))
    except (fixer.FixError, engine.AnalysisError) as error:
        return FixEdits((), str(error))
    except Exception as error:  # a bug of ours: no edit, and the server lives on
        return FixEdits((), f"internal error ({type(error).__name__}: {error}); please report it")
