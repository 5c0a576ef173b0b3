"""The prefilter's second stage: a rule's necessary condition, checked on flake8's ``ast``.

Some triggers match many more functions than can hold a finding. ``torch.tensor(x)``
is everywhere in torch code, but TCP005 reports only when ``x`` is known to be a
tensor, and ``inference.py`` knows that only from evidence inside the same function.
An :class:`ArgumentGate` asks the cheap question first, on the tree flake8 already
parsed: does the function call one of the rule's callees with an argument that the
inference *could* judge a tensor? If not, the function is not parsed with LibCST for
that rule.

The gate over-approximates ``Inference.info``: wherever the inference could find
evidence, the gate answers yes. A name counts when the scope binds it anywhere (in any
order, on any path) to something that could be a tensor, annotates it with anything
under ``torch``, or loops it over parameters. Both read the evidence vocabulary below,
and ``tests/test_gates.py`` plus ``tests/test_prefilter_exact.py`` check that the gate
loses no finding.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from .imports import FUNCTION_DEFS, ImportTable

# Attributes of a tensor that are tensors themselves (``x.T``, ``x.data``).
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})
# Attributes that conventionally hold an nn.Parameter.
PARAMETER_ATTRIBUTES = frozenset(
    {"weight", "bias", "weight_ih", "weight_hh", "bias_ih", "bias_hh", "in_proj_weight"}
)
# Loops over these bind parameters: ``for p in model.parameters()``.
PARAMETER_ITERATORS = frozenset({"parameters", "buffers"})
NAMED_PARAMETER_ITERATORS = frozenset({"named_parameters", "named_buffers"})
# Every torch function the inference knows returns a tensor is qualified under this.
_TORCH = "torch."
_MEMBERSHIP = (ast.In, ast.NotIn, ast.Is, ast.IsNot)


@dataclass(frozen=True)
class ArgumentGate:
    """A finding needs a call to one of ``callees`` (qualified names, e.g. ``torch.tensor``)
    or to a method in ``methods`` (``x.new_tensor``) whose data argument could be a tensor.

    The data argument is any positional argument or the ``keyword`` one; with
    ``elements`` a list or tuple counts when one of its elements could be a tensor.
    """

    callees: frozenset[str]
    methods: frozenset[str] = frozenset()
    keyword: str | None = None
    elements: bool = False

    def admits(self, function: FunctionFacts) -> bool:
        return any(
            self._is_callee(call.func, function.imports)
            and any(self._could_hold_tensor(argument, function) for argument in self._data_arguments(call))
            for call in function.calls
        )

    def spellings(self, imports: ImportTable) -> frozenset[str]:
        """The last word of every way the file can spell a callee (for a text check first)."""
        names = {callee.rpartition(".")[2] for callee in self.callees} | self.methods
        return frozenset(names | imports.local_names(set(self.callees)))

    def _is_callee(self, func: ast.expr, imports: ImportTable) -> bool:
        qualified = imports.qualify_expression(func)
        if qualified is not None:
            return qualified in self.callees
        return isinstance(func, ast.Attribute) and func.attr in self.methods

    def _data_arguments(self, call: ast.Call) -> list[ast.expr]:
        arguments = [a for a in call.args if not isinstance(a, ast.Starred)]
        arguments += [k.value for k in call.keywords if k.arg is not None and k.arg == self.keyword]
        return arguments

    def _could_hold_tensor(self, argument: ast.expr, function: FunctionFacts) -> bool:
        if self.elements and isinstance(argument, (ast.List, ast.Tuple)):
            return any(function.could_be_tensor(_unstarred(e)) for e in argument.elts)
        return function.could_be_tensor(argument)

    def source(self) -> str:
        """This gate as Python source with a stable order (for the generated trigger table)."""
        return (
            f"ArgumentGate(frozenset({sorted(self.callees)!r}), frozenset({sorted(self.methods)!r}), "
            f"{self.keyword!r}, {self.elements!r})"
        )


def _scope_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` without nested functions (and without its per-node generators)."""
    stack = [scope]
    while stack:
        node = stack.pop()
        yield node
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                stack.extend(v for v in value if isinstance(v, ast.AST) and not isinstance(v, FUNCTION_DEFS))
            elif isinstance(value, ast.AST) and not isinstance(value, FUNCTION_DEFS):
                stack.append(value)


def _iterates_parameters(iterable: ast.expr) -> bool:
    """``m.parameters()``, ``m.named_buffers()``, ``enumerate(...)`` (of those, say)."""
    if not isinstance(iterable, ast.Call):
        return False
    func = iterable.func
    if isinstance(func, ast.Attribute):
        return func.attr in PARAMETER_ITERATORS | NAMED_PARAMETER_ITERATORS
    return isinstance(func, ast.Name) and func.id == "enumerate"


def _unstarred(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Starred) else node


class FunctionFacts:
    """What the gates need to know about one scope, gathered in one walk.

    ``scope`` is a function, or the module for its code outside functions. Nested
    functions are left out: the inference judges their code in their own scope, and
    the prefilter gates them on their own.
    """

    def __init__(self, scope: ast.AST, imports: ImportTable) -> None:
        self.imports = imports
        self.calls: list[ast.Call] = []
        # Names the inference could know as tensors. Bindings are collected first and
        # judged to a fixed point below, as a name's evidence may come from another name.
        self.evidenced: set[str] = set()
        assignments: list[tuple[str, ast.expr]] = []
        for node in _scope_nodes(scope):
            if isinstance(node, ast.Call):
                self.calls.append(node)
            elif isinstance(node, ast.Assign):
                assignments += [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if self._names_torch(node.annotation):
                    self.evidenced.add(node.target.id)
                elif node.value is not None:
                    assignments.append((node.target.id, node.value))
            elif isinstance(node, ast.NamedExpr):
                assignments.append((node.target.id, node.value))
            elif isinstance(node, ast.arg) and node.annotation is not None and self._names_torch(node.annotation):
                self.evidenced.add(node.arg)
            elif isinstance(node, (ast.For, ast.AsyncFor)) and _iterates_parameters(node.iter):
                self.evidenced.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        changed = True
        while changed:
            pending = [(name, value) for name, value in assignments if name not in self.evidenced]
            found = {name for name, value in pending if self.could_be_tensor(value)}
            changed = bool(found)
            self.evidenced |= found

    def _names_torch(self, annotation: ast.expr) -> bool:
        """Whether an annotation mentions anything under ``torch`` (``Tensor``, ``nn.Parameter``)."""
        return any(
            (self.imports.qualify_expression(node) or "").startswith(_TORCH)
            for node in ast.walk(annotation)
            if isinstance(node, (ast.Name, ast.Attribute))
        )

    def could_be_tensor(self, node: ast.expr) -> bool:
        """False only where ``Inference.info`` is None whatever the bindings hold."""
        if isinstance(node, ast.Name):
            return node.id in self.evidenced
        if isinstance(node, ast.Call):
            qualified = self.imports.qualify_expression(node.func)
            if qualified is not None:
                return qualified.startswith(_TORCH)
            return isinstance(node.func, ast.Attribute) and self.could_be_tensor(node.func.value)
        if isinstance(node, ast.Attribute):
            if node.attr == "grad":
                return True
            if node.attr not in TENSOR_ATTRIBUTES:
                return False
            receiver = node.value
            return self.could_be_tensor(receiver) or (
                node.attr == "data" and isinstance(receiver, ast.Attribute) and receiver.attr in PARAMETER_ATTRIBUTES
            )
        if isinstance(node, ast.Subscript):
            return self.could_be_tensor(node.value)
        if isinstance(node, ast.BinOp):
            return self.could_be_tensor(node.left) or self.could_be_tensor(node.right)
        if isinstance(node, ast.Compare):
            return not any(isinstance(op, _MEMBERSHIP) for op in node.ops) and any(
                self.could_be_tensor(operand) for operand in (node.left, *node.comparators)
            )
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self.could_be_tensor(node.operand)
        if isinstance(node, ast.IfExp):
            return self.could_be_tensor(node.body) and self.could_be_tensor(node.orelse)
        if isinstance(node, ast.NamedExpr):
            return self.could_be_tensor(node.value)
        return False
