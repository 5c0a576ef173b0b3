"""What a class of the file keeps on ``self``: each attribute's value, judged over every
assignment to it in the class (``analysis/summary.py`` asks)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..imports import FUNCTION_DEFS, iter_statements
from .lazy_bodies import spells
from .vocabulary import TensorInfo
from .values import Holds, Value, join
from .ast_patterns import (
    ELEMENT_WRITERS,
    EMPTY_LIST,
    EachElement,
    UNKNOWN,
    annotation_value,
    is_none,
    leaves,
    outside_functions,
    receiver_name,
    stores_of,
)

if TYPE_CHECKING:
    from .summary import ModuleSummary


# A store of one attribute, in the order of the class's statements: (the method that stores
# it, the value, where in it the attribute's part is: ``self.h, self.c = init()`` stores
# position 0 and 1 of the value; the value is None for ``+=``). A class-level annotation
# has no method.
Store = tuple[ast.AST | None, ast.expr | None, tuple[int | str, ...]]
# What a method may call to set attributes by names known at run time: one that spells none
# of them sets none so (see ``_sets_attributes_by_name``).
_DYNAMIC_WORDS = ("__dict__", "vars", "setattr")


class _MethodStores:
    """What one method stores on ``self``: by attribute, its stores and its element writes
    (``self.vals.append(t)``); and whether it sets attributes by name at run time."""

    __slots__ = ("stores", "elements", "dynamic")

    def __init__(self, method: ast.FunctionDef | ast.AsyncFunctionDef, receiver: str) -> None:
        self.stores: dict[str, list[Store]] = {}
        self.elements: dict[str, list[tuple[ast.AST, ast.expr | EachElement]]] = {}
        self.dynamic = False
        for inner in iter_statements(method, into=outside_functions):
            self.dynamic = self.dynamic or _sets_attributes_by_name(inner, receiver)
            for target, value in stores_of(inner):
                for leaf, path in leaves(target):
                    if _on(leaf, receiver):
                        self.stores.setdefault(leaf.attr, []).append((method, value, path))
            for attribute, element in _element_writes(inner, receiver):
                self.elements.setdefault(attribute, []).append((method, element))


class ClassFacts:
    """The attributes a class's methods bind on ``self`` (and its class-level annotations).
    A method is read for an attribute only where its text spells the attribute's name: an
    imported module's method bodies are parsed as they are read (``lazy_bodies``)."""

    def __init__(self, summary: ModuleSummary, node: ast.ClassDef, qualname: str) -> None:
        self.summary = summary
        self.node = node
        self.qualname = qualname
        self._methods: dict[int, _MethodStores] = {}  # position in the class body -> its stores
        # attribute -> its stores, and what element writes put in it
        self._stores: dict[str, tuple[list[Store], list[tuple[ast.AST, ast.expr | EachElement]]]] = {}
        self._values: dict[str, Value] = {}
        self._in_progress: set[str] = set()
        self._dynamic: bool | None = None

    def _method_stores(self, word: str | None) -> Iterator[tuple[ast.AnnAssign | None, _MethodStores | None]]:
        """The class's annotations and the stores of each method that may spell ``word``
        (every method: None), in the order of the class body."""
        for position, statement in enumerate(self.node.body):
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                yield statement, None
            elif isinstance(statement, FUNCTION_DEFS) and (receiver := receiver_name(statement)):
                if word is not None and not spells(statement.body, word):
                    continue
                found = self._methods.get(position)
                if found is None:
                    found = self._methods[position] = _MethodStores(statement, receiver)
                yield None, found

    def _stored_as(self, name: str) -> tuple[list[Store], list[tuple[ast.AST, ast.expr | EachElement]]]:
        """The stores of ``self.name`` and its element writes, in the order of the class body."""
        known = self._stores.get(name)
        if known is None:
            stores: list[Store] = []
            elements: list[tuple[ast.AST, ast.expr | EachElement]] = []
            for annotation, method in self._method_stores(name):
                if annotation is not None:
                    if annotation.target.id == name:
                        stores.append((None, annotation.annotation, ()))
                else:
                    stores += method.stores.get(name, ())
                    elements += method.elements.get(name, ())
            known = self._stores[name] = (stores, elements)
        return known

    @property
    def dynamic(self) -> bool:
        """Whether a method sets attributes by name at run time (``self.__dict__.update(kwargs)``)."""
        if self._dynamic is None:
            self._dynamic = any(
                method is not None and method.dynamic
                for word in _DYNAMIC_WORDS
                for _, method in self._method_stores(word)
            )
        return self._dynamic

    def attribute(self, name: str) -> Value:
        if name in self._values:
            return self._values[name]
        if name in self._in_progress:
            return None
        self._in_progress.add(name)
        try:
            values, grounded = self._stored(name)
            if self.dynamic and not self._set_in_init(name):
                grounded = False  # what the run-time names set (hyper-parameters, most often) may be anything
            # ``self.x = torch.FloatTensor(self.x)`` alone says nothing of what ``self.x`` held
            # before it, which is what the reads elsewhere (and the conversion itself) may see.
            value = None if not grounded else self._filled_list(name, values) if EMPTY_LIST in values else join(values)
        finally:
            self._in_progress.discard(name)
        self._values[name] = value
        return value

    def stored_lambda(self, name: str) -> ast.Lambda | None:
        """The lambda that a method stores in ``self.name``, when that is the attribute's only
        store (``self.dist = lambda x, m: (x - m) @ (x - m)``) and no name is set at run time."""
        stores = self._stored_as(name)[0]
        if len(stores) != 1 or self.dynamic:
            return None
        method, value, path = stores[0]
        return value if method is not None and not path and isinstance(value, ast.Lambda) else None

    def _set_in_init(self, name: str) -> bool:
        return any(
            method is not None and getattr(method, "name", "") == "__init__" for method, _, _ in self._stored_as(name)[0]
        )

    def stored(self) -> dict[str, list[Value | str]]:
        """What each store of each attribute gives (``EMPTY_LIST``: ``[]``)."""
        names: dict[str, None] = {}  # in the order of their first store
        for annotation, method in self._method_stores(None):
            if annotation is not None:
                names[annotation.target.id] = None
            else:
                names.update(dict.fromkeys(method.stores))
        found = {}
        for name in names:
            self._in_progress.add(name)
            try:
                found[name] = self._stored(name)[0]
            finally:
                self._in_progress.discard(name)
        return found

    def _stored(self, name: str) -> tuple[list[Value | str], bool]:
        """What each store of ``self.name`` gives, and whether one of them says so without
        reading the attribute itself."""
        values: list[Value | str] = []
        grounded = False
        for method, value, path in self._stored_as(name)[0]:
            if method is None:  # a class-level annotation
                values.append(annotation_value(value, self.summary.imports))
            elif isinstance(value, ast.List) and not value.elts and not path:
                values.append(EMPTY_LIST)
            elif path and value is not None:  # self.h, self.c = value
                values.append(self.summary.facts(method).unpacked(value, path))
            elif value is not None and not is_none(value):  # `+=` keeps the value; None is Optional
                values.append(self.summary.facts(method).value(value))
            else:
                continue
            grounded = grounded or method is None or not _reads_attribute(value, receiver_name(method), name)
        return values, grounded

    def _filled_list(self, name: str, values: list[Value | str]) -> Value:
        """A list attribute bound empty or to tensors and filled, by the class's methods, only
        with tensors (``self.rewards = []``, then ``self.rewards.append(r)`` elsewhere)."""
        elements = self._stored_as(name)[1]
        if not elements or any(v not in (EMPTY_LIST, Holds.TENSORS) for v in values):
            return None
        for method, element in elements:
            facts = self.summary.facts(method)
            if isinstance(element, EachElement):
                if element is UNKNOWN or facts.value(element.value) != Holds.TENSORS:
                    return None
            elif not isinstance(facts.value(element), TensorInfo):
                return None
        return Holds.TENSORS


def _on(target: ast.expr, receiver: str) -> bool:
    """``self.x`` for the receiver ``self``."""
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver


def _reads_attribute(value: ast.expr, receiver: str | None, name: str) -> bool:
    """Whether ``value`` reads ``self.name`` (``receiver`` being ``self``'s name)."""
    return any(
        isinstance(node, ast.Attribute) and node.attr == name and _on(node, receiver) for node in ast.walk(value)
    )


def _element_writes(statement: ast.stmt, receiver: str) -> Iterator[tuple[str, ast.expr | EachElement]]:
    """(attribute, element) for ``self.x.append(v)``, ``.insert(i, v)``, ``.extend(vs)``,
    ``self.x[k] = v`` and ``self.x += [v]``."""
    if isinstance(statement, ast.Expr) and isinstance(call := statement.value, ast.Call) \
            and isinstance(call.func, ast.Attribute) and _on(call.func.value, receiver):
        attribute, method = call.func.value.attr, call.func.attr
        if call.keywords:
            if method in (*ELEMENT_WRITERS, "extend"):
                yield attribute, UNKNOWN
        elif method == "append" and len(call.args) == 1:
            yield attribute, call.args[0]
        elif method == "insert" and len(call.args) == 2:
            yield attribute, call.args[1]
        elif method == "extend" and len(call.args) == 1:
            yield attribute, EachElement(call.args[0])
        elif method in (*ELEMENT_WRITERS, "extend"):
            yield attribute, UNKNOWN
    elif isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Subscript) and _on(target.value, receiver):
                yield target.value.attr, statement.value
    elif isinstance(statement, ast.AugAssign) and _on(statement.target, receiver) \
            and isinstance(statement.value, (ast.List, ast.Tuple)):
        for element in statement.value.elts:
            yield statement.target.attr, element


def _sets_attributes_by_name(statement: ast.stmt, receiver: str) -> bool:
    """``self.__dict__.update(kwargs)``, ``vars(self).update(...)``, ``setattr(self, key, v)``
    with a name known only at run time."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    call = statement.value
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "update":
        owner = func.value
        if isinstance(owner, ast.Attribute) and owner.attr == "__dict__" and _on_name(owner.value, receiver):
            return True
        return (isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "vars"
                and len(owner.args) == 1 and _on_name(owner.args[0], receiver))
    return (isinstance(func, ast.Name) and func.id == "setattr" and len(call.args) == 3
            and _on_name(call.args[0], receiver) and not isinstance(call.args[1], ast.Constant))


def _on_name(node: ast.expr, receiver: str) -> bool:
    return isinstance(node, ast.Name) and node.id == receiver
