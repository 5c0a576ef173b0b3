"""One walk over a scope's own code, shared by the module summary and the prefilter's gates.

A scope is a function or the module itself. Its own code is its body with the classes,
lambdas and comprehensions in it, and a function's decorators, defaults and annotations
(LibCST visits them inside the def, so the rules judge them with it); not the code of
the functions nested in it, which are scopes of their own. Each node comes with what the
gates ask of its place: the loops around it, whether an ``if`` on a metric holds it
(``if acc > best_acc:``), and whether it runs under ``torch.no_grad()``. The walk is paid
once per scope, however many gates and facts read it. Names and constants, two nodes in
five, come apart (``leaves``): most readers look for calls and statements only. Operators
and load/store contexts are left out.
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from ..imports import FUNCTION_DEFS, ImportTable
from .vocabulary import METRIC_FLAGS, NO_GRAD_CONTEXTS

# Where a node is in its scope: the body, the def's header (decorators, defaults,
# annotations), or inside a lambda or comprehension of the body (a scope of its own for
# the names it binds, but for ``:=``).
BODY, HEADER, NESTED = 0, 1, 2

# (node, the loops around it in the scope with the innermost last, under an `if` on a
# metric, under no_grad, where)
OwnNode = tuple[ast.AST, tuple[ast.AST, ...], bool, bool, int]

_EXPRESSION_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# The kinds of node that change the place of what they hold (or end the walk, a nested def).
_PLACE_CHANGERS = frozenset({
    *FUNCTION_DEFS, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.If, *_EXPRESSION_SCOPES,
})
_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class OwnCode(NamedTuple):
    nodes: list[OwnNode]  # every node but the leaves, in no particular order
    leaves: list[OwnNode]  # the names and constants


_LEAVES = (ast.Name, ast.Constant)
_SKIPPED = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
# Fields that never hold a node the walk keeps: names, numbers, flags, and the contexts and
# operators it skips. Left out of each kind's fields, they cost no look at all.
_NEVER_NODES = frozenset({
    "ctx", "op", "id", "attr", "arg", "asname", "module", "level", "kind", "type_comment", "conversion",
    "simple", "is_async",
})
_FIELDS: dict[type, tuple[str, ...]] = {}  # a kind of node -> the fields the walk looks in


def own_code(scope: ast.AST, imports: ImportTable) -> OwnCode:
    """Every node of ``scope``'s own code. A nested def is listed (it binds its name here)
    but not walked into."""
    nodes: list[OwnNode] = []
    leaves: list[OwnNode] = []
    header = [*scope.decorator_list, scope.args, scope.returns] if isinstance(scope, FUNCTION_DEFS) else []
    decorated = bool(header) and any(_no_grad(decorator, imports) for decorator in scope.decorator_list)
    stack: list[OwnNode] = [(node, (), False, decorated, BODY) for node in scope.body]
    stack += [(node, (), False, decorated, HEADER) for node in header if node is not None]
    while stack:
        entry = stack.pop()
        node, loops, branched, quiet, where = entry
        kind = type(node)
        if kind is ast.Name or kind is ast.Constant:  # a bare decorator or return annotation
            leaves.append(entry)
            continue
        nodes.append(entry)
        if kind in _PLACE_CHANGERS:
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                continue  # a nested scope
            if kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
                loops = (*loops, node)
            elif (kind is ast.With or kind is ast.AsyncWith) and not quiet:
                quiet = any(_no_grad(item.context_expr, imports) for item in node.items)
            elif kind is ast.If and not branched:
                branched = compares_metrics(node.test)
            elif kind in _EXPRESSION_SCOPES and where == BODY:
                where = NESTED
        fields = _FIELDS.get(kind)
        if fields is None:
            fields = _FIELDS[kind] = tuple(field for field in kind._fields if field not in _NEVER_NODES)
        for field in fields:
            child = getattr(node, field, None)
            if isinstance(child, list):  # may hold None (``{**d}``) or names (``global a``)
                for item in child:
                    if isinstance(item, _LEAVES):
                        leaves.append((item, loops, branched, quiet, where))
                    elif isinstance(item, ast.AST):
                        stack.append((item, loops, branched, quiet, where))
            elif isinstance(child, _LEAVES):
                leaves.append((child, loops, branched, quiet, where))
            elif isinstance(child, ast.AST) and not isinstance(child, _SKIPPED):
                stack.append((child, loops, branched, quiet, where))
    return OwnCode(nodes, leaves)


def compares_metrics(test: ast.expr) -> bool:
    """``if acc > best_acc:``, ``if loss < best and ...:``, ``if is_best:``: TCP008's test of
    a branch that keeps a best model."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Compare):
            if any(isinstance(op, _ORDERINGS) for op in node.ops):
                return True
        elif isinstance(node, ast.BoolOp):
            stack += node.values
        elif isinstance(node, ast.UnaryOp):
            stack.append(node.operand)
        elif isinstance(node, (ast.Name, ast.Attribute)):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if any(flag in name.lower() for flag in METRIC_FLAGS):
                return True
    return False


def _no_grad(expression: ast.expr, imports: ImportTable) -> bool:
    """``torch.no_grad()`` or ``inference_mode`` (also bare, as a decorator)."""
    target = expression.func if isinstance(expression, ast.Call) else expression
    return imports.qualify_expression(target) in NO_GRAD_CONTEXTS
