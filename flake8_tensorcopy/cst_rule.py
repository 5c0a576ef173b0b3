"""The LibCST form of a rule, for the rules whose detection has not moved to ``ast`` yet."""

from __future__ import annotations

import libcst as cst

from .analysis.summary import ModuleSummary
from .inference import Inference
from .rule import Fix, Report, RuleBase


class CstContext:
    """Shared by all rules of one batched pass."""

    def __init__(self, summary: ModuleSummary, scope: str = "") -> None:
        """``scope``: the qualified name of the scope around the parsed code ("" for the
        module, "Trainer" for a method parsed on its own)."""
        self.imports = summary.imports
        self.inference = Inference(summary.imports, summary, scope)
        self.reports: list[Report] = []
        # Nesting depth of ``with torch.no_grad()`` / ``inference_mode`` (and decorated
        # functions): a fix needs no wrapper inside one.
        self.no_grad_depth = 0
        self.loops: list[cst.CSTNode] = []
        self.functions: list[cst.FunctionDef] = []
        self.statements: list[cst.SimpleStatementLine] = []  # the enclosing statement line
        # The codes asked for: a rule that reports several (see ``Rule.reported_by``) drops
        # the others' findings. None: every code.
        self.codes: frozenset[str] | None = None



class CstRule(RuleBase, cst.BatchableCSTVisitor):
    """One lint rule whose detection walks LibCST's tree."""

    on_ast = False

    def __init__(self, context: CstContext) -> None:
        cst.BatchableCSTVisitor.__init__(self)
        self.context = context
        self.inference = context.inference

    def report(self, node: cst.CSTNode, message: str | None = None, fix: Fix | None = None, code: str | None = None) -> None:
        code = code or self.code
        if self.context.codes is not None and code not in self.context.codes:
            return
        self.context.reports.append(Report(node, code, f"{code} {message or self.message}", fix))
