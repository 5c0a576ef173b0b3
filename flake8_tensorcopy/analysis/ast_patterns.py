"""Shapes of ``ast`` code that the module summary, the class facts and the scope facts all
read: assignment targets and what they store, writes in place, annotations, statement lines."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterator

from ..imports import COMPOUND_STATEMENTS, FUNCTION_DEFS, ImportTable, child_blocks
from .values import Holds, Value
from .vocabulary import (
    DATA_LOADERS,
    INDEX_DTYPES,
    PARAMETER,
    PARAMETER_CONSTRUCTORS,
    TENSOR,
    TENSOR_ANNOTATIONS,
    CallShape,
    writes_first_argument,
    writes_in_place,
)


EMPTY_LIST = "empty list"  # a binding that only containers' element writes can fill


ELEMENT_WRITERS = frozenset({"append", "insert"})


def annotation_value(annotation: ast.expr, imports: ImportTable) -> Value:
    """``Tensor``, ``nn.Parameter``, ``DataLoader``, also inside ``Optional[...]`` / ``| None``."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        if is_none(annotation.right):
            return annotation_value(annotation.left, imports)
        if is_none(annotation.left):
            return annotation_value(annotation.right, imports)
        return None
    if isinstance(annotation, ast.Subscript):
        if imports.qualify_expression(annotation.value) == "typing.Optional":
            return annotation_value(annotation.slice, imports)
        return None
    qualified = imports.qualify_expression(annotation)
    if qualified in TENSOR_ANNOTATIONS:
        return TENSOR
    if qualified in PARAMETER_CONSTRUCTORS:
        return PARAMETER
    if qualified in DATA_LOADERS:
        return Holds.LOADER
    return None


def receiver_name(method: ast.AST) -> str | None:
    """The name of ``self`` in a method (None for static and class methods)."""
    decorators = {d.id for d in method.decorator_list if isinstance(d, ast.Name)}
    positional = [*method.args.posonlyargs, *method.args.args]
    if decorators & {"staticmethod", "classmethod"} or not positional:
        return None
    return positional[0].arg


def outside_functions(statement: ast.stmt) -> bool:
    return not isinstance(statement, FUNCTION_DEFS)


def stored_targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment, loop, ``with`` or ``:=`` binds (``x += 1`` writes ``x`` in place)."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
        return [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    return []


def written_in_place(node: ast.AST, imports: ImportTable) -> str | None:
    """The name ``node`` writes in place: ``w.mul_(s)``, ``init.normal_(w)``, ``w[i] = v``, ``w += v``."""
    target = None
    if isinstance(node, ast.Call):
        func = node.func
        if writes_first_argument(imports.qualify_expression(func) or "") and node.args:
            target = node.args[0]
        elif isinstance(func, ast.Attribute) and writes_in_place(func.attr):
            target = func.value
    elif isinstance(node, ast.Assign):
        target = next((t.value for t in node.targets if isinstance(t, ast.Subscript)), None)
    elif isinstance(node, ast.AugAssign):
        target = node.target
    while isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def attributes_loaded_back(body: list[ast.stmt]) -> set[str]:
    """The attributes whose value ``body`` loads into a model or optimizer
    (``load_state_dict(self.best)``, ``model.load_state_dict(stopper.best_weights)``), except
    where the attribute was bound on every path before the load in the same function to
    something other than a state_dict: then the load reads what was just given
    (``self.w = received; model.load_state_dict(self.w)``), not a snapshot kept from before."""
    loaded: set[str] = set()
    _loads_in_block(body, frozenset(), loaded)
    return loaded


def _loads_in_block(body: list[ast.stmt], bound: frozenset[str], loaded: set[str]) -> None:
    fresh = set(bound)
    for statement in body:
        if isinstance(statement, (*FUNCTION_DEFS, ast.ClassDef)):
            for decorator in statement.decorator_list:
                _loads_in(decorator, fresh, loaded)
            _loads_in_block(statement.body, frozenset(), loaded)  # runs later, on its own bindings
            continue
        if isinstance(statement, COMPOUND_STATEMENTS):
            for field, value in ast.iter_fields(statement):  # the header: test, iterable, items
                if field not in ("body", "orelse", "finalbody", "handlers", "cases"):
                    for part in value if isinstance(value, list) else [value]:
                        if isinstance(part, ast.AST):
                            _loads_in(part, fresh, loaded)
            for clause in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
                for part in (getattr(clause, "type", None), getattr(clause, "guard", None)):
                    if part is not None:
                        _loads_in(part, fresh, loaded)
            for block in child_blocks(statement):  # a binding inside one may not run: not carried out
                _loads_in_block(block, frozenset(fresh), loaded)
            continue
        _loads_in(statement, fresh, loaded)
        for target, value in stores_of(statement):
            if isinstance(target, ast.Attribute) and value is not None and not _takes_state(value):
                fresh.add(target.attr)


def _takes_state(value: ast.expr) -> bool:
    """Whether ``value`` reads a ``state_dict()``: bound to it, the attribute is a snapshot,
    and a later load may restore it."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "state_dict"
               for n in ast.walk(value))


def _loads_in(node: ast.AST, fresh: set[str], loaded: set[str]) -> None:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "load_state_dict":
            arguments = [*inner.args[:1], *(k.value for k in inner.keywords if k.arg == "state_dict")]
            for argument in arguments:
                while isinstance(argument, ast.Subscript):
                    argument = argument.value
                if isinstance(argument, ast.Attribute) and argument.attr not in fresh:
                    loaded.add(argument.attr)


def stores_of(statement: ast.stmt) -> Iterator[tuple[ast.expr, ast.expr | None]]:
    """(target, value) of an assignment statement; the value is None for ``+=``."""
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            yield target, statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        yield statement.target, statement.value
    elif isinstance(statement, ast.AugAssign):
        yield statement.target, None


def spans_any(statement: ast.stmt, lines: list[int]) -> bool:
    """Whether ``statement`` (with its decorators) covers one of the sorted ``lines``."""
    first = statement_first_line(statement)
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= (statement.end_lineno or statement.lineno)


def is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def statement_first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


def target_paths(target: ast.expr, path: tuple[int | str, ...] = ()) -> Iterator[tuple[str, tuple[int | str, ...]]]:
    """The names a target binds and where: ``a, (b, *c)`` gives a (0,), b (1, 0), c (1, "*")."""
    for leaf, where in leaves(target, path):
        if isinstance(leaf, ast.Name):
            yield leaf.id, where


def leaves(target: ast.expr, path: tuple[int | str, ...] = ()) -> Iterator[tuple[ast.expr, tuple[int | str, ...]]]:
    """What a target stores into (names, attributes, items) and where in the value."""
    if isinstance(target, (ast.Tuple, ast.List)):
        starred = any(isinstance(e, ast.Starred) for e in target.elts)
        for position, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                yield from leaves(element.value, (*path, "*"))
            else:
                # After a starred element, positions count from the end: unknown here.
                yield from leaves(element, (*path, position if not starred else "?"))
    else:
        yield target, path


class Unpacked:
    """The value a tuple target unpacks (``a, b = value``), as a loop's iterable stands in."""

    def __init__(self, value: ast.expr) -> None:
        self.value = value


class EachElement:
    """``vals.extend(source)``: every element of ``source`` goes in."""

    def __init__(self, value: ast.expr) -> None:
        self.value = value


UNKNOWN = EachElement(ast.Constant(None))  # an element write we cannot read (``insert`` with keywords)


class AstCallShape(CallShape):
    """What ``vocabulary.torch_function_info`` asks of a call's arguments, read on ``ast``."""

    def __init__(self, call: ast.Call) -> None:
        self.call = call

    def single_argument(self) -> bool:
        return len(self.call.args) + len(self.call.keywords) == 1

    def integer_literals(self) -> bool:
        keywords = {k.arg: k.value for k in self.call.keywords}
        dtype = keywords.get("dtype")
        if dtype is not None:
            return isinstance(dtype, ast.Attribute) and dtype.attr in INDEX_DTYPES
        data = self.call.args[0] if self.call.args else keywords.get("data")
        return isinstance(data, (ast.List, ast.Tuple)) and bool(data.elts) and all(map(integer_literal, data.elts))

    def float_arange(self) -> bool:
        return any(k.arg == "dtype" for k in self.call.keywords) or any(
            isinstance(a, ast.Constant) and isinstance(a.value, float)
            for a in (*self.call.args, *(k.value for k in self.call.keywords))
        )


def legacy_scalar(node: ast.Subscript) -> bool:
    """``loss.data[0]``: before PyTorch 0.4 the Python number of a one-element tensor (code of
    that age passes it around as one); since, a row. What the code means is unknown."""
    value, index = node.value, node.slice
    return isinstance(value, ast.Attribute) and value.attr == "data" \
        and isinstance(index, ast.Constant) and type(index.value) is int


def integer_literal(node: ast.expr) -> bool:
    """``3``, ``-1``, ``True``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int))


def repeats_a_sequence(node: ast.BinOp) -> bool:
    """``[0] * n``, ``n * (a, b)``, ``"-" * width``: a list, tuple or string repeated."""
    sequences = (ast.List, ast.Tuple, ast.ListComp, ast.JoinedStr)
    return isinstance(node.op, ast.Mult) and any(
        isinstance(side, sequences) or (isinstance(side, ast.Constant) and isinstance(side.value, (str, bytes)))
        for side in (node.left, node.right)
    )


def unstarred(node: ast.expr) -> ast.expr:
    """``xs`` for ``*xs``; any other expression as it is."""
    return node.value if isinstance(node, ast.Starred) else node


def parameter_owners(call: ast.Call) -> list[ast.expr]:
    """``net`` and ``net.fc`` of ``SGD(net.parameters())`` or ``Adam([{"params":
    net.fc.parameters()}])``: what the ``.parameters()``/``.named_parameters()`` calls among a
    call's arguments (an optimizer's constructor's) are called on."""
    owners: list[ast.expr] = []
    stack: list[ast.AST] = argument_values(call)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("parameters", "named_parameters"):
            owners.append(node.func.value)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return owners


def argument_values(call: ast.Call) -> list[ast.expr]:
    """The values of a call's arguments in source order, positional, keyword and starred
    alike (``*xs`` gives ``xs``)."""
    arguments: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    if call.keywords and call.args:
        arguments.sort(key=lambda argument: (argument.lineno, argument.col_offset))
    return [argument.value if isinstance(argument, (ast.Starred, ast.keyword)) else argument for argument in arguments]
