"""From findings made on ``ast`` to fixes written with LibCST.

A rule decides on ``ast`` whether a finding has a fix (a :class:`rule.FixPlan`, naming the
``ast`` nodes it edits); only a run that shows or applies fixes parses the part of the file
holding the finding with LibCST. Each ``ast`` node is matched to the LibCST node of the same
kind that spans the same code (both trees leave a node's own parentheses out of its span),
and the plan's builder makes the :class:`rule.Fix` from those.
"""

from __future__ import annotations

import ast

import libcst as cst

from . import positions
from .rule import Fix, FixPlan, FixSite, Report
from .spans import Span, span_of

# The LibCST node types that stand for each ``ast`` node type.
_KINDS: dict[type, tuple[type, ...]] = {
    ast.Call: (cst.Call,),
    ast.Attribute: (cst.Attribute,),
    ast.Name: (cst.Name,),
    ast.Subscript: (cst.Subscript,),
    ast.BinOp: (cst.BinaryOperation,),
    ast.BoolOp: (cst.BooleanOperation,),
    ast.Compare: (cst.Comparison,),
    ast.UnaryOp: (cst.UnaryOperation,),
    ast.IfExp: (cst.IfExp,),
    ast.NamedExpr: (cst.NamedExpr,),
    ast.Lambda: (cst.Lambda,),
    ast.List: (cst.List,),
    ast.Tuple: (cst.Tuple,),
    ast.Set: (cst.Set,),
    ast.Dict: (cst.Dict,),
    ast.ListComp: (cst.ListComp,),
    ast.SetComp: (cst.SetComp,),
    ast.DictComp: (cst.DictComp,),
    ast.GeneratorExp: (cst.GeneratorExp,),
    ast.Starred: (cst.StarredElement, cst.Arg),
    ast.Await: (cst.Await,),
    ast.Yield: (cst.Yield,),
    ast.YieldFrom: (cst.Yield,),
    ast.JoinedStr: (cst.FormattedString,),
    ast.Constant: (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Name, cst.Ellipsis),
    ast.keyword: (cst.Arg,),
    ast.arg: (cst.Param,),
    ast.Expr: (cst.Expr,),
    ast.Assign: (cst.Assign,),
    ast.AugAssign: (cst.AugAssign,),
    ast.AnnAssign: (cst.AnnAssign,),
    ast.Return: (cst.Return,),
    ast.Delete: (cst.Del,),
    ast.Pass: (cst.Pass,),
    ast.Raise: (cst.Raise,),
    ast.Assert: (cst.Assert,),
    ast.Import: (cst.Import,),
    ast.ImportFrom: (cst.ImportFrom,),
    ast.If: (cst.If,),
    ast.For: (cst.For,),
    ast.AsyncFor: (cst.For,),
    ast.While: (cst.While,),
    ast.With: (cst.With,),
    ast.AsyncWith: (cst.With,),
    ast.FunctionDef: (cst.FunctionDef,),
    ast.AsyncFunctionDef: (cst.FunctionDef,),
    ast.ClassDef: (cst.ClassDef,),
    ast.Try: (cst.Try,),
}


class SiteFinder:
    """The LibCST nodes of ``module`` by span, for matching ``ast`` nodes of the same text."""

    def __init__(self, module: cst.Module, text: str) -> None:
        self.module = module
        self.lines = text.split("\n")
        nodes: list[cst.CSTNode] = []
        self.statement_lines: dict[int, cst.SimpleStatementLine] = {}
        stack: list[cst.CSTNode] = [module]
        while stack:
            node = stack.pop()
            nodes.append(node)
            if isinstance(node, cst.SimpleStatementLine):
                for small in node.body:
                    self.statement_lines[id(small)] = node
            stack.extend(node.children)
        spans = positions.ranges(module, nodes)
        self.by_span: dict[Span, list[cst.CSTNode]] = {}
        for node in nodes:
            span = spans.get(id(node))
            if span is not None:
                self.by_span.setdefault(span, []).append(node)

    def node_for(self, node: ast.AST) -> cst.CSTNode | None:
        """The LibCST node that stands for ``node`` (None when none spans the same code)."""
        kinds = _KINDS.get(type(node))
        if kinds is None or not hasattr(node, "lineno"):
            return None
        candidates = self.by_span.get(span_of(node, self.lines), ())
        matching = [candidate for candidate in candidates if isinstance(candidate, kinds)]
        return matching[0] if matching else None

    def site(self, plan: FixPlan) -> FixSite | None:
        nodes = tuple(self.node_for(anchor) for anchor in plan.anchors)
        if any(node is None for node in nodes):
            return None
        return FixSite(self.module, nodes, plan.data, self.statement_lines)


def with_fixes(module: cst.Module, text: str, reports: list[Report]) -> list[Report]:
    """``reports`` (made on the ``ast`` of ``text``) on the LibCST nodes of ``module`` (parsed
    from the same text), each with its plan built into a :class:`Fix`. A report whose node
    has no counterpart is dropped: without one, nothing can say where it is in ``module``."""
    finder = SiteFinder(module, text)
    built = []
    for report in reports:
        node = finder.node_for(report.node)
        if node is None:
            node = _nearest(finder, report.node)
        if node is None:
            continue
        fix = None
        if isinstance(report.fix, FixPlan):
            site = finder.site(report.fix)
            fix = report.fix.build(site) if site is not None else None
        elif isinstance(report.fix, Fix):
            fix = report.fix
        built.append(Report(node, report.code, report.message, fix))
    return built


def _nearest(finder: SiteFinder, node: ast.AST) -> cst.CSTNode | None:
    """Any LibCST node that starts where ``node`` does (for an ``ast`` type with no twin)."""
    start, _ = span_of(node, finder.lines)
    for span, nodes in finder.by_span.items():
        if span[0] == start:
            return nodes[-1]
    return None
