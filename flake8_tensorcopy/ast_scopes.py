"""The bookkeeping visitors that run around the rules in the walk over ``ast``.

:class:`ScopeOpener` runs before every rule on each node: it opens scopes, binds
parameters and loop variables, and tracks loops, functions, statements and ``no_grad``
blocks. :class:`ScopeCloser` runs after every rule: it records assignments (so a rule
looking at ``x = x.detach()`` still sees the old ``x``) and closes what the opener opened.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .analysis.evaluator import annotation_info, bound_names, method_call, narrowed_name
from .analysis.vocabulary import NAMED_PARAMETER_ITERATORS, NO_GRAD_CONTEXTS, PARAMETER, PARAMETER_ITERATORS, TENSOR

if TYPE_CHECKING:
    from .analysis.evaluator import Inference
    from .rule import Context


def is_no_grad(context: Context, expr: ast.expr) -> bool:
    """``torch.no_grad()``, ``th.inference_mode()``, also used bare as a decorator."""
    target = expr.func if isinstance(expr, ast.Call) else expr
    return context.imports.qualify_expression(target) in NO_GRAD_CONTEXTS


def _parameters(arguments: ast.arguments) -> list[ast.arg]:
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]


class ScopeOpener:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.inference = context.inference

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.context.functions.append(node)
        self.inference.push(inherit=False, name=node.name, function=True)
        arguments = node.args
        for parameter in _parameters(arguments):
            info = annotation_info(parameter.annotation, self.inference.imports)
            self.inference.bind(parameter.arg, None, info, parameter=True)
        for star in (arguments.vararg, arguments.kwarg):
            if star is not None:
                self.inference.bind(star.arg, None, None)
        if any(is_no_grad(self.context, decorator) for decorator in node.decorator_list):
            self.context.no_grad_depth += 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.inference.push(inherit=False, name=node.name)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        arguments = node.args
        names = {parameter.arg for parameter in _parameters(arguments)}
        for star in (arguments.vararg, arguments.kwarg):
            if star is not None:
                names.add(star.arg)
        self.inference.push(inherit=True, shadowed=names)

    def _visit_comprehension(self, node: ast.ListComp) -> None:
        names: set[str] = set()
        for clause in node.generators:
            names.update(bound_names(clause.target))
        self.inference.push(inherit=True, shadowed=names)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension

    def visit_For(self, node: ast.For) -> None:
        self.context.loops.append(node)
        self.inference.bind_later(
            bound_names(node.target), node.iter, lambda inference: bind_loop_target(inference, node.target, node.iter)
        )

    def visit_While(self, node: ast.While) -> None:
        self.context.loops.append(node)

    def visit_For_body(self, node: ast.For) -> None:
        self.inference.enter_branches()

    visit_While_body = visit_For_body

    def visit_If_body(self, node: ast.If) -> None:
        self.inference.enter_branches()
        self._narrow(node.test, in_body=True)

    def visit_If_orelse(self, node: ast.If) -> None:
        if node.orelse:
            self.inference.next_branch()
            self._narrow(node.test, in_body=False)

    def _narrow(self, test: ast.expr, in_body: bool) -> None:
        """Inside ``if not isinstance(x, torch.Tensor):`` x is no tensor (else-branch alike)."""
        narrowed = narrowed_name(test, self.inference.imports)
        if narrowed and narrowed[1] != in_body:
            self.inference.forget(narrowed[0])

    def visit_IfExp_body(self, node: ast.IfExp) -> None:
        self._narrow_expression(node, in_body=True)

    def visit_IfExp_orelse(self, node: ast.IfExp) -> None:
        self._narrow_expression(node, in_body=False)

    def _narrow_expression(self, node: ast.IfExp, in_body: bool) -> None:
        narrowed = narrowed_name(node.test, self.inference.imports)
        shadowed = {narrowed[0]} if narrowed and narrowed[1] != in_body else set()
        self.inference.push(inherit=True, shadowed=shadowed)

    def visit_With(self, node: ast.With) -> None:
        if any(is_no_grad(self.context, item.context_expr) for item in node.items):
            self.context.no_grad_depth += 1
        for item in node.items:
            if item.optional_vars is not None:
                self.inference.bind_target(item.optional_vars, None)

    def visit_SimpleStatement(self, node: ast.stmt) -> None:
        self.context.statements.append(node)


def bind_loop_target(inference: Inference, target: ast.expr, iterable: ast.expr) -> None:
    """``for p in m.parameters()``, ``for name, p in m.named_parameters()``, ``for row in t``
    over a tensor (rows, and what unpacking a row gives, are tensors), and ``zip``,
    ``enumerate`` and ``reversed`` of those."""
    if inference.is_tensor(iterable) and isinstance(target, (ast.Name, ast.Tuple, ast.List)):
        inference.bind_target(target, None)
        facts = inference.facts
        if facts is not None and facts.legacy_scalars:
            return  # code of PyTorch 0.3 and before: the rows of a 1-d tensor were numbers
        for name in _plain_names(target):
            inference.bind(name, None, TENSOR)
        return
    builtin = _builtin_call(iterable)
    arguments = iterable.args if isinstance(iterable, ast.Call) else []
    plain = isinstance(iterable, ast.Call) and not iterable.keywords and not any(
        isinstance(arg, ast.Starred) for arg in arguments
    )
    if builtin == "reversed" and len(arguments) == 1 and not iterable.keywords:
        bind_loop_target(inference, target, arguments[0])
        return
    if builtin == "zip" and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(arguments) and plain:
        for element, argument in zip(target.elts, arguments):
            bind_loop_target(inference, element, argument)
        return
    called = method_call(iterable)
    if called and called[1] in PARAMETER_ITERATORS and isinstance(target, ast.Name):
        inference.bind(target.id, None, PARAMETER)
        return
    if called and called[1] in NAMED_PARAMETER_ITERATORS and _pair(target):
        inference.bind_target(target, None)
        inference.bind(target.elts[1].id, None, PARAMETER)
        return
    if builtin == "enumerate" and (arguments or iterable.keywords) and _pair(target):
        inference.bind_target(target, None)
        first = arguments[0] if arguments else iterable.keywords[0].value
        bind_loop_target(inference, target.elts[1], first)
        return
    inference.bind_target(target, None)


def _plain_names(target: ast.expr):
    """The names of a target made of names and nested tuples; starred ones (which get a
    list) are left out."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            if not isinstance(element, ast.Starred):
                yield from _plain_names(element)


def _builtin_call(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _pair(target: ast.expr) -> bool:
    return isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name)


class ScopeCloser:
    def __init__(self, context: Context) -> None:
        self.context = context
        self.inference = context.inference

    def leave_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.inference.pop()
        self.context.functions.pop()
        if any(is_no_grad(self.context, decorator) for decorator in node.decorator_list):
            self.context.no_grad_depth -= 1
        # The function's own name is bound in the enclosing scope.
        self.inference.bind(node.name, None, None)

    def leave_ClassDef(self, node: ast.ClassDef) -> None:
        self.inference.pop()
        self.inference.bind(node.name, None, None)

    def leave_Lambda(self, node: ast.Lambda) -> None:
        self.inference.pop()

    def _leave_comprehension(self, node: ast.ListComp) -> None:
        self.inference.pop()

    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

    def leave_For(self, node: ast.For) -> None:
        self.context.loops.pop()
        self.inference.leave_branches(exhaustive=False)

    leave_While = leave_For

    def leave_If(self, node: ast.If) -> None:
        self.inference.leave_branches(exhaustive=bool(node.orelse))

    def leave_IfExp_body(self, node: ast.IfExp) -> None:
        self.inference.pop()

    leave_IfExp_orelse = leave_IfExp_body

    def leave_With(self, node: ast.With) -> None:
        if any(is_no_grad(self.context, item.context_expr) for item in node.items):
            self.context.no_grad_depth -= 1

    def leave_SimpleStatement(self, node: ast.stmt) -> None:
        self.context.statements.pop()

    def leave_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.inference.bind_target(target, node.value)

    def leave_AnnAssign(self, node: ast.AnnAssign) -> None:
        if not isinstance(node.target, ast.Name):
            return
        info = annotation_info(node.annotation, self.inference.imports)
        if info is None and node.value is not None:
            info = self.inference.info(node.value)
        self.inference.bind(node.target.id, node.value, info)

    def leave_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.inference.bind_target(node.target, node.value)

    def leave_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            for name in bound_names(target):
                self.inference.forget(name)

    def leave_Import(self, node: ast.Import) -> None:
        self._shadow_imports(node.names)

    def leave_ImportFrom(self, node: ast.ImportFrom) -> None:
        if not (len(node.names) == 1 and node.names[0].name == "*"):
            self._shadow_imports(node.names)

    def _shadow_imports(self, names: list[ast.alias]) -> None:
        for alias in names:
            self.inference.bind(alias.asname or alias.name.split(".")[0], None, None)
