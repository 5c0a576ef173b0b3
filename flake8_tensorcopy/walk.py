"""One read-only walk over a LibCST tree that calls every visitor's hooks.

LibCST's own ``node.visit`` rebuilds every node it passes (a visitor may replace
children) and stops at every space, comment, bracket and operator token. For a batch
of read-only visitors that was most of the analysis time. This walk calls the same
``visit_<Node>``, ``leave_<Node>``, ``visit_<Node>_<field>`` and ``leave_<Node>_<field>``
hooks in the same order, reads children in the order LibCST visits them (learned from
LibCST once per node type), and never enters trivia: the whitespace, comment and token
nodes listed in :data:`TRIVIA`, which hold no code. Hooks on trivia are refused.
``tests/test_walk.py`` checks the order against LibCST's traversal on real code.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst

TRIVIA = (
    cst.BaseParenthesizableWhitespace,
    cst.Comment,
    cst.EmptyLine,
    cst.Newline,
    cst.TrailingWhitespace,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.BaseUnaryOp,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseAugOp,
    cst.ImportStar,
    cst.Asynchronous,
    cst.ParamStar,
    cst.ParamSlash,
)
_TRIVIA_SET = frozenset(TRIVIA)

# A hook as the walk calls it: (which visitor, the function of its class).
Hook = tuple[int, Callable[[cst.BatchableCSTVisitor, cst.CSTNode], None]]


@dataclass(frozen=True)
class _Field:
    name: str
    visit: tuple[Hook, ...]
    leave: tuple[Hook, ...]
    may_hold_code: bool
    only_when_set: bool  # LibCST skips it, hooks included, when it is None


@dataclass(frozen=True)
class _NodePlan:
    visit: tuple[Hook, ...]
    fields: tuple[_Field, ...]  # in LibCST's visiting order
    leave: tuple[Hook, ...]
    unseen: tuple[str, ...]  # fields that may hold code but were None whenever LibCST was asked


class Walker:
    """Calls the hooks of ``visitors`` (in list order) over a tree: ``Walker(vs).walk(module)``."""

    def __init__(self, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
        self.visitors = tuple(visitors)
        self._plans = _plans_for(tuple(type(visitor) for visitor in visitors))

    def walk(self, node: cst.CSTNode) -> None:
        visitors = self.visitors
        plan = self._plans.get(type(node)) or self._plan_for(node)
        if plan.unseen and any(getattr(node, name) is not None for name in plan.unseen):
            plan = self._plan_for(node)
        for index, hook in plan.visit:
            hook(visitors[index], node)
        for field in plan.fields:
            if field.only_when_set and getattr(node, field.name) is None:
                continue
            for index, hook in field.visit:
                hook(visitors[index], node)
            if field.may_hold_code:
                value = getattr(node, field.name)
                kind = type(value)
                if kind is list or kind is tuple:
                    for child in value:
                        if _is_code(type(child)):
                            self.walk(child)
                elif _is_code(kind):
                    self.walk(value)
            for index, hook in field.leave:
                hook(visitors[index], node)
        for index, hook in plan.leave:
            hook(visitors[index], node)

    def _plan_for(self, node: cst.CSTNode) -> _NodePlan:
        kind = type(node)
        name, code_fields = kind.__name__, _code_fields(kind)
        order, only_when_set = _visiting_order(node)

        def hooks(hook_name: str) -> tuple[Hook, ...]:
            return tuple(
                (index, getattr(type(visitor), hook_name))
                for index, visitor in enumerate(self.visitors)
                if hook_name in _hook_names(type(visitor))
            )

        plan = self._plans[kind] = _NodePlan(
            visit=hooks(f"visit_{name}"),
            fields=tuple(
                _Field(
                    field, hooks(f"visit_{name}_{field}"), hooks(f"leave_{name}_{field}"),
                    field in code_fields, field in only_when_set,
                )
                for field in order
            ),
            leave=hooks(f"leave_{name}"),
            # Fields LibCST did not visit on a node where they were None may show up on
            # another node; one it skipped although set is one it never visits.
            unseen=tuple(sorted(f for f in code_fields - set(order) if getattr(node, f) is None)),
        )
        return plan


@functools.lru_cache(maxsize=64)  # bounded: one per set of rules a chunk is analysed with
def _plans_for(visitor_classes: tuple[type, ...]) -> dict[type, _NodePlan]:
    """The node plans shared by every walk with these visitor classes (filled as types appear)."""
    for visitor_class in visitor_classes:
        trivia_hooks = [name for name in _hook_names(visitor_class) if not _is_code(_hooked_type(name) or cst.Module)]
        if trivia_hooks:
            raise TypeError(f"{visitor_class.__name__}: the walk never enters whitespace, comments or tokens: {trivia_hooks}")
    return {}


@functools.cache
def _is_code(kind: type) -> bool:
    """A node type the walk enters: any node but trivia. Read off the class's MRO:
    ``issubclass`` against LibCST's abstract base classes would fill the ABCs' caches
    with every type ever asked about (3 MiB on a large run)."""
    bases = kind.__mro__
    return cst.CSTNode in bases and not any(base in _TRIVIA_SET for base in bases)



@functools.cache
def _hook_names(visitor_class: type) -> tuple[str, ...]:
    """The hooks a visitor class really defines (LibCST's typed stubs are no-ops)."""
    return tuple(
        name
        for name in dir(visitor_class)
        if name.startswith(("visit_", "leave_"))
        and not getattr(getattr(visitor_class, name), "_is_no_op", False)
    )


def _hooked_type(hook_name: str) -> type | None:
    node_type = getattr(cst, hook_name.split("_")[1], None)
    return node_type if isinstance(node_type, type) else None


class _OrderRecorder(cst.CSTVisitor):
    """Notes the fields LibCST visits on ``root``, without entering its children."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.root

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.root:
            self.fields.append(attribute)


# Per node type: the fields in LibCST's visiting order, and those it visits only when set.
_ORDERS: dict[type, tuple[tuple[str, ...], frozenset[str]]] = {}


def _visiting_order(node: cst.CSTNode) -> tuple[tuple[str, ...], frozenset[str]]:
    """The fields of ``type(node)`` in the order LibCST's own traversal visits them.

    LibCST leaves out a few fields when they are None (a format spec of an f-string
    expression): a field first seen on a later node is merged in, marked as such.
    """
    kind = type(node)
    known = _ORDERS.get(kind)
    recorder = _OrderRecorder(node)
    node.visit(recorder)
    order = tuple(recorder.fields)
    if known is not None:
        if set(order) <= set(known[0]):
            return known
        order = order if set(known[0]) <= set(order) else known[0]
        only_when_set = known[1] | (frozenset(order) - frozenset(known[0]))
    else:
        only_when_set = frozenset()
    _ORDERS[kind] = (order, only_when_set)
    return _ORDERS[kind]


@functools.cache
def _code_fields(kind: type) -> frozenset[str]:
    """The fields whose declared type allows a node that is not trivia."""
    fields = frozenset(field.name for field in dataclasses.fields(kind))
    try:
        hints = typing.get_type_hints(kind)  # also holds annotations of abstract bases
    except Exception:  # an annotation this Python cannot resolve: look at every value
        return fields
    return frozenset(name for name in fields if _may_hold_code(hints.get(name)))


def _may_hold_code(hint: object) -> bool:
    if isinstance(hint, type):  # str, None, MaybeSentinel: never a node
        return _is_code(hint)
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return False
    arguments = typing.get_args(hint)
    if origin is None or not arguments:
        return True  # a type this check does not know: look at the value
    return any(_may_hold_code(argument) for argument in arguments if argument is not Ellipsis)
