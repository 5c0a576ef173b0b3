"""One walk over an ``ast`` tree that calls every visitor's hooks, in order.

For each node the walk calls, on every visitor in list order, ``visit_<Node>``, then per
field ``visit_<Node>_<field>``, the field's children, ``leave_<Node>_<field>``, and at
last ``leave_<Node>``. ``async def``, ``async for`` and ``async with`` call the hooks of
``FunctionDef``, ``For`` and ``With``. Around every statement that holds no other
statement (an assignment, an expression, a ``return``...) the walk also calls
``visit_SimpleStatement`` and ``leave_SimpleStatement``: the unit a fix may wrap.

Fields are read in source order (a ``def``'s decorators before its parameters and body,
``a if t else b`` as ``a``, ``t``, ``b``); operator and context fields hold no code and
are not entered.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Sequence
from typing import NamedTuple

Hook = Callable[[object, ast.AST], None]

# Node types that call another type's hooks.
_HOOKED_AS = {"AsyncFunctionDef": "FunctionDef", "AsyncFor": "For", "AsyncWith": "With"}
# Fields in source order where ``_fields`` differs from it; fields not listed hold no code.
_FIELD_ORDER = {
    "FunctionDef": ("decorator_list", "args", "returns", "body"),
    "AsyncFunctionDef": ("decorator_list", "args", "returns", "body"),
    "ClassDef": ("decorator_list", "bases", "keywords", "body"),
    "IfExp": ("body", "test", "orelse"),
    "DictComp": ("key", "value", "generators"),
    "arguments": ("posonlyargs", "args", "vararg", "kwonlyargs", "kw_defaults", "kwarg", "defaults"),
}
_NO_CODE = frozenset({"ctx", "op", "type_comment", "type_ignores"})
_SIMPLE_STATEMENTS = (
    ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Delete, ast.Pass, ast.Break,
    ast.Continue, ast.Raise, ast.Assert, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal,
)
_EMPTY: tuple = ()


class _Field(NamedTuple):
    name: str
    visit: tuple[tuple[int, Hook], ...]
    leave: tuple[tuple[int, Hook], ...]


class _NodePlan(NamedTuple):
    visit: tuple[tuple[int, Hook], ...]
    fields: tuple[_Field, ...]
    leave: tuple[tuple[int, Hook], ...]


class Walker:
    """Calls the hooks of ``visitors`` (in list order) over a tree: ``Walker(vs).walk(node)``."""

    def __init__(self, visitors: Sequence[object]) -> None:
        self.visitors = tuple(visitors)
        self._plans: dict[type, _NodePlan] = _plans_for(tuple(type(visitor) for visitor in visitors))
        self._simple = self._plan_named("SimpleStatement", ())

    def walk(self, node: ast.AST) -> None:
        visitors = self.visitors
        kind = type(node)
        plan = self._plans.get(kind)
        if plan is None:
            plan = self._plans[kind] = self._plan_for(kind)
        simple = kind in _SIMPLE_TYPES
        if simple:
            for index, hook in self._simple.visit:
                hook(visitors[index], node)
        for index, hook in plan.visit:
            hook(visitors[index], node)
        for field in plan.fields:
            for index, hook in field.visit:
                hook(visitors[index], node)
            value = getattr(node, field.name, None)
            if type(value) is list:
                for child in value:
                    if isinstance(child, ast.AST):  # `global a, b` holds names as strings
                        self.walk(child)
            elif value is not None and isinstance(value, ast.AST):
                self.walk(value)
            for index, hook in field.leave:
                hook(visitors[index], node)
        for index, hook in plan.leave:
            hook(visitors[index], node)
        if simple:
            for index, hook in self._simple.leave:
                hook(visitors[index], node)

    def _plan_for(self, kind: type) -> _NodePlan:
        name = kind.__name__
        fields = _FIELD_ORDER.get(name) or tuple(f for f in kind._fields if f not in _NO_CODE)
        return self._plan_named(_HOOKED_AS.get(name, name), fields)

    def _plan_named(self, name: str, fields: tuple[str, ...]) -> _NodePlan:
        def hooks(hook_name: str) -> tuple[tuple[int, Hook], ...]:
            return tuple(
                (index, getattr(type(visitor), hook_name))
                for index, visitor in enumerate(self.visitors)
                if hook_name in _hook_names(type(visitor))
            )

        visit, leave = hooks(f"visit_{name}"), hooks(f"leave_{name}")
        planned = tuple(_field(field, hooks(f"visit_{name}_{field}"), hooks(f"leave_{name}_{field}")) for field in fields)
        if visit or leave or any(field.visit or field.leave for field in planned):
            return _NodePlan(visit, planned, leave)
        return _plan_without_hooks(fields)


_SIMPLE_TYPES = frozenset(_SIMPLE_STATEMENTS)


@functools.lru_cache(maxsize=64)  # bounded: one per set of rules a part is analysed with
def _plans_for(visitor_classes: tuple[type, ...]) -> dict[type, _NodePlan]:
    """The node plans shared by every walk with these visitor classes (filled as types appear)."""
    return {}


# Most node types have no hooks in most sets of rules: their plans are shared, so that what
# a run keeps, which every full collection of the host process scans, grows less with each set.
@functools.cache
def _plan_without_hooks(fields: tuple[str, ...]) -> _NodePlan:
    return _NodePlan(_EMPTY, tuple(_field(field, _EMPTY, _EMPTY) for field in fields), _EMPTY)


def _field(name: str, visit: tuple, leave: tuple) -> _Field:
    return _Field(name, visit, leave) if visit or leave else _field_without_hooks(name)


@functools.cache
def _field_without_hooks(name: str) -> _Field:
    return _Field(name, _EMPTY, _EMPTY)


@functools.cache
def _hook_names(visitor_class: type) -> frozenset[str]:
    return frozenset(name for name in dir(visitor_class) if name.startswith(("visit_", "leave_")))
