"""The prefilter's second stage: a rule's necessary condition, checked on flake8's ``ast``.

Some triggers match many more functions than can hold a finding. ``torch.tensor(x)``
is everywhere in torch code, but TCP005 reports only when ``x`` is known to be a
tensor, from evidence inside the same function or from the module summary.
An :class:`ArgumentGate` asks the cheap question first, on the tree flake8 already
parsed: does the function call one of the rule's callees with an argument that the
inference *could* judge a tensor? If not, the function is not parsed with LibCST for
that rule.

The gate over-approximates ``Inference.info``: wherever the inference could find
evidence, the gate answers yes. A name counts when the scope binds it anywhere (in any
order, on any path) to something that could be a tensor, annotates it with anything
under ``torch``, or loops it over parameters; and whatever the module summary knows
(``analysis/summary.py``), since the inference reads the same answers. Both read the
evidence vocabulary of ``analysis/vocabulary.py``, and ``tests/test_gates.py`` plus
``tests/test_prefilter_exact.py`` check that the gate loses no finding.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .analysis.summary import Holds, ScopeFacts, Unpacked
from .analysis.vocabulary import (
    NAMED_PARAMETER_ITERATORS,
    PARAMETER_ATTRIBUTES,
    PARAMETER_ITERATORS,
    TENSOR_ATTRIBUTES,
    TensorInfo,
)
from .imports import ImportTable

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
        if self.elements and isinstance(argument, (ast.List, ast.Tuple)):  # also nested: [[t]]
            return any(self._could_hold_tensor(_unstarred(e), function) for e in argument.elts)
        if self.elements and (
            function.facts.value(argument) == Holds.TENSORS
            or (isinstance(argument, ast.Name) and function.facts.filled_with_tensors(argument.id))
        ):
            return True
        return function.could_be_tensor(argument)

    def source(self) -> str:
        """This gate as Python source with a stable order (for the generated trigger table)."""
        return (
            f"ArgumentGate(frozenset({sorted(self.callees)!r}), frozenset({sorted(self.methods)!r}), "
            f"{self.keyword!r}, {self.elements!r})"
        )


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
    """What the gates need to know about one scope, read off the summary's walk of it.

    ``facts`` is the summary's :class:`ScopeFacts` of a function, or of the module for
    its code outside functions. Nested functions are left out: the inference judges
    their code in their own scope, and the prefilter gates them on their own.
    """

    def __init__(self, facts: ScopeFacts) -> None:
        self.facts = facts
        self.imports = facts.imports
        self.calls = facts.calls
        # Names the inference could know as tensors: any binding may give the evidence
        # (the inference follows the order, the gate cannot). Judged to a fixed point, as
        # a name's evidence may come from another name.
        self.evidenced = {name for name in facts.bindings if isinstance(facts.name_value(name), TensorInfo)}
        pending = {name: bindings for name, bindings in facts.bindings.items() if name not in self.evidenced}
        changed = True
        while changed:
            found = {name for name, bindings in pending.items() if any(map(self._could_bind_tensor, bindings))}
            changed = bool(found)
            self.evidenced |= found
            pending = {name: bindings for name, bindings in pending.items() if name not in found}

    def _could_bind_tensor(self, binding) -> bool:
        source = binding.source
        if binding.kind == "param":
            return source.annotation is not None and self._names_torch(source.annotation)
        if binding.kind == "value":
            if isinstance(source, ast.AnnAssign):
                if self._names_torch(source.annotation):
                    return True
                source = source.value
            return source is not None and self.could_be_tensor(source)
        if binding.kind == "loop" and isinstance(source, ast.expr):  # a ``for`` loop's target
            return self._could_iterate_tensors(source)
        if binding.kind == "loop" and isinstance(source, Unpacked):  # a, b = value
            value = source.value
            if isinstance(value, (ast.Tuple, ast.List)):
                return any(self.could_be_tensor(_unstarred(element)) for element in value.elts)
            returned = self.facts.value(value)  # a tuple when the file's own function returns one
            return self.could_be_tensor(value) or (
                isinstance(returned, tuple) and any(isinstance(v, TensorInfo) for v in returned)
            )
        return False

    def _could_iterate_tensors(self, iterable: ast.expr) -> bool:
        """``for x in iterable`` could bind a tensor: parameters, rows of a tensor, and
        ``zip``/``enumerate``/``reversed`` of those."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
                and iterable.func.id in ("zip", "enumerate", "reversed"):
            return any(self._could_iterate_tensors(_unstarred(argument)) for argument in iterable.args)
        return _iterates_parameters(iterable) or self.could_be_tensor(iterable)

    def _names_torch(self, annotation: ast.expr) -> bool:
        """Whether an annotation mentions anything under ``torch`` (``Tensor``, ``nn.Parameter``)."""
        return any(
            (self.imports.qualify_expression(node) or "").startswith(_TORCH)
            for node in ast.walk(annotation)
            if isinstance(node, (ast.Name, ast.Attribute))
        )

    def could_be_tensor(self, node: ast.expr) -> bool:
        """False only where ``Inference.info`` is None whatever the bindings hold."""
        if isinstance(self.facts.value(node), TensorInfo):  # what the summary knows, the inference reads
            return True
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
