"""The prefilter's second stage: a rule's necessary condition, checked on flake8's ``ast``.

Some triggers match many more functions than can hold a finding. ``torch.tensor(x)``
is everywhere in torch code, but TCP005 reports only when ``x`` is known to be a
tensor, from evidence inside the same function or from the module summary.
An :class:`ArgumentGate` asks the cheap question first, on the tree flake8 already
parsed: does the function call one of the rule's callees with an argument that the
inference *could* judge a tensor? If not, the function is not parsed with LibCST for
that rule.

Rules whose finding needs a shape rather than a tensor argument have gates of their
own (:class:`DataWriteGate`, :class:`CloneDetachGate`, :class:`DetachedWriteGate`,
:class:`AdvancedIndexWriteGate`, :class:`SnapshotGate`, :class:`AccumulationGate`): each
asks, of the scope's own nodes, the rule's question with every judgement the ``ast``
cannot make answered yes. A gate may also name the statements that alone hold every
finding its rule can make in a scope (:meth:`Gate.statements`); where no fixes are
wanted, those are parsed instead.

The argument gate over-approximates ``Inference.info``: wherever the inference could find
evidence, the gate answers yes. A name counts when the scope binds it anywhere (in any
order, on any path; in a call's arguments, only the binding in force there where the
straight path to the call tells, as ``analysis/in_force.py`` works out) to something
that could be a tensor, annotates it with anything under ``torch``, or loops it over
parameters; and whatever the module summary knows
(``analysis/summary.py``), since the inference reads the same answers. Both read the
evidence vocabulary of ``analysis/vocabulary.py``, and ``tests/test_gates.py`` plus
``tests/test_prefilter_exact.py`` check that the gate loses no finding.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

from .analysis.ast_patterns import Unpacked, target_paths, unstarred, written_in_place
from .analysis.in_force import StraightPaths
from .analysis.own_code import BODY, OwnCode
from .analysis.scope_facts import ScopeFacts
from .analysis.summary import ModuleSummary
from .analysis.values import Holds, tensor_tuple_value
from .analysis.vocabulary import (
    ACCUMULATING_METHODS,
    BACKWARD_CALLEES,
    CONVERSION_METHODS,
    DETACHING,
    DICT_COPIES,
    GRAPH_PRESERVING,
    NAMED_PARAMETER_ITERATORS,
    NOT_TENSOR_NAMES,
    NUMPY_ARRAY_VIEWS,
    NUMPY_VIEW_FUNCTIONS,
    NUMPY_WRITING_FUNCTIONS,
    NUMPY_WRITING_METHODS,
    PARAMETER_ATTRIBUTES,
    PARAMETER_ITERATORS,
    PLAIN_BUILTINS,
    PLAIN_MODULES,
    SAVING,
    TENSOR,
    TENSOR_ATTRIBUTES,
    TIED_PARAMETER_ATTRIBUTES,
    TRAINING_METHODS,
    VIEW_METHODS,
    TensorInfo,
    gives_tensor_for_tensor,
    holds_live_state,
    initialiser_name,
    is_loss_call,
    over_data,
    tensor_method_info,
    writes_first_argument,
    writes_in_place,
)
from .imports import COMPOUND_STATEMENTS, FUNCTION_DEFS, ImportTable

# Every torch function the inference knows returns a tensor is qualified under this.
_TORCH = "torch."
_MEMBERSHIP = (ast.In, ast.NotIn, ast.Is, ast.IsNot)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class Gate:
    """A rule's necessary condition on one scope, judged on flake8's ``ast``. Gates of one
    class and fields are equal: codes that share a gate share its work (``prefilter.plan``)."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def admits(self, function: FunctionFacts) -> bool:
        raise NotImplementedError

    def spellings(self, imports: ImportTable) -> frozenset[str] | None:
        """Words one of which a trigger match must be (see :class:`ArgumentGate`); None: any."""
        return None

    def statements(self, function: FunctionFacts) -> list[ast.stmt] | None:
        """The simple statements of an admitted scope that hold every finding the rule can
        make there, each judged alone (no fixes asked: they may need the scope); None when
        the rule needs the whole scope."""
        return None

    def source(self) -> str:
        """This gate as Python source (for the generated trigger table)."""
        return f"{type(self).__name__}()"


class ArgumentGate(Gate):
    """A finding needs a call to one of ``callees`` (qualified names, e.g. ``torch.tensor``)
    or to a method in ``methods`` (``x.new_tensor``) whose data argument could be a tensor.

    The data argument is any positional argument or the ``keyword`` one; with
    ``elements`` a list or tuple counts when one of its elements could be a tensor. With
    ``copies`` the call returns a copy of its argument (``copy.deepcopy``), so a name bound
    to the call and known as a tensor says the argument is one too.
    """

    def __init__(self, callees: frozenset[str], methods: frozenset[str] = frozenset(), keyword: str | None = None,
                 elements: bool = False, copies: bool = False) -> None:
        self.callees = callees
        self.methods = methods
        self.keyword = keyword
        self.elements = elements
        self.copies = copies

    def admits(self, function: FunctionFacts) -> bool:
        return any(
            self._is_callee(call.func, function.imports)
            and any(self._could_hold_tensor(argument, function, call) for argument in self._data_arguments(call))
            for call in function.calls
        ) or (self.copies and any(
            self._is_callee(call.func, function.imports) and isinstance(function.facts.name_value(name), TensorInfo)
            for name, call in _names_bound_to_calls(function)
        ))

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

    def _could_hold_tensor(self, argument: ast.expr, function: FunctionFacts, call: ast.Call,
                           seen: frozenset[str] = frozenset()) -> bool:
        if self.elements and isinstance(argument, (ast.List, ast.Tuple)):  # also nested: [[t]]
            return any(self._could_hold_tensor(unstarred(e), function, call, seen) for e in argument.elts)
        if self.elements and (
            function.facts.value(argument) == Holds.TENSORS
            or (isinstance(argument, ast.Name) and function.facts.receives_tensors(argument.id))
            or (isinstance(argument, ast.Name) and function.facts.parameter_value(argument.id) == Holds.TENSORS)
        ):
            return True
        if self.elements and isinstance(argument, ast.Name) and argument.id not in seen and any(
            # weights = [w / total for w in weights]: the inference judges it where it is bound
            binding.kind == "value" and (
                (isinstance(binding.source, ast.ListComp)
                 and self._could_hold_tensor(binding.source.generators[0].iter, function, call, seen | {argument.id}))
                # mat = [[c, -s], [s, c]]: the display, judged where it is bound
                or (isinstance(binding.source, (ast.List, ast.Tuple))
                    and self._could_hold_tensor(binding.source, function, call, seen | {argument.id}))
            )
            for binding in function.facts.bindings.get(argument.id, ())
        ):
            return True
        return function.could_be_tensor(argument, at=call)

    def source(self) -> str:
        """This gate as Python source with a stable order (for the generated trigger table)."""
        return (
            f"ArgumentGate(frozenset({sorted(self.callees)!r}), frozenset({sorted(self.methods)!r}), "
            f"{self.keyword!r}, {self.elements!r}, {self.copies!r})"
        )


def _names_bound_to_calls(function: FunctionFacts) -> Iterator[tuple[str, ast.Call]]:
    """``name = f(...)`` statements of the scope's own code: (name, the call)."""
    for node, _ in function.own_nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            yield node.targets[0].id, node.value


def _iterates_parameters(iterable: ast.expr) -> bool:
    """``m.parameters()``, ``m.named_buffers()``, ``enumerate(...)`` (of those, say)."""
    if not isinstance(iterable, ast.Call):
        return False
    func = iterable.func
    if isinstance(func, ast.Attribute):
        return func.attr in PARAMETER_ITERATORS | NAMED_PARAMETER_ITERATORS
    return isinstance(func, ast.Name) and func.id == "enumerate"


class FunctionFacts:
    """What the gates need to know about one scope (a function, or the module's tree for
    its code outside functions).

    ``facts``, the summary's :class:`ScopeFacts`, is walked only for the argument gates;
    the shape gates read the scope's own nodes. Nested functions are left out: the
    inference judges their code in their own scope, and the prefilter gates them on
    their own.
    """

    def __init__(self, summary: ModuleSummary, scope: ast.AST) -> None:
        self.summary = summary
        self.scope = scope
        self.imports = summary.imports
        self._names: dict[str, bool] = {}  # name -> could_name_tensor, once final
        self._judging: set[str] = set()
        self._cycles = 0  # names met again while judged

    @functools.cached_property
    def facts(self) -> ScopeFacts:
        return self.summary.facts(self.scope)

    @functools.cached_property
    def writes_data_indirectly(self) -> bool:
        """A ``.data`` written through a name bound to it, or handed to a function of the
        file that writes its parameter (TCP001's gate asks twice: worked out once)."""
        return _writes_data_alias(self) or _hands_data_to_a_writer(self)

    @functools.cached_property
    def calls(self) -> list[ast.Call]:
        """Every call of the scope's own code (its header included, see :attr:`own_nodes`)."""
        return [node for node, _ in self.own_nodes if isinstance(node, ast.Call)]

    def could_name_tensor(self, name: str) -> bool:
        """Whether the inference could know ``name``, bound in the scope, as a tensor: what
        the summary knows, or any binding may give the evidence (the inference follows the
        order, the gate cannot), also through other names. Judged on demand: a name met
        again while it is judged counts as no evidence there (its own judgement looks at
        its other bindings), and what was judged so is not kept."""
        known = self._names.get(name)
        if known is not None:
            return known
        facts = self.facts
        if name in self._judging or name not in facts.bindings:
            self._cycles += name in self._judging
            return False
        self._judging.add(name)
        cycles = self._cycles
        try:
            found = isinstance(facts.name_value(name), TensorInfo) or any(map(self._could_bind_tensor, facts.bindings[name]))
        finally:
            self._judging.discard(name)
        if found or self._cycles == cycles:
            self._names[name] = found
        return found

    @functools.cached_property
    def own_nodes(self) -> list[tuple[ast.AST, tuple[ast.AST, ...]]]:
        """Every node of the scope's own code, with the ``for``/``while`` loops of the scope
        that hold it (their headers included; the innermost last), in no particular order.
        Lambdas, comprehensions, class bodies and a function's own decorators, defaults and
        annotations count as the scope's own code, as they do for the rules' frames; nested
        functions (theirs too) do not."""
        return [(node, loops) for node, loops, _, _, _ in self._walk.nodes if type(node) not in FUNCTION_DEFS]

    @functools.cached_property
    def own_names(self) -> list[tuple[ast.Name, tuple[ast.AST, ...]]]:
        """The names read or written in the scope's own code, with their loops (see :attr:`own_nodes`)."""
        return [(node, loops) for node, loops, _, _, _ in self._walk.leaves if type(node) is ast.Name]

    @functools.cached_property
    def plain_bindings(self) -> dict[str, list[ast.expr]]:
        """What the scope's own code binds each plain name to (``x = v``, ``x: T = v``,
        ``(x := v)``), in no particular order."""
        bindings: dict[str, list[ast.expr]] = {}
        for node, _ in self.own_nodes:
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                targets = [node.target]
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    bindings.setdefault(target.id, []).append(node.value)
        return bindings

    @functools.cached_property
    def unpacked_bindings(self) -> dict[str, list[ast.expr]]:
        """What the scope's own code unpacks into each name from a display (``a, b = x, y``)."""
        bindings: dict[str, list[ast.expr]] = {}
        for node, _ in self.own_nodes:
            if not isinstance(node, ast.Assign) or not isinstance(node.value, (ast.Tuple, ast.List)):
                continue
            for target in node.targets:
                if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(node.value.elts):
                    for name, element in zip(target.elts, node.value.elts):
                        if isinstance(name, ast.Name):
                            bindings.setdefault(name.id, []).append(element)
        return bindings

    @functools.cached_property
    def under_metric_test(self) -> set[int]:
        """id() of the scope's own nodes (but leaves) that an ``if`` on a metric holds (its test included)."""
        return {id(node) for node, _, branched, _, _ in self._walk.nodes if branched}

    @functools.cached_property
    def without_graph(self) -> set[int]:
        """id() of the scope's own nodes (but leaves) that run under ``torch.no_grad()`` (a ``with`` of the
        scope, or the function's own decorator), where no autograd graph is recorded."""
        return {id(node) for node, _, _, quiet, _ in self._walk.nodes if quiet}

    @property
    def _walk(self) -> OwnCode:
        return self.summary.own_code(self.scope)

    def _could_bind_tensor(self, binding) -> bool:
        source = binding.source
        if binding.kind == "param":
            return (source.annotation is not None and self._names_torch(source.annotation)) \
                or isinstance(self.facts.parameter_value(source.arg), TensorInfo)
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
                return any(self.could_be_tensor(unstarred(element)) for element in value.elts)
            returned = self.facts.value(value)  # a tuple when the file's own function returns one
            return self.could_be_tensor(value) or (
                isinstance(returned, tuple) and any(isinstance(v, TensorInfo) for v in returned)
            ) or returned in _UNPACKED_TO_TENSORS or (
                # a, b = batch, the parameter: what its callers pass, as the inference reads it
                isinstance(value, ast.Name) and self.facts.parameter_value(value.id) in _UNPACKED_TO_TENSORS
            )
        return False

    def _could_iterate_tensors(self, iterable: ast.expr) -> bool:
        """``for x in iterable`` could bind a tensor: parameters, rows of a tensor, and
        ``zip``/``enumerate``/``reversed`` of those."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
                and iterable.func.id in ("zip", "enumerate", "reversed"):
            return any(self._could_iterate_tensors(unstarred(argument)) for argument in iterable.args)
        return _iterates_parameters(iterable) or self.could_be_tensor(iterable)

    def _names_torch(self, annotation: ast.expr) -> bool:
        """Whether an annotation mentions anything under ``torch`` (``Tensor``, ``nn.Parameter``)."""
        return any(
            (self.imports.qualify_expression(node) or "").startswith(_TORCH)
            for node in ast.walk(annotation)
            if isinstance(node, (ast.Name, ast.Attribute))
        )

    def could_be_tensor(self, node: ast.expr, at: ast.Call | None = None) -> bool:
        """False only where ``Inference.info`` is None whatever the bindings hold; ``at``:
        the call whose arguments ``node`` is read in, which only the bindings that may be
        in force there can reach (``x = torch.tensor(x)`` reads the old ``x``)."""
        if isinstance(node, ast.Constant):
            return False  # before asking the summary: most arguments of torch.tensor(...)
        if isinstance(self.facts.value(node), TensorInfo):  # what the summary knows, the inference reads
            return True
        if isinstance(node, ast.Name):
            if not self.could_name_tensor(node.id):
                return False
            if at is None:
                return True
            in_force = self._in_force(node, at)
            if in_force is not None:
                return any(map(self._could_bind_tensor, in_force))
            return any(
                self._could_bind_tensor(binding) and self.facts.may_reach(binding.source, at)
                for binding in self.facts.bindings[node.id]
            )
        if isinstance(node, ast.Call):
            qualified = self.imports.qualify_expression(node.func)
            if qualified is not None and gives_tensor_for_tensor(qualified, (k.arg for k in node.keywords)):
                return any(self.could_be_tensor(a, at) for a in node.args if not isinstance(a, ast.Starred))
            if qualified is not None:
                return qualified.startswith(_TORCH)
            # A method of a tensor that returns one or a tuple of them (not ``x.numel()``).
            return (
                isinstance(node.func, ast.Attribute)
                and (tensor_method_info(node.func.attr, TENSOR, copies=False) is not None
                     or tensor_tuple_value(node.func.attr) is not None)
                and self.could_be_tensor(node.func.value, at)
            )
        if isinstance(node, ast.Attribute):
            if node.attr == "grad":
                return True
            if node.attr not in TENSOR_ATTRIBUTES:
                return False
            receiver = node.value
            return self.could_be_tensor(receiver, at) or (
                node.attr == "data" and isinstance(receiver, ast.Attribute) and receiver.attr in PARAMETER_ATTRIBUTES
            )
        if isinstance(node, ast.Subscript):
            return self.could_be_tensor(node.value, at)
        if isinstance(node, ast.BinOp):
            return self.could_be_tensor(node.left, at) or self.could_be_tensor(node.right, at)
        if isinstance(node, ast.Compare):
            return not any(isinstance(op, _MEMBERSHIP) for op in node.ops) and any(
                self.could_be_tensor(operand, at) for operand in (node.left, *node.comparators)
            )
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self.could_be_tensor(node.operand, at)
        if isinstance(node, ast.IfExp):
            return self.could_be_tensor(node.body, at) and self.could_be_tensor(node.orelse, at)
        if isinstance(node, ast.NamedExpr):
            return self.could_be_tensor(node.value, at)
        return False

    def _in_force(self, name: ast.Name, call: ast.Call) -> list | None:
        """The bindings the inference may read for ``name`` in ``call``'s arguments, when the
        straight path to the call tells (see ``analysis/in_force.py``); None: any that may
        reach. Where the binding in force tells nothing the inference reads the summary's
        view of the whole scope, so a name that view knows as a tensor is left to the rest."""
        inside = (call.lineno, call.col_offset) <= (name.lineno, name.col_offset) \
            and (name.end_lineno, name.end_col_offset) <= (call.end_lineno, call.end_col_offset)
        if not inside or id(call) in self._nested_calls or isinstance(self.facts.name_value(name.id), TensorInfo):
            return None  # read elsewhere (another binding's source), or maybe by a lambda's own name
        in_force = self.straight_paths.in_force(name.id, self.facts.bindings[name.id], call)
        if in_force is not None and any(isinstance(b.expression, _COMPREHENSIONS) for b in in_force):
            return None  # its rows are judged by the inference alone (see _could_hold_tensor)
        return in_force

    @functools.cached_property
    def _nested_calls(self) -> set[int]:
        """id() of the calls in the scope's lambdas and comprehensions (whose names may be
        their own) and in its header."""
        return {id(node) for node, _, _, _, where in self._walk.nodes if where != BODY and type(node) is ast.Call}

    @property
    def straight_paths(self) -> StraightPaths:
        return self.facts.straight_paths


# What ``a, b = value`` unpacks into tensors, as ``Inference._unpacked_infos`` reads it.
_UNPACKED_TO_TENSORS = (Holds.TENSORS, Holds.TENSOR_OR_TENSORS, Holds.BATCH)


# -- gates on a rule's own shape --------------------------------------------------


def _callee(call: ast.Call) -> str:
    """``backward`` for ``loss.backward()``, ``criterion`` for ``criterion(...)``, else ""."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _dotted(node: ast.expr) -> str:
    """``"self.model.weight"`` for a chain of plain names and attributes, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _container(target: ast.expr) -> ast.expr:
    """What an item store writes into: ``history`` for ``history[i][k]``."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return target


def _method(node: ast.AST) -> tuple[ast.expr, str] | None:
    """(receiver, method name) for ``receiver.method(...)``, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.value, node.func.attr
    return None


def _argument_count(call: ast.Call) -> int:
    return len(call.args) + len(call.keywords)


def _appended(call: ast.Call) -> list[ast.expr]:
    """What ``c.append(v)``, ``c.insert(i, v)``, ``c.extend([a, b])`` may put into ``c``
    (every argument: the rules take the last one in source order)."""
    method = _method(call)
    if method is None or method[1] not in ACCUMULATING_METHODS:
        return []
    values = []
    for value in (*call.args, *(keyword.value for keyword in call.keywords)):
        value = unstarred(value)
        if method[1] == "extend" and isinstance(value, (ast.List, ast.Tuple)):
            values += [unstarred(element) for element in value.elts]
        values.append(value)
    return values


class DataWriteGate(Gate):
    """TCP001: a write through ``.data``: an in-place method on ``E.data`` (or an item of
    it), ``E.data`` handed first to an in-place ``torch`` function or as ``out=``, an
    assignment to ``E.data`` or its items, an augmented one; ``E`` not a plain object
    (``self``, ``args``, a literal). All but ``E.data = v`` and ``E.data += v`` are judged
    on the statement alone, so the flake8 plugin parses those statements, not their
    function; those two need ``E`` known as a tensor."""

    def admits(self, function: FunctionFacts) -> bool:
        return any(_writes_through_data(node, function.imports) for node, _ in function.own_nodes) \
            or function.writes_data_indirectly

    def statements(self, function: FunctionFacts) -> list[ast.stmt] | None:
        if function.summary.defines_data_records() or function.writes_data_indirectly:
            return None  # a `.data` may be a named tuple's field, or a name holds one: the bindings decide
        if _shows_a_write_context(function):
            return None  # no_grad, an initialiser or a finished step decide the code and the message
        bound = function.plain_bindings
        writes = []
        for node, _ in function.own_nodes:
            if not _writes_through_data(node, function.imports):
                continue
            receivers = _assigned_receivers(node)
            if any(function.could_be_tensor(receiver) for receiver in receivers if not _parameter(receiver)):
                return None  # flagged only if the scope's bindings show a tensor
            if any(_binds_other_array(bound.get(name, ()), function.imports) for name in _data_receiver_names(node)):
                return None  # `m = sp.csr_matrix(...)`: the binding at the write decides
            if not receivers or any(map(_parameter, receivers)) or not isinstance(node, (ast.Assign, ast.AugAssign)):
                writes.append(node)
            elif isinstance(node, ast.Assign) and any(_through_data(t) and not _is_data(t) for t in node.targets):
                writes.append(node)  # an item assignment beside it
        return _simple_statements_holding(function, writes)


def _data_receiver_names(node: ast.AST) -> set[str]:
    """The names ``E`` of the ``E.data`` in ``node``."""
    return {n.value.id for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr == "data"
            and isinstance(n.value, ast.Name)}


def _binds_other_array(values, imports: ImportTable) -> bool:
    """One of ``values`` is a call of scipy or numpy (whose arrays and matrices have a
    ``.data`` of their own; TCP001's ``_OTHER_ARRAYS``)."""
    return any(isinstance(value, ast.Call) and (imports.qualify_expression(value.func) or "").startswith(("scipy.", "numpy."))
               for value in values)


def _shows_a_write_context(function: FunctionFacts) -> bool:
    """Whether the scope may show where its ``.data`` writes run (TCP001 or TCP101, and
    which message): a decorator, an initialiser's name, a ``with``, a ``.backward()`` or
    ``.step()``. More than the rule reads: a statement alone must mean "elsewhere"."""
    scope = function.scope
    if isinstance(scope, FUNCTION_DEFS) and (scope.decorator_list or initialiser_name(scope.name)):
        return True
    return any(
        isinstance(node, (ast.With, ast.AsyncWith)) or (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and (node.func.attr in TRAINING_METHODS or node.func.attr in BACKWARD_CALLEES)
        )
        for node, _ in function.own_nodes
    )


def _simple_statements_holding(function: FunctionFacts, nodes: list[ast.AST]) -> list[ast.stmt] | None:
    """The innermost statement of the scope around each of ``nodes``; None when one is in a
    compound statement's header (judged with its body)."""
    found: dict[int, ast.stmt] = {}
    for node in nodes:
        holder = function.straight_paths.innermost(node)
        if holder is None or isinstance(holder, COMPOUND_STATEMENTS):
            return None
        found[id(holder)] = holder
    return list(found.values())


class CloneDetachGate(Gate):
    """TCP002: ``E.clone(...).detach()`` or ``torch.clone(E).detach()``. The rule reads the
    call and the file's imports, nothing of the scope, so each finding is judged on its
    statement alone."""

    def admits(self, function: FunctionFacts) -> bool:
        return any(self._clone_detach(call, function.imports) for call in function.calls)

    def statements(self, function: FunctionFacts) -> list[ast.stmt] | None:
        calls = [call for call in function.calls if self._clone_detach(call, function.imports)]
        return _simple_statements_holding(function, calls)

    @staticmethod
    def _clone_detach(call: ast.Call, imports: ImportTable) -> bool:
        method = _method(call)
        if method is None or method[1] != "detach" or _argument_count(call) or not isinstance(method[0], ast.Call):
            return False
        inner = method[0].func
        if isinstance(inner, ast.Attribute) and inner.attr == "clone":
            return True
        return imports.qualify_expression(inner) == "torch.clone"


def _writes_through_data(node: ast.AST, imports: ImportTable) -> bool:
    if isinstance(node, ast.Call):
        method = _method(node)
        if method is not None and writes_in_place(method[1]) and _through_data(method[0]):
            return True
        # the cheap test of the argument first: most calls pass no ``.data``
        first = next((a for a in node.args if not isinstance(a, ast.Starred)), None) if node.args else None
        if first is not None and _is_data(first) and writes_first_argument(imports.qualify_expression(node.func) or ""):
            return True
        return bool(node.keywords) and any(k.arg == "out" and _is_data(k.value) for k in node.keywords)
    if isinstance(node, ast.Assign):
        return any(_through_data(target) for target in node.targets)
    if isinstance(node, ast.AugAssign):
        return _through_data(node.target)
    return False


def _writes_data_alias(function: FunctionFacts) -> bool:
    """``w = m.weight.data`` and then, in the same scope, an in-place method on ``w``, ``w``
    handed first to an in-place function, or an (augmented) assignment to ``w`` or its items."""
    aliases = {
        node.targets[0].id for node, _ in function.own_nodes
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and _is_data(node.value)
    }
    return bool(aliases) and any(written_in_place(node, function.imports) in aliases for node, _ in function.own_nodes)


def _hands_data_to_a_writer(function: FunctionFacts) -> bool:
    """``weight_init(m.weight.data)`` where the file's own ``weight_init`` writes that
    parameter in place (``nn.init.orthogonal_(w)``)."""
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and any(map(_is_data, node.args))
        and any(_is_data(node.args[i]) for i in function.summary.writes_arguments(node.func.id) if i < len(node.args))
        for node, _ in function.own_nodes
    )


def _assigned_receivers(write: ast.AST) -> list[ast.expr]:
    """``E`` of ``E.data = v`` and ``E.data += v``: flagged only when ``E`` is a tensor."""
    targets = write.targets if isinstance(write, ast.Assign) else [write.target] if isinstance(write, ast.AugAssign) else []
    return [target.value for target in targets if _is_data(target)]


def _parameter(receiver: ast.expr) -> bool:
    """``m.weight``: evidently a tensor, whatever the bindings."""
    return isinstance(receiver, ast.Attribute) and receiver.attr in PARAMETER_ATTRIBUTES


def _is_data(node: ast.expr) -> bool:
    """``E.data`` where ``E`` is not evidently something other than a tensor."""
    return isinstance(node, ast.Attribute) and node.attr == "data" and not _plain_object(node.value)


def _through_data(node: ast.expr) -> bool:
    """``E.data`` or ``E.data[...]``, any depth of indexing; not with a string key."""
    while isinstance(node, ast.Subscript):
        index = node.slice
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        if any(isinstance(part, ast.JoinedStr) or (isinstance(part, ast.Constant) and isinstance(part.value, str)) for part in parts):
            return False
        node = node.value
    return _is_data(node)


def _plain_object(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in NOT_TENSOR_NAMES
    if isinstance(node, ast.Constant):
        return type(node.value) in (str, bytes, int, float)
    return isinstance(node, (ast.List, ast.Dict, ast.Set, ast.Tuple, ast.ListComp, ast.DictComp, ast.JoinedStr))


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


class DetachedWriteGate(Gate):
    """TCP004: an in-place write into ``E.detach()`` (or a basic-indexing view of it), or
    into a name the scope binds to one, where ``E`` is not a fresh call's result."""

    def admits(self, function: FunctionFacts) -> bool:
        nodes = function.own_nodes
        detached = {
            name
            for name, values in function.plain_bindings.items()
            if any(self._detached_view(value, set()) for value in values)
        }
        return any(self._detached_view(written, detached) for node, _ in nodes for written in _written(node))

    def _detached_view(self, node: ast.expr, names: set[str]) -> bool:
        while isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Name):
            return node.id in names
        method = _method(node)
        if method is None or method[1] != "detach" or _argument_count(node):
            return False
        receiver = method[0]
        # A call's result that no one else holds (``model(x).detach()``) cannot be shared.
        inner = _method(receiver)
        return not isinstance(receiver, ast.Call) or (inner is not None and inner[1] in VIEW_METHODS | CONVERSION_METHODS)


def _written(node: ast.AST) -> list[ast.expr]:
    """What ``node`` writes into in place: ``x`` of ``x.add_(1)``, ``x[0] = v``, ``x[0] += v``."""
    if isinstance(node, ast.Call):
        method = _method(node)
        return [method[0]] if method is not None and writes_in_place(method[1]) else []
    if isinstance(node, ast.Assign):
        return [target.value for target in node.targets if isinstance(target, ast.Subscript)]
    if isinstance(node, ast.AugAssign):
        target = node.target
        return [target.value if isinstance(target, ast.Subscript) else target]
    return []


class NumpyAliasWriteGate(Gate):
    """TCP010: in a function, a name bound to ``<...>.numpy()`` (through array views, or
    to a view of another such name) that the function writes into in place."""

    def admits(self, function: FunctionFacts) -> bool:
        if not isinstance(function.scope, FUNCTION_DEFS):
            return False
        bindings = function.plain_bindings
        aliases: set[str] = set()
        grown = True
        while grown:  # b = a.T after a = t.numpy()
            grown = False
            for name, values in bindings.items():
                if name not in aliases and any(self._array_of(value, aliases) for value in values):
                    aliases.add(name)
                    grown = True
        if not aliases:
            return False
        return any(
            isinstance(written, ast.Name) and written.id in aliases
            for node, _ in function.own_nodes
            for written in _array_writes(node)
        )

    def _array_of(self, node: ast.expr, aliases: set[str]) -> bool:
        """``node`` may be a view of a ``.numpy()`` array or of a name in ``aliases``."""
        while isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute) and node.attr in ("T", "real", "imag")):
            node = node.value
        method = _method(node)
        if method is None:
            return isinstance(node, ast.Name) and node.id in aliases
        if method[1] == "numpy":
            return True
        # a.transpose(...) views its receiver, np.transpose(a, ...) its argument: either may be it
        if method[1] in NUMPY_VIEW_FUNCTIONS and node.args and not isinstance(node.args[0], ast.Starred) \
                and self._array_of(node.args[0], aliases):
            return True
        return method[1] in NUMPY_ARRAY_VIEWS and self._array_of(method[0], aliases)


def _array_writes(node: ast.AST) -> list[ast.expr]:
    """The containers ``node`` writes into in place, as an array would be written:
    ``a`` of ``a *= s``, ``a[i] = v``, ``out=a``, ``a.fill(0)``, ``np.random.shuffle(a)``."""
    if isinstance(node, ast.AugAssign):
        written = [node.target]
    elif isinstance(node, ast.Assign):
        written = [target for target in node.targets if isinstance(target, ast.Subscript)]
    elif isinstance(node, ast.AnnAssign):
        written = [node.target] if isinstance(node.target, ast.Subscript) and node.value is not None else []
    elif isinstance(node, ast.Call):
        written = []
        for keyword in node.keywords:
            if keyword.arg == "out":
                value = keyword.value
                written += value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
        method = _method(node)
        if method is not None and method[1] in NUMPY_WRITING_METHODS:
            written.append(method[0])
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in NUMPY_WRITING_FUNCTIONS and node.args and not isinstance(node.args[0], ast.Starred):
            written.append(node.args[0])
    else:
        return []
    return [_container(target) for target in written]


class ParameterRewrapGate(Gate):
    """TCP011: ``A.b = Parameter(X.weight)`` (also through ``.data``/``.detach()``) or
    ``A.register_parameter(name, Parameter(X.weight))``."""

    def admits(self, function: FunctionFacts) -> bool:
        for node, _ in function.own_nodes:
            if isinstance(node, ast.Assign):
                if any(isinstance(t, ast.Attribute) for t in node.targets) and _rewraps(node.value):
                    return True
            elif isinstance(node, ast.Call) and (method := _method(node)) is not None \
                    and method[1] == "register_parameter" and len(node.args) == 2 and _rewraps(node.args[1]):
                return True
        return False


def _rewraps(value: ast.expr) -> bool:
    """``Parameter(X.weight)``, ``nn.Parameter(data=X.bias.data)``: a Parameter made of
    another one's storage (the rule checks the callee and X more closely)."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if (func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else "") != "Parameter":
        return False
    arguments = [*value.args[:1], *(k.value for k in value.keywords if k.arg == "data")]
    for argument in arguments:
        while True:  # X.weight.data, X.weight.detach(): the same storage
            if isinstance(argument, ast.Attribute) and argument.attr == "data":
                argument = argument.value
            elif (method := _method(argument)) is not None and method[1] == "detach":
                argument = method[0]
            else:
                break
        if isinstance(argument, ast.Attribute) and argument.attr in TIED_PARAMETER_ATTRIBUTES:
            return True
    return False


class AdvancedIndexWriteGate(Gate):
    """TCP007: an expression statement ``x[index].method_(...)`` (a chain of in-place
    calls on a subscript) where some index may be advanced: a list, a mask, a call, a
    name bound to a list, anything that may be a tensor."""

    def admits(self, function: FunctionFacts) -> bool:
        lists = {
            name
            for name, values in function.plain_bindings.items()
            if any(isinstance(value, (ast.List, ast.ListComp)) for value in values)
        }
        for node, _ in function.own_nodes:
            if not isinstance(node, ast.Expr):
                continue
            written = node.value
            while (method := _method(written)) is not None and writes_in_place(method[1]):
                written = method[0]
            while written is not node.value and isinstance(written, ast.Subscript):
                if any(self._may_be_advanced(index, function, lists) for index in _indices(written)):
                    return True
                written = written.value
        return False

    @staticmethod
    def _may_be_advanced(index: ast.expr, function: FunctionFacts, lists: set[str]) -> bool:
        if isinstance(index, (ast.List, ast.ListComp, ast.Call, ast.Compare)):
            return True  # the rule judges calls and comparisons more closely
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
            return True
        if isinstance(index, ast.Attribute) and index.attr == "indices":
            return True
        if isinstance(index, ast.Name) and index.id in lists:
            return True
        return function.could_be_tensor(index)


def _indices(subscript: ast.Subscript) -> list[ast.expr]:
    """The index expressions of ``x[a, b:c]`` (slices left out), tuples flattened."""
    index = subscript.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return [part for part in parts if not isinstance(part, ast.Slice)]


class SnapshotGate(Gate):
    """TCP008: a ``state_dict()`` of live weights stored in a name, an attribute or a
    container, with a way for it to go stale. An attribute: it is loaded back elsewhere in
    the file, or stored in a loop or a branch on a metric (``if acc > best:``) of a scope
    that trains (or a closure of it does) or loads. A name: stored in such a loop or
    branch, read, and the scope trains or loads; otherwise the weights may move after the
    store (training, an in-place write, ``+=``) and it is read or loaded after that.

    Positions are where nodes start, in source order: the order the rule visits them in."""

    def admits(self, function: FunctionFacts) -> bool:
        stores = [
            (holder, module, loops[-1] if loops else None, id(node) in function.under_metric_test, _position(node))
            for node, loops in function.own_nodes
            for holder, module in self._stores(node, function.imports)
        ]
        if not stores:
            return False
        attributes = [key.rpartition(".")[2] for (kind, key), *_ in stores if kind == "attr"]
        if any(map(function.summary.restored_in_project, dict.fromkeys(attributes))):
            return True  # loaded back elsewhere in the file or its importers (read only when needed)
        nodes = function.own_nodes
        calls = [node for node, _ in nodes if isinstance(node, ast.Call)]
        reads = _reads(nodes, function.own_names, calls)
        compared: dict[str, set[str]] = {}  # two snapshots of one module, both read: maybe compared
        for (kind, key), module, *_ in stores:
            if kind == "name" and module is not None and key in reads:
                compared.setdefault(module, set()).add(key)
        if any(len(names) > 1 for names in compared.values()):
            return True
        holders = [(holder, loop, branched, stored) for holder, _, loop, branched, stored in stores]
        loads = [(_loaded(call), _position(call)) for call in calls if _callee(call) == "load_state_dict"]
        trains = any(  # a closure that trains makes its scope train
            isinstance(node, ast.Call) and _method(node) is not None and _callee(node) in TRAINING_METHODS
            for node in ast.walk(function.scope)
        )
        moves: list[tuple[int, int]] | None = None
        for (kind, key), loop, branched, stored in holders:
            loaded = [position for what, position in loads if what in (key, None)]
            if loop is None and not branched:  # taken once: the weights must move, then it is read
                if kind != "name":
                    continue
                if moves is None:
                    moves = [position for node, _ in nodes if (position := self._moves_weights(node, function))]
                moved = [position for position in moves if position >= stored]
                if moved and any(position >= min(moved) for position in [*reads.get(key, ()), *loaded]):
                    return True
            elif kind == "attr":
                if trains or any(position >= stored for position in loaded):
                    return True
            elif _moved_on(reads.get(key, ()), loop, stored) and (trains or _moved_on(loaded, loop, stored)):
                return True
        return False

    @staticmethod
    def _moves_weights(node: ast.AST, function: FunctionFacts) -> tuple[int, int] | None:
        """Where ``node`` may move weights, as the rule sees it: training (``opt.step()``), or
        an in-place write (``+=``, ``add_``) to what may be a tensor; None where it cannot."""
        if isinstance(node, ast.AugAssign):
            written = _container(node.target)
        elif isinstance(node, ast.Call) and (method := _method(node)) is not None:
            if method[1] in TRAINING_METHODS:
                return _position(node)
            if not writes_in_place(method[1]):
                return None
            written = method[0]
        else:
            return None
        if (isinstance(written, ast.Attribute) and written.attr == "data") or function.could_be_tensor(written):
            return _position(node)
        return None

    def _stores(self, node: ast.AST, imports: ImportTable) -> list[tuple[tuple[str, str], str | None]]:
        """((kind, key) of the holder, whose state_dict) for each snapshot ``node`` stores."""
        if isinstance(node, ast.Assign):
            pairs = [pair for target in node.targets for pair in _paired(target, node.value)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = list(_paired(node.target, node.value))
        elif isinstance(node, ast.Call) and (method := _method(node)) is not None:
            pairs = [(method[0], value) for value in _appended(node)]
        else:
            return []
        stores = []
        for target, value in pairs:
            holder = _holder(target)
            if isinstance(value, ast.Dict):  # {"model": model.state_dict()}
                values = value.values
            else:  # (model.state_dict(),)
                values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else []
            if holder:
                stores += [
                    (holder, _module_key(module))
                    for v in [value, *values]
                    if (module := self._snapshot(v, imports)) is not None
                ]
        return stores

    @staticmethod
    def _snapshot(node: ast.expr, imports: ImportTable) -> ast.expr | None:
        """Whose ``state_dict()`` ``node`` may be (``model`` of ``dict(model.state_dict())``),
        when it may evaluate to a dict aliasing live tensors."""
        if isinstance(node, ast.Call):
            qualified = imports.qualify_expression(node.func) or (node.func.id if isinstance(node.func, ast.Name) else None)
            method = _method(node)
            if qualified in DICT_COPIES and _argument_count(node) == 1:
                node = node.keywords[0].value if node.keywords else unstarred(node.args[0])
            elif method is not None and method[1] == "copy" and not _argument_count(node):
                node = method[0]
        elif isinstance(node, ast.DictComp):
            generator = node.generators[0]
            method = _method(generator.iter)
            if len(node.generators) != 1 or method is None or method[1] != "items":
                return None
            node = method[0]
        method = _method(node)
        if method is not None and method[1] == "state_dict" and holds_live_state(_dotted(method[0])):
            return method[0]
        return None


def _module_key(module: ast.expr) -> str | None:
    """``"model"``, ``"self.net"``, ``"model[]"``: what the rule takes for the same module each
    time (its index left out: ``model[1]`` and ``model[0x1]`` are one key here)."""
    if isinstance(module, ast.Subscript) and isinstance(module.slice, ast.Constant) and type(module.slice.value) is int:
        base = _dotted(module.value)
        return f"{base}[]" if base else None
    return _dotted(module) or None


def _moved_on(positions, loop: ast.AST | None, stored: tuple[int, int]) -> bool:
    """Is one of ``positions`` (reads or loads of a snapshot stored at ``stored``) where the
    weights may have moved on: after the loop, or at the top of its next iteration?
    (Outside loops: after the store.)"""
    if loop is None:
        return any(position >= stored for position in positions)
    start, end = _position(loop), _end(loop)
    return any(position >= end or start <= position <= stored for position in positions)


def _loaded(call: ast.Call) -> str | None:
    """What ``m.load_state_dict(sd)`` loads, as the rule keys it: "sd"; None when unknown."""
    positional = [argument for argument in call.args if not isinstance(argument, ast.Starred)]
    keyword = [k.value for k in call.keywords if k.arg == "state_dict"]
    argument = (positional or keyword or [None])[0]
    return (_dotted(argument) or None) if argument is not None else None


def _paired(target: ast.expr, value: ast.expr) -> Iterator[tuple[ast.expr, ast.expr]]:
    """(target, value) pairs of an assignment, ``a, b = x, y`` element by element."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                if not isinstance(t, ast.Starred) and not isinstance(v, ast.Starred):
                    yield from _paired(t, v)
        return
    yield target, value


def _holder(target: ast.expr) -> tuple[str, str] | None:
    """Where a stored value lives on: ("name", "best") or ("attr", "self.best")."""
    target = _container(target)
    if isinstance(target, ast.Name):
        return ("name", target.id)
    dotted = _dotted(target)
    return ("attr", dotted) if dotted else None


def _reads(nodes: list[tuple[ast.AST, tuple]], names: list[tuple[ast.Name, tuple]],
           calls: list[ast.Call]) -> dict[str, list[tuple[int, int]]]:
    """Where the rule may count each name as read: every name in the scope's code but the
    plain targets of assignments and those handed straight to a save or dump (for LibCST,
    loop targets, imports and the like are names read too)."""
    skipped = {
        id(value)
        for call in calls
        if any(word in _callee(call).lower() for word in SAVING)
        for argument in (*call.args, *(keyword.value for keyword in call.keywords))
        for value in (argument.values if isinstance(argument, ast.Dict) else [argument])
    }
    words: list[tuple[str, ast.AST]] = []
    for node, _ in nodes:
        if isinstance(node, ast.Assign):
            pairs = [pair for target in node.targets for pair in _paired(target, node.value)]
            skipped.update(id(target) for target, _ in pairs)
            skipped.update(id(target) for target in node.targets)
        elif isinstance(node, ast.AnnAssign):
            skipped.add(id(node.target))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            words += [(alias.asname or alias.name, node) for alias in node.names]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            words += [(name, node) for name in node.names]
        elif isinstance(node, (ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            words.append((node.name or "", node))
        elif isinstance(node, ast.MatchMapping):
            words.append((node.rest or "", node))
    words += [(node.id, node) for node, _ in names if id(node) not in skipped]
    reads: dict[str, list[tuple[int, int]]] = {}
    for word, node in words:
        reads.setdefault(word, []).append(_position(node))
    return reads


class AccumulationGate(Gate):
    """TCP009: inside a loop, a value that may carry a graph is accumulated (``+=``,
    ``t = t + v``, ``append``/``extend``/``insert``, an item store) outside ``no_grad``, and
    either a ``backward`` in that loop is called on names it may be built from, or it may
    be a loss and the loop runs over data."""

    def admits(self, function: FunctionFacts) -> bool:
        nodes = function.own_nodes
        accumulations = [
            (holder, loops, graph)
            for node, loops in nodes
            if loops and id(node) not in function.without_graph  # the rule's exemption
            for holder, value in _accumulated(node)
            if (graph := self._graph(value, function, 0)) is not None
        ]
        if not accumulations:
            return False
        calls = [(node, loops) for node, loops in nodes if isinstance(node, ast.Call)]
        backward = [(_backpropagated(call), loops) for call, loops in calls if _callee(call) in BACKWARD_CALLEES]
        # The rule's own exemption: a total that feeds a backward is the loss being built
        # (``loss += term`` in a loop, then ``loss.backward()``): the big GAN train steps.
        feeds = _feeds(nodes)
        backpropagated = _fed(set().union(*(keys for keys, _ in backward)), feeds)
        # What each backward reaches through the names assigned into its receiver, as the rule.
        reached = [(_fed(keys, feeds), loops) for keys, loops in backward]
        trains: bool | None = None
        evaluates: bool | None = None
        stepped: set[str] | None = None
        for holder, around, (loss, names) in accumulations:
            loop = around[-1]
            if holder in backpropagated:
                continue
            # The rule's names bound to what the file's function hands back after its backward.
            if names:
                if stepped is None:
                    stepped = _stepped_names(function)
                if names & stepped:
                    return True
            if names and any(loop in loops and keys & names for keys, loops in reached):
                return True
            if loss and isinstance(loop, (ast.For, ast.AsyncFor)) and over_data(_words(loop.iter) | _words(loop.target)):
                if any(_loss_call(call) for call, _ in calls):
                    return True
            # The rule's losses, and outputs of a module this function trains, kept across a
            # loop that runs a backward on every iteration.
            if any(outer in loops for _, loops in backward for outer in around):
                if loss:
                    return True
                if trains is None:
                    trains = any(self._trains(call, function) for call, _ in calls)
                if trains:
                    return True
            # The rule's outputs of a module put in eval mode here, kept across a loop over data.
            if any(isinstance(outer, (ast.For, ast.AsyncFor)) and over_data(_words(outer.iter) | _words(outer.target))
                   for outer in around):
                if evaluates is None:
                    evaluates = any(
                        (method := _method(call)) is not None and method[1] == "eval" and not _argument_count(call)
                        for call, _ in calls
                    )
                if evaluates:
                    return True
        return False

    @staticmethod
    def _trains(call: ast.Call, function: FunctionFacts) -> bool:
        """``model.train()``, or an optimizer's constructor (``torch.optim.SGD(...)``)."""
        method = _method(call)
        if method is not None and method[1] == "train" and not _argument_count(call):
            return True
        return (function.imports.qualify_expression(call.func) or "").startswith("torch.optim.")

    def _graph(self, node: ast.expr, function: FunctionFacts, depth: int) -> tuple[bool, frozenset[str]] | None:
        """What the rule's evidence for ``node`` may be: (maybe a loss, a superset of the
        names it is built from), or None where the rule finds it evidently no graph
        (``.item()``, ``float(x)``, a constant)."""
        if depth > 4:
            return False, frozenset()
        if isinstance(node, ast.Name):
            # The rule follows the binding in force (a plain ``name = value``) below depth 3;
            # any of the scope's plain bindings may be that one, or none is (a parameter).
            if depth >= 3:
                return False, frozenset({node.id})
            values = [*function.plain_bindings.get(node.id, ()), *function.unpacked_bindings.get(node.id, ())]
            graphs = [graph for value in values if (graph := self._graph(value, function, depth + 1)) is not None]
            return any(loss for loss, _ in graphs), frozenset({node.id}).union(*(names for _, names in graphs))
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            return None if node.attr in DETACHING else (False, frozenset({dotted} if dotted else ()))
        if isinstance(node, ast.Call):
            if _loss_call(node):
                return True, frozenset()
            method = _method(node)
            if (
                (method[1] in DETACHING if method else isinstance(node.func, ast.Name) and node.func.id in PLAIN_BUILTINS)
                or (function.imports.qualify_expression(node.func) or "").startswith(PLAIN_MODULES)
            ):
                return None
            if method is not None and method[1] in GRAPH_PRESERVING:
                return self._graph(method[0], function, depth + 1)
            return False, frozenset()  # an opaque call: no evidence either way
        if isinstance(node, ast.Subscript):  # an entry of a loss function's result, as the rule
            graph = self._graph(node.value, function, depth + 1)
            return None if graph is None else (False, graph[1] if graph[0] else frozenset())
        if isinstance(node, ast.BinOp):
            parts = [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            parts = [node.operand]
        elif isinstance(node, (ast.Tuple, ast.List)):
            parts = [unstarred(element) for element in node.elts]
        elif isinstance(node, ast.Dict):
            parts = [value for key, value in zip(node.keys, node.values) if key is not None]
        else:
            return None
        graphs = [graph for part in parts if (graph := self._graph(part, function, depth + 1)) is not None]
        if not graphs:
            return None
        return any(loss for loss, _ in graphs), frozenset().union(*(names for _, names in graphs))


def _accumulated(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """(the holder, dotted or "", a value) for what ``node`` accumulates into something that
    may outlive the iteration."""
    if isinstance(node, ast.AugAssign):
        return [(_dotted(_container(node.target)), node.value)] if isinstance(node.op, (ast.Add, ast.Sub)) else []
    if isinstance(node, ast.Call):
        method = _method(node)
        return [(_dotted(_container(method[0])), value) for value in _appended(node)] if method else []
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Subscript):
            return [(_dotted(_container(target)), value)]
        if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)) and _same(value.left, target):
            return [(_dotted(_container(target)), value.right)]
    return []


def _feeds(nodes: list[tuple[ast.AST, tuple[ast.AST, ...]]]) -> list[tuple[str, set[str]]]:
    """(name, the dotted names its value is built from) for every name assigned (``a = ...``,
    ``a, b = ...``, ``a += ...``) in ``nodes``: the edges :func:`_fed` follows."""
    feeds = [
        (name, node.value)
        for node, _ in nodes
        if isinstance(node, ast.Assign)
        for target in node.targets
        for name, _ in target_paths(target)
    ]
    feeds += [
        (node.target.id, node.value)
        for node, _ in nodes
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
    ]
    names_of = {id(value): _dotted_names(value) for _, value in feeds}  # one walk per value
    return [(name, names_of[id(value)]) for name, value in feeds]


def _fed(sinks: set[str], feeds: list[tuple[str, set[str]]]) -> set[str]:
    """``sinks`` and every name assigned into one of them (see :func:`_feeds`),
    transitively: what the rule follows, so the gate skips nothing it flags."""
    reached, grown = set(sinks), True
    while grown:
        grown = False
        for name, names in feeds:
            if name in reached and not names <= reached:
                reached |= names
                grown = True
    return reached


def _same(load: ast.expr, store: ast.expr) -> bool:
    """``total`` in ``total = total + v``: the same expression, read and written."""
    return ast.unparse(load) == ast.unparse(store)


def _backpropagated(call: ast.Call) -> set[str]:
    """The names a ``backward`` call is made on: ``loss.backward()``, ``accelerator.backward(loss)``."""
    method = _method(call)
    parts = [*call.args, *(keyword.value for keyword in call.keywords)]
    if method is not None and method[1] == "backward":
        parts.append(method[0])
    return {name for part in parts for name in _dotted_names(part)}


def _dotted_names(node: ast.expr) -> set[str]:
    return {dotted for part in ast.walk(node) if (dotted := _dotted(part))}


@functools.lru_cache(maxsize=256)
def _backpropagated_returns(definition: ast.AST) -> frozenset[tuple[int, int] | None]:
    positions: set[tuple[int, int] | None] = set()
    backward: set[str] = set()
    feeds: list[tuple[str, ast.expr]] = []
    detached: set[str] = set()
    returns: list[ast.expr] = []
    pending = list(ast.iter_child_nodes(definition))
    while pending:
        node = pending.pop()
        if isinstance(node, (*FUNCTION_DEFS, ast.ClassDef, ast.Lambda)):
            continue  # their own code
        pending.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Call) and _callee(node) in BACKWARD_CALLEES:
            method = _method(node)
            parts = [*node.args, *(keyword.value for keyword in node.keywords)]
            if method is not None and method[1] == "backward":
                parts.append(method[0])
            backward.update(part.id for part in parts if isinstance(part, ast.Name))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            feeds.append((node.targets[0].id, node.value))
            method = _method(node.value)
            if method is not None and method[1] in DETACHING or isinstance(node.value, ast.Attribute) \
                    and node.value.attr in DETACHING:
                detached.add(node.targets[0].id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            feeds.append((node.target.id, node.value))
        elif isinstance(node, ast.Return) and node.value is not None:
            returns.append(node.value)
    if not backward:
        return frozenset()
    reached = _fed(backward, [(name, _terms(value)) for name, value in feeds]) - detached
    for value in returns:
        if isinstance(value, ast.Name) and value.id in reached:
            positions.add(None)
        elif isinstance(value, ast.Tuple):
            positions.update(
                (position, len(value.elts)) for position, element in enumerate(value.elts)
                if isinstance(element, ast.Name) and element.id in reached
            )
    return frozenset(positions)


def _stepped_names(function: FunctionFacts) -> set[str]:
    """The names the scope binds to a call of a function or method of the file (any of that
    name) that hands back something it backpropagated (see :func:`backpropagated_returns`)."""
    stepping: set[str] | None = None
    names: set[str] = set()
    for node, _ in function.own_nodes:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _callee(node.value)):
            continue
        if stepping is None:
            stepping = {
                qualname.rpartition(".")[2]
                for qualname, definitions in function.summary.definitions.items()
                for definition in definitions
                if isinstance(definition, FUNCTION_DEFS) and backpropagated_returns(definition)
            }
        if _callee(node.value) in stepping:
            names.update(name for target in node.targets for name, _ in target_paths(target))
    return names


def backpropagated_returns(definition: ast.AST) -> frozenset[tuple[int, int] | None]:
    """What a function hands back that it ran a ``backward`` through: None for a returned
    name, (position, width) for a name in a returned tuple; the name is the receiver (or
    argument) of a ``backward`` in it, or a term assigned into one (``loss += reg``), never
    detached in it (``loss = loss.detach()``)."""
    return _backpropagated_returns(definition)


def _terms(node: ast.expr) -> set[str]:
    """The names a value is computed from by arithmetic (``a + w * b``, ``a.mean()``): not
    a call's arguments."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.BinOp):
        return _terms(node.left) | _terms(node.right)
    if isinstance(node, ast.UnaryOp):
        return _terms(node.operand)
    method = _method(node)
    if method is not None and method[1] in GRAPH_PRESERVING:
        return _terms(method[0])
    return set()


def _loss_call(call: ast.Call) -> bool:
    """A loss function's call (see ``is_loss_call``); a private name counts as its public
    one (``self.__loss_function(out, y)``, ``self._criterion(out, y)``)."""
    constructor = _callee(call.func) if isinstance(call.func, ast.Call) else ""
    return is_loss_call(_callee(call).lstrip("_"), _argument_count(call), constructor)


def _words(node: ast.expr) -> set[str]:
    """Every name and attribute name in ``node`` (a superset of its dotted names' parts)."""
    return {
        part.id if isinstance(part, ast.Name) else part.attr
        for part in ast.walk(node)
        if isinstance(part, (ast.Name, ast.Attribute))
    }
