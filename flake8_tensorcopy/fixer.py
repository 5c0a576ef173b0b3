"""Apply the rules' fixes to a source text, on the same analysis core as the flake8 plugin.

One pass: parse the whole file once (LibCST and ``ast``), run every selected rule with
:func:`engine.analyse_module`, keep the findings whose fix may be applied (safe, or
unsafe when asked; not silenced by ``# noqa``), choose the ones whose edits do not
overlap, and apply them with one transformer (nodes are replaced by identity). Then
lint the result again and repeat, a bounded number of times, until no fix is left.

The result is checked before anyone sees it: it must parse with LibCST and ``ast``,
and re-linting must find no more findings of any code than before minus those fixed.
Anything else raises :class:`FixError` and the caller keeps the original text. So does a
file over :data:`limits.MAX_FIXED_TOKENS` tokens, before any work: every pass handles the
whole file, and for a 10,000-line one that takes minutes.

Only text inside a fixed node changes: LibCST regenerates everything else byte for
byte (comments, blank lines, line endings). Encoding is the caller's business
(see ``cli.py``): this module works on ``str``.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from . import engine, limits, noqa, positions
from .runtime import yielding
from .analysis.summary import ModuleSummary
from .imports import ImportTable
from .rule import Fix, Report, Rule, applicable  # noqa: F401 (applicable: the fixer's, to its callers)

MAX_PASSES = 8


class FixError(Exception):
    """The fixes could not be applied safely; ``str(error)`` says why. Keep the original."""


@dataclass(frozen=True)
class AppliedFix:
    line: int  # where the finding was, in the text of the pass that fixed it
    code: str
    description: str
    safe: bool


@dataclass
class FixResult:
    source: str
    applied: list[AppliedFix] = field(default_factory=list)
    imports_added: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)

    def counts(self) -> Counter[str]:
        return Counter(fix.code for fix in self.applied)


def fix_source(
    source: str,
    rules: Sequence[type[Rule]] | None = None,
    *,
    unsafe: bool = False,
    honour_noqa: bool = True,
    max_passes: int = MAX_PASSES,
    keep_lines_with: str = "",
    only: tuple[int, int, str] | None = None,
    path: str | None = None,
) -> FixResult:
    """``source`` with every applicable fix applied. Raises :class:`FixError` or
    :class:`engine.AnalysisError`; the caller then keeps ``source``.

    A fix that would rewrite or re-indent a line holding ``keep_lines_with`` (a notebook's
    stand-in for IPython syntax) is not applied: its finding stays. ``only`` = ``(line,
    column, code)`` of one finding: apply that finding's fix alone, in one pass (an editor's
    quick fix), checked like the others. ``path``: the file's name, so that the fixes see
    what its findings saw of the project (``engine.lint_source``).
    """
    rules = engine.rules_for() if rules is None else rules
    too_big = limits.Budget(limits.MAX_FIXED_TOKENS, what="fix").spend(source)
    if too_big:
        raise FixError(too_big)
    result = FixResult(source)
    unfixable: Counter[str] | None = None
    text = source
    for _ in range(max_passes + 1):
        yielding.checkpoint()  # a language server's pull goes first
        try:
            module, reports, starts = _analyse(text, rules, path)
        except engine.AnalysisError as error:
            if text is source:
                raise
            raise FixError(f"the fixed code does not re-parse ({error})") from None
        silenced = noqa.Silencer(text) if honour_noqa else None
        candidates = [
            (report, line)
            for report, (line, column) in zip(reports, starts)
            if applicable(report.fix, unsafe)
            and not (silenced and silenced.silences(report.code, line))
            and not (keep_lines_with and _rewrites_text(module, report.fix, keep_lines_with))
            and (only is None or (line, column, report.code) == only)
        ]
        if only is not None and result.applied:  # that one fix is in: only the checks below are left
            candidates = []
        if unfixable is None:  # the findings no fix was going to remove
            unfixable = Counter(report.code for report in reports) - Counter(r.code for r, _ in candidates)
        if not candidates:
            break
        chosen = _non_overlapping(candidates)
        yielding.checkpoint()
        try:
            text, imports = _apply(module, [report.fix for report, _ in chosen], keep_lines_with)
        except Exception as error:  # e.g. a rule built a node LibCST refuses
            codes = ", ".join(sorted({report.code for report, _ in chosen}))
            raise FixError(f"a fix ({codes}) could not be applied: {type(error).__name__}: {error}") from None
        result.applied.extend(
            AppliedFix(line, report.code, report.fix.description, report.fix.safe) for report, line in chosen
        )
        result.imports_added.extend(imports)
    else:
        raise FixError(f"the fixes did not settle after {max_passes} passes (a fix keeps re-creating its finding)")
    # Every finding left must be one that had no applicable fix to begin with: a fix may
    # reveal a finding that the next pass fixes, but must not leave a new one behind.
    left = Counter(report.code for report in reports)
    for code, count in sorted(left.items()):
        if count > unfixable[code]:
            raise FixError(
                f"re-linting the fixed code finds {count} {code} finding(s) where {unfixable[code]} "
                "had no fix: a fix left a new finding behind"
            )
    result.source = text
    return result


def _analyse(
    text: str, rules: Sequence[type[Rule]], path: str | None
) -> tuple[cst.Module, list[Report], list[tuple[int, int]]]:
    """Parse ``text`` both ways and run the rules: (module, reports, where each report starts)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as error:
        raise engine.AnalysisError(f"not valid Python: {error}") from None

    def work() -> tuple[cst.Module, list[Report], list[tuple[int, int]]]:
        module = engine.parse(text)
        reports = engine.analyse_module(module, ModuleSummary.of(tree, None, path), rules)
        starts: list[tuple[int, int]] = []
        if reports:
            where = positions.starts(module, [report.node for report in reports])
            starts = [where[id(report.node)] for report in reports]
        return module, reports, starts

    return _deep(work)


def _deep(work: Callable[[], object]):
    """Run ``work`` where LibCST may recurse deeply, as the engine does when it can."""
    deep = getattr(engine, "with_deep_recursion", None)
    try:
        return deep(work) if deep is not None else work()
    except RecursionError:
        raise engine.AnalysisError("too deeply nested for LibCST") from None


def _rewrites_text(module: cst.Module, fix: Fix, text: str) -> bool:
    """Whether ``fix`` replaces or re-indents code that holds ``text``. The comments above a
    wrapped statement do not count: ``_Applier`` leaves those holding ``text`` above its ``with``."""
    nodes = [old for old, _ in fix.replacements] + [statement.with_changes(leading_lines=()) for statement in fix.wrap]
    return any(text in module.code_for_node(node) for node in nodes)


# -- choosing fixes that do not overlap ------------------------------------------------
def _subtree_ids(node: cst.CSTNode, into: set[int]) -> None:
    stack = [node]
    while stack:
        current = stack.pop()
        into.add(id(current))
        stack.extend(current.children)


def _non_overlapping(candidates: list[tuple[Report, int]]) -> list[tuple[Report, int]]:
    """The candidates (in source order) whose edits touch no node another one rewrites.

    A fix rewrites the subtrees of its replaced nodes; it is anchored at those nodes and
    at the statements it wraps. Two fixes clash when one's anchor lies in the other's
    rewritten subtrees, or when they wrap one statement with different context managers.
    The ones left out are found again, on fresh nodes, by the next pass.
    """
    covered: set[int] = set()
    anchors: set[int] = set()
    wrappers: dict[int, str] = {}
    chosen = []
    for report, line in sorted(candidates, key=lambda item: item[1]):
        fix = report.fix
        mine: set[int] = set()
        for old, _ in fix.replacements:
            _subtree_ids(old, mine)
        my_anchors = {id(old) for old, _ in fix.replacements} | {id(statement) for statement in fix.wrap}
        if my_anchors & covered or anchors & mine:
            continue
        if any(wrappers.get(id(statement), fix.wrap_with) != fix.wrap_with for statement in fix.wrap):
            continue
        covered |= mine
        anchors |= my_anchors
        for statement in fix.wrap:
            wrappers[id(statement)] = fix.wrap_with
        chosen.append((report, line))
    return chosen


# -- applying them ---------------------------------------------------------------------
def _apply(module: cst.Module, fixes: Iterable[Fix], keep_lines_with: str = "",
           add_imports: bool = True) -> tuple[str, list[str]]:
    """The code of ``module`` with ``fixes`` applied, and the import statements added
    (without ``add_imports``: those it needs and lacks, for the caller to add)."""
    replacements: dict[int, object] = {}
    wraps: dict[int, str] = {}
    needed: list[str] = []
    keep_alive: list[cst.CSTNode] = []  # ids are only unique while their nodes live
    for fix in fixes:
        for old, new in fix.replacements:
            replacements[id(old)] = new
            keep_alive.append(old)
        for statement in fix.wrap:
            wraps[id(statement)] = fix.wrap_with
            keep_alive.append(statement)
        if fix.needs_import:
            statement = _import_statement(fix.needs_import)
            if statement not in needed:
                needed.append(statement)

    def transform() -> tuple[str, list[str]]:
        updated = module.visit(_Applier(replacements, wraps, keep_lines_with))
        added = [statement for statement in needed if not _has_import(updated, statement)]
        if added and add_imports:
            updated = _add_imports(updated, added)
        return updated.code, added

    return _deep(transform)


class _Applier(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, object], wraps: dict[int, str], keep_lines_with: str = "") -> None:
        super().__init__()
        self.replacements = replacements
        self.wraps = wraps
        self.keep_lines_with = keep_lines_with
        self.wrapped: dict[int, str] = {}  # id(updated statement) -> context manager
        self.keep_alive: list[cst.CSTNode] = []

    def on_leave(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        if new is not None:
            return new
        wrapper = self.wraps.get(id(original_node))
        if wrapper is not None:
            self.wrapped[id(updated_node)] = wrapper
            self.keep_alive.append(updated_node)
        if isinstance(updated_node, (cst.IndentedBlock, cst.Module)) and self.wrapped:
            body = self._group(updated_node.body)
            if body is not None:
                return updated_node.with_changes(body=body)
        return updated_node

    def _group(self, body: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement] | None:
        """``body`` with each run of consecutive wrapped statements under one ``with``; a
        statement with a kept line among the comments above it starts a new run, so that
        those comments stay where they are."""
        if not any(id(statement) in self.wrapped for statement in body):
            return None
        grouped: list[cst.BaseStatement] = []
        run: list[cst.BaseStatement] = []
        run_wrapper: str | None = None

        def flush() -> None:
            if run:
                grouped.append(_with(run_wrapper, run))
                run.clear()

        for statement in body:
            wrapper = self.wrapped.get(id(statement))
            if wrapper is not None and wrapper == run_wrapper and run and not self._keeps_lines_above(statement):
                run.append(statement)
                continue
            flush()
            if wrapper is not None:
                run_wrapper = wrapper
                run.append(statement)
            else:
                grouped.append(statement)
        flush()
        return grouped

    def _keeps_lines_above(self, statement: cst.BaseStatement) -> bool:
        return bool(self.keep_lines_with) and any(
            line.comment is not None and self.keep_lines_with in line.comment.value for line in statement.leading_lines
        )


def _with(wrapper: str, statements: list[cst.BaseStatement]) -> cst.With:
    """``with wrapper:`` around ``statements``; the comments above the first stay above."""
    first, *rest = statements
    return cst.With(
        items=[cst.WithItem(item=cst.parse_expression(wrapper))],
        body=cst.IndentedBlock(body=[first.with_changes(leading_lines=()), *rest]),
        leading_lines=first.leading_lines,
    )


# -- imports -------------------------------------------------------------------------
def _import_statement(needed: str) -> str:
    needed = needed.strip()
    return needed if needed.startswith(("import ", "from ")) else f"import {needed}"


def _bound_by(statement: str) -> dict[str, str]:
    return ImportTable.from_ast(ast.parse(statement)).aliases


def _has_import(module: cst.Module, statement: str) -> bool:
    """Whether ``module`` already binds, at its top level, what ``statement`` binds."""
    wanted = _bound_by(statement)
    have: dict[str, str] = {}
    for node in module.body:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    have.update(_bound_by(module.code_for_node(small)))
    return all(have.get(local) == name for local, name in wanted.items())


def _add_imports(module: cst.Module, statements: list[str]) -> cst.Module:
    """Insert ``statements`` after the docstring and ``from __future__`` imports."""
    body = list(module.body)
    position = 0
    while position < len(body) and _is_preamble(body[position], position):
        position += 1
    new = [cst.parse_statement(statement + module.default_newline) for statement in statements]
    if position < len(body):
        following = body[position]
        if _is_import(following):  # join that import block: its comments now head it
            new[0] = new[0].with_changes(leading_lines=following.leading_lines)
            body[position] = following.with_changes(leading_lines=())
        else:  # blank lines on both sides; the comments stay with their statement
            blank = []
            for line in following.leading_lines:
                if line.comment is not None:
                    break
                blank.append(line)
            new[0] = new[0].with_changes(leading_lines=blank)
            if not blank:  # PEP 8: two blank lines before a def or class, one before code
                count = 2 if isinstance(following, (cst.FunctionDef, cst.ClassDef)) else 1
                body[position] = following.with_changes(
                    leading_lines=[*(cst.EmptyLine() for _ in range(count)), *following.leading_lines]
                )
    return module.with_changes(body=[*body[:position], *new, *body[position:]])


def _is_import(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(
        statement.body[0], (cst.Import, cst.ImportFrom)
    )


def _is_preamble(statement: cst.BaseStatement, position: int) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    small = statement.body[0]
    if position == 0 and isinstance(small, cst.Expr):
        return isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))  # the docstring
    return (
        isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) and small.module.value == "__future__"
    )
