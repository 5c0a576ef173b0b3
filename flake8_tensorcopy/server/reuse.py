"""The findings of unchanged chunks, reused from one lint of a document to the next.

The engine cuts a file into chunks (the functions its triggers pick, the module-level
code, single statements: ``prefilter.Plan``) and parses and analyses each on its own.
What a chunk's analysis knows of the rest of the file it asks the module summary: what
a name of the enclosing scope holds, what a function of the file returns, what a class
keeps on ``self``, the import table, ... So a chunk's findings are a function of its
text, the scope it was cut from, the rules, whether ends are wanted, and the answers it
got; nothing else. Each chunk's findings are kept with every question its analysis asked
and the answer, in order. After an edit, a chunk with the same text (on the same or other
lines) is not analysed again when the new file's summary gives the same answers to the
same questions: the analysis would ask them again and end with the same findings, which
are moved to the chunk's new lines. An edit of a helper that changes what it returns
changes an answer, and the chunks that asked are analysed again.

Why the questions and not a digest of the whole summary: every edit changes some fact of
the file (at least those of the function edited), so such a digest would never let a
chunk be reused. Why all of them, repeats included, in order: the summary answers on
demand and remembers, and on mutually recursive functions its answers depend on the
order of the questions; asked again in the same order, it is left as the analysis would
have left it, so the chunks after a reused one get the answers they would have got.

A question this module does not know (one added to the analysis later) is answered,
and marks the chunk's findings as not reusable: never a stale finding, at worst no gain.
Bounded: the results of the ``CACHED_CHUNKS`` chunks used last, holding at most
``CACHED_CHARACTERS`` of chunk text. Not thread-safe: the server lints on one thread.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .. import engine
from ..analysis.scope_facts import ScopeFacts
from ..analysis.summary import ModuleSummary
from ..analysis.values import Instance
from ..rule import Rule
from ..runtime.bounded import BoundedCache

CACHED_CHUNKS = 512  # a few documents' chunks, and the versions of the one being edited
CACHED_CHARACTERS = 4_000_000

Question = tuple  # (what was asked, *its arguments)


@dataclass(frozen=True)
class _Result:
    findings: tuple[engine.Finding, ...]  # lines counted from the chunk's own first line
    asked: tuple[tuple[Question, object], ...]  # each question and its answer, in order


class ChunkReuse:
    """An ``engine.ChunkLinter`` that reuses the findings of chunks it analysed before."""

    def __init__(self, size: int = CACHED_CHUNKS) -> None:
        self._results: BoundedCache[_Result] = BoundedCache(size, CACHED_CHARACTERS)
        self.reused = 0  # chunks answered from earlier results (for tests and benchmarks)

    def __len__(self) -> int:
        return len(self._results)

    def __call__(self, chunk: str, line_offset: int, summary: ModuleSummary, scope: str,
                 rules: Sequence[type[Rule]], ends: bool) -> list[engine.Finding]:
        key = (chunk, scope, tuple(rules), ends)
        known = self._results.get(key)
        if known is not None and _answered_alike(summary, known.asked):
            self.reused += 1
            return [_moved(finding, line_offset) for finding in known.findings]
        recorder = _Recorder(summary)
        findings = engine.lint_chunk(chunk, 0, recorder, scope, rules, ends)
        if recorder.complete:
            self._results.put(key, _Result(tuple(findings), tuple(recorder.asked)), len(chunk))
        else:
            self._results.pop(key)
        return [_moved(finding, line_offset) for finding in findings]


def _moved(finding: engine.Finding, line_offset: int) -> engine.Finding:
    if not line_offset:
        return finding
    end_line = None if finding.end_line is None else finding.end_line + line_offset
    return finding.replace(line=finding.line + line_offset, end_line=end_line)


def _answered_alike(summary: ModuleSummary, asked: Sequence[tuple[Question, object]]) -> bool:
    """Whether ``summary`` answers each question as it was answered, asked in the same order."""
    try:
        return all(_same(_answer(summary, question), answer) for question, answer in asked)
    except Exception:  # a question the new file cannot answer as before: analyse the chunk
        return False


def _same(one: object, other: object) -> bool:
    return type(one) is type(other) and one == other


def _answer(summary: ModuleSummary, question: Question) -> object:
    """What ``summary`` answers to ``question``, in the form it was noted in."""
    asked, *arguments = question
    if asked == "imports":
        return _import_state(summary)
    if asked == "scope":
        return summary.scope(*arguments) is not None
    if asked in ("definition", "stored_lambda"):
        return _digest(getattr(summary, asked)(*arguments))
    if asked == "facts":
        qualname, method, *arguments = arguments
        return getattr(summary.scope(qualname), method)(*arguments)
    if asked == "facts property":
        qualname, name = arguments
        return getattr(summary.scope(qualname), name)
    return getattr(summary, asked)(*arguments)


def _import_state(summary: ModuleSummary) -> dict:
    """All the import table holds (the rules read its aliases directly)."""
    return dict(vars(summary.imports))


def _digest(node: ast.AST | None) -> bytes | None:
    """A def, class or lambda of the file, all of it a caller could read, positions included."""
    if node is None:
        return None
    return hashlib.blake2b(ast.dump(node, include_attributes=True).encode(), digest_size=16).digest()


class _Recorder:
    """The module summary as a chunk's analysis sees it, noting every question and answer.

    The questions the analysis asks (``analysis/evaluator.py``, the rules) are answered here and
    noted; any other attribute is handed over unnoted and marks the record incomplete."""

    # Questions answered by plain values, which are noted as they are.
    _VALUES = frozenset({
        "attribute", "call_on", "instance_call", "restored_attributes", "restored_in_project", "defines_data_records",
        "may_run_on_cpu", "graph_free_call", "returns_without_graph",
        "imported_call", "imported_value", "writes_arguments",
    })

    def __init__(self, summary: ModuleSummary) -> None:
        self._summary = summary
        self.asked: list[tuple[Question, object]] = []
        self.complete = True

    def note(self, question: Question, answer: object) -> None:
        self.asked.append((question, answer))

    @property
    def imports(self):
        self.note(("imports",), _import_state(self._summary))
        return self._summary.imports

    def scope(self, qualname: str) -> _RecordedFacts | None:
        facts = self._summary.scope(qualname)
        self.note(("scope", qualname), facts is not None)
        return None if facts is None else _RecordedFacts(self, facts, qualname)

    def definition(self, qualname: str) -> ast.AST | None:
        node = self._summary.definition(qualname)
        self.note(("definition", qualname), _digest(node))
        return node

    def stored_lambda(self, instance: Instance, name: str) -> ast.Lambda | None:
        node = self._summary.stored_lambda(instance, name)
        self.note(("stored_lambda", instance, name), _digest(node))
        return node

    def __getattr__(self, name: str):
        if name in self._VALUES:
            return self.noted(getattr(self._summary, name), (name,))
        self.complete = False
        return getattr(self._summary, name)

    def noted(self, method, question: Question):
        """``method``, its calls noted under ``question`` + their arguments. Only names
        (strings) and instances can be asked again of another file's summary: any other
        argument, or a keyword, leaves the record incomplete."""
        def asked(*arguments, **keywords):
            answer = method(*arguments, **keywords)
            if keywords or not all(isinstance(argument, (str, Instance)) for argument in arguments):
                self.complete = False
            else:
                self.note((*question, *arguments), answer)
            return answer

        return asked


class _RecordedFacts:
    """A scope's facts (``ModuleSummary.scope``), its questions noted by the recorder."""

    _VALUES = frozenset({
        "name_value", "parameter_value", "own_call", "receives_tensors", "bound_only_to_results", "instances",
        "bound_lambda",  # a lambda found is then judged by lambda_result, which leaves the record incomplete
    })
    _PROPERTIES = frozenset({"legacy_scalars"})  # read, not called

    def __init__(self, recorder: _Recorder, facts: ScopeFacts, qualname: str) -> None:
        self._recorder = recorder
        self._facts = facts
        self._qualname = qualname

    def __getattr__(self, name: str):
        if name in self._VALUES:
            return self._recorder.noted(getattr(self._facts, name), ("facts", self._qualname, name))
        value = getattr(self._facts, name)
        if name in self._PROPERTIES:
            self._recorder.note(("facts property", self._qualname, name), value)
        else:
            self._recorder.complete = False
        return value
