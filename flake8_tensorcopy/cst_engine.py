"""The rules whose detection still reads LibCST's tree: one batched pass over a parsed part."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from . import positions
from .analysis.summary import ModuleSummary
from .cst_rule import CstContext, CstRule
from .rule import Report
from .scopes import ScopeCloser, ScopeOpener
from .walk import Walker


def analyse_module(module: cst.Module, summary: ModuleSummary, rules: Sequence[type[CstRule]], scope: str = "") -> list[Report]:
    """Run every rule over ``module`` in one batched traversal; ``summary`` is that of the
    whole file, ``scope`` the qualified name of the scope ``module`` was cut from."""
    context = CstContext(summary, scope)
    context.codes = frozenset(rule.code for rule in rules)
    analysers = dict.fromkeys(rule.analyser() for rule in rules)  # one visitor for the codes it reports
    visitors = [ScopeOpener(context), *(analyser(context) for analyser in analysers), ScopeCloser(context)]
    Walker(visitors).walk(module)
    return context.reports


def lint_parsed(module: cst.Module, line_offset: int, summary: ModuleSummary, scope: str,
                rules: Sequence[type[CstRule]], ends: bool) -> list[tuple]:
    """The findings of ``module``, each as the fields of ``engine.Finding`` in order."""
    reports = analyse_module(module, summary, rules, scope)
    if not reports:
        return []
    # Positions cost a code generation of the whole chunk: only pay when needed.
    nodes = [report.node for report in reports]
    if ends:
        spans = positions.ranges(module, nodes)
    else:
        spans = {key: (start, (None, None)) for key, start in positions.starts(module, nodes).items()}
    findings = []
    for report in reports:
        (line, column), (end_line, end_column) = spans[id(report.node)]
        if end_line is not None:
            end_line += line_offset
        findings.append((line + line_offset, column, report.code, report.message, report.fix, end_line, end_column))
    return findings
