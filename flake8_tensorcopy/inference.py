"""Tensor inference shared by the rules.

An expression counts as a tensor only with evidence; unknown means "not a tensor"
(precision before recall). Evidence is syntactic: torch calls resolved through the
import table, tensor methods on tensors, annotations, ``.grad``, loop variables over
``.parameters()``, and names bound to any of these earlier in the same scope.

Bindings are tracked in order within a function, which never sees the bindings of the
module or of an enclosing function. What the rest of the file says comes from the
module summary (``analysis/summary.py``), which is built from flake8's ``ast`` of the
whole file: so a function can still be parsed and analysed on its own, and finds the
same as in a parse of the whole file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from .analysis.scope_facts import ScopeFacts
from .analysis.summary import ModuleSummary
from .analysis.values import Holds, Instance, LibraryObject, Value, tensor_tuple_value, torch_tuple_value
from .analysis.torch_api import (
    COMPUTED_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_PROPERTIES,
    DISTRIBUTIONS,
    TENSOR_ONLY_METHODS,
)
from .analysis.vocabulary import (  # noqa: F401 (CONVERSION_METHODS, VIEW_METHODS: re-exported for rules)
    CONVERSION_METHODS,
    FRESH,
    FRESH_METHODS,
    FRESH_INDEX,
    INDEX_DTYPES,
    PARAMETER,
    PARAMETER_ATTRIBUTES,
    PARAMETER_CONSTRUCTORS,
    PARAMETER_ITERATORS,
    SIZED_TENSOR_METHODS,
    TENSOR,
    TENSOR_ANNOTATIONS,
    TENSOR_ATTRIBUTES,
    VIEW_METHODS,
    CallShape,
    TensorInfo,
    gives_tensor_for_tensor,
    tensor_method_info,
    torch_function_info,
)
from .imports import ImportTable


@dataclass(frozen=True)
class Binding:
    """The latest value bound to a name in the current scope.

    ``opaque``: the name is known NOT to hold what the module summary says (narrowed by
    ``isinstance``, or shadowed by a comprehension's or lambda's own variable).
    """

    value: cst.BaseExpression | None  # None: bound by something other than `name = value`
    info: TensorInfo | None  # inferred when the binding happened
    opaque: bool = False
    tensors: bool = False  # a comprehension that made a list of tensors (judged when bound)
    parameter: bool = False  # the function's parameter, not rebound yet: what it was passed


_OPAQUE = Binding(None, None, opaque=True)


def method_call(node: cst.CSTNode) -> tuple[cst.BaseExpression, str] | None:
    """(receiver, method name) for ``receiver.method(...)``, else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.value, node.func.attr.value
    return None


def callee_name(call: cst.Call) -> str:
    """``backward`` for ``loss.backward()``, ``criterion`` for ``criterion(...)``, else ""."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return ""


def first_argument(call: cst.Call, keyword: str | None = None) -> cst.BaseExpression | None:
    """The first positional argument (or the named keyword), skipping ``*args``."""
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
        if keyword and arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    return None


def keyword_argument(call: cst.Call, keyword: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    return None


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``"self.model.weight"`` for a chain of plain names and attributes, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def container_of(target: cst.BaseExpression) -> cst.BaseExpression:
    """What an item store writes into: ``history`` for ``history[i][k]``."""
    while isinstance(target, cst.Subscript):
        target = target.value
    return target


def bound_names(target: cst.BaseExpression) -> Iterator[str]:
    """Names bound by an assignment or loop target (``a``, ``a, (b, *c)``)."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from bound_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from bound_names(target.value)


class Inference:
    """Scope-aware bindings plus the ``info(expr)`` evidence function.

    The engine drives it: :class:`ScopeOpener` runs before the rules on each node and
    :class:`ScopeCloser` after them, so a rule sees the bindings made before its node.
    Where the bindings made so far know nothing, the module summary may: what the file's
    functions return, what attributes and containers hold, what a name holds wherever it
    is bound (see ``analysis/summary.py``).
    """

    def __init__(self, imports: ImportTable, summary: ModuleSummary | None = None, scope: str = "") -> None:
        self.imports = imports
        self.summary = summary
        self.scopes: list[dict[str, Binding]] = [{}]
        # Per scope: its qualified name in the module, and whether the summary has facts
        # of it (a function or the module: not a class body). The facts are walked on
        # first use only.
        self.qualnames: list[tuple[str, bool]] = [(scope, summary is not None and summary.scope(scope) is not None)]
        # Per open ``if``/loop: the bindings before it and those at the end of each branch.
        self.branches: list[tuple[dict[str, Binding], list[dict[str, Binding]]]] = []

    # -- bindings ---------------------------------------------------------------
    def binding(self, name: str) -> Binding | None:
        return self.scopes[-1].get(name)

    def bind(self, name: str, value: cst.BaseExpression | None, info: TensorInfo | None, tensors: bool = False,
             parameter: bool = False) -> None:
        self.scopes[-1][name] = Binding(value, info, tensors=tensors, parameter=parameter)

    def bind_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            if isinstance(value, cst.ListComp) and self._comprehension_of_tensors(value):
                self.bind(target.value, value, None, tensors=True)
            else:
                self.bind(target.value, value, self.info(value) if value is not None else None)
            return
        for name in bound_names(target):
            self.bind(name, None, None)
        if value is not None and isinstance(target, (cst.Tuple, cst.List)):
            infos = self._unpacked_infos(value, len(target.elements))
            for element, info in zip(target.elements, infos):
                if isinstance(element, cst.Element) and isinstance(element.value, cst.Name) and info is not None:
                    self.bind(element.value.value, None, info)

    def _unpacked_infos(self, value: cst.BaseExpression, width: int) -> list[TensorInfo | None]:
        """What ``a, b = value`` binds, position by position: a tuple display's elements, or
        what the file's own function returns (``return seg, feats``)."""
        if isinstance(value, (cst.Tuple, cst.List)):
            if len(value.elements) != width or any(isinstance(e, cst.StarredElement) for e in value.elements):
                return []
            return [self.info(e.value) for e in value.elements]
        if self.summarised(value) in (Holds.TENSORS, Holds.TENSOR_OR_TENSORS, Holds.BATCH):  # _, pred = out.max(1)
            return [TENSOR] * width
        facts = self.facts
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and facts is not None \
                and self.binding(value.func.value) is None:
            returned = facts.own_call(value.func.value)
            if isinstance(returned, tuple) and len(returned) == width:
                return [v if isinstance(v, TensorInfo) else None for v in returned]
        return []

    def _comprehension_of_tensors(self, node: cst.ListComp) -> bool:
        """A list comprehension whose every element is a tensor: ``[w / total for w in
        weights]`` over the rows of a tensor (or a list of tensors), with an element that is a
        tensor when ``w`` is one, or ``[scores[i][j] for i in range(n) for j in ...]`` whatever
        its variables hold. Judged with the bindings in force where the list is made:
        ``weights = [... for w in weights]`` reads the old ``weights``."""
        clause: cst.CompFor | None = node.for_in
        variables: set[str] = set()
        while clause is not None:
            variables.update(bound_names(clause.target))
            clause = clause.inner_for_in
        first = node.for_in
        rows = (
            first.inner_for_in is None
            and isinstance(first.target, cst.Name)
            and (self.is_tensor(first.iter) or self.holds_tensors(first.iter))
        )
        self.push(inherit=True, shadowed=variables)
        try:
            if rows:
                self.bind(first.target.value, None, TENSOR)
            return self.is_tensor(node.elt)
        finally:
            self.pop()

    # -- control flow -------------------------------------------------------------
    # A branch starts from the bindings before the ``if``; after it, a name keeps what
    # every path agrees on. A loop body may run zero times, so it merges the same way.
    def enter_branches(self) -> None:
        self.branches.append((dict(self.scopes[-1]), []))

    def next_branch(self) -> None:
        before, ends = self.branches[-1]
        ends.append(self.scopes[-1])
        self.scopes[-1] = dict(before)

    def leave_branches(self, exhaustive: bool) -> None:
        before, ends = self.branches.pop()
        ends.append(self.scopes[-1])
        if not exhaustive:
            ends.append(before)
        self.scopes[-1] = _merge(ends)

    def forget(self, name: str) -> None:
        """``name`` holds no tensor here (an ``isinstance`` test said so)."""
        self.scopes[-1][name] = _OPAQUE

    def push(self, inherit: bool, shadowed: set[str] = frozenset(), name: str | None = None,
             function: bool = False) -> None:
        """Open a scope: a function or class called ``name`` (``function`` says which), or,
        inheriting the current bindings, a lambda or comprehension whose own variables
        ``shadowed`` hide the outer ones."""
        scope = {k: (_OPAQUE if k in shadowed else v) for k, v in self.scopes[-1].items()} if inherit else {}
        scope.update({k: _OPAQUE for k in shadowed})
        self.scopes.append(scope)
        if name is None:
            self.qualnames.append(self.qualnames[-1])
            return
        outer = self.qualnames[-1][0]
        self.qualnames.append((f"{outer}.{name}" if outer else name, function and self.summary is not None))

    def pop(self) -> None:
        self.scopes.pop()
        self.qualnames.pop()

    @property
    def qualname(self) -> str | None:
        """The current scope's qualified name in the module summary (None when it has none)."""
        qualname, summarised = self.qualnames[-1]
        return qualname if summarised else None

    @property
    def facts(self) -> ScopeFacts | None:
        """The summary's facts of the current scope (None when it has none)."""
        qualname, summarised = self.qualnames[-1]
        return self.summary.scope(qualname) if summarised else None

    # -- evidence ---------------------------------------------------------------
    def qualify(self, node: cst.CSTNode) -> str | None:
        return self.imports.qualify(node)

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        return self.info(node) is not None

    def info(self, node: cst.BaseExpression) -> TensorInfo | None:
        """Evidence that ``node`` evaluates to a tensor, or None when unknown."""
        if isinstance(node, cst.Name):
            summarised = self.summarised(node)
            return summarised if isinstance(summarised, TensorInfo) else None
        if isinstance(node, cst.Call):
            return self._call_info(node)
        if isinstance(node, cst.Attribute):
            return self._attribute_info(node)
        if isinstance(node, cst.Subscript):
            if self.info(node.value) or self.summarised(node.value) in _INDEXED_TO_TENSORS:
                return TENSOR
            return None
        if isinstance(node, cst.BinaryOperation):
            left, right = self.info(node.left), self.info(node.right)
            if left or right:
                index = bool(left and left.index) and not (right and not right.index)
                return FRESH_INDEX if index else FRESH
            return None
        if isinstance(node, cst.Comparison):
            operands = [node.left, *(target.comparator for target in node.comparisons)]
            simple = all(
                not isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot))
                for c in node.comparisons
            )
            return FRESH_INDEX if simple and any(self.info(o) for o in operands) else None
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Not):
                return None
            operand = self.info(node.expression)
            return (FRESH_INDEX if operand.index else FRESH) if operand else None
        if isinstance(node, cst.IfExp):
            body, orelse = self.info(node.body), self.info(node.orelse)
            return TENSOR if body and orelse else None
        if isinstance(node, cst.NamedExpr):
            return self.info(node.value)
        return None

    def summarised(self, node: cst.BaseExpression) -> Value:
        """What a name, or an attribute of an instance of the file's classes, holds: the
        bindings made so far first, then the module summary; for a call, the tuple of
        tensors a torch function or tensor method returns (``x.chunk(2)``), or the
        distribution a ``torch.distributions`` class makes."""
        if isinstance(node, cst.Call):
            return self._summarised_call(node)
        if isinstance(node, cst.Name):
            binding = self.binding(node.value)
            if binding is not None and (binding.info is not None or binding.opaque):
                return binding.info
            facts = self.facts
            if facts is None:
                return None
            if binding is not None and binding.parameter:  # x = torch.tensor(x) reads what was passed
                return facts.parameter_value(node.value)
            return facts.name_value(node.value)
        if isinstance(node, cst.Attribute) and self.summary is not None:
            narrowed = self.binding(dotted_name(node) or "")
            if narrowed is not None and narrowed.opaque:
                return None  # if not isinstance(self.anchors, torch.Tensor): ...
            receiver = self.summarised(node.value)
            if isinstance(receiver, Instance):
                return self.summary.attribute(receiver, node.attr.value)
            if isinstance(receiver, LibraryObject):
                return receiver.attribute(node.attr.value)  # train_set.targets
            if receiver == Holds.DISTRIBUTION and node.attr.value in DISTRIBUTION_TENSOR_PROPERTIES:
                return TENSOR  # dist.mean
            if receiver is None and (qualified := self.qualify(node)) is not None:
                return self.summary.imported_value(qualified)  # config.MEAN
        return None

    def holds_tensors(self, node: cst.BaseExpression) -> bool:
        """A name or attribute the summary knows as a list of tensors (``vals.append(t)``), or
        a name bound here to an empty list (or to tensors, or to empty rows:
        ``[[] for _ in range(n)]``) into which the scope puts tensors and no plain values
        (also when it is later rebound: ``vals = torch.tensor(vals)``)."""
        if self.summarised(node) == Holds.TENSORS:
            return True
        if isinstance(node, cst.Name) and (bound := self.binding(node.value)) is not None and bound.tensors:
            return True
        if isinstance(node, cst.Call):
            return self._sequence_of_tensors(node)
        if isinstance(node, cst.ListComp):
            return self._comprehension_of_tensors(node)
        if not isinstance(node, cst.Name):
            return False
        binding, facts = self.binding(node.value), self.facts
        return (
            binding is not None
            and _empty_or_tensors(binding.value, self)
            and facts is not None
            and facts.receives_tensors(node.value)
        )

    def _sequence_of_tensors(self, call: cst.Call) -> bool:
        """``list(model.parameters())``, ``tuple(t)``: a list or tuple of what it iterates."""
        if not (isinstance(call.func, cst.Name) and call.func.value in ("list", "tuple") and len(call.args) == 1):
            return False
        argument = call.args[0]
        if argument.keyword is not None or argument.star or self.binding(call.func.value) is not None:
            return False
        iterated = method_call(argument.value)
        if iterated is not None and iterated[1] in PARAMETER_ITERATORS and not argument.value.args:
            return True
        return self.is_tensor(argument.value) or self.holds_tensors(argument.value)

    def _attribute_info(self, node: cst.Attribute) -> TensorInfo | None:
        attr = node.attr.value
        if attr == "grad":
            return TENSOR
        if attr in TENSOR_ATTRIBUTES:
            receiver = node.value
            if self.info(receiver) or (
                attr == "data"
                and isinstance(receiver, cst.Attribute)
                and receiver.attr.value in PARAMETER_ATTRIBUTES
            ):
                return TENSOR
        summarised = self.summarised(node)
        return summarised if isinstance(summarised, TensorInfo) else None

    def _call_info(self, node: cst.Call) -> TensorInfo | None:
        qualified = self.qualify(node.func)
        if qualified:
            info = torch_function_info(qualified, _CstCall(node))
            if info is not None:
                return info
            keywords = (a.keyword.value if a.keyword else None for a in node.args if a.keyword or a.star == "**")
            if gives_tensor_for_tensor(qualified, keywords):
                return TENSOR if any(self.info(a.value) for a in node.args if not a.keyword and not a.star) else None
            if self.summary is not None:
                returned = self.summary.imported_call(qualified)  # a helper of another module
                return returned if isinstance(returned, TensorInfo) else None
            return None
        if isinstance(node.func, cst.Name):
            return self._own_call_info(node.func)
        called = method_call(node)
        if called is None:
            return None
        receiver, name = called
        receiver_info = self.info(receiver)
        if receiver_info is not None:
            # A conversion returns its receiver or a new copy: of a fresh temporary (not a
            # name, which others may read), nothing else can see either.
            copies = is_copying_conversion(node) or (receiver_info.fresh and not isinstance(receiver, cst.Name))
            return tensor_method_info(name, receiver_info, copies)
        instance = self.summarised(receiver)
        if instance == Holds.DISTRIBUTION:
            return FRESH if name in DISTRIBUTION_TENSOR_METHODS else None  # Categorical(p).sample()
        if isinstance(instance, Instance):
            if self.summary.attribute(instance, name) == Holds.LOSS:
                return FRESH  # self.criterion(out, y)
            returned = self.summary.call_on(instance, name)
            return returned if isinstance(returned, TensorInfo) else None
        if instance is None and (
            name in TENSOR_ONLY_METHODS or (isinstance(receiver, _OPERATIONS) and name in COMPUTED_TENSOR_METHODS)
        ):
            # Whatever the receiver is, only tensors have this method: (a == b).float().
            return FRESH if name in FRESH_METHODS else TENSOR
        if instance is None and name in VIEW_METHODS and _sized_call(node):
            return TENSOR  # x[b].view(-1, 5): a view, of what only a tensor can be
        return None

    def _summarised_call(self, node: cst.Call) -> Value:
        qualified = self.qualify(node.func)
        if qualified is not None:
            if qualified in DISTRIBUTIONS:
                return Holds.DISTRIBUTION
            value = LibraryObject.made_by(qualified) or torch_tuple_value(qualified)
            if value is None and self.summary is not None:
                value = self.summary.imported_call(qualified)  # Net() of the project's models.py
            return value
        called = method_call(node)
        return tensor_tuple_value(called[1]) if called is not None and self.info(called[0]) else None

    def _own_call_info(self, func: cst.Name) -> TensorInfo | None:
        """``helper(...)``: what the file's own function returns, when nothing here rebinds it;
        ``model(x)``: what calling an instance of the file's class returns."""
        facts = self.facts
        if facts is None:
            return None
        if self.binding(func.value) is None:
            returned = facts.own_call(func.value)
            if returned is not None:
                return returned if isinstance(returned, TensorInfo) else None
        instance = self.summarised(func)  # model = Net(); model(x)
        if instance == Holds.LOSS:
            return FRESH  # criterion = nn.CrossEntropyLoss(); criterion(out, y)
        returned = self.summary.instance_call(instance) if isinstance(instance, Instance) else None
        return returned if isinstance(returned, TensorInfo) else None


def _empty_or_tensors(value: cst.BaseExpression | None, inference: Inference) -> bool:
    """``[]``, ``[t0, t1]`` of tensors, or rows of empty lists: ``[[] for _ in range(n)]``."""
    if isinstance(value, cst.ListComp):
        return isinstance(value.elt, cst.List) and not value.elt.elements
    return isinstance(value, cst.List) and all(
        isinstance(element, cst.Element) and inference.is_tensor(element.value) for element in value.elements
    )


# What indexing gives a tensor from: a list of tensors, a torch function's tuple, a state_dict.
_INDEXED_TO_TENSORS = (Holds.TENSORS, Holds.TENSOR_OR_TENSORS, Holds.STATE_DICT)
# What these compute is never a module (whose .float() or .to() return the module).
_OPERATIONS = (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation)


def _merge(scopes: list[dict[str, Binding]]) -> dict[str, Binding]:
    merged: dict[str, Binding] = {}
    for name in set().union(*scopes):
        bindings = [scope.get(name) for scope in scopes]
        first = bindings[0]
        if all(b is first for b in bindings):
            merged[name] = first
        elif all(b is not None and b.info is not None for b in bindings):
            infos = {b.info for b in bindings}
            merged[name] = Binding(None, infos.pop() if len(infos) == 1 else TENSOR)
        else:
            merged[name] = Binding(None, None)
    return merged


def narrowed_name(test: cst.BaseExpression, imports: ImportTable) -> tuple[str, bool] | None:
    """(name, holds a tensor where the test is true) for ``isinstance(name, T)`` (the name
    may be dotted: ``self.anchors``),
    ``type(name) == T`` (or ``is``) and their negations: true for torch's tensor types,
    false for any other type (``np.ndarray``, ``list``, ``int``); None for a mix of both, or
    a test of anything else."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    call = test.expression if negated else test
    if isinstance(call, cst.Comparison) and len(call.comparisons) == 1:  # type(y) == int
        comparison = call.comparisons[0]
        operator = comparison.operator
        if not isinstance(operator, (cst.Equal, cst.Is, cst.NotEqual, cst.IsNot)):
            return None
        negated ^= isinstance(operator, (cst.NotEqual, cst.IsNot))
        left = call.left
        if not (isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "type"
                and len(left.args) == 1):
            return None
        subject, kinds = dotted_name(left.args[0].value), comparison.comparator
    elif (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "isinstance"
        and len(call.args) == 2
    ):
        subject, kinds = dotted_name(call.args[0].value), call.args[1].value
    else:
        return None
    if subject is None:
        return None
    candidates = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    tensors = [imports.qualify(c) in TENSOR_ANNOTATIONS | PARAMETER_CONSTRUCTORS for c in candidates]
    if all(tensors):
        return subject, not negated
    if not any(tensors) and all(isinstance(c, (cst.Name, cst.Attribute)) for c in candidates):
        return subject, negated
    return None


class _CstCall(CallShape):
    def __init__(self, call: cst.Call) -> None:
        self.call = call

    def single_argument(self) -> bool:
        return len(self.call.args) == 1

    def integer_literals(self) -> bool:
        dtype = keyword_argument(self.call, "dtype")
        if dtype is not None:
            return isinstance(dtype, cst.Attribute) and dtype.attr.value in INDEX_DTYPES
        data = first_argument(self.call, keyword="data")
        return (
            isinstance(data, (cst.List, cst.Tuple))
            and bool(data.elements)
            and all(_integer_literal(element.value) for element in data.elements)
        )

    def float_arange(self) -> bool:
        return keyword_argument(self.call, "dtype") is not None or any(
            isinstance(arg.value, cst.Float) for arg in self.call.args
        )


def _integer_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer) or (isinstance(node, cst.Name) and node.value in ("True", "False"))


def _sized_call(call: cst.Call) -> bool:
    """``x.view(-1, 5)``, ``x.size(0)``: see ``SIZED_TENSOR_METHODS`` (and the summary's ``_sized_call``)."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in SIZED_TENSOR_METHODS and any(
        argument.keyword is None and not argument.star and _integer_literal(argument.value) for argument in call.args
    )


def is_copying_conversion(call: cst.Call) -> bool:
    """``x.to(..., copy=True)``: a conversion that always returns a new tensor."""
    copy = keyword_argument(call, "copy")
    return isinstance(copy, cst.Name) and copy.value == "True"


def annotation_info(annotation: cst.Annotation | None, imports: ImportTable) -> TensorInfo | None:
    """``Tensor``, ``torch.Tensor``, ``nn.Parameter``, also inside Optional / ``| None``."""
    if annotation is None:
        return None
    return _annotation_expr_info(annotation.annotation, imports)


def _annotation_expr_info(node: cst.BaseExpression, imports: ImportTable) -> TensorInfo | None:
    if isinstance(node, cst.SimpleString):
        return None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        left = _annotation_expr_info(node.left, imports)
        right = _annotation_expr_info(node.right, imports)
        if left and _is_none(node.right):
            return left
        if right and _is_none(node.left):
            return right
        return None
    if isinstance(node, cst.Subscript):
        if imports.qualify(node.value) in ("typing.Optional",) and len(node.slice) == 1:
            element = node.slice[0].slice
            if isinstance(element, cst.Index):
                return _annotation_expr_info(element.value, imports)
        return None
    qualified = imports.qualify(node)
    if qualified in TENSOR_ANNOTATIONS:
        return TENSOR
    if qualified in PARAMETER_CONSTRUCTORS:
        return PARAMETER
    return None


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def subscript_indices(node: cst.Subscript) -> list[cst.BaseExpression | None]:
    """The index expressions of ``x[a, b:c]`` (None for slices), tuples flattened."""
    indices: list[cst.BaseExpression | None] = []
    for element in node.slice:
        if isinstance(element.slice, cst.Index):
            value = element.slice.value
            if isinstance(value, cst.Tuple):
                indices.extend(e.value for e in value.elements)
            else:
                indices.append(value)
        else:
            indices.append(None)
    return indices


def is_advanced_index(node: cst.Subscript, inference: Inference) -> bool:
    """Evidently advanced indexing: a list literal, a mask, an index tensor."""
    return any(index is not None and _is_advanced(index, inference) for index in subscript_indices(node))


def _is_advanced(index: cst.BaseExpression, inference: Inference) -> bool:
    if isinstance(index, (cst.List, cst.ListComp)):
        return True
    if isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.BitInvert):
        return True
    if isinstance(index, cst.Comparison):
        return all(not isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in index.comparisons)
    if isinstance(index, cst.Call):
        qualified = inference.qualify(index.func)
        if qualified == "torch.where" and len(index.args) == 1:
            return True
        if _tensor_view_of_comparison(index):
            return True
        called = method_call(index)
        if qualified is None and called is not None and called[1] in _ADVANCED_INDEX_METHODS:
            return True  # whatever the receiver: these return >= 1-d long or bool tensors
    if isinstance(index, cst.Attribute) and index.attr.value == "indices":
        called = method_call(index.value)
        if called is not None and called[1] in ("topk", "sort"):
            return True
    if isinstance(index, cst.Name):
        binding = inference.binding(index.value)
        if binding is not None and isinstance(binding.value, (cst.List, cst.ListComp)):
            return True  # idx = [0, 2]; x[idx]
    info = inference.info(index)
    return bool(info and info.index)


def _tensor_view_of_comparison(node: cst.Call) -> bool:
    """``(rank < k).unsqueeze(-1).expand_as(x)``: views of a comparison, one of them a method
    only tensors have, so the comparison is a bool tensor: a mask."""
    tensor_only = False
    while (called := method_call(node)) is not None and called[1] in VIEW_METHODS:
        tensor_only = tensor_only or called[1] in TENSOR_ONLY_METHODS
        node = called[0]
    return tensor_only and isinstance(node, cst.Comparison) and all(
        not isinstance(c.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for c in node.comparisons
    )


# Methods whose result indexes advanced whatever their receiver is (``m.nonzero()``).
_ADVANCED_INDEX_METHODS = frozenset({"nonzero", "argsort", "bool"})
