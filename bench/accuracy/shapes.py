"""Every occurrence of each rule's syntactic shape, found with the stdlib `ast` alone.

A shape is what a rule's hazard looks like before any judgement: every `copy.deepcopy(...)`
for TCP003, every `torch.tensor(X)` for TCP005, and so on. Labelling every occurrence
(hazard or look-alike) is what makes recall measurable. Nothing here infers types or
imports the plugin: the shapes must not inherit the plugin's blind spots.

    python3 bench/accuracy/shapes.py candidates     # writes candidates.csv, refreshes labels.csv's auto rows
    python3 bench/accuracy/shapes.py --blind candidates --no-plugin   # the blind set's, before any plugin run
    python3 bench/accuracy/shapes.py --blind candidates --no-plugin --repos NEW.txt --rules TCP003,TCP005
                                      # only the repositories in NEW.txt, only those shapes; other rows kept

`candidates` also runs the plugin on every file and adds a `finding-only` row for each
finding that no shape row of its code covers (those are shapes this module missed).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from multiprocessing import Pool
from pathlib import Path

import corpus
import findings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import corpus_files  # noqa: E402 (bench/'s: the export of the corpus, shared with run.py)
import labels
from statements import statement_line, statement_starts

# Tensor methods (and attributes) whose result shares memory with the receiver.
VIEW_METHODS = frozenset(
    """
    view view_as expand expand_as t transpose permute squeeze unsqueeze narrow select unfold
    diagonal as_strided unflatten movedim moveaxis swapaxes swapdims
    """.split()
)
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})
# Conversions that return the receiver itself when nothing needs converting.
CONVERSION_METHODS = frozenset(
    """
    to cpu cuda float double half bfloat16 int long short bool byte char type contiguous
    reshape reshape_as flatten
    """.split()
)
# TCP010: array methods that give a view of a numpy array (when they can), methods and
# functions that write into an array.
ARRAY_VIEW_METHODS = frozenset({"reshape", "transpose", "squeeze", "swapaxes", "view", "ravel"})
ARRAY_VIEW_ATTRIBUTES = frozenset({"T", "real", "imag"})
ARRAY_VIEW_FUNCTIONS = frozenset(
    {"transpose", "squeeze", "reshape", "swapaxes", "moveaxis", "ravel", "expand_dims", "asarray"}
)
ARRAY_WRITING_METHODS = frozenset({"fill", "sort", "put", "partition", "itemset"})
ARRAY_WRITING_FUNCTIONS = frozenset({"shuffle", "copyto", "putmask", "place", "fill_diagonal"})
# The forms of a write through a name that TCP004 and TCP006 judge (TCP010 judges every form
# but "method": an array's writes are `out=a`, `a.fill(0)`, `np.random.shuffle(a)` too).
TENSOR_WRITES = frozenset({"augmented", "item", "method"})
# Trailing-underscore methods that change flags, not tensor values (`rename_`: older torch only).
NON_WRITING_INPLACE = frozenset({"requires_grad_", "share_memory_", "detach_", "rename_"})
TENSOR_CONSTRUCTOR = re.compile(r"torch\.(?:tensor|Tensor|(?:cuda\.)?[A-Z][A-Za-z0-9]*Tensor)")
# Calls whose result still aliases a state_dict's tensors.
ALIASING_WRAPPERS = frozenset({"dict", "OrderedDict", "collections.OrderedDict", "copy.copy"})
ALIASING_METHODS = frozenset({"copy", "items", "values"})
# Expressions that hold a state_dict without copying it.
CONTAINERS = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Starred, ast.IfExp, ast.ListComp, ast.DictComp)
ACCUMULATING_METHODS = frozenset({"append", "extend", "insert"})
# An accumulated value ending in one of these is a plain number or array, never a graph.
PLAIN_METHODS = frozenset({"item", "tolist", "numpy", "size", "numel", "dim"})
PLAIN_FUNCTIONS = frozenset({"float", "int", "bool", "len", "round", "str"})
PLAIN_ATTRIBUTES = frozenset({"shape", "ndim"})
# Rows that need no judgement, and why: their label is `none` by construction.
AUTO_REASONS = {
    "literal": "TCP005 data that is a literal (numbers, strings, containers of them, range) or a size",
    "not-tensor": "TCP005 data that is a number, a size or a numpy array (.item(), .numpy(), len(), np.*(...)); "
    "TCP001 `E.data = v` with v a constant or a list/tuple/set/dict display (a tensor's .data would raise), "
    "and `E.data[\"key\"] = v` (a string indexes a mapping, never a tensor)",
    "basic-index": "TCP007 on an index of integers, slices, ... and None only (directly or through a name "
    "bound to it): a view, never a copy",
    "state-dict": "TCP003 of a state_dict() call: a dict, the copy TCP008 recommends",
}


@dataclass(frozen=True, order=True)
class Occurrence:
    line: int  # first line of the innermost statement holding it
    shape: str  # TCP001 ... TCP012
    auto: str = ""  # why it needs no judgement (see AUTO_REASONS); empty when it must be labelled


# torch.nn.init's old names (``normal = _make_deprecate(normal_)``), which write in place too.
_DEPRECATED_INITS = frozenset({
    "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
    "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse",
})
# torch.distributed's collectives that write into the tensor they are given.
_IN_PLACE_COLLECTIVES = frozenset({"all_reduce", "broadcast", "reduce", "recv", "irecv"})


def occurrences(source: str) -> list[Occurrence]:
    """Every shape occurrence in ``source``, one per (statement, shape); raises SyntaxError."""
    tree = ast.parse(source)
    finder = ShapeFinder(tree)
    finder.visit(tree)
    finder.close_scope()
    starts = statement_starts(tree)
    merged: dict[tuple[int, str], list[str]] = {}
    for node, shape, auto in finder.found:
        merged.setdefault((statement_line(starts, node.lineno), shape), []).append(auto)
    # Auto only when every occurrence merged into the row is.
    return sorted(
        Occurrence(line, shape, autos[0] if all(autos) else "") for (line, shape), autos in merged.items()
    )


# --- expressions --------------------------------------------------------------------------


def import_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> what it imports, from every import in the file (flow-insensitive)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.partition(".")[0]
                aliases[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def dotted_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := dotted_name(node.value)):
        return f"{base}.{node.attr}"
    return None


def method_name(node: ast.AST) -> str | None:
    """``m`` for a call ``E.m(...)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def writes_in_place(method: str | None) -> bool:
    return (
        method is not None and method.endswith("_") and not method.endswith("__")
        and not method.startswith("_") and method not in NON_WRITING_INPLACE
    )


def peel_views(node: ast.expr) -> ast.expr:
    """What a chain of indexing and view methods starts from: ``x.detach()`` in ``x.detach()[0].view(-1)``.

    A string key stops the chain: ``out["hm"]`` is an item of a dict, not a view of ``out``.
    """
    while True:
        if isinstance(node, ast.Subscript) and not is_key_lookup(node):
            node = node.value
        elif isinstance(node, ast.Attribute) and node.attr in VIEW_ATTRIBUTES:
            node = node.value
        elif method_name(node) in VIEW_METHODS:
            node = node.func.value
        else:
            return node


def source_kind(node: ast.expr) -> str | None:
    """The shape a write into ``node`` (or into a name bound to it) has, by where it comes from."""
    origin = peel_views(node)
    if isinstance(origin, ast.Attribute) and origin.attr == "data":
        return "TCP001"
    method = method_name(origin)
    if method == "detach":
        return "TCP004"
    if method in CONVERSION_METHODS:
        return "TCP006"
    return None


def array_origin(node: ast.expr) -> ast.expr:
    """What a chain of array views starts from: ``x.numpy()`` in ``x.numpy()[0].transpose(1, 2, 0)``
    or in ``np.transpose(x.numpy(), ...)`` (numpy spelled ``np`` or ``numpy``)."""
    while True:
        if isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute) and node.attr in ARRAY_VIEW_ATTRIBUTES):
            node = node.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
              and node.func.value.id in ("np", "numpy") and node.func.attr in ARRAY_VIEW_FUNCTIONS
              and node.args and not isinstance(node.args[0], ast.Starred)):
            node = node.args[0]
        elif method_name(node) in ARRAY_VIEW_METHODS:
            node = node.func.value
        else:
            return node


def binding_shape(value: ast.expr | None) -> tuple[str | None, str]:
    """The shape (and auto reason) a later in-place write through a name bound to ``value`` would have."""
    if value is None:
        return None, ""
    kind = source_kind(value)
    if kind in ("TCP001", "TCP004", "TCP006"):  # w = m.weight.data; w.mul_(s)
        return kind, ""
    if isinstance(value, ast.Subscript) and not is_key_lookup(value):
        return "TCP007", "basic-index" if is_basic_index(value.slice) else ""
    return None, ""


def is_key_lookup(node: ast.Subscript) -> bool:
    """``state["exp_avg"]``: a string indexes a dict, never a tensor."""
    return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)


def is_basic_index(index: ast.expr) -> bool:
    """Integers, slices, ``...`` and ``None`` only: a view of a tensor (or an item of a list), never a copy."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return all(isinstance(part, ast.Slice) or _is_basic_constant(part) for part in parts)


def _is_basic_constant(node: ast.expr) -> bool:
    """``3``, ``-1``, ``None``, ``...`` (``True`` is a bool index: advanced)."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis or type(node.value) is int)


def mentions_loss(node: ast.AST) -> bool:
    """A name or attribute with "loss" or "criterion" in it (``criterion(out, y)`` is a loss)."""
    return any(
        (isinstance(part, ast.Name) and _LOSSY.search(part.id))
        or (isinstance(part, ast.Attribute) and _LOSSY.search(part.attr))
        for part in ast.walk(node)
    )


_LOSSY = re.compile("loss|criterion", re.IGNORECASE)


def is_literal(node: ast.AST) -> bool:
    """Numbers, strings, containers and comprehensions of them, ``range(...)``, ``[0] * n``."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return is_literal(node.operand)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(is_literal(element) for element in node.elts)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Mult) and isinstance(node.left, (ast.List, ast.Tuple)):
            return is_literal(node.left)  # a literal list repeated stays a list of literals
        return is_literal(node.left) and is_literal(node.right)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        return _literal_comprehension(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id == "range":
            return True
        return node.func.id in ("list", "tuple") and len(node.args) == 1 and is_literal(node.args[0])
    return False


def _literal_comprehension(node: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> bool:
    targets = {name.id for generator in node.generators for name in ast.walk(generator.target)
               if isinstance(name, ast.Name)}
    element_is_plain = is_literal(node.elt) or all(
        isinstance(part, ast.Name) and part.id in targets
        for part in ast.walk(node.elt) if isinstance(part, (ast.Name, ast.Call, ast.Attribute, ast.Subscript))
    )
    return element_is_plain and all(is_literal(generator.iter) for generator in node.generators)


def is_display(node: ast.expr | None) -> bool:
    """A constant, or a list, tuple, set or dict built in place (or by a comprehension): never a tensor."""
    displays = (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)
    return isinstance(node, displays)


def is_size_arguments(call: ast.Call) -> bool:
    """``torch.Tensor(3, 4)``, ``torch.FloatTensor(n, d)``, ``torch.Tensor(*shape)``: a size, not data."""
    return len(call.args) >= 2 or any(isinstance(argument, ast.Starred) for argument in call.args)


def is_plain_value(node: ast.expr) -> bool:
    """A value that cannot hold an autograd graph: a literal, ``x.item()``, ``float(x)``, ``len(x)``..."""
    if is_literal(node):
        return True
    if isinstance(node, ast.Attribute) and node.attr in PLAIN_ATTRIBUTES:
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        return node.value.attr in PLAIN_ATTRIBUTES
    if method_name(node) in PLAIN_METHODS:
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PLAIN_FUNCTIONS


def added_terms(node: ast.expr) -> list[ast.expr]:
    """The terms of ``a + b + c``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return added_terms(node.left) + added_terms(node.right)
    return [node]


# --- the walk ---------------------------------------------------------------------------


@dataclass
class Scope:
    """One function (or the module): name bindings and writes are matched within it."""

    loops: int = 0
    backward: bool = False
    # name -> [(where the binding takes effect, (shape, auto reason) of writes through it)]
    bindings: dict[str, list[tuple[tuple[int, int], tuple[str | None, str]]]] = field(default_factory=dict)
    # name -> [(where the binding takes effect, whether it holds a .numpy() array)]: TCP010's,
    # kept apart so that a binding can be both (``d = x.cpu().numpy().reshape(...)`` is TCP006's too)
    arrays: dict[str, list[tuple[tuple[int, int], bool]]] = field(default_factory=dict)
    name_writes: list[tuple[str, ast.AST, str]] = field(default_factory=list)  # (name, node, form)
    accumulations: list[tuple[ast.AST, ast.expr]] = field(default_factory=list)  # (node, value)
    # name -> the repeated list it was last bound to (TCP012: ``blocks = [Block()] * n``)
    repeated: dict[str, ast.expr] = field(default_factory=dict)


# TCP012: the containers that register the modules of the list they get.
MODULE_CONTAINERS = frozenset({"ModuleList", "Sequential", "ModuleDict"})


def is_repeated(value: ast.expr | None) -> bool:
    """TCP012's shape: ``[X] * n``, ``n * [X, Y]``, or a comprehension whose element is a name
    or an attribute that does not depend on the loop (``[layer for _ in range(n)]``)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return any(isinstance(side, (ast.List, ast.Tuple)) and side.elts for side in (value.left, value.right))
    if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.DictComp)):
        element = value.value if isinstance(value, ast.DictComp) else value.elt
        variables = {n.id for clause in value.generators for n in ast.walk(clause.target) if isinstance(n, ast.Name)}
        return isinstance(element, (ast.Name, ast.Attribute)) and not any(
            isinstance(n, ast.Name) and n.id in variables for n in ast.walk(element)
        )
    return False


def position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def end_position(node: ast.AST) -> tuple[int, int]:
    """Where a binding takes effect: after everything it evaluates (``y = y.add_(1)`` writes the old y)."""
    return node.end_lineno, node.end_col_offset


class ShapeFinder(ast.NodeVisitor):
    def __init__(self, tree: ast.Module) -> None:
        self.aliases = import_aliases(tree)
        self.parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        self.scopes = [Scope()]
        self.found: list[tuple[ast.AST, str, str]] = []  # (node, shape, auto)
        self.writers = self.parameter_writers(tree)

    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    def add(self, node: ast.AST, shape: str, auto: str = "") -> None:
        self.found.append((node, shape, auto))

    def parameter_writers(self, tree: ast.Module) -> dict[str, set[int]]:
        """Module-level functions -> the positions of the parameters they write in place (an
        in-place method, an init function, an item or augmented assignment on the name)."""
        writers = {}
        for function in tree.body:
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
            written = set()
            for node in ast.walk(function):
                target = None
                if isinstance(node, ast.Call) and node.args and self.is_init(self.qualified(node.func) or ""):
                    target = node.args[0]
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and writes_in_place(node.func.attr):
                    target = node.func.value
                elif isinstance(node, ast.Assign):
                    target = next((t.value for t in node.targets if isinstance(t, ast.Subscript)), None)
                elif isinstance(node, ast.AugAssign):
                    target = node.target
                while isinstance(target, ast.Subscript):
                    target = target.value
                if isinstance(target, ast.Name):
                    written.add(target.id)
            positions = {i for i, name in enumerate(names) if name in written}
            if positions:
                writers[function.name] = positions
        return writers

    def qualified(self, node: ast.AST) -> str | None:
        name = dotted_name(node)
        if name is None:
            return None
        head, dot, rest = name.partition(".")
        return self.aliases.get(head, head) + dot + rest

    # Scopes and loops.

    def visit_scope(self, node: ast.AST) -> None:
        self.scopes.append(Scope())
        self.generic_visit(node)
        self.close_scope()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_scope

    def close_scope(self) -> None:
        """Match the scope's name writes to the bindings before them, and keep the accumulations
        of a scope that trains (calls .backward) or that accumulate something named like a loss."""
        scope = self.scopes.pop()
        for name, node, form in scope.name_writes:
            earlier = [shape for at, shape in scope.bindings.get(name, ()) if at < position(node)]
            kind, auto = earlier[-1] if earlier else (None, "")
            if (kind in ("TCP001", "TCP004", "TCP006") and form in TENSOR_WRITES) or (kind == "TCP007" and form == "method") \
                    or (kind == "TCP001" and form == "init"):
                self.add(node, kind, auto)
            arrays = [held for at, held in scope.arrays.get(name, ()) if at < position(node)]
            if arrays and arrays[-1] and form != "method":  # an array has no x_() methods
                self.add(node, "TCP010")
        for node, value in scope.accumulations:
            if scope.backward or mentions_loss(value):
                self.add(node, "TCP009")

    def visit_loop(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        for header in ("target", "iter", "test"):
            if (part := getattr(node, header, None)) is not None:
                self.visit(part)
        self.scope.loops += 1
        for statement in node.body:
            self.visit(statement)
        self.scope.loops -= 1
        for statement in node.orelse:
            self.visit(statement)

    visit_While = visit_loop

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.rebind_targets(node.target)  # a loop variable shadows what the name held
        self.visit_loop(node)

    visit_AsyncFor = visit_For

    # Statements that write or bind.

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(target, ast.Attribute) for target in node.targets) and self.rewraps(node.value):
            self.add(node, "TCP011")
        for target in node.targets:
            self.assigned(target, node.value, node)
        self.accumulated_by_rebinding(node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assigned(node.target, node.value, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        if isinstance(target, ast.Attribute) and target.attr == "data":
            self.add(node, "TCP001")
        elif isinstance(target, ast.Subscript):
            self.item_written(target, node)
        elif isinstance(target, ast.Name):
            self.scope.name_writes.append((target.id, node, "augmented"))
        if isinstance(node.op, ast.Add) and self.scope.loops and not is_plain_value(node.value):
            self.scope.accumulations.append((node, node.value))
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.bind(node.target.id, node.value, end_position(node))
        self.generic_visit(node)

    def assigned(self, target: ast.expr, value: ast.expr | None, statement: ast.stmt) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            if values is not None and len(values) != len(target.elts):
                values = None
            for index, element in enumerate(target.elts):
                self.assigned(element, values[index] if values else None, statement)
        elif isinstance(target, ast.Starred):
            self.assigned(target.value, None, statement)
        elif isinstance(target, ast.Name):
            self.bind(target.id, value, end_position(statement))
            if is_repeated(value):
                self.scope.repeated[target.id] = value
            else:
                self.scope.repeated.pop(target.id, None)
        elif isinstance(target, ast.Attribute) and target.attr == "data":
            self.add(statement, "TCP001", "not-tensor" if is_display(value) else "")
        elif isinstance(target, ast.Subscript):
            self.item_written(target, statement)
            if self.scope.loops and value is not None and mentions_loss(value) and not is_plain_value(value):
                self.scope.accumulations.append((statement, value))

    def bind(self, name: str, value: ast.expr | None, at: tuple[int, int]) -> None:
        self.scope.bindings.setdefault(name, []).append((at, binding_shape(value)))
        self.scope.arrays.setdefault(name, []).append((at, self.holds_array(value, at)))

    def holds_array(self, value: ast.expr | None, at: tuple[int, int]) -> bool:
        """``value`` is a ``.numpy()`` array, a view of one, or a view of a name holding one
        (``b = a.T`` after ``a = t.numpy()``)."""
        if value is None:
            return False
        origin = array_origin(value)
        if method_name(origin) == "numpy":
            return True
        if isinstance(origin, ast.Name) and origin is not value or isinstance(value, ast.Name):
            earlier = [held for when, held in self.scope.arrays.get(origin.id, ()) if when < at]
            return bool(earlier) and earlier[-1]
        return False

    def item_written(self, target: ast.Subscript, statement: ast.AST) -> None:
        """``E[...] = v`` / ``E[...] op= v`` writes into E: its shape depends on where E comes from."""
        kind = source_kind(target.value)
        if is_key_lookup(target):
            # ``batch["labels"] = y`` writes a mapping, not a tensor; for ``g.data["feat"] = v``
            # the TCP001 shape still holds, with its answer known.
            if kind == "TCP001":
                self.add(statement, kind, "not-tensor")
        elif kind is not None:
            self.add(statement, kind)
        elif isinstance(origin := peel_views(target.value), ast.Name):
            self.scope.name_writes.append((origin.id, statement, "item"))

    def accumulated_by_rebinding(self, node: ast.Assign) -> None:
        """``total = total + v`` in a loop."""
        if not self.scope.loops or len(node.targets) != 1:
            return
        holder = ast.unparse(node.targets[0])  # unparse, not dump: the target's ctx is Store
        terms = added_terms(node.value)
        rest = [term for term in terms if ast.unparse(term) != holder]
        if len(terms) > 1 and len(rest) < len(terms) and not all(is_plain_value(term) for term in rest):
            self.scope.accumulations.append((node, node.value))

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self.rebind_targets(node.optional_vars)
        self.generic_visit(node)

    def rebind_targets(self, target: ast.expr) -> None:
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                self.bind(name.id, None, end_position(target))

    # Calls.

    def visit_Call(self, node: ast.Call) -> None:
        method = method_name(node)
        if method == "backward":
            self.scope.backward = True
        if writes_in_place(method):
            self.method_writes(node)
        if method == "detach" and self.is_clone(node.func.value):
            self.add(node, "TCP002")
        if method == "state_dict" and self.is_stored(node):
            self.add(self.statement_of(node), "TCP008")
        self.array_writes(node, method)
        if method == "register_parameter" and len(node.args) == 2 and self.rewraps(node.args[1]):
            self.add(node, "TCP011")
        if method in ACCUMULATING_METHODS and self.scope.loops and node.args:
            value = node.args[-1]
            if not is_plain_value(value):
                self.scope.accumulations.append((node, value))
        self.function_call(node)
        self.repeated_modules(node)
        self.generic_visit(node)

    def repeated_modules(self, node: ast.Call) -> None:
        """TCP012: a container of modules handed a repeated list, directly or through a name."""
        called = dotted_name(node.func)
        if called is None or called.rpartition(".")[2] not in MODULE_CONTAINERS:
            return
        for argument in (*node.args, *(keyword.value for keyword in node.keywords)):
            value = argument.value if isinstance(argument, ast.Starred) else argument
            if isinstance(value, ast.Name):
                value = self.scope.repeated.get(value.id)
            if value is not None and is_repeated(value):
                self.add(value, "TCP012")

    def method_writes(self, node: ast.Call) -> None:
        receiver = node.func.value
        kind = source_kind(receiver)
        if kind is not None:
            self.add(node, kind)
        if isinstance(receiver, ast.Subscript) and not is_key_lookup(receiver):
            self.add(node, "TCP007", "basic-index" if is_basic_index(receiver.slice) else "")
        if isinstance(origin := peel_views(receiver), ast.Name):  # y[0].zero_() writes y too
            self.scope.name_writes.append((origin.id, node, "method"))

    def array_writes(self, node: ast.Call, method: str | None) -> None:
        """Writes into an array that TCP010 may see: ``out=a``, ``a.fill(0)``, ``np.random.shuffle(a)``."""
        written = [(keyword.value, "out") for keyword in node.keywords if keyword.arg == "out"]
        written = [(element, form) for value, form in written
                   for element in (value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value])]
        if method in ARRAY_WRITING_METHODS:
            written.append((node.func.value, "array-method"))
        function = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if function in ARRAY_WRITING_FUNCTIONS and node.args and not isinstance(node.args[0], ast.Starred):
            written.append((node.args[0], "array-function"))
        for value, form in written:
            origin = value
            while isinstance(origin, ast.Subscript):
                origin = origin.value
            if isinstance(origin, ast.Name):
                self.scope.name_writes.append((origin.id, node, form))

    def rewraps(self, value: ast.expr) -> bool:
        """TCP011's shape: ``Parameter(<expr>.weight)``, ``.bias`` or any ``*weight``/``*bias``
        attribute, also through ``.data``, ``.detach()``, ``.clone()`` and views."""
        if not isinstance(value, ast.Call) or not (self.qualified(value.func) or "").endswith("Parameter"):
            return False
        arguments = [*value.args[:1], *(keyword.value for keyword in value.keywords if keyword.arg == "data")]
        for argument in arguments:
            while True:
                if isinstance(argument, ast.Attribute) and argument.attr == "data":
                    argument = argument.value
                elif method_name(argument) in {"detach", "clone"} | VIEW_METHODS:
                    argument = argument.func.value
                elif isinstance(argument, ast.Subscript):
                    argument = argument.value
                else:
                    break
            if isinstance(argument, ast.Attribute) and argument.attr.endswith(("weight", "bias")):
                return True
        return False

    def is_clone(self, node: ast.expr) -> bool:
        return method_name(node) == "clone" or (
            isinstance(node, ast.Call) and self.qualified(node.func) == "torch.clone"
        )

    def function_call(self, node: ast.Call) -> None:
        name = self.qualified(node.func)
        if name in ("copy.deepcopy", "deepcopy"):
            # The recommended copy of a state_dict (TCP008's fix): a dict, never a tensor.
            copies_state = bool(node.args) and method_name(node.args[0]) == "state_dict"
            self.add(node, "TCP003", "state-dict" if copies_state else "")
        data = self.tensor_data(node, name)
        if data is not None:
            self.add(node, "TCP005", self.data_kind(node, name, data))
        if name is not None and self.is_init(name):
            if any(self.through_data(argument) for argument in [*node.args, *(k.value for k in node.keywords)]):
                self.add(node, "TCP001")
            elif node.args and isinstance(node.args[0], ast.Name):  # w = m.weight.data; init.normal_(w)
                self.scope.name_writes.append((node.args[0].id, node, "init"))
        if any(keyword.arg == "out" and self.through_data(keyword.value) for keyword in node.keywords):
            self.add(node, "TCP001")
        if isinstance(node.func, ast.Name) and any(  # weight_init(m.weight.data), a helper that writes it
            i < len(node.args) and self.through_data(node.args[i]) for i in self.writers.get(node.func.id, ())
        ):
            self.add(node, "TCP001")

    @staticmethod
    def tensor_data(node: ast.Call, name: str | None) -> ast.expr | None:
        """The data argument of ``torch.tensor(X)``, ``torch.FloatTensor(X)``, ``E.new_tensor(X)``."""
        is_constructor = name is not None and TENSOR_CONSTRUCTOR.fullmatch(name)
        if not (is_constructor or method_name(node) == "new_tensor"):
            return None
        if node.args:
            return node.args[0]
        return next((keyword.value for keyword in node.keywords if keyword.arg == "data"), None)

    def data_kind(self, call: ast.Call, name: str | None, data: ast.expr) -> str:
        """Why a constructor's data needs no judgement: "literal" (or a size), "not-tensor"; else ""."""
        if is_literal(data) or (name != "torch.tensor" and is_size_arguments(call)):
            return "literal"
        numpy_call = isinstance(data, ast.Call) and (self.qualified(data.func) or "").startswith("numpy.")
        if numpy_call or method_name(data) == "astype" or is_plain_value(data):
            return "not-tensor"
        return ""

    @staticmethod
    def is_init(name: str) -> bool:
        """``nn.init.normal_``, ``torch.nn.init.xavier_uniform_``, ``init.zeros_`` (any import
        spelling), nn.init's deprecated names (``init.normal``), and the collectives that write
        their tensor (``dist.all_reduce``)."""
        parts = name.split(".")
        if len(parts) >= 2 and parts[-2] == "init":
            return writes_in_place(parts[-1]) or parts[-1] in _DEPRECATED_INITS
        return len(parts) >= 2 and parts[-2] in ("dist", "distributed") and parts[-1] in _IN_PLACE_COLLECTIVES

    @staticmethod
    def through_data(node: ast.expr) -> bool:
        origin = peel_views(node)
        return isinstance(origin, ast.Attribute) and origin.attr == "data"

    def is_stored(self, call: ast.Call) -> bool:
        """Is the state_dict kept: assigned, returned, yielded or appended, not handed to a call?"""
        node = call
        while True:
            parent = self.parents[node]
            if isinstance(parent, ast.Attribute) and parent.attr in ALIASING_METHODS:
                node = self.parents[parent]  # sd.copy(), sd.items() (the comprehension's iter)
            elif isinstance(parent, ast.Call) and node in parent.args and self.is_aliasing_wrapper(parent):
                node = parent
            elif isinstance(parent, ast.comprehension) and node is parent.iter:
                node = self.parents[parent]
            elif isinstance(parent, CONTAINERS):
                node = parent
            elif isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                return node is parent.value
            elif isinstance(parent, (ast.Return, ast.Yield, ast.YieldFrom)):
                return True
            else:
                return method_name(parent) in ACCUMULATING_METHODS and node in parent.args

    def is_aliasing_wrapper(self, call: ast.Call) -> bool:
        return self.qualified(call.func) in ALIASING_WRAPPERS

    def statement_of(self, node: ast.AST) -> ast.AST:
        while not isinstance(node, ast.stmt):
            node = self.parents[node]
        return node


# --- the corpus scan --------------------------------------------------------------------


def file_rows(job: tuple[str, str, str, bytes, str], plugin: bool = True) -> tuple[list[labels.Candidate], str]:
    """Candidate rows of one file (shapes, then findings no shape row covers); or why it was skipped.
    Without ``plugin`` the plugin is not run: the shapes alone, no verdict in the rows."""
    repo, commit, path, data, on_disk = job
    source = corpus.decode_source(data)
    try:
        found = occurrences(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return [], f"{repo} {path}: not valid Python 3 ({type(error).__name__})"
    reported = set(findings.plugin_findings(source, f"{repo} {path}", on_disk)) if plugin else set()
    rows = [
        labels.Candidate(repo, commit, path, occurrence.line, occurrence.shape,
                         "found" if (occurrence.line, occurrence.shape) in reported else "",
                         occurrence.auto)
        for occurrence in found
    ]
    shaped = {(occurrence.line, occurrence.shape) for occurrence in found}
    rows += [
        labels.Candidate(repo, commit, path, line, code, "finding-only", "")
        for line, code in sorted(reported - shaped)
    ]
    return rows, ""


def corpus_jobs(mirrors: list[corpus.Mirror], exported: Path) -> Iterator[tuple[str, str, str, bytes, str]]:
    """Each file of the corpus, with where it lies in the export (the plugin reads the
    modules it imports from there, as it would in a checkout)."""
    for mirror in mirrors:
        for file, data in mirror.read_all(mirror.python_files()):
            yield mirror.repo.name, mirror.repo.commit, file.path, data, str(exported / mirror.repo.slug / file.path)


def _candidates(args: argparse.Namespace) -> int:
    root = corpus.mirrors_root(args.mirrors)
    mirrors, missing = corpus.open_corpus(corpus.load_repos(), root)
    if missing:
        print(corpus.missing_message(missing, root), file=sys.stderr)
        return 1
    started = time.perf_counter()
    if args.plugin:
        corpus_files.project_cache_outside(corpus_files.BENCH_CACHE)
    exported = corpus_files.app_corpus_dir(corpus_files.BENCH_CACHE, corpus.REPOS_CSV)
    rows: list[labels.Candidate] = []
    if args.repos:  # rescan only these; the other repositories' rows stay as they are
        names = read_names(args.repos)
        mirrors = [mirror for mirror in mirrors if mirror.repo.name in names]
        rows = [row for row in labels.read_candidates() if row.repo not in names]
    skipped = []
    with Pool(args.jobs) as pool:
        rows_of = partial(file_rows, plugin=args.plugin)
        for file_candidates, reason in pool.imap(rows_of, corpus_jobs(mirrors, exported), chunksize=8):
            rows += [row for row in file_candidates if not args.rules or row.shape in args.rules]
            if reason:
                skipped.append(reason)
    labels.write_candidates(rows)
    added = labels.refresh_auto_labels(rows)
    elapsed = time.perf_counter() - started
    _summarise(rows, skipped, added, elapsed)
    return 0


def read_names(path: str) -> set[str]:
    """owner/name lines of a file (blank lines and # comments skipped)."""
    lines = Path(path).read_text().splitlines()
    return {line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()}


def rule_list(value: str) -> set[str]:
    codes = {code.strip() for code in value.split(",") if code.strip()}
    unknown = codes - set(labels.CODES)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown rule codes: {', '.join(sorted(unknown))}")
    return codes


def _summarise(rows: list[labels.Candidate], skipped: list[str], added: int, elapsed: float) -> None:
    by_shape = Counter(row.shape for row in rows)
    auto = Counter(row.shape for row in rows if row.auto)
    found = Counter(row.shape for row in rows if row.plugin)
    only = Counter(row.shape for row in rows if row.plugin == "finding-only")
    print(f"{'shape':8} {'rows':>6} {'auto':>6} {'plugin':>7} {'finding-only':>13}")
    for shape in sorted(by_shape):
        print(f"{shape:8} {by_shape[shape]:6} {auto[shape]:6} {found[shape]:7} {only[shape]:13}")
    print(f"{'total':8} {len(rows):6} {sum(auto.values()):6} {sum(found.values()):7} {sum(only.values()):13}")
    for reason in skipped:
        print(f"skipped {reason}")
    print(f"wrote {labels.CANDIDATES_CSV.name} ({len(rows)} rows) and {added} auto labels in "
          f"{labels.LABELS_CSV.name}; {elapsed:.1f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", help="mirrors root (default $TENSORCOPY_MIRRORS or /work/.mirror)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--blind", action="store_true",
                        help="scan the blind set: repos-blind.csv into candidates-blind.csv and labels-blind.csv")
    commands = parser.add_subparsers(dest="command", required=True)
    scan = commands.add_parser("candidates", help="scan the corpus, write candidates.csv")
    scan.add_argument("--no-plugin", dest="plugin", action="store_false",
                      help="do not run the plugin: no verdict and no finding-only rows, for labelling blind")
    scan.add_argument("--repos", metavar="FILE",
                      help="rescan only the repositories listed in FILE (owner/name lines); keep the others' rows")
    scan.add_argument("--rules", type=rule_list, metavar="CODES",
                      help="with --repos: keep only these shapes' rows (TCP003,TCP005) for the rescanned repositories")
    scan.set_defaults(run=_candidates)
    args = parser.parse_args(argv)
    if getattr(args, "rules", None) and not args.repos:
        parser.error("--rules needs --repos: the other repositories' rows would lose those shapes")
    if args.blind:
        labels.use_blind_set()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
