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

What one document may cost is bounded: a text over ``MAX_SERVED_TOKENS`` is not analysed
at all (LibCST would only see the first ``limits.MAX_ANALYSED_TOKENS`` of it, while the
``ast`` and the summary of a 50,000-line file take hundreds of MB), and after each lint
the C heap's free pages go back to the system, as the CLI gives them back per file.
"""

from __future__ import annotations

import ast
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

from .. import engine, limits, noqa, prefilter
from ..runtime import memory
from ..analysis import project
from ..rule import Rule
from ..runtime.bounded import BoundedCache
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


class Linter:
    def __init__(self) -> None:
        self._cache: BoundedCache[Diagnosis] = BoundedCache(CACHED_TEXTS, CACHED_CHARACTERS)
        self.chunks = ChunkReuse()
        self.trees = Trees()

    def diagnose(self, text: str, rules: Sequence[type[Rule]], path: str | None = None) -> Diagnosis:
        """``path``: the document's file, from which its project is read (the open documents
        as the editor has them); the lint of a text is kept while no module may have changed."""
        key = (text, tuple(rules), path, project.generation())
        diagnosis = self._cache.get(key)
        if diagnosis is None:
            diagnosis = diagnose(text, rules, self.chunks, path, self.trees)
            self._cache.put(key, diagnosis, len(text))
            memory.release_freed()
        return diagnosis

    def tree(self, text: str) -> ast.Module | None:
        """The ``ast`` of ``text``, parsed from a tree this linter has (a quick fix's text is
        mostly the one just linted); None when it is not valid Python."""
        try:
            return self.trees.parse(prefilter.normalise_newlines(text))
        except engine.AnalysisError:
            return None


def diagnose(text: str, rules: Sequence[type[Rule]], chunk_linter: engine.ChunkLinter | None = None,
             path: str | None = None, trees: Trees | None = None) -> Diagnosis:
    """Never raises: a bug of ours becomes a failure to log, not a dead server. ``trees``:
    where its ``ast`` is parsed from the trees of texts parsed before."""
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
    except engine.AnalysisError as error:
        findings, failure = error.findings, str(error)
    except Exception as error:
        findings = []
        failure = f"internal error ({type(error).__name__}: {error}); please report it\n{traceback.format_exc()}"
    finally:
        if planned is not None:
            planned.release()
    return Diagnosis(tuple(f for f in findings if not silencer.silences(f.code, f.line)), failure)
