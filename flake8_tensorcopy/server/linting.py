"""One document text -> what the editor shows: the findings left after ``# noqa``, each
with the extent of its node, and why any part could not be analysed.

The same core as the CLI and the flake8 plugin (``engine.lint_source``); no flake8
process. Results are cached by (text, rules): an unchanged text (a save, an undo back
to a text seen before, a pull after a push) is never linted twice. A changed text
reuses the findings of its unchanged chunks (``reuse``), and its ``ast`` is parsed again
only where it changed (``reparse``). The lint thread and the fix thread (which lints what
a quick fix makes, to check it) share one linter: its caches are thread-safe, and what
either thread analysed serves the other (the lint of a fixed text is the pull's, once the
fix is applied).

The analysis of the text linted last (its ``ast``, summary and plan: ``engine.Planned``)
is kept for the quick fixes of that text, which the editor asks for next: handed over
once (``take_planned``), as a summary may only be used by one thread.

What one document may cost is bounded: a text over ``MAX_SERVED_TOKENS`` is not analysed
at all (LibCST would only see the first ``limits.MAX_ANALYSED_TOKENS`` of it, while the
``ast`` and the summary of a 50,000-line file take hundreds of MB), and after each lint
the C heap's free pages go back to the system, as the CLI gives them back per file.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import engine, limits, memory, noqa, prefilter
from ..analysis import project
from ..rule import Rule
from ..bounded import BoundedCache
from .reparse import Trees
from .reuse import ChunkReuse

CACHED_TEXTS = 16  # a few per open document: undo/redo and pulls hit them
CACHED_CHARACTERS = 4_000_000  # ... and a few large ones, not sixteen
# Five times what LibCST may analyse of a file: some 20,000 lines of training code.
MAX_SERVED_TOKENS = 5 * limits.MAX_ANALYSED_TOKENS


@dataclass(frozen=True)
class Diagnosis:
    findings: tuple[engine.Finding, ...]
    # Why (part of) the text was not analysed; the findings are then those of the rest.
    failure: str | None = None


# The analysis kept of the text linted last: some 70 bytes a character of text (7 MB for
# 3,000 lines); a larger text's is not kept.
PLANNED_CHARACTERS = 400_000


class Linter:
    def __init__(self) -> None:
        self._cache: BoundedCache[Diagnosis] = BoundedCache(CACHED_TEXTS, CACHED_CHARACTERS)
        self._planned: BoundedCache[engine.Planned] = BoundedCache(1, PLANNED_CHARACTERS, engine.Planned.release)
        self.chunks = ChunkReuse()
        self.trees = Trees()

    def diagnose(self, text: str, rules: Sequence[type[Rule]], path: str | None = None,
                 keep: bool = False) -> Diagnosis:
        """``path``: the document's file, from which its project is read (the open documents
        as the editor has them); the lint of a text is kept while no module may have changed.
        ``keep``: keep the analysis of a text linted now for ``take_planned``."""
        key = _key(text, rules, path)
        diagnosis = self._cache.get(key)
        if diagnosis is None:
            kept = (lambda planned: self._planned.put(key, planned, len(text))) if keep and \
                len(text) <= PLANNED_CHARACTERS else None
            diagnosis = diagnose(text, rules, self.chunks, path, kept, self.trees)
            self._cache.put(key, diagnosis, len(text))
            memory.release_freed()
        return diagnosis

    def take_planned(self, text: str, rules: Sequence[type[Rule]], path: str | None = None) -> engine.Planned | None:
        """The analysis of ``text`` kept by its lint (None: not the text linted last, or too
        large), handed over: the caller owns it, and no one else gets it."""
        return self._planned.take(_key(text, rules, path))


def _key(text: str, rules: Sequence[type[Rule]], path: str | None) -> tuple:
    return text, tuple(rules), path, project.generation()


def diagnose(text: str, rules: Sequence[type[Rule]], chunk_linter: engine.ChunkLinter | None = None,
             path: str | None = None, keep: Callable[[engine.Planned], None] | None = None,
             trees: Trees | None = None) -> Diagnosis:
    """Never raises: a bug of ours becomes a failure to log, not a dead server. ``keep``
    is given the analysis of a text wholly analysed (and releases it when done with it);
    any other is released at once. ``trees``: where its ``ast`` is parsed from the trees of
    texts parsed before."""
    # A token is one character at least: a text no longer than the limit needs no count.
    if len(text) > MAX_SERVED_TOKENS and limits.Budget(MAX_SERVED_TOKENS).spend(text):
        return Diagnosis((), f"not analysed: over the language server's limit of {MAX_SERVED_TOKENS:,} tokens a "
                             "document (its syntax trees would hold hundreds of MB); the command line "
                             f"`flake8-tensorcopy` analyses its first {limits.MAX_ANALYSED_TOKENS:,}")
    silencer = noqa.Silencer(text)
    if silencer.file_is_silenced():
        return Diagnosis(())
    failure = None
    planned = None
    try:
        source = prefilter.normalise_newlines(text)
        tree = trees.parse(source) if trees is not None else None
        planned = engine.plan_source(source, tree, rules=rules, path=path)
        findings = engine.lint_plan(planned, ends=True, chunk_linter=chunk_linter)
        if keep is not None:
            keep(planned)
            planned = None
    except engine.AnalysisError as error:
        findings, failure = error.findings, str(error)
    except Exception as error:
        findings = []
        failure = f"internal error ({type(error).__name__}: {error}); please report it\n{traceback.format_exc()}"
    finally:
        if planned is not None:
            planned.release()
    return Diagnosis(tuple(f for f in findings if not silencer.silences(f.code, f.line)), failure)
