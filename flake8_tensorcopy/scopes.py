"""The bookkeeping visitors that run around the rules in the batched pass.

:class:`ScopeOpener` runs before every rule on each node: it opens scopes, binds
parameters and loop variables, and tracks loops, functions and ``no_grad`` blocks.
:class:`ScopeCloser` runs after every rule: it records assignments (so a rule looking
at ``x = x.detach()`` still sees the old ``x``) and closes what the opener opened.
"""

from __future__ import annotations

import libcst as cst

from .analysis.vocabulary import NAMED_PARAMETER_ITERATORS, NO_GRAD_CONTEXTS, PARAMETER_ITERATORS
from .inference import (
    PARAMETER,
    TENSOR,
    annotation_info,
    bound_names,
    method_call,
    narrowed_name,
)
from .cst_rule import CstContext as Context


def is_no_grad(context: Context, expr: cst.BaseExpression) -> bool:
    """``torch.no_grad()``, ``th.inference_mode()``, also used bare as a decorator."""
    target = expr.func if isinstance(expr, cst.Call) else expr
    return context.imports.qualify(target) in NO_GRAD_CONTEXTS


class ScopeOpener(cst.BatchableCSTVisitor):
    def __init__(self, context: Context) -> None:
        super().__init__()
        self.context = context
        self.inference = context.inference

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.context.functions.append(node)
        self.inference.push(inherit=False, name=node.name.value, function=True)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            info = annotation_info(param.annotation, self.inference.imports)
            self.inference.bind(param.name.value, None, info, parameter=True)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.inference.bind(star.name.value, None, None)
        if any(is_no_grad(self.context, d.decorator) for d in node.decorators):
            self.context.no_grad_depth += 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.inference.push(inherit=False, name=node.name.value)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        params = node.params
        names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.add(star.name.value)
        self.inference.push(inherit=True, shadowed=names)

    def _visit_comprehension(self, node: cst.BaseComp) -> None:
        names: set[str] = set()
        comp_for: cst.CompFor | None = node.for_in
        while comp_for is not None:
            names.update(bound_names(comp_for.target))
            comp_for = comp_for.inner_for_in
        self.inference.push(inherit=True, shadowed=names)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension

    def visit_For(self, node: cst.For) -> None:
        self.context.loops.append(node)
        self._bind_loop_target(node.target, node.iter)

    def visit_While(self, node: cst.While) -> None:
        self.context.loops.append(node)

    def visit_For_body(self, node: cst.For) -> None:
        self.inference.enter_branches()

    visit_While_body = visit_For_body

    def visit_If_body(self, node: cst.If) -> None:
        self.inference.enter_branches()
        self._narrow(node.test, in_body=True)

    def visit_If_orelse(self, node: cst.If) -> None:
        if node.orelse is not None:
            self.inference.next_branch()
            self._narrow(node.test, in_body=False)

    def _narrow(self, test: cst.BaseExpression, in_body: bool) -> None:
        """Inside ``if not isinstance(x, torch.Tensor):`` x is no tensor (else-branch alike)."""
        narrowed = narrowed_name(test, self.inference.imports)
        if narrowed and narrowed[1] != in_body:
            self.inference.forget(narrowed[0])

    def visit_IfExp_body(self, node: cst.IfExp) -> None:
        self._narrow_expression(node, in_body=True)

    def visit_IfExp_orelse(self, node: cst.IfExp) -> None:
        self._narrow_expression(node, in_body=False)

    def _narrow_expression(self, node: cst.IfExp, in_body: bool) -> None:
        narrowed = narrowed_name(node.test, self.inference.imports)
        shadowed = {narrowed[0]} if narrowed and narrowed[1] != in_body else set()
        self.inference.push(inherit=True, shadowed=shadowed)

    def visit_With(self, node: cst.With) -> None:
        if any(is_no_grad(self.context, item.item) for item in node.items):
            self.context.no_grad_depth += 1
        for item in node.items:
            if item.asname is not None:
                self.inference.bind_target(item.asname.name, None)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.context.statements.append(node)

    def _bind_loop_target(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """``for p in m.parameters()``, ``for name, p in m.named_parameters()``, ``for row in t``
        over a tensor (rows, and what unpacking a row gives, are tensors), and ``zip``,
        ``enumerate`` and ``reversed`` of those."""
        if self.inference.is_tensor(iterable) and isinstance(target, (cst.Name, cst.Tuple, cst.List)):
            self.inference.bind_target(target, None)
            facts = self.inference.facts
            if facts is not None and facts.legacy_scalars:
                return  # code of PyTorch 0.3 and before: the rows of a 1-d tensor were numbers
            for name in _plain_names(target):
                self.inference.bind(name, None, TENSOR)
            return
        builtin = _builtin_call(iterable)
        if builtin == "reversed" and len(iterable.args) == 1:
            self._bind_loop_target(target, iterable.args[0].value)
            return
        if (
            builtin == "zip"
            and isinstance(target, (cst.Tuple, cst.List))
            and len(target.elements) == len(iterable.args)
            and not any(arg.star or arg.keyword for arg in iterable.args)
        ):
            for element, arg in zip(target.elements, iterable.args):
                self._bind_loop_target(element.value, arg.value)
            return
        called = method_call(iterable)
        if called and called[1] in PARAMETER_ITERATORS and isinstance(target, cst.Name):
            self.inference.bind(target.value, None, PARAMETER)
            return
        if called and called[1] in NAMED_PARAMETER_ITERATORS and _pair(target):
            self.inference.bind_target(target, None)
            self.inference.bind(target.elements[1].value.value, None, PARAMETER)
            return
        if (
            isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Name)
            and iterable.func.value == "enumerate"
            and iterable.args
            and _pair(target)
        ):
            self.inference.bind_target(target, None)
            self._bind_loop_target(target.elements[1].value, iterable.args[0].value)
            return
        self.inference.bind_target(target, None)


def _plain_names(target: cst.BaseExpression):
    """The names of a target made of names and nested tuples; starred ones (which get a
    list) are left out."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            if isinstance(element, cst.Element):
                yield from _plain_names(element.value)


def _builtin_call(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value
    return None


def _pair(target: cst.BaseExpression) -> bool:
    return (
        isinstance(target, (cst.Tuple, cst.List))
        and len(target.elements) == 2
        and isinstance(target.elements[1].value, cst.Name)
    )


class ScopeCloser(cst.BatchableCSTVisitor):
    def __init__(self, context: Context) -> None:
        super().__init__()
        self.context = context
        self.inference = context.inference

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.inference.pop()
        self.context.functions.pop()
        if any(is_no_grad(self.context, d.decorator) for d in node.decorators):
            self.context.no_grad_depth -= 1
        # The function's own name is bound in the enclosing scope.
        self.inference.bind(node.name.value, None, None)

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self.inference.pop()
        self.inference.bind(node.name.value, None, None)

    def leave_Lambda(self, node: cst.Lambda) -> None:
        self.inference.pop()

    def _leave_comprehension(self, node: cst.BaseComp) -> None:
        self.inference.pop()

    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

    def leave_For(self, node: cst.For) -> None:
        self.context.loops.pop()
        self.inference.leave_branches(exhaustive=False)

    leave_While = leave_For

    def leave_If(self, node: cst.If) -> None:
        self.inference.leave_branches(exhaustive=node.orelse is not None)

    def leave_IfExp_body(self, node: cst.IfExp) -> None:
        self.inference.pop()

    leave_IfExp_orelse = leave_IfExp_body

    def leave_With(self, node: cst.With) -> None:
        if any(is_no_grad(self.context, item.item) for item in node.items):
            self.context.no_grad_depth -= 1

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.context.statements.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.inference.bind_target(target.target, node.value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if not isinstance(node.target, cst.Name):
            return
        info = annotation_info(node.annotation, self.inference.imports)
        if info is None and node.value is not None:
            info = self.inference.info(node.value)
        self.inference.bind(node.target.value, node.value, info)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.inference.bind_target(node.target, node.value)

    def leave_Del(self, node: cst.Del) -> None:
        for name in bound_names(node.target):
            self.inference.forget(name)

    def leave_Import(self, node: cst.Import) -> None:
        self._shadow_imports(node.names)

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            self._shadow_imports(node.names)

    def _shadow_imports(self, names) -> None:
        for alias in names:
            local = alias.asname.name if alias.asname else alias.name
            while isinstance(local, cst.Attribute):
                local = local.value
            if isinstance(local, cst.Name):
                self.inference.bind(local.value, None, None)
