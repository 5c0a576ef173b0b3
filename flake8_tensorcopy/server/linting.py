"""One document text -> what the editor shows: the findings left after ``# noqa``, each
with the extent of its node, and why any part could not be analysed.

The same core as the CLI and the flake8 plugin (``engine.lint_source``); no flake8
process. Results are cached by (text, rules): an unchanged text (a save, an undo back
to a text seen before, a pull after a push) is never linted twice. A changed text
reuses the findings of its unchanged chunks (``reuse``).
"""

from __future__ import annotations

import traceback
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from .. import engine, noqa
from ..rule import Rule
from .reuse import ChunkReuse

CACHED_TEXTS = 16  # a few per open document: undo/redo and pulls hit them


@dataclass(frozen=True)
class Diagnosis:
    findings: tuple[engine.Finding, ...]
    # Why (part of) the text was not analysed; the findings are then those of the rest.
    failure: str | None = None


class Linter:
    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, tuple[type[Rule], ...]], Diagnosis] = OrderedDict()
        self.chunks = ChunkReuse()

    def diagnose(self, text: str, rules: Sequence[type[Rule]]) -> Diagnosis:
        key = (text, tuple(rules))
        diagnosis = self._cache.get(key)
        if diagnosis is None:
            diagnosis = diagnose(text, rules, self.chunks)
            self._cache[key] = diagnosis
            if len(self._cache) > CACHED_TEXTS:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return diagnosis


def diagnose(text: str, rules: Sequence[type[Rule]], chunk_linter: engine.ChunkLinter | None = None) -> Diagnosis:
    """Never raises: a bug of ours becomes a failure to log, not a dead server."""
    silencer = noqa.Silencer(text)
    if silencer.file_is_silenced():
        return Diagnosis(())
    failure = None
    try:
        findings = engine.lint_source(text, rules=rules, ends=True, chunk_linter=chunk_linter)
    except engine.AnalysisError as error:
        findings, failure = error.findings, str(error)
    except Exception as error:
        findings = []
        failure = f"internal error ({type(error).__name__}: {error}); please report it\n{traceback.format_exc()}"
    return Diagnosis(tuple(f for f in findings if not silencer.silences(f.code, f.line)), failure)
