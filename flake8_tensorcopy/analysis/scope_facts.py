"""What the names of one scope (a function, or the module) hold, flow-insensitively: a
name holds a tensor only when every binding of it in its scope does (``analysis/summary.py``
asks, for any expression of the scope)."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from typing import NamedTuple, TYPE_CHECKING

from ..imports import FUNCTION_DEFS
from .own_code import HEADER, NESTED
from .torch_api import (
    COMPUTED_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_PROPERTIES,
    DISTRIBUTIONS,
    SLICED_TENSOR_CALLS,
    TENSOR_INPUT_FUNCTIONS,
    TENSOR_METHODS,
    TENSOR_ONLY_CALLS,
    TENSOR_ONLY_MEMBERS,
    TENSOR_ONLY_METHODS,
)
from .vocabulary import (
    CONVERSION_METHODS,
    DATA_LOADERS,
    FRESH,
    FRESH_INDEX,
    FRESH_METHODS,
    NAMED_PARAMETER_ITERATORS,
    PARAMETER,
    PARAMETER_ATTRIBUTES,
    PARAMETER_ITERATORS,
    SIZED_TENSOR_METHODS,
    TENSOR,
    TENSOR_ATTRIBUTES,
    TENSOR_TRANSFORMS,
    VIEW_METHODS,
    VARIABLE_CONSTRUCTORS,
    TensorInfo,
    gives_tensor_for_tensor,
    is_loss_module,
    tensor_method_info,
    torch_function_info,
    torchvision_transform,
)

from .in_force import StraightPaths
from .values import CALLED_FOR_TENSORS, ClassObject, Holds, Instance, LibraryObject, Value, join, tensor_tuple_value, torch_tuple_value
from .ast_patterns import (
    legacy_scalar,
    repeats_a_sequence,
    AstCallShape,
    integer_literal,
    ELEMENT_WRITERS,
    EMPTY_LIST,
    EachElement,
    UNKNOWN,
    Unpacked,
    annotation_value,
    is_none,
    receiver_name,
    target_paths,
)
_TUPLES_OF_TENSORS = (Holds.TENSORS, Holds.TENSOR_OR_TENSORS)
_DEEP_COPIES = frozenset({"copy.deepcopy"})
_SEQUENCES = frozenset({"list", "tuple"})  # builtins that make a sequence of what they iterate
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_OPERATIONS = (ast.BinOp, ast.Compare, ast.UnaryOp)  # what they compute is never a module
_TENSOR_INPUTS = TENSOR_INPUT_FUNCTIONS | VARIABLE_CONSTRUCTORS
# The nodes whose facts the walk notes; every other node is only descended into.
_NOTED = frozenset({
    ast.Call, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
    ast.With, ast.AsyncWith, ast.ExceptHandler, ast.Import, ast.ImportFrom, ast.Global,
    ast.Nonlocal, ast.Return, ast.Yield, ast.YieldFrom, ast.Attribute, ast.MatchAs,
    ast.MatchStar, ast.MatchMapping,
})
# The nodes that may bind a name in the scope: those noted, defs and classes.
_BINDERS = _NOTED | {ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef}
_MEMBERSHIP = (ast.In, ast.NotIn, ast.Is, ast.IsNot)

if TYPE_CHECKING:
    from .summary import ModuleSummary


# Methods that a tensor and a module both have, each returning one of its own kind: a name
# bound to its own ``x.cuda()`` holds what it held, moved.
_MOVES = frozenset({"cuda", "cpu", "to", "float", "double", "half", "bfloat16"})


def _moved_onto_itself(name: str, binding: _Binding) -> bool:
    """``x = x.cuda()``, ``x = x.to(device)``: the binding keeps the parameter's kind."""
    source = binding.source
    return (
        binding.kind == "value" and isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
        and source.func.attr in _MOVES and isinstance(source.func.value, ast.Name) and source.func.value.id == name
    )


def _through_tensor_methods(node: ast.expr) -> str | None:
    """``x`` of ``x.cpu()``, ``x.detach().cpu()``: the name under one or more calls of
    tensor methods (None: not a name under such calls)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_METHODS:
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else None


def _indexed_by_dimensions(node: ast.Subscript) -> bool:
    """``x[None]``, ``x[..., 0]``, ``x[:, 1:]``: an index only arrays and tensors take."""
    index = node.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    new_axis = any(isinstance(part, ast.Constant) and (part.value is None or part.value is Ellipsis) for part in parts)
    return new_axis or (isinstance(index, ast.Tuple) and any(isinstance(part, ast.Slice) for part in parts))


class _Binding(NamedTuple):
    """One way a scope binds a name. ``kind``: "value" (``name = source``), "param",
    "loop" (``for`` target; ``path`` says where in the target), "augment" (``+=``: keeps
    what the name holds, or makes a number a tensor; ``source`` is the statement), or "other" (import, ``with ... as``, ``except ... as``, ...)."""

    kind: str
    source: ast.AST | None = None
    path: tuple[int | str, ...] = ()
    line: int = 0

    @property
    def expression(self) -> ast.AST | None:
        """What the binding reads: the value unpacked (``a, b = value``) or annotated
        (``x: T = value``), else its source as it is."""
        source = self.source
        return source.value if isinstance(source, (Unpacked, ast.AnnAssign)) else source


class ScopeFacts:
    """The bindings of one scope (a function, or the module's own code) and what its
    expressions hold. One walk over the scope, nested functions and classes left out."""

    def __init__(self, summary: ModuleSummary, scope: ast.AST, qualname: str) -> None:
        self.summary = summary
        self.scope = scope
        self.qualname = qualname
        self.imports = summary.imports
        self.calls: list[ast.Call] = []
        self._own_calls: list[ast.Call] = []  # not those of its lambdas and comprehensions
        self.bindings: dict[str, list[_Binding]] = {}
        self.elements: dict[str, list[ast.expr]] = {}  # what element writes put into a name
        self.inner_elements: dict[str, list[ast.expr]] = {}  # rows[i].append(v): into the lists it holds
        self.returns: list[ast.expr | None] = []
        self.is_generator = False
        self.yielded: list[ast.expr | None] = []  # ``yield v``: v
        self.yielded_from: list[ast.expr] = []  # ``yield from it``: it
        self._tested: set[str] = set()  # names whose type the scope tests (isinstance)
        # name, or attribute chain ("loss_fn.anchor"), -> the lines where the scope uses it
        # as only a tensor can be used
        self._used_as_tensor: dict[str, list[int]] = {}
        self._values: dict[str, Value] = {}
        self._choices: dict[str, tuple[Instance, ...]] = {}  # name -> the instances its bindings make
        self._names_read: dict[int, frozenset[str]] = {}  # id(a binding's source) -> the names in it
        self._assumed: dict[str, Value] = {}  # names being judged: what they are assumed to hold
        self._comprehending = 0  # how many comprehensions' targets are being assumed
        self._line = getattr(scope, "lineno", 0)  # of the node being walked: for bindings
        self.self_name, self.cls = self._method_receiver()
        self._walk()
        self._documented_tensors = _documented_tensors(scope) if isinstance(scope, FUNCTION_DEFS) else set()

    # -- the walk ------------------------------------------------------------------
    def _method_receiver(self) -> tuple[str | None, str | None]:
        """(``self``'s name, the class) when the scope is a method of a class of the module."""
        scope = self.scope
        if not isinstance(scope, FUNCTION_DEFS) or "." not in self.qualname:
            return None, None
        cls = self.qualname.rpartition(".")[0]
        if not isinstance(self.summary.definition(cls), ast.ClassDef):
            return None, None
        receiver = receiver_name(scope)
        return (receiver, cls) if receiver else (None, None)

    def _walk(self) -> None:
        scope = self.scope
        if isinstance(scope, FUNCTION_DEFS):
            arguments = scope.args
            for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                self._bind(argument.arg, "param", argument)
            for star in (arguments.vararg, arguments.kwarg):
                if star is not None:
                    self._bind(star.arg, "other")
        for node, _, _, _, where in self.summary.own_code(scope).nodes:  # the order of the facts does not matter
            if where == HEADER:
                continue
            kind = type(node)
            if kind in _BINDERS:  # a binding's line is its node's: read where a node may bind
                self._line = getattr(node, "lineno", self._line)
            if where == NESTED:
                # Lambdas and comprehensions are scopes of their own: only their calls (for
                # the gates) and walrus targets (which bind here) count, not their bindings
                # nor their reads.
                if kind is ast.Call:
                    self.calls.append(node)
                elif kind is ast.NamedExpr:
                    self._bind(node.target.id, "value", node.value)
                continue
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                self._bind(node.name, "other")
                continue
            if kind is ast.ClassDef:
                # A class body is walked as part of this scope (its names count as bindings
                # here: that only makes names less known), its methods are not.
                self._bind(node.name, "other")
            if kind in _NOTED:
                self._note(node)

    def _bind(self, name: str, kind: str, source: ast.AST | None = None, path: tuple[int | str, ...] = ()) -> None:
        self.bindings.setdefault(name, []).append(_Binding(kind, source, path, self._line))

    def _note(self, node: ast.AST) -> None:  # noqa: C901 (one dispatch over node types)
        if isinstance(node, ast.Call):
            self.calls.append(node)
            self._own_calls.append(node)
            self._note_element_write(node)
            self._note_tensor_input(node)
            func = node.func
            if isinstance(func, ast.Attribute) and (func.attr in TENSOR_ONLY_CALLS or _sized_call(node)) \
                    and (used := _chain(func.value)) is not None:
                self._use_as_tensor(used, node.lineno)  # x.contiguous(), x.stride(0), x.size(0)
            elif isinstance(func, ast.Attribute) and func.attr in TENSOR_ONLY_CALLS \
                    and (moved := _through_tensor_methods(func.value)) is not None:
                self._use_as_tensor(moved, node.lineno)  # x.cpu().numpy(): what a module's .cpu() is not
            elif isinstance(func, ast.Attribute) and func.attr in SLICED_TENSOR_CALLS and (sliced := _sliced(func.value)):
                self._use_as_tensor(sliced, node.lineno)  # det[:, 5].unique()
            if isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "type") and node.args:
                if isinstance(node.args[0], ast.Name):  # isinstance(y, int), type(y) == int
                    self._tested.add(node.args[0].id)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind_target(target, node.value)
        elif isinstance(node, ast.AnnAssign):
            if isinstance(node.target, ast.Name):
                self._bind(node.target.id, "value", node)
            else:
                self._bind_target(node.target, node.value)
        elif isinstance(node, ast.AugAssign):
            target = node.target
            if isinstance(target, ast.Name):
                self._bind(target.id, "augment", node)
                if isinstance(node.value, (ast.List, ast.Tuple)):  # vals += [t]
                    self.elements.setdefault(target.id, []).extend(node.value.elts)
        elif isinstance(node, ast.NamedExpr):
            self._bind(node.target.id, "value", node.value)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            for name, path in target_paths(node.target):
                self._bind(name, "loop", node.iter, path)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind_other(item.optional_vars)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self._bind(node.name, "other")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                self._bind((alias.asname or alias.name).partition(".")[0], "import")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self._bind(name, "other")
        elif isinstance(node, ast.Return):
            self.returns.append(node.value)
        elif isinstance(node, ast.Yield):
            self.is_generator = True
            self.yielded.append(node.value)
        elif isinstance(node, ast.YieldFrom):
            self.is_generator = True
            self.yielded_from.append(node.value)
        elif isinstance(node, ast.Attribute):
            if node.attr in TENSOR_ONLY_MEMBERS and (used := _chain(node.value)) is not None:
                self._use_as_tensor(used, node.lineno)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            self._bind(node.name, "other")
        elif isinstance(node, ast.MatchMapping) and node.rest:
            self._bind(node.rest, "other")

    def _bind_target(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self._bind(target.id, "value", value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for name, path in target_paths(target):
                self._bind(name, "loop", Unpacked(value), path)
        elif isinstance(target, ast.Starred):
            self._bind_other(target)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            self.elements.setdefault(target.value.id, []).append(value)

    def _bind_other(self, target: ast.expr) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self._bind(node.id, "other")

    def _use_as_tensor(self, name: str, line: int) -> None:
        self._used_as_tensor.setdefault(name, []).append(line)

    def _note_tensor_input(self, call: ast.Call) -> None:
        """``torch.sum(x)``, ``F.relu(x.view(n, -1))``: a name passed where torch takes only a
        tensor (directly, or as the receiver of a method that keeps a tensor a tensor)."""
        first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "input"), None)
        while isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute):
            if first.func.attr not in TENSOR_METHODS:
                return
            first = first.func.value
        if isinstance(first, ast.Subscript) and isinstance(first.value, ast.Name) and _indexed_by_dimensions(first):
            first = first.value  # Variable(x[None, :, :]): a list takes no such index, an array gives no tensor
        if (used := _chain(first)) is not None and self.imports.qualify_expression(call.func) in _TENSOR_INPUTS:
            self._use_as_tensor(used, call.lineno)

    def _note_element_write(self, call: ast.Call) -> None:
        """``vals.append(t)``, ``vals.insert(0, t)``, ``vals.extend(ts)``; ``rows[i].append(t)``
        into the lists that ``rows`` holds."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in (*ELEMENT_WRITERS, "extend"):
            return
        if isinstance(func.value, ast.Name):
            elements = self.elements.setdefault(func.value.id, [])
        elif isinstance(func.value, ast.Subscript) and isinstance(func.value.value, ast.Name):
            elements = self.inner_elements.setdefault(func.value.value.id, [])
        else:
            return
        if call.keywords:
            elements.append(UNKNOWN)
        elif func.attr == "append" and len(call.args) == 1:
            elements.append(call.args[0])
        elif func.attr == "insert" and len(call.args) == 2:
            elements.append(call.args[1])
        elif func.attr == "extend" and len(call.args) == 1:
            elements.append(EachElement(call.args[0]))
        else:
            elements.append(UNKNOWN)

    # -- what names hold -----------------------------------------------------------
    def name_value(self, name: str) -> Value:
        """What ``name`` holds wherever the scope reads it."""
        if name in self._assumed:
            return self._assumed[name]
        if name in self._values:
            return self._values[name]
        if name not in self.bindings:
            parent = self.summary.parent_scope(self.qualname) if self.qualname else None
            if parent is not None:
                return parent.name_value(name)
            qualified = self.imports.aliases.get(name)  # from m import *: bound by no statement here
            return self.summary.imported_value(qualified) if qualified is not None else None
        value = self._judge(name)
        if not self._comprehending:  # judged under a comprehension's assumptions: not for keeps
            self._values[name] = value
        return value

    def instances(self, name: str) -> tuple[Instance, ...]:
        """The instances of the project's classes that ``name`` may hold, one a binding, when
        every binding of it makes one and they are not all of one class (``agent = NAF(...)``
        in one branch, ``agent = DDPG(...)`` in the other); () otherwise."""
        if name in self._assumed:
            return ()
        if name not in self.bindings:
            parent = self.summary.parent_scope(self.qualname) if self.qualname else None
            return parent.instances(name) if parent is not None else ()
        known = self._choices.get(name)
        if known is not None:
            return known
        bindings = self.bindings[name]
        if len(bindings) < 2 or any(b.kind != "value" or not isinstance(b.source, ast.Call) for b in bindings):
            return ()
        self._assumed[name] = None  # a binding that reads the name (``agent = agent.to(d)``) makes nothing known
        try:
            values = []
            for binding in bindings:
                value = self.value(binding.source)
                if not isinstance(value, Instance):
                    break  # the rest need not be judged
                values.append(value)
        finally:
            del self._assumed[name]
        made = tuple(values) if len(values) == len(bindings) and len(set(values)) > 1 else ()
        if not self._comprehending:  # judged under a comprehension's assumptions: not for keeps
            self._choices[name] = made
        return made

    def parameter_value(self, name: str) -> Value:
        """What the parameter ``name`` holds when the function is entered, whatever the
        function binds to the name later (``xyxy = torch.tensor(xyxy)``)."""
        if name in self._assumed:
            return self._assumed[name]
        for binding in self.bindings.get(name, ()):
            if binding.kind == "param":
                return self._parameter_value(binding.source)
        return None

    @property
    def legacy_scalars(self) -> bool:
        """Whether the file reads ``loss.data[0]`` as code written before PyTorch 0.4 did (see
        ``legacy_scalar``): code of that age iterated a 1-d tensor into numbers, and indexed
        one into a number, so what it gets from either is unknown."""
        return self.summary.legacy_scalars

    def bound_only_to_results(self, name: str) -> bool:
        """Every binding of ``name`` in this scope is the result of a call that returns a new
        object (``model(x)``, ``a, b = f()``; not ``x.view(...)`` nor ``x.float()``, which may be
        ``x`` itself), or a ``.detach()`` of the name itself."""
        def result(binding: _Binding) -> bool:
            if binding.kind == "loop" and isinstance(binding.source, Unpacked):
                source = binding.source.value  # a, b = f()
            elif binding.kind == "value":
                source = binding.source
            else:
                return False
            if not isinstance(source, ast.Call):
                return False
            func = source.func
            if isinstance(func, ast.Attribute) and func.attr == "detach":
                return isinstance(func.value, ast.Name) and func.value.id == name
            return not (isinstance(func, ast.Attribute) and func.attr in VIEW_METHODS | CONVERSION_METHODS)

        bindings = self.bindings.get(name, ())
        return bool(bindings) and all(map(result, bindings))

    def _judge(self, name: str) -> Value:
        """Bindings that read the name itself (``x = x * 2``) are judged assuming what the
        others agree on; a name bound only by such bindings holds nothing known."""
        bindings = self.bindings[name]
        grounded = [b for b in bindings if not self._reads(b, name)]
        if not grounded:
            return None
        self._assumed[name] = None  # a cycle through other names stays unknown
        try:
            values = [self._binding_value(name, b) for b in grounded]
            value = self._container(name, values) or self._number_plus_tensor(bindings, grounded)
            if value is None:
                return None
            self._assumed[name] = value
            return join([value, *(self._binding_value(name, b) for b in bindings if b not in grounded)])
        finally:
            del self._assumed[name]

    def _number_plus_tensor(self, bindings: list[_Binding], grounded: list[_Binding]) -> Value:
        """``s = 0.0``, then ``s += t`` with ``t`` a tensor: a number plus a tensor is one
        (``total += loss``, ``sim += F.cosine_similarity(a, b)``)."""
        numbers = all(
            b.kind == "value" and isinstance(b.source, ast.Constant) and type(b.source.value) in (int, float)
            for b in grounded
        )
        added = [b.source for b in bindings if b.kind == "augment"]
        if numbers and any(
            isinstance(statement.op, _ARITHMETIC) and isinstance(self.value(statement.value), TensorInfo)
            for statement in added
        ):
            return FRESH
        return None

    def _reads(self, binding: _Binding, name: str) -> bool:
        if binding.kind == "augment":
            return True
        source = binding.source.value if isinstance(binding.source, Unpacked) else binding.source
        if binding.kind not in ("value", "loop") or source is None:
            return False
        read = self._names_read.get(id(source))
        if read is None:  # one walk per source, however many names it binds
            read = self._names_read[id(source)] = frozenset(n.id for n in ast.walk(source) if isinstance(n, ast.Name))
        return name in read

    def _container(self, name: str, values: list[Value | str]) -> Value:
        """A list bound empty or to tensors, and filled only with tensors, holds tensors."""
        empty = EMPTY_LIST in values
        filled = [v for v in values if v != EMPTY_LIST]
        value = Holds.TENSORS if empty and all(v == Holds.TENSORS for v in filled) else join(filled)
        if value != Holds.TENSORS:
            return None if empty else value
        if empty:
            return value if self.filled_with_tensors(name) else None
        return value if all(self._holds_tensor(e) for e in self.elements.get(name, ())) else None

    def filled_with_tensors(self, name: str) -> bool:
        """Whatever else ``name`` is bound to, every element this scope puts into it (``append``,
        ``insert``, ``extend``, ``name[i] = v``, ``name += [v]``) is a tensor, and there is one.
        Read where the name is known to be bound to a list display: ``vals = []``, the appends,
        then ``vals = torch.tensor(vals)``."""
        elements = self.elements.get(name, ())
        return bool(elements) and all(self._holds_tensor(e) for e in elements)

    def receives_tensors(self, name: str) -> bool:
        """Some element the scope puts into ``name``, or into the lists it holds
        (``rows[i].append(t)``), is a tensor or a sequence of them, and none is a plain value
        (a number, ``.item()``): whichever path filled it, ``torch.tensor(name)`` converts
        the tensors one by one (``ents.append(d.entropy().mean())`` in one branch and
        ``ents.append((e * mask).sum() / mask.sum())`` in the other)."""
        elements = [*self.elements.get(name, ()), *self.inner_elements.get(name, ())]
        return any(map(self._gives_tensors, elements)) and not any(map(_plain, elements))

    def _gives_tensors(self, element: ast.expr | EachElement) -> bool:
        if isinstance(element, EachElement):
            return element is not UNKNOWN and (
                isinstance(value := self.value(element.value), TensorInfo) or value in _TUPLES_OF_TENSORS
            )
        if isinstance(element, (ast.List, ast.Tuple)):
            return any(self._gives_tensors(e) for e in element.elts if not isinstance(e, ast.Starred))
        value = self.value(element)
        return isinstance(value, TensorInfo) or value in _TUPLES_OF_TENSORS or (
            value is None and self._tensor_on_some_path(element, element, frozenset())
        )

    def _tensor_on_some_path(self, node: ast.expr, use: ast.expr, seen: frozenset[str]) -> bool:
        """``node``, read at ``use``, is a name that an assignment which may be in force there
        (the one in force, where the straight path to ``use`` tells) binds to a tensor, every
        binding of it being an assignment of nothing plain (``cur = torch.full(...)`` in one
        branch, ``cur = head[idx]`` in another), or an item of such a name (``h = cur[i]``):
        on that path what goes into the list is a tensor, as for the lists of
        :meth:`receives_tensors`. A name tested with ``isinstance`` is left alone (the test
        picks the path); so are items in code written before PyTorch 0.4, where an item of a
        1-d tensor was a number."""
        if isinstance(node, ast.Subscript):
            return not self.legacy_scalars and self._tensor_on_some_path(node.value, use, seen)
        if not isinstance(node, ast.Name) or node.id in seen or node.id in self._tested:
            return False
        bindings = self.bindings.get(node.id, ())
        if not bindings or any(b.kind != "value" or b.expression is None or _plain(b.expression) for b in bindings):
            return False
        seen |= {node.id}
        reaching = self.straight_paths.in_force(node.id, bindings, use)
        if reaching is None:
            reaching = [b for b in bindings if self.may_reach(b.source, use)]
        for binding in reaching:
            source = binding.expression
            value = self.value(source)
            if isinstance(value, TensorInfo) or (value is None and self._tensor_on_some_path(source, source, seen)):
                return True
        return False

    def _holds_tensor(self, element: ast.expr) -> bool:
        """Whether an element write puts only tensors into its list."""
        if isinstance(element, EachElement):
            return element is not UNKNOWN and self.value(element.value) == Holds.TENSORS
        return isinstance(self.value(element), TensorInfo)

    def _binding_value(self, name: str, binding: _Binding) -> Value | str:
        kind = binding.kind
        if kind == "augment":
            return self._assumed.get(name)
        if kind == "param":
            return self._parameter_value(binding.source)
        if kind == "import":  # from config import MEAN: what the project's module holds
            qualified = self.imports.aliases.get(name)
            return self.summary.imported_value(qualified) if qualified else None
        if kind == "value":
            source = binding.source
            if isinstance(source, ast.AnnAssign):
                annotated = annotation_value(source.annotation, self.imports)
                if annotated is not None:
                    return annotated
                return self.value(source.value) if source.value is not None else None
            if isinstance(source, ast.List) and not source.elts:
                return EMPTY_LIST
            value = self.value(source)
            return value if value is not None else self._used_after_only_binding(name, binding)
        if kind == "loop":
            if _empty_list_unpacked(binding):
                return EMPTY_LIST  # losses, accs = [], []
            value = self._unpacked(binding.source, binding.path)
            return value if value is not None else self._used_after_only_binding(name, binding)
        return None

    def _used_after_only_binding(self, name: str, binding: _Binding) -> Value:
        """The name's only binding, used after it as only a tensor can be (``for det in
        pred: det[:, 5].unique()``, ``loss, acc = step(batch); loss.backward()``): what it
        binds is a tensor. Not when the code says what it binds (``t = [0.0, 0.0]``, ``a, b
        = [], 0``: the use is a bug, not evidence), nor for a name whose type the scope tests."""
        if len(self.bindings[name]) != 1 or name in self._tested:
            return None
        source = binding.source.value if isinstance(binding.source, Unpacked) else binding.source
        if binding.kind == "value" or isinstance(binding.source, Unpacked):
            if not isinstance(source, _OPAQUE_SOURCES):
                return None
        used = self._tensor_uses(name)
        return TENSOR if used and min(used) >= binding.line else None

    def value_at(self, node: ast.expr) -> Value:
        """What ``node`` holds where it runs. For a name that a call of the scope's own code
        passes, bound more than once, what the bindings in force on the straight path to the
        call hold (``labels = raw[-1]``, then ``labels = torch.tensor(labels)``, then
        ``self.process(labels)``)."""
        value = self.value(node)
        if value is not None or not isinstance(node, ast.Name) or id(node) not in self._passed_names:
            return value
        name = node.id
        bindings = self.bindings.get(name, ())
        if len(bindings) < 2 or name in self._tested:
            return value
        # Only torch's own calls and loops: a function of the project may lead back to the one
        # whose callers are being read. Checked first: the straight paths cost more.
        readable = [binding for binding in bindings if self._readable_at_call(binding)]
        if not readable:
            return value
        reaching = self.straight_paths.in_force(name, bindings, node)
        if not reaching or not all(binding in readable for binding in reaching):
            return value
        values = [self._binding_value(name, binding) for binding in reaching]
        return TENSOR if all(isinstance(v, TensorInfo) for v in values) else value

    def _readable_at_call(self, binding: _Binding) -> bool:
        """A binding :meth:`value_at` may read: a torch call's or a loop's."""
        if binding.kind == "value":
            return self._torch_call(binding.source)
        return binding.kind == "loop" and not isinstance(binding.source, Unpacked)

    def _torch_call(self, node: ast.AST | None) -> bool:
        """``torch.tensor(x)``, ``torch.from_numpy(a).float()``: a call of torch's, or a
        method called on one."""
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and self.imports.qualify_expression(node.func) is None:
            node = node.func.value
        if not isinstance(node, ast.Call):
            return False
        qualified = self.imports.qualify_expression(node.func)
        return qualified is not None and qualified.partition(".")[0] == "torch"

    @functools.cached_property
    def _passed_names(self) -> set[int]:
        """id() of each name that a call of the scope's own code passes as an argument."""
        return {
            id(argument)
            for call in self._own_calls
            for argument in (*call.args, *(keyword.value for keyword in call.keywords))
            if isinstance(argument, ast.Name)
        }

    def _tensor_uses(self, name: str) -> list[int]:
        """The lines where the scope uses ``name`` as only a tensor can be used: its own
        evidence, and the input or target of a torch.nn loss (``criterion(out, y)``), which
        takes only tensors."""
        used = list(self._used_as_tensor.get(name, ()))
        used.extend(call.lineno for call in self._first_arguments.get(name, ()) if self._calls_a_loss(call))
        return used

    @functools.cached_property
    def _first_arguments(self) -> dict[str, list[ast.Call]]:
        """name -> the scope's own calls that pass it as their first or second positional
        argument."""
        calls: dict[str, list[ast.Call]] = {}
        for call in self._own_calls:
            for argument in call.args[:2]:
                if isinstance(argument, ast.Name):
                    calls.setdefault(argument.id, []).append(call)
        return calls

    def _makes_tensor_transform(self, call: ast.Call, qualified: str) -> bool:
        """``transforms.ToTensor()``, ``transforms.Compose([..., transforms.ToTensor(),
        transforms.Normalize(mean, std)])``: a transform whose (last) step returns a tensor."""
        name = torchvision_transform(qualified)
        if name in TENSOR_TRANSFORMS:
            return True
        if name != "Compose" or len(call.args) != 1 or not isinstance(steps := call.args[0], (ast.List, ast.Tuple)) \
                or not steps.elts or not isinstance(last := steps.elts[-1], ast.Call):
            return False
        step = self.imports.qualify_expression(last.func)
        return step is not None and torchvision_transform(step) in TENSOR_TRANSFORMS

    def _calls_a_loss(self, call: ast.Call) -> bool:
        """``criterion(out, y)``, ``self.criterion(out, y)`` of a torch.nn loss module."""
        func = call.func
        if isinstance(func, ast.Name):
            # A name the file itself binds (not print(x), nor one imported: reading another
            # module for every call that takes the name would cost more than it finds).
            return func.id in self._file_names and self.own_call(func.id) is None and self.name_value(func.id) == Holds.LOSS
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.self_name:
            return self.summary.attribute(Instance(self.cls), func.attr) == Holds.LOSS
        return False

    @functools.cached_property
    def _file_names(self) -> frozenset[str]:
        """The names this scope, the functions around it or the module bind, other than by
        an import."""
        names: set[str] = set()
        facts: ScopeFacts | None = self
        while facts is not None:
            names.update(name for name, bindings in facts.bindings.items() if all(b.kind != "import" for b in bindings))
            facts = self.summary.parent_scope(facts.qualname) if facts.qualname else None
        return frozenset(names)

    def _used_chain(self, node: ast.Attribute) -> bool:
        """``anchorloss.anchor.data``, which the scope elsewhere hands to ``torch.zeros_like``
        or calls ``.detach()`` on, as only a tensor can be: the same object wherever the
        scope reads it, when the name under it has one binding and nothing the scope assigns
        to the chain (or a part of it) may be in force where ``node`` runs."""
        if not self._chains_used:
            return False
        chain = _chain(node)
        if chain is None or chain not in self._used_as_tensor:
            return False
        root = chain.partition(".")[0]
        if root in self._tested or len(self.bindings.get(root, ())) > 1:
            return False
        prefixes = {chain.rsplit(".", depth)[0] for depth in range(chain.count("."))}
        for statement, target in self._attribute_writes:
            if _chain(target) in prefixes and self.may_reach(statement, node):
                return False
        return True

    @functools.cached_property
    def _chains_used(self) -> bool:
        """Whether the scope uses some attribute chain as only a tensor can be used."""
        return any("." in used for used in self._used_as_tensor)

    @functools.cached_property
    def _attribute_writes(self) -> list[tuple[ast.stmt, ast.Attribute]]:
        """Each assignment (plain, augmented, annotated, deletion) to an attribute, with its
        target."""
        writes = []
        for node, *_ in self.summary.own_code(self.scope).nodes:
            targets = (
                node.targets if isinstance(node, (ast.Assign, ast.Delete))
                else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign))
                else ()
            )
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Attribute):
                        writes.append((node, part))
        return writes

    def _parameter_value(self, argument: ast.arg) -> Value:
        annotated = annotation_value(argument.annotation, self.imports) if argument.annotation else None
        if annotated is not None:
            return annotated
        name = argument.arg
        if name == self.self_name:
            return Instance(self.cls)
        if name in self._tested:  # the function expects more than one type
            return None
        # Evidence from use: read before the function rebinds the name, so that it is the
        # parameter that is used (``x = torch.tensor(x)`` then ``x.detach()`` says nothing).
        used = self._tensor_uses(name)
        rebound = min(
            (b.line for b in self.bindings[name] if b.kind != "param" and not _moved_onto_itself(name, b)), default=None
        )
        if used and (rebound is None or min(used) <= rebound) and not self._branch_decides(name, used):
            return TENSOR
        if name in self._documented_tensors:
            return TENSOR
        return self.summary.passed_to(self.qualname, name)  # what every call of the file passes

    def may_reach(self, source: ast.AST | Unpacked | None, use: ast.AST) -> bool:
        """Whether a binding from ``source`` may be in force where ``use`` runs: it is bound
        before it, inside it (a walrus), or a loop holds both."""
        if isinstance(source, Unpacked):
            source = source.value
        if not isinstance(source, (ast.expr, ast.stmt, ast.arg)):
            return True
        if (source.end_lineno, source.end_col_offset) <= (use.lineno, use.col_offset):
            return True
        if (use.lineno, use.col_offset) < (source.lineno, source.col_offset) \
                and (source.end_lineno, source.end_col_offset) <= (use.end_lineno, use.end_col_offset):
            return True
        loops = self._loops_of
        return not {id(loop) for loop in loops.get(id(use), ())}.isdisjoint(map(id, loops.get(id(source), ())))

    @functools.cached_property
    def straight_paths(self) -> StraightPaths:
        return StraightPaths(self.scope)

    @functools.cached_property
    def _loops_of(self) -> dict[int, tuple[ast.AST, ...]]:
        """id() of each node of the scope's own code -> the loops that hold it."""
        code = self.summary.own_code(self.scope)
        return {id(node): loops for node, loops, _, _, _ in (*code.nodes, *code.leaves) if loops}

    def _branch_decides(self, name: str, lines: list[int]) -> bool:
        """Every use of ``name`` as only a tensor can be lies in one arm of an ``if`` whose
        other arm reads it too (``if index is None: usage.log()`` / ``else:
        torch.tensor(usage)``): the test tells what it holds, and this arm says nothing of
        the other's."""
        for node in ast.walk(self.scope):
            if not isinstance(node, ast.If) or not node.orelse:
                continue
            for arm, other in ((node.body, node.orelse), (node.orelse, node.body)):
                first, last = arm[0].lineno, arm[-1].end_lineno or arm[-1].lineno
                if all(first <= line <= last for line in lines) and any(
                    isinstance(read, ast.Name) and read.id == name for statement in other for read in ast.walk(statement)
                ):
                    return True
        return False

    def unpacked(self, value: ast.expr, path: tuple[int | str, ...]) -> Value:
        """What the target at ``path`` of ``a, b = value`` gets."""
        return self._unpacked(Unpacked(value), path)

    def _unpacked(self, source: ast.AST, path: tuple[int | str, ...]) -> Value:
        """What a loop or unpacking target at ``path`` gets from ``source``."""
        if isinstance(source, Unpacked):  # a, b = value
            value = source.value
            if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
                step = path[0]
                if isinstance(step, int) and step < len(value.elts):
                    return self._descend(self.value(value.elts[step]), path[1:])
                return None
            return self._descend(self.value(value), path)
        return self._descend(self._element_of(source), path)

    def _element_of(self, iterable: ast.expr) -> Value | tuple:
        """One element of ``for ... in iterable``: a value, or a tuple of them."""
        if isinstance(iterable, ast.Call):
            func = iterable.func
            if isinstance(func, ast.Attribute) and not iterable.args:
                if func.attr in PARAMETER_ITERATORS:
                    return PARAMETER
                if func.attr in NAMED_PARAMETER_ITERATORS:
                    return (None, PARAMETER)
                if func.attr == "items" and self.value(func.value) == Holds.STATE_DICT:
                    return (None, TENSOR)
            if isinstance(func, ast.Name) and self.imports.qualify_expression(func) is None:
                if func.id == "enumerate" and iterable.args:
                    return (None, self._element_of(iterable.args[0]))
                if func.id == "reversed" and len(iterable.args) == 1:
                    return self._element_of(iterable.args[0])
                if func.id == "zip" and not iterable.keywords:
                    return tuple(self._element_of(a) for a in iterable.args)
        value = self.value(iterable)
        if isinstance(value, TensorInfo):
            return None if self.legacy_scalars else TENSOR  # the rows of a tensor are tensors
        if value in _TUPLES_OF_TENSORS:
            return TENSOR
        if value in (Holds.LOADER, Holds.BATCH_STREAM):
            return Holds.BATCH
        if value == Holds.TENSOR_STREAM:
            return TENSOR
        if value == Holds.PARAM_GROUPS:
            return Holds.PARAM_GROUP
        return None

    def _descend(self, element: Value | tuple, path: tuple[int | str, ...]) -> Value:
        for step in path:
            if isinstance(element, tuple):
                if not isinstance(step, int) or step >= len(element):
                    return None
                element = element[step]
            elif element == Holds.BATCH or isinstance(element, TensorInfo) or element in _TUPLES_OF_TENSORS:
                # Unpacking a batch or a tensor row gives tensors; a starred target a list of them.
                element = Holds.TENSORS if step == "*" else TENSOR
            else:
                return None
        return None if isinstance(element, tuple) else element

    def returned(self) -> Value:
        """What every ``return`` gives (``return None`` aside: Optional); for ``return a, b``
        everywhere, what each position holds."""
        if self.is_generator:
            return self._generated()
        annotation = getattr(self.scope, "returns", None)
        if annotation is not None and isinstance(declared := annotation_value(annotation, self.imports), TensorInfo):
            return declared  # ``-> torch.Tensor``: its author says so, whatever it computes
        returns = [r for r in self.returns if r is not None and not is_none(r)]
        if not returns:
            return None
        width = len(returns[0].elts) if isinstance(returns[0], ast.Tuple) else 0
        if width and all(
            isinstance(r, ast.Tuple) and len(r.elts) == width and not any(isinstance(e, ast.Starred) for e in r.elts)
            for r in returns
        ):
            return tuple(join([self.value(r.elts[position]) for r in returns]) for position in range(width))
        return join([self._returned_value(r) for r in returns])

    def _generated(self) -> Value:
        """What calling this generator function gives, when every item it yields is a
        DataLoader's batch (``for batch in loader: yield batch``) or a tensor."""
        items = [self.value(v) if v is not None else None for v in self.yielded]
        items += [self._element_of(source) for source in self.yielded_from]
        item = join(items)
        if item == Holds.BATCH:
            return Holds.BATCH_STREAM
        return Holds.TENSOR_STREAM if isinstance(item, TensorInfo) else None

    def _returned_value(self, returned: ast.expr) -> Value:
        """What ``return returned`` gives; for a name, also what an ``if``/``else`` just
        before the ``return`` binds it to last in each branch (``if cuda: v =
        torch.cuda.FloatTensor(v) else: v = torch.FloatTensor(v)``, then ``return v``)."""
        value = self.value(returned)
        if value is not None or not isinstance(returned, ast.Name):
            return value
        before = self.straight_paths.statement_before(returned)
        if isinstance(before, ast.If) and _branches_bind_tensor(self, before, returned.id):
            return TENSOR
        return None

    # -- what expressions hold -----------------------------------------------------
    def value(self, node: ast.expr) -> Value:  # noqa: C901 (one dispatch over node types)
        """What ``node`` holds when it runs in this scope, when the file says so."""
        if isinstance(node, ast.Name):
            return self.name_value(node.id)
        if isinstance(node, ast.Call):
            return self._call_value(node)
        if isinstance(node, ast.Attribute):
            return self._attribute_value(node)
        if isinstance(node, ast.Subscript):
            if legacy_scalar(node):
                return None
            base = self.value(node.value)
            if isinstance(base, tuple):  # f()[0] of a function that returns a tuple
                index = node.slice
                position = index.value if isinstance(index, ast.Constant) else None
                if type(position) is int and -len(base) <= position < len(base):
                    return base[position]
                return None
            if isinstance(base, TensorInfo):
                return None if self.legacy_scalars and integer_literal(node.slice) else TENSOR
            if base == Holds.STATE_DICT:
                return TENSOR
            if base == Holds.BATCH:
                return TENSOR if batch_item(base, node.slice) else None
            if base == Holds.PARAM_GROUP:  # group["params"]
                index = node.slice
                return Holds.TENSORS if isinstance(index, ast.Constant) and index.value == "params" else None
            if base in _TUPLES_OF_TENSORS:
                if isinstance(node.slice, ast.Slice):
                    return Holds.TENSORS if base == Holds.TENSORS else None
                return TENSOR
            return None
        if isinstance(node, ast.BinOp):
            operands = self.value(node.left), self.value(node.right)
            if repeats_a_sequence(node):  # [1] * n: a list, whatever n is
                return Holds.TENSORS if Holds.TENSORS in operands else None
            left, right = (value if isinstance(value, TensorInfo) else None for value in operands)
            if left or right:
                index = bool(left and left.index) and not (right and not right.index)
                return FRESH_INDEX if index else FRESH
            if isinstance(node.op, ast.Mult) and Holds.TENSORS in operands:
                return Holds.TENSORS  # [torch.zeros(0, 6)] * batch_size: a list of tensors, repeated
            return None
        if isinstance(node, ast.Compare):
            if any(isinstance(op, _MEMBERSHIP) for op in node.ops):
                return None
            operands = (node.left, *node.comparators)
            return FRESH_INDEX if any(isinstance(self.value(o), TensorInfo) for o in operands) else None
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return None
            operand = self.value(node.operand)
            if isinstance(operand, TensorInfo):
                return FRESH_INDEX if operand.index else FRESH
            return None
        if isinstance(node, ast.IfExp):
            body, orelse = self.value(node.body), self.value(node.orelse)
            return TENSOR if isinstance(body, TensorInfo) and isinstance(orelse, TensorInfo) else None
        if isinstance(node, ast.NamedExpr):
            return self.value(node.value)
        if isinstance(node, (ast.List, ast.Tuple)):
            elements = node.elts
            if elements and all(isinstance(self.value(e), TensorInfo) for e in elements):
                return Holds.TENSORS
            return None
        if isinstance(node, ast.ListComp):
            return Holds.TENSORS if isinstance(self._comprehension_element(node), TensorInfo) else None
        return None

    def _first_element(self, node: ast.Call) -> Value | tuple:
        """``next(iter(loader))``: the first of what ``loader`` gives (a batch, a row), where
        neither builtin is the file's own."""
        iterated = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if not (isinstance(node.func, ast.Name) and node.func.id == "next" and isinstance(iterated, ast.Call)
                and isinstance(iterated.func, ast.Name) and iterated.func.id == "iter"
                and len(iterated.args) == 1 and not iterated.keywords):
            return None
        return self._element_of(iterated.args[0]) if self._builtin("next") and self._builtin("iter") else None

    def _builtin(self, name: str) -> bool:
        """Whether ``name`` is Python's builtin here: neither the file nor the scope binds it."""
        return self.summary.definition(name) is None and not self._local_anywhere(name)

    def _comprehension_element(self, node: ast.ListComp) -> Value:
        """What each element of ``[elt for target in iterable ...]`` holds: the targets are
        assumed to hold what the iterables give, while ``elt`` is judged."""
        outer = dict(self._assumed)
        self._comprehending += 1
        try:
            for generator in node.generators:
                element = self._element_of(generator.iter)
                for name, path in target_paths(generator.target):
                    self._assumed[name] = self._descend(element, path)
            return self.value(node.elt)
        finally:
            self._assumed = outer
            self._comprehending -= 1

    def _call_value(self, node: ast.Call) -> Value:
        func = node.func
        qualified = self.imports.qualify_expression(func)
        if qualified is not None:
            if qualified in DATA_LOADERS:  # the default collate makes tensors; a custom one, anything
                return None if any(k.arg == "collate_fn" for k in node.keywords) else Holds.LOADER
            if qualified in _DEEP_COPIES and len(node.args) == 1:  # the same kind of value, not aliased
                copied = self.value(node.args[0])
                return FRESH if isinstance(copied, TensorInfo) else copied if copied == Holds.TENSORS else None
            if is_loss_module(qualified):
                return Holds.LOSS
            if self._makes_tensor_transform(node, qualified):
                return Holds.TENSOR_TRANSFORM
            if qualified in DISTRIBUTIONS:
                return Holds.DISTRIBUTION
            if (made := LibraryObject.made_by(qualified)) is not None:
                return made  # datasets.MNIST(root)
            if gives_tensor_for_tensor(qualified, (k.arg for k in node.keywords)) and any(
                isinstance(self.value(argument), TensorInfo) for argument in node.args
            ):
                return TENSOR  # np.exp(t)
            return torch_function_info(qualified, AstCallShape(node)) or torch_tuple_value(qualified) \
                or self.summary.imported_call(qualified)
        if isinstance(func, ast.Name):
            if func.id in _SEQUENCES and len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred) \
                    and self._builtin(func.id):
                # list(model.parameters()), tuple(t): the elements of what it iterates
                return Holds.TENSORS if isinstance(self._element_of(node.args[0]), TensorInfo) else None
            if (first := self._first_element(node)) is not None:
                return first
            own = self.own_call(func.id)
            if own is None and isinstance(instance := self.name_value(func.id), Instance):
                return self.summary.instance_call(instance)  # model = Net(); model(x)
            if own is None and isinstance(held := self.name_value(func.id), ClassObject):
                return Instance(held.cls, held.module)  # a class handed in: data(args), data = MetaLoader
            if own is None and (held := self.name_value(func.id)) in CALLED_FOR_TENSORS:
                return CALLED_FOR_TENSORS[held]  # criterion = nn.CrossEntropyLoss(); criterion(out, y)
            if own is None and (function := self.bound_lambda(func.id)) is not None:
                return self.lambda_result(function, node)  # dist = lambda x, m: ...; dist(t, m)
            if own is None:
                return each_instance(self, func, self.summary.instance_call)  # model = A() or B(); model(x)
            return own
        if not isinstance(func, ast.Attribute):
            return None
        method = func.attr
        receiver = self.value(func.value)
        if isinstance(receiver, Instance):
            return method_result(self.summary, self, receiver, method, node)
        if receiver is None:
            chosen = each_instance(self, func.value, lambda instance: method_result(self.summary, self, instance, method, node))
            if chosen is not None:
                return chosen  # agent = NAF(...) or DDPG(...); agent.select_action(s)
        if receiver == Holds.LOSS and method in _MOVES:
            return Holds.LOSS  # nn.MSELoss().to(device)
        if receiver == Holds.DISTRIBUTION:
            return FRESH if method in DISTRIBUTION_TENSOR_METHODS else None  # dist.sample()
        if isinstance(receiver, TensorInfo):
            # A conversion of a temporary returns it or a copy: nothing else sees either.
            copies = _copies(node) or (receiver.fresh and not isinstance(func.value, ast.Name))
            return tensor_method_info(method, receiver, copies) or tensor_tuple_value(method)
        if method == "state_dict" and not node.args:
            return Holds.STATE_DICT
        if receiver == Holds.STATE_DICT and method == "copy":
            return Holds.STATE_DICT  # a shallow copy: the same tensors
        if receiver is None and (
            method in TENSOR_ONLY_METHODS or (isinstance(func.value, _OPERATIONS) and method in COMPUTED_TENSOR_METHODS)
        ):
            return FRESH if method in FRESH_METHODS else TENSOR  # only tensors have it: (a == b).float()
        if receiver is None and method in VIEW_METHODS and _sized_call(node):
            return TENSOR  # x[b].view(-1, 5): a view, of what only a tensor can be
        return None

    def lambda_result(self, function: ast.Lambda, call: ast.Call) -> Value:
        """What the lambda ``function`` returns for what ``call`` passes it: its body judged
        with each parameter holding what its argument holds here, when the body reads nothing
        but its parameters and the file's imports (so it means the same here as where it is
        defined)."""
        arguments = _lambda_arguments(function, call)
        if arguments is None or not self._reads_parameters_and_imports(function):
            return None
        values = {name: self.value(argument) for name, argument in arguments.items()}
        outer = dict(self._assumed)
        self._comprehending += 1  # judged under assumptions: not for keeps
        try:
            self._assumed.update(values)
            return self.value(function.body)
        finally:
            self._assumed = outer
            self._comprehending -= 1

    def bound_lambda(self, name: str) -> ast.Lambda | None:
        """The lambda that the nearest scope binding ``name`` (this one, an enclosing
        function, the module) binds it to, when that is its only binding there."""
        if name in self._assumed:
            return None  # a comprehension's variable
        facts: ScopeFacts | None = self
        while facts is not None:
            bindings = facts.bindings.get(name)
            if bindings:
                only = bindings[0]
                lone = len(bindings) == 1 and only.kind == "value"
                return only.source if lone and isinstance(only.source, ast.Lambda) else None
            facts = self.summary.parent_scope(facts.qualname) if facts.qualname else None
        return None

    def _reads_parameters_and_imports(self, function: ast.Lambda) -> bool:
        parameters = {argument.arg for argument in function.args.args}
        return all(
            not isinstance(node, (ast.Lambda, ast.comprehension, ast.NamedExpr))
            and not (isinstance(node, ast.Name) and node.id not in parameters
                     and (node.id not in self.imports.aliases or self._local_anywhere(node.id)))
            for node in ast.walk(function.body)
        )

    def own_call(self, name: str) -> Value:
        """What ``name(...)`` returns when ``name`` is a function or class the module defines,
        or a function this scope or one around it defines and binds no other way."""
        nested = self._nested_function(name)
        if nested is not None:
            return self.summary.returns(nested)
        if self._local_anywhere(name):
            return None
        definition = self.summary.definition(name)  # a module-level def or class
        if isinstance(definition, FUNCTION_DEFS):
            return self.summary.returns(name)
        return Instance(name) if isinstance(definition, ast.ClassDef) else None

    def _nested_function(self, name: str) -> str | None:
        """The qualname of the undecorated function that the nearest enclosing function
        binding ``name`` (this one or one around it) defines as ``name``, when the ``def`` is
        its only binding there."""
        facts: ScopeFacts | None = self
        while facts is not None and facts.qualname:
            bindings = facts.bindings.get(name)
            if bindings:
                qualname = f"{facts.qualname}.{name}"
                definition = self.summary.definition(qualname)
                if len(bindings) == 1 and isinstance(definition, FUNCTION_DEFS) and not definition.decorator_list:
                    return qualname
                return None
            facts = self.summary.parent_scope(facts.qualname)
        return None

    def _local_anywhere(self, name: str) -> bool:
        """Bound in this scope or an enclosing function (not at module level)."""
        facts: ScopeFacts | None = self
        while facts is not None and facts.qualname:
            if name in facts.bindings:
                return True
            facts = self.summary.parent_scope(facts.qualname)
        return False

    def _attribute_value(self, node: ast.Attribute) -> Value:
        attr = node.attr
        if attr == "grad":
            return TENSOR
        if attr == "param_groups":  # an optimizer's (only torch.optim names it so)
            return Holds.PARAM_GROUPS
        receiver = self.value(node.value)
        if isinstance(receiver, Instance):
            return self.summary.attribute(receiver, attr)
        if receiver is None:
            chosen = each_instance(self, node.value, lambda instance: self.summary.attribute(instance, attr))
            if chosen is not None:
                return chosen  # agent = NAF(...) or DDPG(...); agent.memory
        if isinstance(receiver, LibraryObject):
            return receiver.attribute(attr)  # train_set.targets
        if receiver == Holds.DISTRIBUTION:
            return TENSOR if attr in DISTRIBUTION_TENSOR_PROPERTIES else None  # dist.mean
        if attr in TENSOR_ATTRIBUTES and (
            isinstance(receiver, TensorInfo)
            or (attr == "data" and isinstance(node.value, ast.Attribute) and node.value.attr in PARAMETER_ATTRIBUTES)
        ):
            return TENSOR
        if receiver is None and self.summary.project is not None \
                and (qualified := self.imports.qualify_expression(node)) is not None:
            value = self.summary.imported_value(qualified)  # config.MEAN
            if value is not None:
                return value
        return TENSOR if receiver is None and self._used_chain(node) else None


# The two below take the summary and the facts to ask apart, so that the rules' inference can
# hand over those the language server records its questions through (``server/reuse.py``).
def each_instance(facts: ScopeFacts, node: ast.expr, answer: Callable[[Instance], Value]) -> Value:
    """What ``answer`` gives for every instance the name ``node`` may hold (see
    :meth:`ScopeFacts.instances`), when they agree: whichever class the code picked, the same
    kind of value."""
    if not isinstance(node, ast.Name):
        return None
    made = facts.instances(node.id)
    return join([answer(instance) for instance in made]) if made else None


def method_result(summary: ModuleSummary, facts: ScopeFacts | None, instance: Instance, method: str,
                  call: ast.Call) -> Value:
    """What ``instance.method(...)`` returns (``call``: the call); a stored lambda's result only
    where there are scope facts to judge its arguments by (not in a class body)."""
    if (held := summary.attribute(instance, method)) in CALLED_FOR_TENSORS:
        return CALLED_FOR_TENSORS[held]  # self.criterion(out, y), self.transform(img)
    result = summary.call_on(instance, method)
    if result is None and facts is not None and (function := summary.stored_lambda(instance, method)) is not None:
        return facts.lambda_result(function, call)  # self.dist = lambda x, m: ...; self.dist(t, m)
    return result


def _lambda_arguments(function: ast.Lambda, call: ast.Call) -> dict[str, ast.expr] | None:
    """Parameter -> the argument ``call`` passes it, when the lambda takes plain parameters
    only and the call passes each exactly once (no default, ``*args`` nor ``**kwargs``)."""
    signature = function.args
    if signature.posonlyargs or signature.vararg or signature.kwonlyargs or signature.kwarg or signature.defaults:
        return None
    if any(isinstance(argument, ast.Starred) for argument in call.args) or any(k.arg is None for k in call.keywords):
        return None
    names = [argument.arg for argument in signature.args]
    passed = dict(zip(names, call.args))
    for keyword in call.keywords:
        if keyword.arg in passed:
            return None
        passed[keyword.arg] = keyword.value
    return passed if len(call.args) <= len(names) and set(passed) == set(names) else None


def batch_item(base: Value, index: ast.expr) -> bool:
    """``batch[0]`` of a DataLoader's batch: as unpacking it gives, a tensor of the default
    collate (not ``batch["name"]``, which may be a list of strings)."""
    return base == Holds.BATCH and isinstance(index, ast.Constant) and type(index.value) is int


# What a binding's code cannot tell the kind of: a call, an attribute, an item, a name.
_OPAQUE_SOURCES = (ast.Call, ast.Attribute, ast.Subscript, ast.Name, ast.Await)


def _branches_bind_tensor(facts: ScopeFacts, branch: ast.If, name: str) -> bool:
    """Every branch of ``branch`` (``elif``/``else`` too) ends binding ``name`` to a tensor."""
    for block in (branch.body, branch.orelse):
        last = block[-1] if block else None
        if isinstance(last, ast.If):
            if not _branches_bind_tensor(facts, last, name):
                return False
        elif not (isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name)
                  and last.targets[0].id == name and isinstance(facts.value(last.value), TensorInfo)):
            return False
    return True


def _empty_list_unpacked(binding: _Binding) -> bool:
    """``a, b = [], []``: the binding of one of the names to its empty list."""
    source = binding.source
    if not isinstance(source, Unpacked) or len(binding.path) != 1 or not isinstance(source.value, (ast.Tuple, ast.List)):
        return False
    elements = source.value.elts
    step = binding.path[0]
    if not isinstance(step, int) or step >= len(elements) or any(isinstance(e, ast.Starred) for e in elements):
        return False
    element = elements[step]
    return isinstance(element, ast.List) and not element.elts


def _sized_call(call: ast.Call) -> bool:
    """``x.view(-1, 5)``, ``x.size(0)``: see ``SIZED_TENSOR_METHODS``."""
    return isinstance(call.func, ast.Attribute) and call.func.attr in SIZED_TENSOR_METHODS and any(
        integer_literal(argument) for argument in call.args
    )


def _chain(node: ast.expr) -> str | None:
    """``x`` of a name, ``x.a.b`` of attributes read from a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _sliced(node: ast.expr) -> str | None:
    """``det`` of ``det[:, 5]``: a name indexed with a tuple holding a slice, which no list,
    dict or pandas object takes."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Tuple) \
            and any(isinstance(part, ast.Slice) for part in node.slice.elts):
        return node.value.id
    return None


def _plain(element: ast.expr | EachElement) -> bool:
    """A number, a string or what converts a tensor to plain values (``loss.item()``)."""
    if isinstance(element, (ast.Constant, ast.JoinedStr)):
        return True
    if not isinstance(element, ast.Call) or element.keywords:
        return False
    func = element.func
    if isinstance(func, ast.Attribute):
        return func.attr in _TO_PLAIN
    return isinstance(func, ast.Name) and func.id in _PLAIN_BUILTINS


_TO_PLAIN = frozenset({"item", "tolist", "numpy"})
_PLAIN_BUILTINS = frozenset({"float", "int", "bool", "str", "len", "round"})


def _copies(call: ast.Call) -> bool:
    return any(k.arg == "copy" and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


# Docstrings that give a parameter's type: Google ``x (torch.Tensor): ...``, NumPy
# ``x : Tensor``, Sphinx ``:type x: torch.Tensor``, ``:param torch.Tensor x:``,
# ``:param x: (torch.Tensor) ...`` and its Args-list form ``x: (tensor) ...`` (SSD's and
# YOLO's box utilities). Only a plain tensor type counts, not "list of tensors" nor
# "Tensor or ndarray".
_TENSOR_TYPE = r"(?:torch\.)?[Tt]ensor(?:\[[^\]\n]*\])?(?:,\s*optional)?"
_DOCUMENTED = (
    re.compile(rf"^[ \t]*(\w+)[ \t]*\([ \t]*{_TENSOR_TYPE}[ \t]*\)[ \t]*:", re.MULTILINE),
    re.compile(rf"^[ \t]*(\w+)[ \t]+:[ \t]*{_TENSOR_TYPE}[ \t]*$", re.MULTILINE),
    re.compile(rf"^[ \t]*:type[ \t]+(\w+)[ \t]*:[ \t]*{_TENSOR_TYPE}[ \t]*$", re.MULTILINE),
    re.compile(rf"^[ \t]*:param[ \t]+{_TENSOR_TYPE}[ \t]+(\w+)[ \t]*:", re.MULTILINE),
    re.compile(rf"^[ \t]*(?::param[ \t]+)?(\w+)[ \t]*:[ \t]*\([ \t]*{_TENSOR_TYPE}[ \t]*\)", re.MULTILINE),
)


def _documented_tensors(function: ast.AST) -> set[str]:
    """The parameters that the function's docstring says are tensors."""
    docstring = ast.get_docstring(function, clean=False)
    if not docstring or "ensor" not in docstring:
        return set()
    return {match.group(1) for pattern in _DOCUMENTED for match in pattern.finditer(docstring)}
