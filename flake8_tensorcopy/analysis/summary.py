"""The module summary: what a file's own code says about its values, read from the
``ast`` tree flake8 already has (no parse of our own, no LibCST).

Inference used to stop at the function boundary; the evidence that a value is a tensor
often lies elsewhere in the same file: a function of the file that returns
``torch.stack(...)``, ``self.W = torch.randn(...)`` in ``__init__``, a list filled by
``append`` in a loop, ``for x, y in loader`` over a ``DataLoader``, a parameter whose
``.detach()`` the function calls. The summary answers, for any expression of any scope,
what it holds whenever it runs (:meth:`ScopeFacts.value`).

It is a must-analysis, flow-insensitive and per file: a name holds a tensor only when
every binding of it in its scope does (so it holds one wherever it is bound), a
function returns one only when every ``return`` does, an attribute only when every
assignment to it in its class does (``None`` aside). Unknown stays unknown.

Everything is computed on demand and memoised: a file whose triggers pick nothing costs
nothing, and only the functions and classes that a question reaches are walked. The
gates (``gates.py``) and the LibCST inference (``inference.py``) read the same answers,
so the prefilter's decisions and the findings cannot disagree.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..imports import FUNCTION_DEFS, ImportTable, child_blocks, iter_statements
from .own_code import HEADER, NESTED, OwnCode, own_code
from .torch_api import (
    COMPUTED_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_METHODS,
    DISTRIBUTION_TENSOR_PROPERTIES,
    DISTRIBUTIONS,
    MODULE_SELF_METHODS,
    SLICED_TENSOR_CALLS,
    TENSOR_INPUT_FUNCTIONS,
    TENSOR_METHODS,
    TENSOR_ONLY_CALLS,
    TENSOR_ONLY_MEMBERS,
    TENSOR_ONLY_METHODS,
    TENSOR_OR_TUPLE_FUNCTIONS,
    TENSOR_OR_TUPLE_METHODS,
    TENSOR_TUPLE_FUNCTIONS,
    TENSOR_TUPLE_METHODS,
)
from .vocabulary import (
    CONVERSION_METHODS,
    DATA_LOADERS,
    FRESH,
    FRESH_INDEX,
    FRESH_METHODS,
    INDEX_DTYPES,
    NAMED_PARAMETER_ITERATORS,
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
    VARIABLE_CONSTRUCTORS,
    TensorInfo,
    gives_tensor_for_tensor,
    is_loss_module,
    is_module_base,
    tensor_method_info,
    torch_function_info,
    writes_first_argument,
    writes_in_place,
)

from .in_force import StraightPaths
from .project import Project, locate
from .values import Holds, Instance, LibraryObject, Value


class _Signature:
    """The parameters of a function, to match a call's arguments to them."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> None:
        arguments = function.args
        positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
        self.positional = positional[1:] if method else positional  # the receiver is not passed
        self.positional_only = {a.arg for a in arguments.posonlyargs}
        self.keyword_only = [a.arg for a in arguments.kwonlyargs]
        self.names = set(self.positional) | set(self.keyword_only)
        defaulted = len(arguments.defaults)
        self.required = self.positional[: len(self.positional) - defaulted] if defaulted else list(self.positional)
        self.required_keywords = {a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is None}
        self.varargs = arguments.vararg is not None
        self.varkeywords = arguments.kwarg is not None

    def key(self) -> str:
        """The signature spelled out: what an answer about its calls was worked out for."""
        return repr((self.positional, sorted(self.positional_only), self.keyword_only, self.required,
                     sorted(self.required_keywords), self.varargs, self.varkeywords))

    def binds(self, call: ast.Call) -> bool:
        """Whether ``call``'s arguments fit (a call that cannot is not a call of this function)."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return True  # *args, **kwargs: may fit; ``argument`` then says nothing is known
        if len(call.args) > len(self.positional) and not self.varargs:
            return False
        given = set(self.positional[: len(call.args)])
        for keyword in call.keywords:
            if keyword.arg in given or keyword.arg in self.positional_only:
                return False
            if keyword.arg not in self.names and not self.varkeywords:
                return False
            given.add(keyword.arg)
        return given.issuperset(self.required) and given.issuperset(self.required_keywords)

    def argument(self, call: ast.Call, parameter: str) -> ast.expr | None:
        """What ``call`` passes for ``parameter``; None when it passes nothing (the default)
        or when the file cannot tell (``*args``, ``**kwargs``)."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        for keyword in call.keywords:
            if keyword.arg == parameter:
                return keyword.value
        if parameter in self.positional:
            position = self.positional.index(parameter)
            return call.args[position] if position < len(call.args) else None
        return None


def _called_in_file_only(qualname: str) -> bool:
    """Whether only the file's own calls of the function ``qualname`` are read: a method
    (but ``__init__``, called through its class by name), or one of a nested class. An
    instance reaches modules that never import its class (the trainer is handed the model),
    and reading every module that calls a method of that name (``update``, ``step``) cost
    500 more parses over the application corpus for no finding."""
    owner, _, name = qualname.rpartition(".")
    return bool(owner and name != "__init__") or "." in owner


def _declared_all(tree: ast.Module) -> frozenset[str] | None:
    """The names of the module's ``__all__ = [...]`` (constant strings), if it has one."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets
        ) and isinstance(statement.value, (ast.List, ast.Tuple)):
            return frozenset(e.value for e in statement.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return None


def _top_level_names(tree: ast.Module) -> Iterator[str]:
    """The names a module's own top-level code binds by def, class or assignment (in
    ``if``/``try`` blocks too), not its imports."""
    for statement in iter_statements(tree, into=lambda s: not isinstance(s, (*FUNCTION_DEFS, ast.ClassDef))):
        if isinstance(statement, (*FUNCTION_DEFS, ast.ClassDef)):
            yield statement.name
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
                for name, _ in target_paths(target):
                    yield name


def _absolute(qualified: str, package: list[str]) -> str | None:
    """A module's relative import (``..data.load``) as an absolute dotted name from the
    project's root, ``package`` being the module's own package there."""
    level = len(qualified) - len(qualified.lstrip("."))
    if not level:
        return qualified
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    return ".".join([*base, qualified[level:]]) if base else qualified[level:] or None


def _rebased(value: Value, module: str) -> Value:
    """``value`` as another module's summary gave it, told from outside: its instances of
    the classes of ``module`` say so."""
    if isinstance(value, Instance) and not value.module:
        return Instance(value.cls, module)
    if isinstance(value, tuple):
        return tuple(_rebased(element, module) for element in value)
    return value


_EMPTY_LIST = "empty list"  # a binding that only containers' element writes can fill
_TUPLES_OF_TENSORS = (Holds.TENSORS, Holds.TENSOR_OR_TENSORS)
_DEEP_COPIES = frozenset({"copy.deepcopy"})
_SEQUENCES = frozenset({"list", "tuple"})
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_OPERATIONS = (ast.BinOp, ast.Compare, ast.UnaryOp)  # what they compute is never a module
_MOVES = frozenset({"to", "cuda", "cpu"})  # builtins that make a sequence of what they iterate
_TENSOR_INPUTS = TENSOR_INPUT_FUNCTIONS | VARIABLE_CONSTRUCTORS


def torch_tuple_value(qualified: str) -> Value:
    """``torch.topk(...)``: a tuple of tensors; ``torch.max(...)``: a tensor or a tuple of them."""
    name = qualified.removeprefix("torch.")
    if name == qualified or "." in name:
        return None
    return Holds.TENSORS if name in TENSOR_TUPLE_FUNCTIONS else \
        Holds.TENSOR_OR_TENSORS if name in TENSOR_OR_TUPLE_FUNCTIONS else None


def tensor_tuple_value(method: str) -> Value:
    """``t.chunk(2)``: a tuple of tensors; ``t.max(1)``: a tensor or a tuple of them."""
    return Holds.TENSORS if method in TENSOR_TUPLE_METHODS else \
        Holds.TENSOR_OR_TENSORS if method in TENSOR_OR_TUPLE_METHODS else None


_ELEMENT_WRITERS = frozenset({"append", "insert"})
# The nodes whose facts the walk notes; every other node is only descended into.
_NOTED = frozenset({
    ast.Call, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
    ast.With, ast.AsyncWith, ast.ExceptHandler, ast.Import, ast.ImportFrom, ast.Global,
    ast.Nonlocal, ast.Return, ast.Yield, ast.YieldFrom, ast.Attribute, ast.MatchAs,
    ast.MatchStar, ast.MatchMapping,
})
_MEMBERSHIP = (ast.In, ast.NotIn, ast.Is, ast.IsNot)
_MAX_CALL_INDEXES = 256  # the words whose calls one summary keeps (a server keeps summaries)
# Modules beyond the file that may call one of its functions and are read to know what they
# pass: a name spelled in more importers than these is too common to follow (unknown).
MAX_CALLER_MODULES = 8


def join(values: list[Value]) -> Value:
    """What every one of ``values`` agrees on (None when they disagree or are none)."""
    if not values or any(value is None for value in values):
        return None
    first = values[0]
    if all(value == first for value in values):
        return first
    if all(isinstance(value, TensorInfo) for value in values):
        return TENSOR
    return None


@dataclass(frozen=True)
class _Binding:
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


class _AstCall(CallShape):
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
        return isinstance(data, (ast.List, ast.Tuple)) and bool(data.elts) and all(map(_integer_literal, data.elts))

    def float_arange(self) -> bool:
        return any(k.arg == "dtype" for k in self.call.keywords) or any(
            isinstance(a, ast.Constant) and isinstance(a.value, float) for a in self.call.args
        )


def _integer_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int))


class ModuleSummary:
    """The facts of one module. Cheap to create: the index of scopes is built on first use."""

    def __init__(self, tree: ast.Module, imports: ImportTable, path: str = "", project: Project | None = None) -> None:
        self.tree = tree  # flake8's tree of the whole file
        self.imports = imports
        self.path = path  # the file's real path ("" when unknown: stdin, a string)
        self.project = project if path else None  # where its imports are read (None: nowhere)
        # dotted name -> (the module's path, the name in it): paths, not summaries, so that a
        # summary the project's cache lets go is not kept alive from here
        self._imported: dict[str, tuple[str, str] | None] = {}
        # what its answers to other modules were worked out from: module path -> the hash of
        # its text, import look-up -> what it found (``Project.ask`` keeps answers by it)
        self.depends_on: dict[str, str] = {}
        self._depends_copy: dict[str, str] = {}
        self.cut_short = False  # it is part of a cycle of star imports: its answers are not kept
        # words -> the calls and other uses of those words (see ``_call_index``)
        self._callers: dict[tuple[str, ...], tuple[dict[str, list[tuple[ast.Call, ast.AST | None]]], frozenset[str]]] = {}
        self._source: str | None = None  # the file's text, when given: words are looked up in it
        self._passed: dict[tuple[str, str], Value] = {}
        self._definitions: dict[str, list[ast.AST]] | None = None
        self._starts: dict[int, str] = {}  # first line of a def/class -> qualname of its parent
        self._qualnames: dict[int, str] = {}  # id(def or class) -> its qualname
        self._facts: dict[int, ScopeFacts] = {}
        self._own_code: dict[int, OwnCode] = {}
        self._classes: dict[str, _ClassFacts] = {}
        self._returns: dict[str, Value] = {}
        self._writes: dict[str, frozenset[int]] = {}
        self._in_progress: set[str] = set()
        self._restored: frozenset[str] | None = None
        self._data_records: bool | None = None
        self._star_aliases: dict[str, str] = {}  # what the file's ``from m import *`` bring in

    @classmethod
    def of(
        cls, tree: ast.Module, source: str | None = None, filename: str | None = None,
        *, project: Project | None = None,
    ) -> ModuleSummary:
        """The summary of ``tree``; with its ``source``, the import table looks only into
        blocks whose lines say ``import``. With the file's name, what it imports from the
        other modules of its project (``analysis/project.py``) is known too."""
        path = ""
        if project is None and (located := locate(filename)) is not None:
            project, path = located
        elif project is not None:
            path = filename or ""
        summary = cls(tree, ImportTable.from_ast(tree, source), path, project)
        summary._source = source
        if summary.imports.stars and summary.project is not None:
            summary._star_aliases = summary._star_imports()
            summary.imports = summary.imports.with_stars(summary._star_aliases)
        if source is not None and "load_state_dict" not in source:
            summary._restored = frozenset()  # nothing is loaded back: no walk to find out
        if source is not None and "amedTuple" not in source and "amedtuple" not in source:
            summary._data_records = False
        return summary

    # -- the scopes of the module --------------------------------------------------
    def _build_index(self) -> None:
        if self._definitions is None:
            self._definitions = {}
            self._index(self.tree.body, "")

    @property
    def definitions(self) -> dict[str, list[ast.AST]]:
        """qualname -> the defs and classes spelled so (more than one: redefined)."""
        self._build_index()
        return self._definitions

    def qualname(self, definition: ast.AST) -> str:
        """The qualified name of a def or class of the module: "Trainer.fit"."""
        self._build_index()
        return self._qualnames[id(definition)]

    def _index(self, block: list[ast.stmt], prefix: str) -> None:
        for statement in block:
            if isinstance(statement, (*FUNCTION_DEFS, ast.ClassDef)):
                qualname = f"{prefix}{statement.name}"
                self._definitions.setdefault(qualname, []).append(statement)
                self._qualnames[id(statement)] = qualname
                self._starts[_first_line(statement)] = prefix[:-1]
                self._index(statement.body, qualname + ".")
            else:
                for inner in child_blocks(statement):
                    self._index(inner, prefix)

    def definition(self, qualname: str) -> ast.AST | None:
        """The one def or class named ``qualname``; None when absent or redefined."""
        found = self.definitions.get(qualname, ())
        return found[0] if len(found) == 1 else None

    def enclosing(self, first_line: int) -> str:
        """The qualname of the scopes around the def or class that starts at ``first_line``
        ("" at module level): a chunk parsed on its own starts there."""
        self._build_index()
        return self._starts.get(first_line, "")

    def own_code(self, scope: ast.AST) -> OwnCode:
        """The nodes of a scope's own code (see ``own_code``), walked once."""
        code = self._own_code.get(id(scope))
        if code is None:
            code = self._own_code[id(scope)] = own_code(scope, self.imports)
        return code

    def facts(self, scope: ast.AST) -> ScopeFacts:
        """The facts of a function of the module, or of the module itself (its tree)."""
        facts = self._facts.get(id(scope))
        if facts is None:
            qualname = "" if scope is self.tree else self.qualname(scope)
            facts = self._facts[id(scope)] = ScopeFacts(self, scope, qualname)
        return facts

    def forget_facts(self) -> None:
        """Drop the scopes' and classes' facts worked out so far (asked again, they are
        worked out again). Each refers back to the summary: a cycle that only the cycle
        collector would free, with the whole tree, where without them reference counting
        frees it all at once."""
        self._facts.clear()
        self._classes.clear()

    def scope(self, qualname: str) -> ScopeFacts | None:
        """The facts of the function ``qualname`` ("" for the module); None when unknown."""
        if not qualname:
            return self.facts(self.tree)
        node = self.definition(qualname)
        return self.facts(node) if isinstance(node, FUNCTION_DEFS) else None

    def parent_scope(self, qualname: str) -> ScopeFacts | None:
        """Where a function's free names are looked up: the nearest enclosing function, else
        the module (class bodies are skipped, as Python skips them)."""
        while "." in qualname:
            qualname = qualname.rpartition(".")[0]
            if isinstance(self.definition(qualname), FUNCTION_DEFS):
                return self.scope(qualname)
            if self.definition(qualname) is None:
                return None
        return self.facts(self.tree)

    # -- what functions return, what attributes hold --------------------------------
    def returns(self, qualname: str) -> Value:
        """What every ``return`` of the function ``qualname`` gives; None for a generator."""
        if qualname in self._returns:
            return self._returns[qualname]
        if qualname in self._in_progress:  # recursion: nothing is known yet
            return None
        self._in_progress.add(qualname)
        try:
            facts = self.scope(qualname)
            value = facts.returned() if facts is not None else None
        finally:
            self._in_progress.discard(qualname)
        self._returns[qualname] = value
        return value

    def dependencies(self) -> dict[str, str]:
        """``depends_on`` as it is now: one copy, shared by the answers worked out while it
        stays so (it only grows), never changed."""
        if len(self._depends_copy) != len(self.depends_on):
            self._depends_copy = dict(self.depends_on)
        return self._depends_copy

    def _abroad(self, instance: Instance, ask: str, *arguments: str) -> Value:
        """``ask`` answered by the module of ``instance``'s class, told from here."""
        if self.project is None or instance.module == self.path:
            return None
        with self.project.hop() as allowed:
            if not allowed:
                return None
            value = self.project.ask(
                self, instance.module, (ask, instance.cls, *arguments),
                lambda home: getattr(home, ask)(Instance(instance.cls), *arguments),
            )
        return _rebased(value, instance.module)

    def call_on(self, instance: Instance, name: str) -> Value:
        """What ``instance.name(...)`` returns: what the method returns, or what calling the
        instance that the attribute holds returns (``self.net(x)`` with ``self.net = Net()``)."""
        if instance.module and instance.module != self.path:
            return self._abroad(instance, "call_on", name)
        cls = instance.cls
        if isinstance(self.definition(f"{cls}.{name}"), FUNCTION_DEFS):
            return self.returns(f"{cls}.{name}")
        held = self.attribute(instance, name)
        if isinstance(held, Instance):
            return self.instance_call(held)
        if held is None and name in MODULE_SELF_METHODS and self._is_torch_module(cls):
            return instance  # Net().to(device), trainer.cuda(): the module itself
        return None

    def _is_torch_module(self, cls: str) -> bool:
        """Whether the class ``cls`` derives from ``torch.nn.Module`` (through the file's classes)."""
        return any(
            is_module_base(qualified)
            for klass in self._lineage(cls)
            for base in klass.bases
            if (qualified := self.imports.qualify_expression(base))
        )

    def instance_call(self, instance: Instance) -> Value:
        """What calling ``instance`` returns: its ``__call__``, or for a torch module its
        ``forward`` (either may come from a base class of the file)."""
        if instance.module and instance.module != self.path:
            return self._abroad(instance, "instance_call")
        lineage = self._lineage(instance.cls)
        module = self._is_torch_module(instance.cls)
        for klass in lineage:
            methods = {item.name for item in klass.body if isinstance(item, FUNCTION_DEFS)}
            if "__call__" in methods:
                return self.returns(f"{self.qualname(klass)}.__call__")
            if module and "forward" in methods:
                return self.returns(f"{self.qualname(klass)}.forward")
        return None

    def _lineage(self, cls: str) -> list[ast.ClassDef]:
        """The class ``cls`` and its base classes that the module defines, nearest first."""
        lineage: list[ast.ClassDef] = []
        pending = [cls]
        while pending:
            node = self.definition(pending.pop(0))
            if isinstance(node, ast.ClassDef) and node not in lineage:
                lineage.append(node)
                pending += [base.id for base in node.bases if isinstance(base, ast.Name)]
        return lineage

    def attribute(self, instance: Instance, name: str) -> Value:
        """What ``instance.name`` holds."""
        if instance.module and instance.module != self.path:
            return self._abroad(instance, "attribute", name)
        cls = instance.cls
        facts = self._classes.get(cls)
        if facts is None:
            node = self.definition(cls)
            if not isinstance(node, ast.ClassDef):
                return None
            facts = self._classes[cls] = _ClassFacts(self, node, cls)
        return facts.attribute(name)

    def writes_arguments(self, function: str) -> frozenset[int]:
        """The positions of the module-level ``function``'s parameters that it writes in place
        (``def weight_init(w): nn.init.orthogonal_(w)``), each never rebound in it."""
        if function in self._writes:
            return self._writes[function]
        node = self.definition(function)
        found: frozenset[int] = frozenset()
        if isinstance(node, FUNCTION_DEFS) and "." not in function:
            positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
            rebound, written = set(), set()
            for inner in ast.walk(node):
                rebound.update(name for target in _stored_targets(inner) for name, _ in target_paths(target))
                if name := written_in_place(inner, self.imports):
                    written.add(name)
            found = frozenset(i for i, name in enumerate(positional) if name in written and name not in rebound)
        self._writes[function] = found
        return found

    def stored_values(self, cls: str) -> dict[str, list[Value | str]]:
        """attribute -> what each store in the methods of the class ``cls`` itself gives
        (its bases' aside): what ``scripts/generate_library_api.py`` reads of a library."""
        node = self.definition(cls)
        return _ClassFacts(self, node, cls).stored() if isinstance(node, ast.ClassDef) else {}

    # -- what the project's other modules hold -------------------------------------
    def located(self, qualified: str) -> tuple[str, str] | None:
        """(the path of the project's module, the name in it) that an imported dotted name
        stands for: ``utils.make_batch``, ``.models.Net``; None outside the project."""
        if self.project is None:  # the project analysis is off (or the file has no name)
            return None
        if qualified not in self._imported:
            self._imported[qualified] = self.project.resolve(self.path, qualified, asker=self)
        return self._imported[qualified]

    def _star_imports(self) -> dict[str, str]:
        """What the file's ``from m import *`` of the project's modules bind (later ones win)."""
        aliases: dict[str, str] = {}
        for module in self.imports.stars:
            path = self.project.find_module(self.path, module, asker=self)
            if path is not None:
                aliases.update(
                    self.project.ask(self, path, ("star_exports",), ModuleSummary.star_exports, top_level=True) or {}
                )
        return aliases

    def star_exports(self) -> dict[str, str]:
        """What ``from this_module import *`` binds: the names of ``__all__``, else every
        public name the module binds at its top level (imports included), each as a dotted
        name that the importer's table can hold (absolute from the project's root). Read
        from the top level alone (the project parses only that to answer it), so the
        imports in the module's functions are not among them."""
        dotted = self.project.dotted(self.path) if self.project is not None else None
        if dotted is None:
            return {}
        package = dotted.split(".") if self.path.endswith("__init__.py") else dotted.split(".")[:-1]
        exported: dict[str, str] = {}
        public = _declared_all(self.tree)
        for name in _top_level_names(self.tree):
            if (name in public) if public is not None else not name.startswith("_"):
                exported[name] = f"{dotted}.{name}"
        imported = {**self._star_aliases, **ImportTable.from_ast(self.tree, self._source, top_level=True).aliases}
        for name, qualified in imported.items():
            if (name in public) if public is not None else not name.startswith("_"):
                exported[name] = _absolute(qualified, package)
        return {name: qualified for name, qualified in exported.items() if qualified}

    def imported_call(self, qualified: str) -> Value:
        """What calling the imported ``qualified`` returns: a function's result, an instance
        of a class (``Net()``), what calling a module-level instance returns."""
        return self._from_import(qualified, "exported_call")

    def imported_value(self, qualified: str) -> Value:
        """What the imported module-level name ``qualified`` holds (``from config import MEAN``)."""
        return self._from_import(qualified, "exported_value")

    def _from_import(self, qualified: str, ask: str) -> Value:
        target = self.located(qualified)
        if target is None:
            return None
        path, name = target
        with self.project.hop() as allowed:
            if not allowed:
                return None
            value = self.project.ask(self, path, (ask, name), lambda home: getattr(home, ask)(name))
        return _rebased(value, path)

    def exported_call(self, name: str) -> Value:
        """What calling this module's ``name`` returns, asked from another module."""
        definition = self.definition(name)
        if isinstance(definition, FUNCTION_DEFS):
            return self.returns(name)
        if isinstance(definition, ast.ClassDef):
            return Instance(name)
        if definition is None and "." not in name:
            if name in self.imports.aliases and not self.definitions.get(name):  # re-exported
                return self.imported_call(self.imports.aliases[name])
            held = self.facts(self.tree).name_value(name)
            return self.instance_call(held) if isinstance(held, Instance) else None
        return None

    def exported_value(self, name: str) -> Value:
        """What this module's module-level ``name`` holds, asked from another module."""
        if "." in name or self.definitions.get(name):
            return None
        return self.facts(self.tree).name_value(name)

    # -- what the file's calls pass to its functions -------------------------------
    def passed_to(self, qualname: str, parameter: str) -> Value:
        """What every call of the file's function ``qualname`` passes for ``parameter``: the
        file's calls (a module-level function called by name, a method called on ``self`` or
        on an instance of its class, ``__init__`` through the class), and for a module-level
        function or ``__init__`` those of the modules that import the file too. None when
        there is no such call, when one passes something else or relies on the default, and
        when the function may be reached otherwise: decorated, used as a value (a callback),
        called with ``*args``/``**kwargs``, or through a receiver the file cannot tell.
        Without the project analysis, only a method's: the calls other modules make to the
        rest are read with it (``project = true``)."""
        if self.project is None and not _called_in_file_only(qualname):
            return None
        key = (qualname, parameter)
        if key in self._passed:
            return self._passed[key]
        self._passed[key] = None  # callers that lead back here know nothing of it yet
        value = self._passed_value(qualname, parameter)
        self._passed[key] = value
        return value

    def _passed_value(self, qualname: str, parameter: str) -> Value:
        signature = self._signature(qualname)
        arguments = self._arguments_in_file(qualname, parameter, signature)
        if signature is None or arguments is None:
            return None
        here = [self.facts(scope).value(argument) for argument, scope in arguments]
        if here and join(here) is None:
            return None  # the file's own calls disagree: no need to read the others'
        abroad = self._passed_abroad(qualname, parameter, signature)
        return join(here + abroad) if abroad is not None else None

    def passed_arguments(self, qualname: str, parameter: str) -> list[tuple[ast.expr, ast.AST]] | None:
        """What each call the file makes to its function ``qualname`` passes for ``parameter``,
        with the scope the call is made in; None where :meth:`passed_to` knows nothing."""
        if self.project is None:  # callers are read with the project (``project = true``)
            return None
        return self._arguments_in_file(qualname, parameter, self._signature(qualname)) or None

    def _arguments_in_file(self, qualname: str, parameter: str,
                           signature: _Signature | None) -> list[tuple[ast.expr, ast.AST]] | None:
        """As :meth:`passed_arguments`, but [] when the file makes no call to the function
        (``signature``: the function's, see :meth:`_signature`); asked with the project only."""
        if signature is None or parameter not in signature.names:
            return None
        owner, _, name = qualname.rpartition(".")
        if not self._named_again(owner if name == "__init__" else name):
            return []
        calls = self._calls_to(name, self.definition(owner) if owner else None, signature)
        if calls is None:
            return None  # some call or use may reach it unseen
        arguments = []
        for call, scope in calls:
            argument = signature.argument(call, parameter)
            if argument is None:
                return None  # the default, or *args/**kwargs
            arguments.append((argument, scope))
        return arguments

    def _signature(self, qualname: str) -> _Signature | None:
        """The parameters of the file's function ``qualname`` (a module-level function or a
        method) that only calls can reach; None for a decorated or nested function."""
        function = self.definition(qualname)
        if not isinstance(function, FUNCTION_DEFS) or function.decorator_list:
            return None
        owner = qualname.rpartition(".")[0]
        cls = self.definition(owner) if owner else None
        if owner and not isinstance(cls, ast.ClassDef):
            return None  # a nested function: its callers see the enclosing function's names
        return _Signature(function, method=cls is not None)

    def _passed_abroad(self, qualname: str, parameter: str, signature: _Signature) -> list[Value] | None:
        """What the calls of the project's other modules pass to the file's module-level
        function ``qualname``, or a class's ``__init__`` (through the class), for ``parameter``
        ([]: none calls it; None: unknown). Only the modules that import this one can call them
        (by name), and of those only the ones that spell the name are read. Other methods get
        the file's calls only (:func:`_called_in_file_only`)."""
        if _called_in_file_only(qualname):
            return []
        owner, _, name = qualname.rpartition(".")
        word = owner or name
        importers = self.project.importers(self.path, asker=self)
        for package in [i for i in importers or () if i.endswith("__init__.py")]:
            # ``from pkg import f`` of a package that imports it: whether f is this module's,
            # the caller's summary cannot tell (unknown), but the call must not go unseen
            importers = importers | (self.project.importers(package, asker=self) or frozenset())
        if importers is None:
            return None
        callers = []
        for path in sorted(importers):
            self.depends_on[path] = self.project.digest(path) or ""  # it may come to call it
            if self.project.spells(path, word):
                callers.append(path)
        if len(callers) > MAX_CALLER_MODULES:
            return None
        question = ("passes", self.path, qualname, parameter, signature.key())
        values: list[Value] = []
        for path in callers:
            with self.project.hop() as allowed:
                if not allowed:
                    return None
                passed = self.project.ask(
                    self, path, question, lambda home: home.passes(self.path, qualname, parameter, signature)
                )
            if not isinstance(passed, tuple):
                return None
            values += [_rebased(value, path) for value in passed]
        return values

    def passes(self, module: str, qualname: str, parameter: str, signature: _Signature) -> tuple | None:
        """What this module's calls of the function ``qualname`` (or class, for its
        ``__init__``) of the module at ``module`` pass for ``parameter``, asked from there: ()
        for no call, (what they all pass,), or None when unknown (a call passes something else
        or nothing, it is used as a value, or a call reaches one of that name that this module
        cannot place)."""
        called = qualname.partition(".")[0]  # a class is called for its __init__
        callers, escaping = self._call_index((called,))
        # Read other than called (a callback, a subclass's base): its calls go unseen. An
        # attribute of that name (``boxes.crop``, ``self.crop``) cannot be told from it.
        if called in escaping and self._places(self.imports.aliases.get(called), module, called) is not False:
            return None
        if "." + called in escaping:
            return None
        values = []
        for call, scope in [*callers.get(called, ()), *callers.get("." + called, ())]:
            reaches = self._places(self.imports.qualify_expression(call.func), module, called)
            if reaches is False or not signature.binds(call):
                continue
            argument = signature.argument(call, parameter)
            if reaches is None or scope is None or argument is None:
                return None
            values.append(self.facts(scope).value(argument))
        if not values:
            return ()
        value = join(values)
        return (value,) if value is not None else None

    def _places(self, qualified: str | None, module: str, name: str) -> bool | None:
        """Whether the imported name ``qualified`` (None: not imported) is the function
        ``name`` of the module at ``module`` (None: a function of that name in another of the
        project's modules, maybe the same one imported through it)."""
        found = self.located(qualified) if qualified is not None else None
        if found is None:
            return False  # the module's own, a builtin, a method, a library's
        if found == (module, name):
            return True
        return None if found[1] == name else False

    def _named_again(self, name: str) -> bool:
        """Whether the source may spell ``name`` more than once (the definition): else the
        file makes no call to it, and no walk is needed to know."""
        return self._source is None or self._source.count(name) > 1

    def _calls_to(self, name: str, cls: ast.ClassDef | None, signature: _Signature) -> list | None:
        """The calls of the file that reach the function ``name`` (a method of ``cls``),
        each with the scope it is made in; None when some call or use may reach it unseen."""
        cls_name = self.qualname(cls) if cls is not None else ""
        callers, escaping = self._call_index((cls_name, name) if name == "__init__" else (name,))
        if cls is None:
            if name in escaping:
                return None
            calls = callers.get(name, [])
            if any(scope is None or self.facts(scope)._local_anywhere(name) for _, scope in calls):
                return None
            return [(call, scope) for call, scope in calls if signature.binds(call)]
        if "." in cls_name:
            return None  # a nested class
        if name == "__init__":
            if cls_name in escaping or "." + name in escaping:
                return None
            calls = callers.get(cls_name, []) + callers.get(".__init__", [])
        else:
            if "." + name in escaping:
                return None
            calls = callers.get("." + name, [])
        reaching = []
        for call, scope in calls:
            if scope is None:
                return None
            facts = self.facts(scope)
            if isinstance(call.func, ast.Name):  # Cls(...)
                if facts._local_anywhere(cls_name):
                    return None
                reaching.append((call, scope))
                continue
            receiver = facts.value(call.func.value)
            if isinstance(receiver, Instance):
                if not receiver.module and cls in self._lineage(receiver.cls) and self._resolves_to(receiver.cls, name, cls):
                    reaching.append((call, scope))
            elif receiver is None and signature.binds(call):
                return None  # it may be an instance of the class: the file cannot tell
        return [(call, scope) for call, scope in reaching if signature.binds(call)]

    def _resolves_to(self, cls_name: str, method: str, owner: ast.ClassDef) -> bool:
        """Whether ``method`` of an instance of ``cls_name`` is ``owner``'s (no override between)."""
        for klass in self._lineage(cls_name):
            if any(isinstance(item, FUNCTION_DEFS) and item.name == method for item in klass.body):
                return klass is owner
        return False

    def _call_index(self, words: tuple[str, ...]) -> tuple[dict[str, list[tuple[ast.Call, ast.AST | None]]], frozenset[str]]:
        """The file's calls of ``words`` by the name they call (``f`` for ``f(...)``, ``.m``
        for ``x.m(...)``) with their scope (a function, the module; None inside a lambda, a
        comprehension or a class body, whose names the facts do not follow), and which of
        the names and ``.attributes`` the file also reads other than by calling them. Only the
        statements on lines that spell a word are walked (the source says which, when given)."""
        if words in self._callers:
            return self._callers[words]
        wanted = frozenset(words) | {"." + word for word in words}
        lines = self._lines_spelling(words)
        callers: dict[str, list[tuple[ast.Call, ast.AST | None]]] = {}
        called: set[int] = set()
        escaping: set[str] = set()
        stack: list[tuple[ast.AST, ast.AST | None]] = [(self.tree, self.tree)]
        while stack:
            node, scope = stack.pop()
            if lines is not None and isinstance(node, ast.stmt) and not _spans_any(node, lines):
                continue
            if isinstance(node, ast.Call):
                func = node.func
                called.add(id(func))
                key = func.id if isinstance(func, ast.Name) else "." + func.attr if isinstance(func, ast.Attribute) else None
                if key in wanted:
                    callers.setdefault(key, []).append((node, scope))
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in called:
                escaping.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and id(node) not in called:
                escaping.add("." + node.attr)
            if isinstance(node, FUNCTION_DEFS):
                inner = node
                for child in (*node.decorator_list, *node.args.defaults, *filter(None, node.args.kw_defaults)):
                    stack.append((child, scope))
                children = node.body
            elif isinstance(node, ast.ClassDef):
                inner = None
                stack.extend((child, scope) for child in (*node.decorator_list, *node.bases, *node.keywords))
                children = node.body
            elif isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                inner, children = None, list(ast.iter_child_nodes(node))
            else:
                inner, children = scope, list(ast.iter_child_nodes(node))
            stack.extend((child, inner) for child in reversed(children))
        if len(self._callers) >= _MAX_CALL_INDEXES:
            self._callers.clear()
        self._callers[words] = answer = (callers, frozenset(escaping & wanted))
        return answer

    def _lines_spelling(self, words: tuple[str, ...]) -> list[int] | None:
        """The numbers of the lines where one of ``words`` is spelled (sorted); None without
        the source (every line, then)."""
        if self._source is None:
            return None
        source = self._source
        starts = set()
        for word in words:  # where the text holds the word, also inside a longer one (more to walk, no less)
            at = source.find(word)
            while at != -1:
                starts.add(source.rfind("\n", 0, at))
                at = source.find(word, at + len(word))
        lines, line, counted = [], 1, 0
        for start in sorted(starts):  # in order: count the newlines once
            line += source.count("\n", counted, start + 1)
            counted = start + 1
            lines.append(line)
        return lines

    def restored_attributes(self) -> frozenset[str]:
        """The attributes whose value the file loads back into a model or optimizer anywhere:
        ``load_state_dict(self.best)``, ``model.load_state_dict(stopper.best_weights)``."""
        if self._restored is None:
            restored = set()
            for node in ast.walk(self.tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "load_state_dict":
                    arguments = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "state_dict")]
                    for argument in arguments:
                        while isinstance(argument, ast.Subscript):
                            argument = argument.value
                        if isinstance(argument, ast.Attribute):
                            restored.add(argument.attr)
            self._restored = frozenset(restored)
        return self._restored

    def defines_data_records(self) -> bool:
        """Whether the file defines a named tuple with a field called ``data``
        (``Binding = namedtuple("Binding", ("name", "data"))``): its ``.data`` is no tensor's."""
        if self._data_records is None:
            self._data_records = any(map(self._is_data_record, ast.walk(self.tree)))
        return self._data_records

    def _is_data_record(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call) and self.imports.qualify_expression(node.func) in _RECORD_FACTORIES:
            fields = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg in ("field_names", "fields")), None)
            if isinstance(fields, ast.Constant) and isinstance(fields.value, str):
                return "data" in fields.value.replace(",", " ").split()
            if isinstance(fields, (ast.List, ast.Tuple)):
                return any(
                    isinstance(name, ast.Constant) and name.value == "data"
                    for field in fields.elts
                    for name in (field.elts[:1] if isinstance(field, ast.Tuple) else [field])
                )
            return False
        if isinstance(node, ast.ClassDef) and any(
            self.imports.qualify_expression(base) == "typing.NamedTuple" for base in node.bases
        ):
            return any(
                isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and item.target.id == "data"
                for item in node.body
            )
        return False


_RECORD_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple", "typing_extensions.NamedTuple"})


class _ClassFacts:
    """The attributes a class's methods bind on ``self`` (and its class-level annotations)."""

    def __init__(self, summary: ModuleSummary, node: ast.ClassDef, qualname: str) -> None:
        self.summary = summary
        self.node = node
        self.qualname = qualname
        self._stores: dict[str, list[tuple[ast.AST | None, ast.expr | None, tuple[int | str, ...]]]] | None = None
        # attribute -> (method, what an element write puts in: ``self.vals.append(t)``)
        self._elements: dict[str, list[tuple[ast.AST, ast.expr | _Each]]] = {}
        self._values: dict[str, Value] = {}
        self._in_progress: set[str] = set()

    def _collect(self) -> dict[str, list[tuple[ast.AST | None, ast.expr | None, tuple[int | str, ...]]]]:
        """attribute -> (the method that stores it, the value, where in it the attribute's
        part is: ``self.h, self.c = init()`` stores position 0 and 1 of the value; the value
        is None for ``+=``), from the statements alone: a method's expressions are walked
        only when a value is asked."""
        stores: dict[str, list[tuple[ast.AST | None, ast.expr | None, tuple[int | str, ...]]]] = {}
        for statement in self.node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                stores.setdefault(statement.target.id, []).append((None, statement.annotation, ()))
            elif isinstance(statement, FUNCTION_DEFS) and (receiver := _receiver_name(statement)):
                for inner in iter_statements(statement, into=_outside_functions):
                    for target, value in _stores(inner):
                        for leaf, path in _leaves(target):
                            if _on(leaf, receiver):
                                stores.setdefault(leaf.attr, []).append((statement, value, path))
                    for attribute, element in _element_writes(inner, receiver):
                        self._elements.setdefault(attribute, []).append((statement, element))
        return stores

    def attribute(self, name: str) -> Value:
        if name in self._values:
            return self._values[name]
        if name in self._in_progress:
            return None
        if self._stores is None:
            self._stores = self._collect()
        self._in_progress.add(name)
        try:
            values, grounded = self._stored(name)
            # ``self.x = torch.FloatTensor(self.x)`` alone says nothing of what ``self.x`` held
            # before it, which is what the reads elsewhere (and the conversion itself) may see.
            value = None if not grounded else self._filled_list(name, values) if _EMPTY_LIST in values else join(values)
        finally:
            self._in_progress.discard(name)
        self._values[name] = value
        return value

    def stored(self) -> dict[str, list[Value | str]]:
        """What each store of each attribute gives (``_EMPTY_LIST``: ``[]``)."""
        if self._stores is None:
            self._stores = self._collect()
        found = {}
        for name in self._stores:
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
        for method, value, path in self._stores.get(name, ()):
            if method is None:  # a class-level annotation
                values.append(annotation_value(value, self.summary.imports))
            elif isinstance(value, ast.List) and not value.elts and not path:
                values.append(_EMPTY_LIST)
            elif path and value is not None:  # self.h, self.c = value
                values.append(self.summary.facts(method).unpacked(value, path))
            elif value is not None and not _is_none(value):  # `+=` keeps the value; None is Optional
                values.append(self.summary.facts(method).value(value))
            else:
                continue
            grounded = grounded or method is None or not _reads_attribute(value, _receiver_name(method), name)
        return values, grounded

    def _filled_list(self, name: str, values: list[Value | str]) -> Value:
        """A list attribute bound empty or to tensors and filled, by the class's methods, only
        with tensors (``self.rewards = []``, then ``self.rewards.append(r)`` elsewhere)."""
        elements = self._elements.get(name, ())
        if not elements or any(v not in (_EMPTY_LIST, Holds.TENSORS) for v in values):
            return None
        for method, element in elements:
            facts = self.summary.facts(method)
            if isinstance(element, _Each):
                if element is _UNKNOWN or facts.value(element.value) != Holds.TENSORS:
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


def _element_writes(statement: ast.stmt, receiver: str) -> Iterator[tuple[str, ast.expr | _Each]]:
    """(attribute, element) for ``self.x.append(v)``, ``.insert(i, v)``, ``.extend(vs)``,
    ``self.x[k] = v`` and ``self.x += [v]``."""
    if isinstance(statement, ast.Expr) and isinstance(call := statement.value, ast.Call) \
            and isinstance(call.func, ast.Attribute) and _on(call.func.value, receiver):
        attribute, method = call.func.value.attr, call.func.attr
        if call.keywords:
            if method in (*_ELEMENT_WRITERS, "extend"):
                yield attribute, _UNKNOWN
        elif method == "append" and len(call.args) == 1:
            yield attribute, call.args[0]
        elif method == "insert" and len(call.args) == 2:
            yield attribute, call.args[1]
        elif method == "extend" and len(call.args) == 1:
            yield attribute, _Each(call.args[0])
        elif method in (*_ELEMENT_WRITERS, "extend"):
            yield attribute, _UNKNOWN
    elif isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Subscript) and _on(target.value, receiver):
                yield target.value.attr, statement.value
    elif isinstance(statement, ast.AugAssign) and _on(statement.target, receiver) \
            and isinstance(statement.value, (ast.List, ast.Tuple)):
        for element in statement.value.elts:
            yield statement.target.attr, element


class ScopeFacts:
    """The bindings of one scope (a function, or the module's own code) and what its
    expressions hold. One walk over the scope, nested functions and classes left out."""

    def __init__(self, summary: ModuleSummary, scope: ast.AST, qualname: str) -> None:
        self.summary = summary
        self.scope = scope
        self.qualname = qualname
        self.imports = summary.imports
        self.calls: list[ast.Call] = []
        self.bindings: dict[str, list[_Binding]] = {}
        self.elements: dict[str, list[ast.expr]] = {}  # what element writes put into a name
        self.inner_elements: dict[str, list[ast.expr]] = {}  # rows[i].append(v): into the lists it holds
        self.returns: list[ast.expr | None] = []
        self.is_generator = False
        self._tested: set[str] = set()  # names whose type the scope tests (isinstance)
        # name -> the lines where the scope uses it as only a tensor can be used
        self._used_as_tensor: dict[str, list[int]] = {}
        self._values: dict[str, Value] = {}
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
        receiver = _receiver_name(scope)
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
            self._note_element_write(node)
            self._note_tensor_input(node)
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and (func.attr in TENSOR_ONLY_CALLS or _sized_call(node)):
                self._use_as_tensor(func.value.id, node.lineno)  # x.contiguous(), x.stride(0), x.size(0)
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
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            self.is_generator = True
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.attr in TENSOR_ONLY_MEMBERS:
                self._use_as_tensor(node.value.id, node.lineno)
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
        if isinstance(first, ast.Name) and self.imports.qualify_expression(call.func) in _TENSOR_INPUTS:
            self._use_as_tensor(first.id, call.lineno)

    def _note_element_write(self, call: ast.Call) -> None:
        """``vals.append(t)``, ``vals.insert(0, t)``, ``vals.extend(ts)``; ``rows[i].append(t)``
        into the lists that ``rows`` holds."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in (*_ELEMENT_WRITERS, "extend"):
            return
        if isinstance(func.value, ast.Name):
            elements = self.elements.setdefault(func.value.id, [])
        elif isinstance(func.value, ast.Subscript) and isinstance(func.value.value, ast.Name):
            elements = self.inner_elements.setdefault(func.value.value.id, [])
        else:
            return
        if call.keywords:
            elements.append(_UNKNOWN)
        elif func.attr == "append" and len(call.args) == 1:
            elements.append(call.args[0])
        elif func.attr == "insert" and len(call.args) == 2:
            elements.append(call.args[1])
        elif func.attr == "extend" and len(call.args) == 1:
            elements.append(_Each(call.args[0]))
        else:
            elements.append(_UNKNOWN)

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

    def parameter_value(self, name: str) -> Value:
        """What the parameter ``name`` holds when the function is entered, whatever the
        function binds to the name later (``xyxy = torch.tensor(xyxy)``)."""
        if name in self._assumed:
            return self._assumed[name]
        for binding in self.bindings.get(name, ()):
            if binding.kind == "param":
                return self._parameter_value(binding.source)
        return None

    @functools.cached_property
    def legacy_scalars(self) -> bool:
        """Whether the scope reads ``loss.data[0]`` as code written before PyTorch 0.4 did (see
        ``_legacy_scalar``): code of that age iterated a 1-d tensor into numbers, so what it
        gets from iterating a tensor is unknown."""
        return any(type(node) is ast.Subscript and _legacy_scalar(node) for node, *_ in self.summary.own_code(self.scope).nodes)

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
        empty = _EMPTY_LIST in values
        filled = [v for v in values if v != _EMPTY_LIST]
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

    def _gives_tensors(self, element: ast.expr | _Each) -> bool:
        if isinstance(element, _Each):
            return element is not _UNKNOWN and (
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
        if isinstance(element, _Each):
            return element is not _UNKNOWN and self.value(element.value) == Holds.TENSORS
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
                return _EMPTY_LIST
            return self.value(source)
        if kind == "loop":
            value = self._unpacked(binding.source, binding.path)
            if value is None and not isinstance(binding.source, Unpacked) and len(self.bindings[name]) == 1:
                # The loop's only binding of the name, used in it as only a tensor can be
                # (``for i, det in enumerate(pred): ... det[:, 5].unique()``): its elements are.
                used = self._used_as_tensor.get(name)
                return TENSOR if used is not None and min(used) >= binding.line else None
            return value
        return None

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
        used = self._used_as_tensor.get(name)
        rebound = min((b.line for b in self.bindings[name] if b.kind != "param"), default=None)
        if used is not None and (rebound is None or min(used) <= rebound) and not self._branch_decides(name, used):
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
        if value == Holds.LOADER:
            return Holds.BATCH
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
            return None
        annotation = getattr(self.scope, "returns", None)
        if annotation is not None and isinstance(declared := annotation_value(annotation, self.imports), TensorInfo):
            return declared  # ``-> torch.Tensor``: its author says so, whatever it computes
        returns = [r for r in self.returns if r is not None and not _is_none(r)]
        if not returns:
            return None
        width = len(returns[0].elts) if isinstance(returns[0], ast.Tuple) else 0
        if width and all(
            isinstance(r, ast.Tuple) and len(r.elts) == width and not any(isinstance(e, ast.Starred) for e in r.elts)
            for r in returns
        ):
            return tuple(join([self.value(r.elts[position]) for r in returns]) for position in range(width))
        return join([self.value(r) for r in returns])

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
            if _legacy_scalar(node):
                return None
            base = self.value(node.value)
            if isinstance(base, tuple):  # f()[0] of a function that returns a tuple
                index = node.slice
                position = index.value if isinstance(index, ast.Constant) else None
                if type(position) is int and -len(base) <= position < len(base):
                    return base[position]
                return None
            if isinstance(base, TensorInfo) or base == Holds.STATE_DICT:
                return TENSOR
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
            if qualified in DISTRIBUTIONS:
                return Holds.DISTRIBUTION
            if (made := LibraryObject.made_by(qualified)) is not None:
                return made  # datasets.MNIST(root)
            if gives_tensor_for_tensor(qualified, (k.arg for k in node.keywords)) and any(
                isinstance(self.value(argument), TensorInfo) for argument in node.args
            ):
                return TENSOR  # np.exp(t)
            return torch_function_info(qualified, _AstCall(node)) or torch_tuple_value(qualified) \
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
            if own is None and self.name_value(func.id) == Holds.LOSS:
                return FRESH  # criterion = nn.CrossEntropyLoss(); criterion(out, y)
            return own
        if not isinstance(func, ast.Attribute):
            return None
        method = func.attr
        receiver = self.value(func.value)
        if isinstance(receiver, Instance):
            if self.summary.attribute(receiver, method) == Holds.LOSS:
                return FRESH  # self.criterion(out, y)
            return self.summary.call_on(receiver, method)
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

    def own_call(self, name: str) -> Value:
        """What ``name(...)`` returns when ``name`` is a function or class the module defines."""
        if self._local_anywhere(name):
            return None
        definition = self.summary.definition(name)  # a module-level def or class
        if isinstance(definition, FUNCTION_DEFS):
            return self.summary.returns(name)
        return Instance(name) if isinstance(definition, ast.ClassDef) else None

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
            return self.summary.imported_value(qualified)  # config.MEAN
        return None


def _legacy_scalar(node: ast.Subscript) -> bool:
    """``loss.data[0]``: before PyTorch 0.4 the Python number of a one-element tensor (code of
    that age passes it around as one); since, a row. What the code means is unknown."""
    value, index = node.value, node.slice
    return isinstance(value, ast.Attribute) and value.attr == "data" \
        and isinstance(index, ast.Constant) and type(index.value) is int


def _sized_call(call: ast.Call) -> bool:
    """``x.view(-1, 5)``, ``x.size(0)``: see ``SIZED_TENSOR_METHODS``."""
    return isinstance(call.func, ast.Attribute) and call.func.attr in SIZED_TENSOR_METHODS and any(
        _integer_literal(argument) for argument in call.args
    )


def _sliced(node: ast.expr) -> str | None:
    """``det`` of ``det[:, 5]``: a name indexed with a tuple holding a slice, which no list,
    dict or pandas object takes."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Tuple) \
            and any(isinstance(part, ast.Slice) for part in node.slice.elts):
        return node.value.id
    return None


def _plain(element: ast.expr | _Each) -> bool:
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


def annotation_value(annotation: ast.expr, imports: ImportTable) -> Value:
    """``Tensor``, ``nn.Parameter``, ``DataLoader``, also inside ``Optional[...]`` / ``| None``."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        if _is_none(annotation.right):
            return annotation_value(annotation.left, imports)
        if _is_none(annotation.left):
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


def _receiver_name(method: ast.AST) -> str | None:
    """The name of ``self`` in a method (None for static and class methods)."""
    decorators = {d.id for d in method.decorator_list if isinstance(d, ast.Name)}
    positional = [*method.args.posonlyargs, *method.args.args]
    if decorators & {"staticmethod", "classmethod"} or not positional:
        return None
    return positional[0].arg


def _outside_functions(statement: ast.stmt) -> bool:
    return not isinstance(statement, FUNCTION_DEFS)


def _stored_targets(node: ast.AST) -> list[ast.expr]:
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


def _stores(statement: ast.stmt) -> Iterator[tuple[ast.expr, ast.expr | None]]:
    """(target, value) of an assignment statement; the value is None for ``+=``."""
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            yield target, statement.value
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        yield statement.target, statement.value
    elif isinstance(statement, ast.AugAssign):
        yield statement.target, None


def _spans_any(statement: ast.stmt, lines: list[int]) -> bool:
    """Whether ``statement`` (with its decorators) covers one of the sorted ``lines``."""
    first = _first_line(statement)
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= (statement.end_lineno or statement.lineno)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


def target_paths(target: ast.expr, path: tuple[int | str, ...] = ()) -> Iterator[tuple[str, tuple[int | str, ...]]]:
    """The names a target binds and where: ``a, (b, *c)`` gives a (0,), b (1, 0), c (1, "*")."""
    for leaf, where in _leaves(target, path):
        if isinstance(leaf, ast.Name):
            yield leaf.id, where


def _leaves(target: ast.expr, path: tuple[int | str, ...] = ()) -> Iterator[tuple[ast.expr, tuple[int | str, ...]]]:
    """What a target stores into (names, attributes, items) and where in the value."""
    if isinstance(target, (ast.Tuple, ast.List)):
        starred = any(isinstance(e, ast.Starred) for e in target.elts)
        for position, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                yield from _leaves(element.value, (*path, "*"))
            else:
                # After a starred element, positions count from the end: unknown here.
                yield from _leaves(element, (*path, position if not starred else "?"))
    else:
        yield target, path


class Unpacked:
    """The value a tuple target unpacks (``a, b = value``), as a loop's iterable stands in."""

    def __init__(self, value: ast.expr) -> None:
        self.value = value


class _Each:
    """``vals.extend(source)``: every element of ``source`` goes in."""

    def __init__(self, value: ast.expr) -> None:
        self.value = value


_UNKNOWN = _Each(ast.Constant(None))  # an element write we cannot read (``insert`` with keywords)
