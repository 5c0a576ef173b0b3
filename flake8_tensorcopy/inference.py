"""Tensor inference shared by the rules.

An expression counts as a tensor only with evidence; unknown means "not a tensor"
(precision before recall). Evidence is syntactic: torch calls resolved through the
import table, tensor methods on tensors, annotations, ``.grad``, loop variables over
``.parameters()``, and names bound to any of these earlier in the same scope.

Scopes are function-local on purpose: a function never sees the bindings of the
module or of an enclosing function. That keeps every function analysable on its own,
which is what lets the engine parse just the functions that can hold a finding.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from .gates import PARAMETER_ATTRIBUTES, TENSOR_ATTRIBUTES
from .imports import ImportTable


@dataclass(frozen=True)
class TensorInfo:
    """What is known about a tensor-valued expression."""

    parameter: bool = False  # an nn.Parameter (or a loop variable over .parameters())
    fresh: bool = False  # newly allocated: nothing else can see its memory
    index: bool = False  # a bool/long tensor: indexing with it is advanced indexing


TENSOR = TensorInfo()
FRESH = TensorInfo(fresh=True)
FRESH_INDEX = TensorInfo(fresh=True, index=True)
PARAMETER = TensorInfo(parameter=True)


@dataclass(frozen=True)
class Binding:
    """The latest value bound to a name in the current scope."""

    value: cst.BaseExpression | None  # None: bound by something other than `name = value`
    info: TensorInfo | None  # inferred when the binding happened


# torch functions that return a newly allocated tensor.
_FRESH_FUNCTIONS = frozenset(
    """
    tensor zeros ones empty full rand randn randint normal arange linspace logspace eye
    zeros_like ones_like empty_like full_like rand_like randn_like randint_like
    stack cat concat concatenate hstack vstack dstack column_stack where matmul mm bmm
    einsum exp log log1p sqrt rsqrt abs sigmoid tanh relu softmax log_softmax sum mean
    prod cumsum cumprod std var add sub subtract mul multiply div divide true_divide
    argmax argmin floor_divide remainder pow clamp clip maximum minimum tril triu outer cross dot
    clone flip roll sin cos erf floor ceil round sign neg reciprocal masked_select
    index_select gather cdist bernoulli multinomial polar complex atan2 lerp baddbmm
    addmm addmv addcmul addcdiv kron tile repeat_interleave cartesian_prod
    """.split()
)
# torch functions that return a bool or long tensor: advanced indices.
_INDEX_FUNCTIONS = frozenset(
    """
    nonzero argsort randperm randint isnan isinf isfinite isclose eq ne gt ge lt le
    logical_and logical_or logical_not logical_xor bucketize searchsorted multinomial
    """.split()
)
# (``argmax``/``argmin`` return long tensors that are 0-d without ``dim``: indexing with
# a 0-d integer tensor is basic indexing, a view. They are fresh, not index evidence.)
# torch constructors whose result is a long/bool index tensor when given integer literals.
_INDEX_CONSTRUCTORS = frozenset({"tensor", "as_tensor", "LongTensor", "BoolTensor", "IntTensor"})
_INDEX_DTYPES = frozenset({"long", "int64", "int", "int32", "bool", "int16", "int8", "uint8"})
_TORCH_PREFIXES = ("torch.", "torch.cuda.")
_FUNCTIONAL_PREFIX = "torch.nn.functional."
_PARAMETER_CONSTRUCTORS = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.parameter.Buffer"}
)
TENSOR_ANNOTATIONS = frozenset(
    {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor"}
)

# Tensor methods whose result shares memory with the receiver.
VIEW_METHODS = frozenset(
    """
    detach view view_as expand expand_as t transpose permute squeeze unsqueeze narrow
    select unfold diagonal as_strided unflatten movedim moveaxis swapaxes swapdims
    """.split()
)
# Conversions that return the receiver itself when no conversion is needed.
CONVERSION_METHODS = frozenset(
    """
    to cpu cuda float double half bfloat16 int long short bool byte char type
    contiguous reshape reshape_as flatten
    """.split()
)
# Tensor methods that return a new tensor (out of place).
_FRESH_METHODS = frozenset(
    """
    clone add sub mul div true_divide floor_divide remainder fmod pow matmul mm bmm
    sum mean prod std var norm abs exp log log1p sqrt rsqrt neg reciprocal sigmoid tanh
    relu softmax log_softmax clamp clip cumsum cumprod masked_fill index_select gather
    repeat tile flip roll tril triu max_pool sign floor ceil round trunc sin cos
    new_zeros new_ones new_empty new_full new_tensor masked_select argmax argmin
    """.split()
)
_INDEX_METHODS = frozenset(
    """
    nonzero argsort eq ne gt ge lt le isnan isinf isfinite logical_not
    logical_and logical_or logical_xor
    """.split()
)


def is_inplace_method(name: str) -> bool:
    """``add_``, ``copy_``; not ``__iadd__``-style dunders nor ``_private_``."""
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")


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
    """

    def __init__(self, imports: ImportTable) -> None:
        self.imports = imports
        self.scopes: list[dict[str, Binding]] = [{}]
        # Per open ``if``/loop: the bindings before it and those at the end of each branch.
        self.branches: list[tuple[dict[str, Binding], list[dict[str, Binding]]]] = []

    # -- bindings ---------------------------------------------------------------
    def binding(self, name: str) -> Binding | None:
        return self.scopes[-1].get(name)

    def bind(self, name: str, value: cst.BaseExpression | None, info: TensorInfo | None) -> None:
        self.scopes[-1][name] = Binding(value, info)

    def bind_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, value, self.info(value) if value is not None else None)
        else:
            for name in bound_names(target):
                self.bind(name, None, None)

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
        self.scopes[-1].pop(name, None)

    def push(self, inherit: bool, shadowed: set[str] = frozenset()) -> None:
        scope = {k: v for k, v in self.scopes[-1].items() if k not in shadowed} if inherit else {}
        self.scopes.append(scope)

    def pop(self) -> None:
        self.scopes.pop()

    # -- evidence ---------------------------------------------------------------
    def qualify(self, node: cst.CSTNode) -> str | None:
        return self.imports.qualify(node)

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        return self.info(node) is not None

    def info(self, node: cst.BaseExpression) -> TensorInfo | None:
        """Evidence that ``node`` evaluates to a tensor, or None when unknown."""
        if isinstance(node, cst.Name):
            binding = self.binding(node.value)
            return binding.info if binding else None
        if isinstance(node, cst.Call):
            return self._call_info(node)
        if isinstance(node, cst.Attribute):
            return self._attribute_info(node)
        if isinstance(node, cst.Subscript):
            base = self.info(node.value)
            return TENSOR if base else None
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
        return None

    def _call_info(self, node: cst.Call) -> TensorInfo | None:
        qualified = self.qualify(node.func)
        if qualified:
            return _torch_function_info(qualified, node)
        called = method_call(node)
        if called is None:
            return None
        receiver, name = called
        receiver_info = self.info(receiver)
        if receiver_info is None:
            return None
        if name in _INDEX_METHODS:
            return FRESH_INDEX
        if name in _FRESH_METHODS:
            return FRESH
        if name in VIEW_METHODS or name in CONVERSION_METHODS:
            index = name in ("long", "bool") or (name == "to" and receiver_info.index)
            # A conversion returns its receiver or a new copy: of a fresh temporary (not a
            # name, which others may read), nothing else can see either.
            if name in CONVERSION_METHODS and (
                is_copying_conversion(node) or (receiver_info.fresh and not isinstance(receiver, cst.Name))
            ):
                return FRESH_INDEX if index else FRESH
            return TensorInfo(index=True) if index else TENSOR
        if is_inplace_method(name):
            return receiver_info
        return None


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
    """(name, is_tensor) for ``isinstance(name, torch.Tensor)`` and its ``not`` form."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    call = test.expression if negated else test
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value == "isinstance"
        and len(call.args) == 2
        and isinstance(call.args[0].value, cst.Name)
    ):
        return None
    kinds = call.args[1].value
    candidates = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    if any(imports.qualify(c) in TENSOR_ANNOTATIONS | _PARAMETER_CONSTRUCTORS for c in candidates):
        return call.args[0].value.value, not negated
    return None


def _torch_function_info(qualified: str, call: cst.Call) -> TensorInfo | None:
    if qualified in _PARAMETER_CONSTRUCTORS:
        return PARAMETER
    if qualified.startswith(_FUNCTIONAL_PREFIX):
        return FRESH
    for prefix in _TORCH_PREFIXES:
        if qualified.startswith(prefix):
            name = qualified[len(prefix) :]
            if name == "where" and len(call.args) == 1:
                return None  # a tuple of index tensors
            if name in _INDEX_CONSTRUCTORS and _integer_literals(call):
                return FRESH_INDEX
            if name == "arange" and not _float_arange(call):
                return FRESH_INDEX
            if name in _INDEX_FUNCTIONS:
                return FRESH_INDEX
            if name in _FRESH_FUNCTIONS:
                return FRESH
    return None


def _integer_literals(call: cst.Call) -> bool:
    """``torch.tensor([0, 2])``, ``torch.tensor([True, False], dtype=torch.bool)``: an index tensor."""
    dtype = keyword_argument(call, "dtype")
    if dtype is not None:
        return isinstance(dtype, cst.Attribute) and dtype.attr.value in _INDEX_DTYPES
    data = first_argument(call, keyword="data")
    return (
        isinstance(data, (cst.List, cst.Tuple))
        and bool(data.elements)
        and all(_integer_literal(element.value) for element in data.elements)
    )


def _integer_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer) or (isinstance(node, cst.Name) and node.value in ("True", "False"))


def _float_arange(call: cst.Call) -> bool:
    """``torch.arange(0, 1, 0.1)`` or with a dtype: maybe not an integer tensor."""
    return keyword_argument(call, "dtype") is not None or any(isinstance(arg.value, cst.Float) for arg in call.args)


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
    if qualified in _PARAMETER_CONSTRUCTORS:
        return PARAMETER
    return None


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


# In-place methods that write no tensor data.
_NON_WRITING_INPLACE = frozenset({"requires_grad_", "share_memory_", "detach_", "rename_", "retain_grad_"})


def writes_in_place(method: str) -> bool:
    return is_inplace_method(method) and method not in _NON_WRITING_INPLACE


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


# Methods whose result indexes advanced whatever their receiver is (``m.nonzero()``).
_ADVANCED_INDEX_METHODS = frozenset({"nonzero", "argsort", "bool"})
