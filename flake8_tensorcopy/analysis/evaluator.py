"""What an expression holds, judged on flake8's ``ast`` as the rules walk it.

An expression counts as a tensor only with evidence; unknown means "not a tensor"
(precision before recall). Evidence is syntactic: torch calls resolved through the
import table, tensor methods on tensors, annotations, ``.grad``, loop variables over
``.parameters()``, and names bound to any of these earlier in the same scope.

Bindings are tracked in order within a function, which never sees the bindings of the
module or of an enclosing function. What the rest of the file says comes from the
module summary (``analysis/summary.py``): so a function analysed on its own finds the
same as in a walk of the whole file.
"""

from __future__ import annotations

import ast
import functools
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from ..imports import ImportTable
from .ast_patterns import AstCallShape, annotation_value, integer_literal, repeats_a_sequence
from .scope_facts import ScopeFacts, batch_item, each_instance, method_result
from .summary import ModuleSummary
from .torch_api import (
    COMPUTED_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_PROPERTIES,
    DISTRIBUTIONS,
    TENSOR_ONLY_METHODS,
)
from .values import CALLED_FOR_TENSORS, Holds, Instance, LibraryObject, Value, tensor_tuple_value, torch_tuple_value
from .vocabulary import (
    FRESH,
    FRESH_INDEX,
    FRESH_METHODS,
    PARAMETER_ATTRIBUTES,
    PARAMETER_CONSTRUCTORS,
    PARAMETER_ITERATORS,
    SIZED_TENSOR_METHODS,
    TENSOR,
    TENSOR_ANNOTATIONS,
    TENSOR_ATTRIBUTES,
    VIEW_METHODS,
    TensorInfo,
    gives_tensor_for_tensor,
    tensor_method_info,
    torch_function_info,
)


_Result = TypeVar("_Result")


class Binding:
    """The latest value bound to a name in the current scope.

    ``info`` is what ``value`` held when the binding happened, worked out when first read:
    most bindings are never asked about, and working one out may read other modules. Until
    then the binding keeps the bindings in force then of the names ``value`` reads, which
    are all that the evidence reads of the scope (``Inference.bind_lazily``); or, for a name
    a loop or an unpacking binds, or one that branches bound apart, how to work it out
    (``Inference.bind_later``, ``_merge``).

    ``opaque``: the name is known NOT to hold what the module summary says (narrowed by
    ``isinstance``, or shadowed by a comprehension's or lambda's own variable).
    """

    __slots__ = ("value", "_info", "opaque", "tensors", "parameter", "_pending")

    def __init__(self, value: ast.expr | None, info: TensorInfo | None, opaque: bool = False,
                 tensors: bool = False, parameter: bool = False) -> None:
        self.value = value  # None: bound by something other than `name = value`
        self._info = info
        self.opaque = opaque
        self.tensors = tensors  # a comprehension that made a list of tensors (judged when bound)
        self.parameter = parameter  # the function's parameter, not rebound yet: what it was passed
        # The inference by a weak reference: a strong one would be a cycle (its scopes hold the
        # binding), keeping the module's summary and tree alive until the cycle collector runs.
        self._pending: tuple[weakref.ref[Inference], dict[str, Binding], tuple[str, bool]] \
            | Callable[[], TensorInfo | None] | None = None

    @property
    def info(self) -> TensorInfo | None:
        pending = self._pending
        if pending is not None:
            self._pending = None
            if type(pending) is not tuple:
                self._info = pending()
            elif (alive := pending[0]()) is not None:  # read only while its walk lasts
                self._info = alive.where_bound(pending[1], pending[2], lambda: alive.info(self.value))
        return self._info


_OPAQUE = Binding(None, None, opaque=True)


# -- shapes of expressions ----------------------------------------------------------
def method_call(node: ast.AST) -> tuple[ast.expr, str] | None:
    """(receiver, method name) for ``receiver.method(...)``, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value, node.func.attr
    return None


def callee_name(call: ast.Call) -> str:
    """``backward`` for ``loss.backward()``, ``criterion`` for ``criterion(...)``, else ""."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def argument_count(call: ast.Call) -> int:
    """How many arguments the call spells, positional, keyword and starred alike."""
    return len(call.args) + len(call.keywords)


def first_argument(call: ast.Call, keyword: str | None = None) -> ast.expr | None:
    """The first positional argument (or the named keyword), skipping ``*args``."""
    for arg in call.args:
        if not isinstance(arg, ast.Starred):
            return arg
    if keyword:
        return keyword_argument(call, keyword)
    return None


def keyword_argument(call: ast.Call, keyword: str) -> ast.expr | None:
    for arg in call.keywords:
        if arg.arg == keyword:
            return arg.value
    return None


def positional_arguments(call: ast.Call) -> list[ast.expr]:
    """The plain positional arguments, ``*args`` left out."""
    return [arg for arg in call.args if not isinstance(arg, ast.Starred)]


def dotted_name(node: ast.AST) -> str | None:
    """``"self.model.weight"`` for a chain of plain names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def container_of(target: ast.expr) -> ast.expr:
    """What an item store writes into: ``history`` for ``history[i][k]``."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target


def bound_names(target: ast.AST) -> Iterator[str]:
    """Names bound by an assignment or loop target (``a``, ``a, (b, *c)``)."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from bound_names(target.value)


def is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def is_none(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def simple_comparison(node: ast.Compare) -> bool:
    """A comparison of values (``<``, ``==``), not of membership or identity."""
    return not any(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in node.ops)


class Inference:
    """Scope-aware bindings plus the ``info(expr)`` evidence function.

    The walk drives it (``analysis/scope_tracking.py`` runs before the rules on each node
    and after them), so a rule sees the bindings made before its node. Where the bindings
    made so far know nothing, the module summary may: what the file's functions return,
    what attributes and containers hold, what a name holds wherever it is bound.
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

    def bind(self, name: str, value: ast.expr | None, info: TensorInfo | None, tensors: bool = False,
             parameter: bool = False) -> None:
        self.scopes[-1][name] = Binding(value, info, tensors=tensors, parameter=parameter)

    def bind_lazily(self, name: str, value: ast.expr) -> None:
        """``name = value``, with what ``value`` holds worked out when first asked, from the
        bindings in force now of the names it reads."""
        binding = Binding(value, None)
        binding._pending = (weakref.ref(self), self._in_force(value), self.qualnames[-1])
        self.scopes[-1][name] = binding

    def bind_later(self, names: Iterable[str], reads: ast.expr, bind: Callable[[Inference], None]) -> None:
        """Bind ``names`` to what ``bind(self)`` binds them to, run when one of them is first
        read, with the bindings in force now of the names ``reads`` reads: a loop's target, or
        an unpacking, whose evidence costs a look at the value that is often never needed."""
        later = _Later(weakref.ref(self), self._in_force(reads), self.qualnames[-1], bind)
        scope = self.scopes[-1]
        for name in names:
            binding = scope[name] = Binding(None, None)
            binding._pending = functools.partial(later.info_of, name)

    def _in_force(self, value: ast.expr) -> dict[str, Binding]:
        """The bindings in force now of the names ``value`` reads."""
        scope = self.scopes[-1]
        reads = {node.id for node in ast.walk(value) if type(node) is ast.Name}
        return {read: scope[read] for read in reads if read in scope}

    def where_bound(self, scope: dict[str, Binding], qualname: tuple[str, bool], work: Callable[[], _Result]) -> _Result:
        """``work()`` with ``scope`` in force in the scope ``qualname`` (what was bound then)."""
        outer = self.scopes, self.qualnames
        self.scopes, self.qualnames = [scope], [qualname]
        try:
            return work()
        finally:
            self.scopes, self.qualnames = outer

    def bind_target(self, target: ast.expr, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, ast.ListComp) and self._comprehension_of_tensors(value):
                self.bind(target.id, value, None, tensors=True)
            elif value is not None:
                self.bind_lazily(target.id, value)
            else:
                self.bind(target.id, None, None)
            return
        if value is not None and isinstance(target, (ast.Tuple, ast.List)):
            self.bind_later(bound_names(target), value, lambda inference: inference.unpack(target, value))
            return
        for name in bound_names(target):
            self.bind(name, None, None)

    def unpack(self, target: ast.Tuple | ast.List, value: ast.expr) -> None:
        """``a, b = value``, worked out now."""
        for name in bound_names(target):
            self.bind(name, None, None)
        for element, info in zip(target.elts, self._unpacked_infos(value, len(target.elts))):
            if isinstance(element, ast.Name) and info is not None:
                self.bind(element.id, None, info)

    def _unpacked_infos(self, value: ast.expr, width: int) -> list[TensorInfo | None]:
        """What ``a, b = value`` binds, position by position: a tuple display's elements, or
        what the file's own function returns (``return seg, feats``)."""
        if isinstance(value, (ast.Tuple, ast.List)):
            if len(value.elts) != width or any(isinstance(e, ast.Starred) for e in value.elts):
                return []
            return [self.info(e) for e in value.elts]
        if self.summarised(value) in (Holds.TENSORS, Holds.TENSOR_OR_TENSORS, Holds.BATCH):  # _, pred = out.max(1)
            return [TENSOR] * width
        facts = self.facts
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and facts is not None \
                and self.binding(value.func.id) is None:
            returned = facts.own_call(value.func.id)
            if isinstance(returned, tuple) and len(returned) == width:
                return [v if isinstance(v, TensorInfo) else None for v in returned]
        return []

    def _comprehension_of_tensors(self, node: ast.ListComp) -> bool:
        """A list comprehension whose every element is a tensor: ``[w / total for w in
        weights]`` over the rows of a tensor (or a list of tensors), with an element that is a
        tensor when ``w`` is one, or ``[scores[i][j] for i in range(n) for j in ...]`` whatever
        its variables hold. Judged with the bindings in force where the list is made:
        ``weights = [... for w in weights]`` reads the old ``weights``."""
        variables: set[str] = set()
        for clause in node.generators:
            variables.update(bound_names(clause.target))
        first = node.generators[0]
        rows = (
            len(node.generators) == 1
            and isinstance(first.target, ast.Name)
            and (self.is_tensor(first.iter) or self.holds_tensors(first.iter))
        )
        self.push(inherit=True, shadowed=variables)
        try:
            if rows:
                self.bind(first.target.id, None, TENSOR)
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
    def qualify(self, node: ast.AST) -> str | None:
        return self.imports.qualify_expression(node)

    def is_tensor(self, node: ast.expr) -> bool:
        return self.info(node) is not None

    def info(self, node: ast.expr) -> TensorInfo | None:  # noqa: C901 (one dispatch over node types)
        """Evidence that ``node`` evaluates to a tensor, or None when unknown."""
        if isinstance(node, ast.Name):
            summarised = self.summarised(node)
            return summarised if isinstance(summarised, TensorInfo) else None
        if isinstance(node, ast.Call):
            return self._call_info(node)
        if isinstance(node, ast.Attribute):
            return self._attribute_info(node)
        if isinstance(node, ast.Subscript):
            if self.info(node.value):
                # Before PyTorch 0.4 an item of a 1-d tensor was a number (see legacy_scalar).
                legacy = self.facts is not None and self.facts.legacy_scalars and integer_literal(node.slice)
                return None if legacy else TENSOR
            base = self.summarised(node.value)
            if base in _INDEXED_TO_TENSORS and not (isinstance(node.slice, ast.Slice) and base != Holds.STATE_DICT):
                return TENSOR  # an item, not a slice of the list (``history[-5:]``)
            if batch_item(base, node.slice):
                return TENSOR
            return None
        if isinstance(node, ast.BinOp):
            if repeats_a_sequence(node):
                return None  # [1] * n: a list, whatever n is
            left, right = self.info(node.left), self.info(node.right)
            if left or right:
                index = bool(left and left.index) and not (right and not right.index)
                return FRESH_INDEX if index else FRESH
            return None
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            return FRESH_INDEX if simple_comparison(node) and any(self.info(o) for o in operands) else None
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return None
            operand = self.info(node.operand)
            return (FRESH_INDEX if operand.index else FRESH) if operand else None
        if isinstance(node, ast.IfExp):
            body, orelse = self.info(node.body), self.info(node.orelse)
            return TENSOR if body and orelse else None
        if isinstance(node, ast.NamedExpr):
            return self.info(node.value)
        return None

    def summarised(self, node: ast.expr) -> Value:
        """What a name, or an attribute of an instance of the file's classes, holds: the
        bindings made so far first, then the module summary; for a call, the tuple of
        tensors a torch function or tensor method returns (``x.chunk(2)``), or the
        distribution a ``torch.distributions`` class makes."""
        if isinstance(node, ast.Call):
            return self._summarised_call(node)
        if isinstance(node, ast.Name):
            binding = self.binding(node.id)
            if binding is not None and (binding.info is not None or binding.opaque):
                return binding.info
            facts = self.facts
            if facts is None:
                return None
            if binding is not None and binding.parameter:  # x = torch.tensor(x) reads what was passed
                return facts.parameter_value(node.id)
            return facts.name_value(node.id)
        if isinstance(node, ast.Attribute) and self.summary is not None:
            narrowed = self.binding(dotted_name(node) or "")
            if narrowed is not None and narrowed.opaque:
                return None  # if not isinstance(self.anchors, torch.Tensor): ...
            receiver = self.summarised(node.value)
            if isinstance(receiver, Instance):
                return self.summary.attribute(receiver, node.attr)
            if isinstance(receiver, LibraryObject):
                return receiver.attribute(node.attr)  # train_set.targets
            if receiver == Holds.DISTRIBUTION and node.attr in DISTRIBUTION_TENSOR_PROPERTIES:
                return TENSOR  # dist.mean
            if receiver is None and (qualified := self.qualify(node)) is not None:
                return self.summary.imported_value(qualified)  # config.MEAN
            facts = self.facts
            if receiver is None and facts is not None and self._not_narrowed(node.value):  # agent.memory
                return each_instance(facts, node.value, lambda instance: self.summary.attribute(instance, node.attr))
        return None

    def holds_tensors(self, node: ast.expr) -> bool:
        """A name or attribute the summary knows as a list of tensors (``vals.append(t)``), or
        a name bound here to an empty list (or to tensors, or to empty rows:
        ``[[] for _ in range(n)]``) into which the scope puts tensors and no plain values
        (also when it is later rebound: ``vals = torch.tensor(vals)``); a slice of one."""
        if self.summarised(node) == Holds.TENSORS:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            return self.holds_tensors(node.value)  # history[-5:]
        if isinstance(node, ast.Name) and (bound := self.binding(node.id)) is not None and bound.tensors:
            return True
        if isinstance(node, ast.Call):
            return self._sequence_of_tensors(node)
        if isinstance(node, ast.ListComp):
            return self._comprehension_of_tensors(node)
        if not isinstance(node, ast.Name):
            return False
        binding, facts = self.binding(node.id), self.facts
        return (
            binding is not None
            and _empty_or_tensors(binding.value, self)
            and facts is not None
            and facts.receives_tensors(node.id)
        )

    def _sequence_of_tensors(self, call: ast.Call) -> bool:
        """``list(model.parameters())``, ``tuple(t)``: a list or tuple of what it iterates."""
        if not (isinstance(call.func, ast.Name) and call.func.id in ("list", "tuple") and argument_count(call) == 1):
            return False
        if not call.args or isinstance(call.args[0], ast.Starred) or self.binding(call.func.id) is not None:
            return False
        argument = call.args[0]
        iterated = method_call(argument)
        if iterated is not None and iterated[1] in PARAMETER_ITERATORS and not argument_count(argument):
            return True
        return self.is_tensor(argument) or self.holds_tensors(argument)

    def _attribute_info(self, node: ast.Attribute) -> TensorInfo | None:
        attr = node.attr
        if attr == "grad":
            return TENSOR
        if attr in TENSOR_ATTRIBUTES:
            receiver = node.value
            if self.info(receiver) or (
                attr == "data"
                and isinstance(receiver, ast.Attribute)
                and receiver.attr in PARAMETER_ATTRIBUTES
            ):
                return TENSOR
        summarised = self.summarised(node)
        return summarised if isinstance(summarised, TensorInfo) else None

    def _call_info(self, node: ast.Call) -> TensorInfo | None:
        qualified = self.qualify(node.func)
        if qualified:
            info = torch_function_info(qualified, AstCallShape(node))
            if info is not None:
                return info
            if gives_tensor_for_tensor(qualified, (keyword.arg for keyword in node.keywords)):
                return TENSOR if any(self.info(a) for a in positional_arguments(node)) else None
            if self.summary is not None:
                returned = self.summary.imported_call(qualified)  # a helper of another module
                return returned if isinstance(returned, TensorInfo) else None
            return None
        if isinstance(node.func, ast.Name):
            return self._own_call_info(node.func, node)
        called = method_call(node)
        if called is None:
            return None
        receiver, name = called
        receiver_info = self.info(receiver)
        if receiver_info is not None:
            # A conversion returns its receiver or a new copy: of a fresh temporary (not a
            # name, which others may read), nothing else can see either.
            copies = is_copying_conversion(node) or (receiver_info.fresh and not isinstance(receiver, ast.Name))
            return tensor_method_info(name, receiver_info, copies)
        instance = self.summarised(receiver)
        if instance == Holds.DISTRIBUTION:
            return FRESH if name in DISTRIBUTION_TENSOR_METHODS else None  # Categorical(p).sample()
        facts = self.facts
        if isinstance(instance, Instance):
            returned = method_result(self.summary, facts, instance, name, node)  # self.criterion(out, y), self.dist(x, m)
            return returned if isinstance(returned, TensorInfo) else None
        if instance is None and facts is not None and self._not_narrowed(receiver):
            returned = each_instance(
                facts, receiver, lambda instance: method_result(self.summary, facts, instance, name, node)
            )
            if isinstance(returned, TensorInfo):
                return returned  # agent = NAF(...) or DDPG(...); agent.select_action(s)
        if instance is None and (
            name in TENSOR_ONLY_METHODS or (isinstance(receiver, _OPERATIONS) and name in COMPUTED_TENSOR_METHODS)
        ):
            # Whatever the receiver is, only tensors have this method: (a == b).float().
            return FRESH if name in FRESH_METHODS else TENSOR
        if instance is None and name in VIEW_METHODS and _sized_call(node):
            return TENSOR  # x[b].view(-1, 5): a view, of what only a tensor can be
        return None

    def _summarised_call(self, node: ast.Call) -> Value:
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

    def _own_call_info(self, func: ast.Name, call: ast.Call) -> TensorInfo | None:
        """``helper(...)``: what the file's own function returns, when nothing here rebinds it;
        ``model(x)``: what calling an instance of the file's class returns."""
        facts = self.facts
        if facts is None:
            return None
        if self.binding(func.id) is None:
            returned = facts.own_call(func.id)
            if returned is not None:
                return returned if isinstance(returned, TensorInfo) else None
        function = facts.bound_lambda(func.id) if self._not_narrowed(func) else None
        if function is not None:
            returned = facts.lambda_result(function, call)  # dist = lambda x, m: ...; dist(t, m)
            return returned if isinstance(returned, TensorInfo) else None
        instance = self.summarised(func)  # model = Net(); model(x)
        if instance in CALLED_FOR_TENSORS:
            return CALLED_FOR_TENSORS[instance]  # criterion = nn.CrossEntropyLoss(); criterion(out, y)
        if instance is None and self._not_narrowed(func):
            returned = each_instance(facts, func, self.summary.instance_call)  # model = A() or B(); model(x)
        else:
            returned = self.summary.instance_call(instance) if isinstance(instance, Instance) else None
        return returned if isinstance(returned, TensorInfo) else None

    def _not_narrowed(self, node: ast.expr) -> bool:
        """Whether neither a type test nor a comprehension's variable here says the name
        ``node`` holds other than the summary says."""
        binding = self.binding(node.id) if isinstance(node, ast.Name) else None
        return binding is None or not binding.opaque


def _empty_or_tensors(value: ast.expr | None, inference: Inference) -> bool:
    """``[]``, ``[t0, t1]`` of tensors, or rows of empty lists: ``[[] for _ in range(n)]``."""
    if isinstance(value, ast.ListComp):
        return isinstance(value.elt, ast.List) and not value.elt.elts
    return isinstance(value, ast.List) and all(
        not isinstance(element, ast.Starred) and inference.is_tensor(element) for element in value.elts
    )


# What indexing gives a tensor from: a list of tensors, a torch function's tuple, a state_dict.
_INDEXED_TO_TENSORS = (Holds.TENSORS, Holds.TENSOR_OR_TENSORS, Holds.STATE_DICT)
# What these compute is never a module (whose .float() or .to() return the module).
_OPERATIONS = (ast.BinOp, ast.Compare, ast.UnaryOp)


class _Later:
    """What a loop's target or an unpacking binds, worked out once, when the first of its
    names is read (``Inference.bind_later``)."""

    __slots__ = ("inference", "scope", "qualname", "bind", "bound")

    def __init__(self, inference: weakref.ref[Inference], scope: dict[str, Binding], qualname: tuple[str, bool],
                 bind: Callable[[Inference], None]) -> None:
        self.inference, self.scope, self.qualname, self.bind = inference, scope, qualname, bind
        self.bound: dict[str, Binding] | None = None

    def info_of(self, name: str) -> TensorInfo | None:
        if self.bound is None:
            self.bound = {}
            alive = self.inference()
            if alive is not None:  # read only while its walk lasts
                scope = dict(self.scope)
                alive.where_bound(scope, self.qualname, lambda: self.bind(alive))
                self.bound = scope
        binding = self.bound.get(name)
        return binding.info if binding is not None else None


def _merge(scopes: list[dict[str, Binding]]) -> dict[str, Binding]:
    """A name keeps what every branch agrees on: the same binding, or, worked out when the
    name is read, a tensor when every branch bound one."""
    merged: dict[str, Binding] = {}
    for name in set().union(*scopes):
        bindings = [scope.get(name) for scope in scopes]
        first = bindings[0]
        if all(b is first for b in bindings):
            merged[name] = first
        else:
            binding = merged[name] = Binding(None, None)
            if all(b is not None for b in bindings):
                binding._pending = functools.partial(_merged_info, bindings)
    return merged


def _merged_info(bindings: list[Binding]) -> TensorInfo | None:
    infos = set()
    for binding in bindings:
        if binding.info is None:
            return None
        infos.add(binding.info)
    return infos.pop() if len(infos) == 1 else TENSOR


def narrowed_name(test: ast.expr, imports: ImportTable) -> tuple[str, bool] | None:
    """(name, holds a tensor where the test is true) for ``isinstance(name, T)`` (the name
    may be dotted: ``self.anchors``), ``type(name) == T`` (or ``is``) and their negations:
    true for torch's tensor types, false for any other type (``np.ndarray``, ``list``,
    ``int``); None for a mix of both, or a test of anything else."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    call = test.operand if negated else test
    if isinstance(call, ast.Compare) and len(call.ops) == 1:  # type(y) == int
        operator = call.ops[0]
        if not isinstance(operator, (ast.Eq, ast.Is, ast.NotEq, ast.IsNot)):
            return None
        negated ^= isinstance(operator, (ast.NotEq, ast.IsNot))
        left = call.left
        if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "type"
                and argument_count(left) == 1 and len(left.args) == 1):
            return None
        subject, kinds = dotted_name(left.args[0]), call.comparators[0]
    elif (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "isinstance"
        and argument_count(call) == 2
        and len(call.args) == 2
    ):
        subject, kinds = dotted_name(call.args[0]), call.args[1]
    else:
        return None
    if subject is None:
        return None
    candidates = list(kinds.elts) if isinstance(kinds, ast.Tuple) else [kinds]
    tensors = [imports.qualify_expression(c) in TENSOR_ANNOTATIONS | PARAMETER_CONSTRUCTORS for c in candidates]
    if all(tensors):
        return subject, not negated
    if not any(tensors) and all(isinstance(c, (ast.Name, ast.Attribute)) for c in candidates):
        return subject, negated
    return None


def _sized_call(call: ast.Call) -> bool:
    """``x.view(-1, 5)``, ``x.size(0)``: see ``SIZED_TENSOR_METHODS`` (and the summary's ``_sized_call``)."""
    return isinstance(call.func, ast.Attribute) and call.func.attr in SIZED_TENSOR_METHODS and any(
        integer_literal(argument) for argument in positional_arguments(call)
    )


def is_copying_conversion(call: ast.Call) -> bool:
    """``x.to(..., copy=True)``: a conversion that always returns a new tensor."""
    return is_true(keyword_argument(call, "copy"))


def annotation_info(annotation: ast.expr | None, imports: ImportTable) -> TensorInfo | None:
    """``Tensor``, ``torch.Tensor``, ``nn.Parameter``, also inside Optional / ``| None``: the
    tensors of what the summary reads of an annotation (``annotation_value``)."""
    value = annotation_value(annotation, imports) if annotation is not None else None
    return value if isinstance(value, TensorInfo) else None


def subscript_indices(node: ast.Subscript) -> list[ast.expr | None]:
    """The index expressions of ``x[a, b:c]`` (None for slices), tuples flattened."""
    index = node.slice
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    indices: list[ast.expr | None] = []
    for element in elements:
        if isinstance(element, ast.Slice):
            indices.append(None)
        elif isinstance(element, ast.Tuple) and element is not index:
            indices.extend(element.elts)  # x[(a, b), c]: LibCST flattened a tuple element too
        else:
            indices.append(element)
    return indices


def is_advanced_index(node: ast.Subscript, inference: Inference) -> bool:
    """Evidently advanced indexing: a list literal, a mask, an index tensor."""
    return any(index is not None and _is_advanced(index, inference) for index in subscript_indices(node))


def _is_advanced(index: ast.expr, inference: Inference) -> bool:  # noqa: C901 (one dispatch over node types)
    if isinstance(index, (ast.List, ast.ListComp)):
        return True
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
        return True
    if isinstance(index, ast.Compare):
        return simple_comparison(index)
    if isinstance(index, ast.Call):
        qualified = inference.qualify(index.func)
        if qualified == "torch.where" and argument_count(index) == 1:
            return True
        if _tensor_view_of_comparison(index):
            return True
        called = method_call(index)
        if qualified is None and called is not None and called[1] in _ADVANCED_INDEX_METHODS:
            return True  # whatever the receiver: these return >= 1-d long or bool tensors
    if isinstance(index, ast.Attribute) and index.attr == "indices":
        called = method_call(index.value)
        if called is not None and called[1] in ("topk", "sort"):
            return True
    if isinstance(index, ast.Name):
        binding = inference.binding(index.id)
        if binding is not None and isinstance(binding.value, (ast.List, ast.ListComp)):
            return True  # idx = [0, 2]; x[idx]
    info = inference.info(index)
    return bool(info and info.index)


def _tensor_view_of_comparison(node: ast.Call) -> bool:
    """``(rank < k).unsqueeze(-1).expand_as(x)``: views of a comparison, one of them a method
    only tensors have, so the comparison is a bool tensor: a mask."""
    tensor_only = False
    current: ast.expr = node
    while (called := method_call(current)) is not None and called[1] in VIEW_METHODS:
        tensor_only = tensor_only or called[1] in TENSOR_ONLY_METHODS
        current = called[0]
    return tensor_only and isinstance(current, ast.Compare) and simple_comparison(current)


# Methods whose result indexes advanced whatever their receiver is (``m.nonzero()``).
_ADVANCED_INDEX_METHODS = frozenset({"nonzero", "argsort", "bool"})
