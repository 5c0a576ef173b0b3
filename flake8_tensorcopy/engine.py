"""The analysis core: source text -> one parse -> one batched pass -> findings.

The flake8 plugin, the CLI and the fixer all call into this module; nothing else
parses or walks code.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from . import prefilter
from .imports import ImportTable
from .rule import Context, Fix, Report, Rule
from .rules import ALL_RULES
from .scopes import ScopeCloser, ScopeOpener


class AnalysisError(Exception):
    """The file could not be analysed; ``str(error)`` says why."""


@dataclass(frozen=True, order=True)
class Finding:
    line: int  # 1-based
    col: int  # 0-based, in code points (what flake8 expects)
    code: str
    message: str
    fix: Fix | None = field(default=None, compare=False, repr=False)


def rules_for(codes: Iterable[str] | None = None) -> list[type[Rule]]:
    """The rule classes for ``codes``; by default those enabled by default."""
    if codes is None:
        return [rule for rule in ALL_RULES if rule.enabled_by_default]
    wanted = set(codes)
    return [rule for rule in ALL_RULES if rule.code in wanted]


def lint_source(
    source: str,
    tree: ast.Module | None = None,
    *,
    rules: Sequence[type[Rule]] | None = None,
    shortcuts: bool = True,
) -> list[Finding]:
    """Findings for ``source``. ``tree`` is its ``ast`` (flake8 passes the one it has).

    ``shortcuts=False`` parses the whole file whatever the triggers say; it exists so
    that tests can prove the shortcuts lose nothing.
    Raises :class:`AnalysisError` when the file cannot be analysed.
    """
    rules = rules_for() if rules is None else rules
    source = _normalise_newlines(source)
    try:
        tree = tree if tree is not None else ast.parse(source)
    except (SyntaxError, ValueError) as error:
        raise AnalysisError(f"not valid Python: {error}") from None
    imports = ImportTable.from_ast(tree)
    plan = prefilter.plan(source, tree, rules, imports) if shortcuts else prefilter.WHOLE_FILE
    if plan.whole_file:
        return sorted(set(_lint_chunk(source, 0, imports, rules)))
    findings: set[Finding] = set()
    lines = source.split("\n")
    for first, last in plan.spans:
        chunk, offset = _function_chunk(lines, first, last)
        findings.update(_lint_chunk(chunk, offset, imports, rules))
    return sorted(findings)


def analyse_module(module: cst.Module, imports: ImportTable, rules: Sequence[type[Rule]]) -> list[Report]:
    """Run every rule over ``module`` in one batched traversal."""
    context = Context(imports)
    visitors = [ScopeOpener(context), *(rule(context) for rule in rules), ScopeCloser(context)]
    module.visit(_BatchedVisitor(visitors))
    return context.reports


def parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise AnalysisError(f"LibCST cannot parse it: {error.message} (line {error.raw_line})") from None
    except RecursionError:
        raise AnalysisError("too deeply nested for LibCST") from None


def _lint_chunk(chunk: str, line_offset: int, imports: ImportTable, rules: Sequence[type[Rule]]) -> list[Finding]:
    module = parse(chunk)
    try:
        reports = analyse_module(module, imports, rules)
        if not reports:
            return []
        # Positions cost a code generation of the whole chunk: only pay when needed.
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    except RecursionError:
        raise AnalysisError("too deeply nested for LibCST") from None
    findings = []
    for report in reports:
        start = positions[report.node].start
        findings.append(Finding(start.line + line_offset, start.column, report.code, report.message, report.fix))
    return findings


def _function_chunk(lines: list[str], first: int, last: int) -> tuple[str, int]:
    """The source of lines ``first..last`` as a parsable module, and its line offset.

    An indented method is parsed under ``if True:`` so its indentation stays valid
    and its columns stay those of the file.
    """
    body = "\n".join(lines[first - 1 : last]) + "\n"
    if body[:1] in (" ", "\t"):
        return "if True:\n" + body, first - 2
    return body, first - 1


def _normalise_newlines(source: str) -> str:
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    return source


class _BatchedVisitor(cst.CSTVisitor):
    """Calls every visitor's ``visit_<Node>``/``leave_<Node>`` in list order."""

    def __init__(self, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
        self.visits: dict[str, list[Callable[[cst.CSTNode], None]]] = defaultdict(list)
        self.leaves: dict[str, list[Callable[[cst.CSTNode], None]]] = defaultdict(list)
        for visitor in visitors:
            for hook in _hook_names(type(visitor)):
                kind, _, node_type = hook.partition("_")
                table = self.visits if kind == "visit" else self.leaves
                table[node_type].append(getattr(visitor, hook))

    def on_visit(self, node: cst.CSTNode) -> bool:
        for hook in self.visits.get(type(node).__name__, ()):
            hook(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for hook in self.leaves.get(type(original_node).__name__, ()):
            hook(original_node)


@functools.cache
def _hook_names(visitor_class: type) -> tuple[str, ...]:
    """The node hooks a visitor class really defines (LibCST's stubs are no-ops)."""
    names = []
    for name in dir(visitor_class):
        if name.startswith(("visit_", "leave_")) and name.count("_") == 1:
            if not getattr(getattr(visitor_class, name), "_is_no_op", False):
                names.append(name)
    return tuple(names)
