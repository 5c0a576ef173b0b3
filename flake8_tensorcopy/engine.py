"""The analysis core: source text -> its ``ast`` -> one walk of every rule -> findings.

The flake8 plugin, the CLI and the fixer all call into this module; nothing else
walks code. Detection reads ``ast``; LibCST is imported and parsed only to build the
fixes of a run that shows or applies them (:func:`analyse_module`).
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import gc
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple, TYPE_CHECKING

from . import limits, prefilter
from ._triggers import RULE_TRIGGERS
from .analysis.summary import ModuleSummary
from .ast_scopes import ScopeCloser, ScopeOpener
from .ast_walk import Walker
from .rule import Context, Fix, FixPlan, Report, Rule
from .rules import rule_class
from .runtime import collector, memory, yielding
from .runtime.frozen import Frozen
from .spans import span_of

if TYPE_CHECKING:
    import libcst as cst


class AnalysisError(Exception):
    """The file could not be (wholly) analysed; ``str(error)`` says why.

    ``findings`` holds what the parts that could be analysed reported.
    """

    def __init__(self, reason: str, findings: Sequence[Finding] = ()) -> None:
        super().__init__(reason)
        self.findings = list(findings)


class Finding(Frozen):
    """One finding: equal to another, and ordered, by where it starts, its code and message."""

    __slots__ = ("line", "col", "code", "message", "fix", "end_line", "end_col")
    line: int  # 1-based
    col: int  # 0-based, in code points (what flake8 expects)
    code: str
    message: str
    fix: Fix | None
    end_line: int | None  # where the flagged node ends (same units), when the caller asked for ends
    end_col: int | None

    def __init__(self, line: int, col: int, code: str, message: str, fix: Fix | None = None,
                 end_line: int | None = None, end_col: int | None = None) -> None:
        self._set(line=line, col=col, code=code, message=message, fix=fix, end_line=end_line, end_col=end_col)

    def replace(self, **changes: object) -> Finding:
        """This finding with some fields changed (moved to another line, its fix dropped)."""
        return Finding(**{name: changes.get(name, getattr(self, name)) for name in self._fields})

    def _key(self) -> tuple[int, int, str, str]:
        return self.line, self.col, self.code, self.message

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if other.__class__ is Finding else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: Finding) -> bool:
        return self._key() < other._key() if other.__class__ is Finding else NotImplemented

    def __le__(self, other: Finding) -> bool:
        return self._key() <= other._key() if other.__class__ is Finding else NotImplemented

    def __gt__(self, other: Finding) -> bool:
        return self._key() > other._key() if other.__class__ is Finding else NotImplemented

    def __ge__(self, other: Finding) -> bool:
        return self._key() >= other._key() if other.__class__ is Finding else NotImplemented

    def __repr__(self) -> str:
        return (f"Finding(line={self.line!r}, col={self.col!r}, code={self.code!r}, message={self.message!r}, "
                f"end_line={self.end_line!r}, end_col={self.end_col!r})")


# Analyses one chunk: (its source, its line offset, the whole file's summary, the scope
# it was cut from, its rules, ends) -> its findings. ``lint_chunk`` by default; the
# language server passes one that reuses the findings of chunks it saw before.
ChunkLinter = Callable[[str, int, ModuleSummary, str, Sequence[type[Rule]], bool], list[Finding]]


def rules_for(codes: Iterable[str] | None = None) -> list[type[Rule]]:
    """The rule classes for ``codes``; by default those enabled by default."""
    wanted = {spec.code for spec in RULE_TRIGGERS if spec.enabled_by_default} if codes is None else set(codes)
    return [rule_class(spec.code) for spec in RULE_TRIGGERS if spec.code in wanted]


def lint_source(
    source: str,
    tree: ast.Module | None = None,
    *,
    rules: Sequence[type[Rule]] | None = None,
    shortcuts: bool = True,
    fixes: bool = True,
    ends: bool = False,
    chunk_linter: ChunkLinter | None = None,
    path: str | None = None,
) -> list[Finding]:
    """Findings for ``source``. ``tree`` is its ``ast`` (flake8 passes the one it has);
    ``path`` is the file's name, from which its project's other modules are found (see
    ``analysis/project.py``; None: the file alone, as for stdin).
    Without ``fixes`` the findings are the same but their fixes may be missing or
    judged with less context (what the flake8 plugin, which shows no fixes, asks for).
    With ``ends`` each finding also says where its node ends (what an editor underlines).

    ``shortcuts=False`` parses the whole file whatever the triggers say; it exists so
    that tests can prove the shortcuts lose nothing. ``chunk_linter``: see :data:`ChunkLinter`.
    Raises :class:`AnalysisError` when the file cannot be analysed.
    """
    planned = plan_source(source, tree, rules=rules, shortcuts=shortcuts, fixes=fixes, path=path)
    try:
        return lint_plan(planned, ends=ends, chunk_linter=chunk_linter)
    finally:
        planned.release()


class Planned(NamedTuple):
    """A source text ready for its chunks' analysis: its ``ast``, the module summary and
    the plan of what to parse (the language server parses the ``ast`` from an earlier
    text's, ``server/reparse.py``). :meth:`release` it when done."""

    source: str  # newlines normalised
    tree: ast.Module
    summary: ModuleSummary
    plan: prefilter.Plan
    rules: tuple[type[Rule], ...]
    shortcuts: bool = True

    def chunks(self) -> list[Chunk]:
        return chunks_of(self.source, self.plan, self.summary, self.rules)

    def release(self) -> None:
        """Done with it: reference counting frees it all at once, not the cycle collector
        later (see ``ModuleSummary.forget_facts``)."""
        self.summary.forget_facts()


def plan_source(
    source: str,
    tree: ast.Module | None = None,
    *,
    rules: Sequence[type[Rule]] | None = None,
    shortcuts: bool = True,
    fixes: bool = True,
    path: str | None = None,
) -> Planned:
    """``source`` parsed, summarised and planned (the arguments are ``lint_source``'s).
    Raises :class:`AnalysisError` when it is not valid Python."""
    rules = tuple(rules_for() if rules is None else rules)
    source = prefilter.normalise_newlines(source)
    tree = tree if tree is not None else parse_ast(source)
    yielding.checkpoint()
    if not shortcuts:
        summary = ModuleSummary.of(tree, None, path)
        return Planned(source, tree, summary, prefilter.whole_file_plan(source, tree), rules, shortcuts)
    specs = prefilter.may_trigger(source, [rule.trigger_spec() for rule in rules])
    if not specs:  # most files: their project is not read
        return Planned(source, tree, ModuleSummary.of(tree, source), prefilter.NOTHING, rules, shortcuts)
    summary = ModuleSummary.of(tree, source, path)
    return Planned(source, tree, summary, prefilter.plan(source, specs, summary, fixes), rules, shortcuts)


def lint_plan(planned: Planned, *, ends: bool = False, chunk_linter: ChunkLinter | None = None) -> list[Finding]:
    """The findings of a planned text (see ``lint_source``). Raises :class:`AnalysisError`
    naming what was not analysed, with the findings of the rest."""
    reasons = list(planned.plan.skipped)
    source, plan, summary = planned.source, planned.plan, planned.summary
    scopes = None
    # A plan without fixes may analyse single statements where a plan with fixes takes whole
    # functions. On a file the budget may not pay for whole (each token is a character at
    # least), the budget is spent on the parts the plan with fixes takes, and the statements
    # analysed alone follow their scope: every front end stops where the command stops.
    if planned.shortcuts and plan.statements and len(source) > limits.MAX_ANALYSED_TOKENS \
            and limits.Budget().spend(source):
        with_fixes = prefilter.as_with_fixes(plan, source, summary.tree)
        scopes = pay_scopes(source, with_fixes, summary, planned.rules, limits.Budget())
    try:
        # The reference run (no shortcuts) must see everything: no budget for it.
        findings = lint_planned(
            source, plan, summary, planned.rules,
            budget=limits.Budget() if planned.shortcuts else None, ends=ends, chunk_linter=chunk_linter,
            scopes=scopes,
        )
    except AnalysisError as error:
        findings = error.findings
        reasons.append(str(error))
    if reasons:
        raise AnalysisError("not analysed: " + "; ".join(reasons), findings)
    return findings


def lint_planned(
    source: str,
    plan: prefilter.Plan,
    summary: ModuleSummary,
    rules: Sequence[type[Rule]],
    budget: limits.Budget | None = None,
    ends: bool = False,
    chunk_linter: ChunkLinter | None = None,
    scopes: PaidScopes | None = None,
) -> list[Finding]:
    """Findings in the parts of ``source`` that ``plan`` names (see ``prefilter``).

    Each part is analysed on its own, while ``budget`` lasts: a part that cannot be
    analysed, or that the budget cannot pay for, is skipped and the others still are.
    With ``scopes``, what the budget paid for was decided beforehand, scope by scope
    (:func:`pay_scopes`), and ``budget`` is not used.
    Raises :class:`AnalysisError` naming the skipped parts, with the others' findings.
    """
    source = prefilter.normalise_newlines(source)
    if not plan.needs_parse:
        return []
    lint = lint_chunk if chunk_linter is None else chunk_linter
    findings: set[Finding] = set()
    skipped, unpaid, refusal = [], [], ""
    parsed = False
    for where, chunk, offset, scope, chunk_rules, lines in chunks_of(source, plan, summary, rules):
        if scopes is not None:
            if not scopes.pays(lines):
                continue
        elif budget is not None and (reason := budget.spend(chunk)):
            unpaid.append(where)
            refusal = reason
            continue
        parsed = True
        yielding.checkpoint()
        try:
            with _collector_paused():
                findings.update(lint(chunk, offset, summary, scope, chunk_rules, ends))
        except AnalysisError as error:
            skipped.append(f"{where}: {error}")
    if parsed:
        _give_back_freed_memory()
    if scopes is not None:
        unpaid, refusal = list(scopes.unpaid_parts), scopes.refusal
    if unpaid:  # one entry, however many parts: the log line stays readable
        parts = unpaid[0] if len(unpaid) == 1 else f"{len(unpaid):,} parts ({unpaid[0]} ... {unpaid[-1]})"
        skipped.append(f"{parts}: {refusal}")
    if skipped:
        raise AnalysisError("; ".join(skipped), sorted(findings))
    return sorted(findings)


class PaidScopes(NamedTuple):
    """What a budget paid for, scope by scope, as the plan with fixes cuts the file into
    functions and module-level code. The flake8 plugin parses single statements where it
    can; charged by the scopes that hold them, it stops analysing where the command, which
    plans with fixes, stops, and names the same parts."""

    scopes: tuple[tuple[int, int, bool], ...]  # (first, last, paid) of each function, in line order
    module_level_paid: bool
    unpaid_parts: tuple[str, ...]
    refusal: str

    def pays(self, lines: tuple[int, int] | None) -> bool:
        """Whether the part holding ``lines`` (None: the module-level code) was paid for."""
        if lines is not None:
            # The functions of a plan are outermost ones: none holds another.
            at = bisect.bisect_right(self.scopes, (lines[0], sys.maxsize, True)) - 1
            if at >= 0 and self.scopes[at][0] <= lines[0] and lines[1] <= self.scopes[at][1]:
                return self.scopes[at][2]
        return self.module_level_paid  # a statement outside every function is module-level code


def pay_scopes(source: str, plan_with_fixes: prefilter.Plan, summary: ModuleSummary, rules: Sequence[type[Rule]],
               budget: limits.Budget) -> PaidScopes:
    """``budget`` spent on the parts of ``plan_with_fixes`` in the order ``lint_planned``
    spends it (see :class:`PaidScopes`)."""
    scopes, parts, refusal, module_level_paid = [], [], "", False
    text = prefilter.normalise_newlines(source)
    for where, chunk, _, _, _, lines in chunks_of(text, plan_with_fixes, summary, rules):
        reason = budget.spend(chunk)
        if lines is None:
            module_level_paid = reason is None
        else:
            scopes.append((*lines, reason is None))
        if reason:
            parts.append(where)
            refusal = reason
    return PaidScopes(tuple(sorted(scopes)), module_level_paid, tuple(parts), refusal)


# (where, its source, its line offset, the qualified name of the scope around it, its
# rules, the file's lines it holds: (first, last) or None for the module-level code)
Chunk = tuple[str, str, int, str, Sequence[type[Rule]], tuple[int, int] | None]


_FILES_PARSED = [0]
# Files a process parses before it gives freed memory back: a run of an editor's one file
# or a pre-commit's few exits before its heap matters, and the trim costs it time.
_UNTRIMMED_FILES = 8


def _give_back_freed_memory() -> None:
    """The trees of a file are gone: their pages need not outlive it, in a long run."""
    _FILES_PARSED[0] += 1
    if _FILES_PARSED[0] > _UNTRIMMED_FILES:
        memory.release_freed()


def chunks_of(source: str, plan: prefilter.Plan, summary: ModuleSummary, rules: Sequence[type[Rule]]) -> list[Chunk]:
    """The parts of ``source`` (newlines normalised) that ``plan`` names, each as a module
    parsed and analysed on its own."""
    lines = source.split("\n")
    if plan.whole_file:
        return [("the whole file", source, 0, "", rules, (1, len(lines)))]
    chosen = [rule for rule in rules if plan.codes is None or rule.code in plan.codes]
    chunks: list[Chunk] = [
        (f"lines {first}-{last}", *_function_chunk(lines, first, last), summary.enclosing(first), chosen, (first, last))
        for first, last in plan.spans
    ]
    if plan.module_level is not None:
        chunks.append(("module-level code", _module_level_chunk(lines, plan.module_level), 0, "", chosen, None))
    # A statement's findings need nothing around it: no scope (see Gate.statements).
    chunks += [
        (f"line {first}" if first == last else f"lines {first}-{last}", *_function_chunk(lines, first, last), "",
         [rule for rule in rules if rule.code in codes], (first, last))
        for first, last, codes in plan.statements
    ]
    return chunks


def _collector_paused() -> contextlib.AbstractContextManager[None]:
    """Pause Python's cycle collector while one chunk is parsed and analysed.

    A chunk's analysis allocates tens of thousands of objects (a LibCST parse, where fixes
    are built, many more), so the collector would run many times, each scanning everything
    the host process holds (under flake8, every result so far). The trees hold no reference cycles
    and are freed by reference counting; anything else waits for the next collection.
    Counted across threads (``collector``): the language server lints and fixes at once.
    """
    return collector.paused()


def walk_rules(
    tree: ast.AST, summary: ModuleSummary, rules: Sequence[type[Rule]], scope: str = "", source: str | None = None
) -> list[Report]:
    """Run every ``ast`` rule over ``tree`` in one walk; ``summary`` is that of the whole
    file, ``scope`` the qualified name of the scope ``tree`` was cut from, ``source`` the
    text ``tree`` was parsed from (rules quote code as written). The reports hold ``ast``
    nodes and, where a fix is possible, its :class:`FixPlan`."""
    context = Context(summary, scope, source)
    context.codes = frozenset(rule.code for rule in rules)
    analysers = dict.fromkeys(rule.analyser() for rule in rules)  # one visitor for the codes it reports
    visitors = [ScopeOpener(context), *(analyser(context) for analyser in analysers), ScopeCloser(context)]
    Walker(visitors).walk(tree)
    return context.reports


def analyse_module(
    module: cst.Module, summary: ModuleSummary, rules: Sequence[type[Rule]], scope: str = "",
    text: str | None = None,
) -> list[Report]:
    """Every rule over ``module`` (LibCST's tree of ``text``), with each finding's fix built:
    the reports hold LibCST nodes. What the fixer and an editor's quick fix ask for."""
    from . import fix_sites

    _freeze_long_lived()
    text = module.code if text is None else text
    tree = _parse_part(text)
    return fix_sites.with_fixes(module, text, walk_rules(tree, summary, rules, scope, text))


_FROZEN = False


def _freeze_long_lived() -> None:
    """Freeze what exists once LibCST is imported, so the cycle collector skips it.

    LibCST and the rules add some 17,000 long-lived objects (classes, functions, tables)
    that every full collection would scan again, in a run that keeps all its results to
    the end; reference counting still frees any of them. One collection first, so that no
    garbage that exists now is kept for good.
    """
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.collect()
        gc.freeze()


def parse_ast(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError) as error:
        raise AnalysisError(f"not valid Python: {error}") from None
    except (RecursionError, MemoryError):
        raise AnalysisError("too deeply nested for Python's own parser") from None


def _parse_part(chunk: str) -> ast.Module:
    """One part of a file that parsed whole (a function, the module-level code)."""
    try:
        return ast.parse(chunk)
    except (SyntaxError, ValueError) as error:  # a cut the plan got wrong: that part is skipped
        raise AnalysisError(f"not valid Python: {error}") from None


def parse(source: str, tree: ast.Module | None = None) -> cst.Module:
    """The whole file, parsed with LibCST; refuses what ``limits`` says LibCST can't do."""
    plan = prefilter.whole_file_plan(source, tree if tree is not None else parse_ast(source))
    if plan.skipped:
        raise AnalysisError("; ".join(plan.skipped))
    return _parse(source)


def _parse(source: str) -> cst.Module:
    import libcst as cst

    _freeze_long_lived()
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise AnalysisError(f"LibCST cannot parse it: {error.message} (line {error.raw_line})") from None


# LibCST recurses once or twice per nesting level, so a valid 400-term `a and b and ...`
# exhausts Python's default limit. Such code is retried on a thread with a big stack.
_DEEP_RECURSION_LIMIT = 60_000
_DEEP_STACK_BYTES = 512 * 1024 * 1024
# The limit and the stack size are process-wide: one retry at a time sets and restores them
# (the language server lints on one thread and fixes on another).
_DEEP_SETTINGS = threading.Lock()


def with_deep_recursion(work: Callable[[], object]) -> object:
    """Run ``work()``; on RecursionError retry it where recursion can go much deeper."""
    try:
        return work()
    except RecursionError:
        pass
    outcome: dict[str, object] = {}

    def deep() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed back to the caller's thread below
            outcome["error"] = error

    with _DEEP_SETTINGS:
        previous_limit, previous_stack = sys.getrecursionlimit(), threading.stack_size()
        try:
            threading.stack_size(_DEEP_STACK_BYTES)
            sys.setrecursionlimit(max(previous_limit, _DEEP_RECURSION_LIMIT))
            thread = threading.Thread(target=deep, name="tensorcopy-deep")
            thread.start()
            thread.join()
        finally:
            threading.stack_size(previous_stack)
            sys.setrecursionlimit(previous_limit)
    if isinstance(outcome.get("error"), RecursionError):
        raise AnalysisError("too deeply nested for LibCST") from None
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def lint_chunk(
    chunk: str, line_offset: int, summary: ModuleSummary, scope: str, rules: Sequence[type[Rule]], ends: bool
) -> list[Finding]:
    """The findings in one part of the file (see :data:`ChunkLinter`)."""
    return with_deep_recursion(lambda: _lint_ast(chunk, line_offset, summary, scope, rules, ends))


def _lint_ast(
    chunk: str, line_offset: int, summary: ModuleSummary, scope: str, rules: Sequence[type[Rule]], ends: bool
) -> list[Finding]:
    tree = _parse_part(chunk)
    lines = chunk.split("\n")
    reports = walk_rules(tree, summary, rules, scope, chunk)
    if not reports:
        return []
    findings = []
    for report in reports:
        (line, column), (end_line, end_column) = span_of(report.node, lines)
        fix = report.fix.offer() if isinstance(report.fix, FixPlan) else report.fix
        findings.append(Finding(
            line + line_offset, column, report.code, report.message, fix,
            end_line + line_offset if ends else None, end_column if ends else None,
        ))
    return findings


def _module_level_chunk(lines: list[str], stand_ins: tuple[tuple[int, int, str], ...]) -> str:
    """The module with each outermost function replaced by its stand-in line."""
    lines = list(lines)
    for first, last, stand_in in stand_ins:
        lines[first - 1 : last] = [stand_in] + [""] * (last - first)
    return "\n".join(lines)


def _function_chunk(lines: list[str], first: int, last: int) -> tuple[str, int]:
    """The source of lines ``first..last`` as a parsable module, and its line offset.

    An indented method is parsed under ``if True:`` so its indentation stays valid
    and its columns stay those of the file.
    """
    body = "\n".join(lines[first - 1 : last]) + "\n"
    if body[:1] in (" ", "\t", "\f"):
        return "if True:\n" + body, first - 2
    return body, first - 1
