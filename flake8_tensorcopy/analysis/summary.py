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
gates (``gates.py``) and the rules' evaluator (``evaluator.py``) read the same answers,
so the prefilter's decisions and the findings cannot disagree.
"""
from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator

from ..imports import COMPOUND_STATEMENTS, FUNCTION_DEFS, ImportTable, child_blocks, iter_statements
from .ast_patterns import attributes_loaded_back, legacy_scalar, spans_any, statement_first_line, stored_targets, target_paths, written_in_place
from .class_facts import ClassFacts
from .own_code import OwnCode, own_code
from .project import Project, locate
from .scope_facts import ScopeFacts
from .lazy_bodies import LazyBody, unread
from .torch_api import MODULE_SELF_METHODS
from .values import ClassObject, Instance, Value, join
from .vocabulary import chooses_cpu_device, is_module_base


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


def _agreed(values: list[Value]) -> tuple | None:
    """A module's answer for what its calls pass: () for no call, (what they all pass,), or
    None when they disagree."""
    if not values:
        return ()
    value = join(values)
    return (value,) if value is not None else None


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
    if isinstance(value, ClassObject) and not value.module:
        return ClassObject(value.cls, module)
    if isinstance(value, tuple):
        return tuple(_rebased(element, module) for element in value)
    return value


# Methods that libraries call on the objects they are handed (an nn.Module's ``forward``
# through ``__call__``, an optimizer's ``step`` by a scaler or a scheduler, a Lightning
# hook, scikit-learn's ``fit``): their calls are not all in the project.
_CALLED_BY_LIBRARIES = MODULE_SELF_METHODS | frozenset(
    """
    forward backward step zero_grad state_dict load_state_dict extra_repr reset_parameters
    parameters named_parameters buffers named_buffers children named_children modules
    named_modules register_buffer register_parameter add_module get_submodule update reset
    fit predict predict_proba transform fit_transform score training_step validation_step
    test_step predict_step configure_optimizers setup teardown prepare_data get_lr
    get_last_lr collate run call build compute encode decode read write close flush
    """.split()
)
_PLAIN_BASES = frozenset({"object", "torch.nn.Module", "torch.nn.modules.module.Module"})
_MAX_CALL_INDEXES = 256  # the words whose calls one summary keeps (a server keeps summaries)
# Modules beyond the file that may call one of its functions and are read to know what they
# pass: a name spelled in more importers than these is too common to follow (unknown).
MAX_CALLER_MODULES = 8
# How far up the import graph a device choice is looked for (the helper, the training
# code that uses it, the script that runs that), and in how many modules at most.
_CPU_CHOICE_HOPS = 2
_MAX_CPU_CHOICE_MODULES = 48


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
        self._unindexed: dict[str, LazyBody] = {}  # qualname prefix -> a def's unread body
        self._starts: dict[int, str] = {}  # first line of a def/class -> qualname of its parent
        self._qualnames: dict[int, str] = {}  # id(def or class) -> its qualname
        self._facts: dict[int, ScopeFacts] = {}
        self._own_code: dict[int, OwnCode] = {}
        self._classes: dict[str, ClassFacts] = {}
        self._returns: dict[str, Value] = {}
        self._writes: dict[str, frozenset[int]] = {}
        self._in_progress: set[str] = set()
        self._restored: frozenset[str] | None = None
        self._cpu_run: bool | None = None
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
        return self._indexed(lambda prefix, body: True)

    def _defined(self, qualname: str) -> list[ast.AST]:
        """The defs and classes spelled ``qualname``, reading only the bodies that may hold it:
        those of the defs its dotted prefixes name (looked up, not searched: it is asked often)."""
        self._build_index()
        prefix = ""
        for part in qualname.split(".")[:-1]:
            prefix += part + "."
            if (body := self._unindexed.pop(prefix, None)) is not None:
                self._index(body, prefix)
        return self._definitions.get(qualname, [])

    def qualname(self, definition: ast.AST) -> str:
        """The qualified name of a def or class of the module: "Trainer.fit"."""
        self._build_index()
        if id(definition) not in self._qualnames:  # in a body indexed once read
            self._indexed(lambda prefix, body: body.parsed)
        return self._qualnames[id(definition)]

    def _index(self, block: list[ast.stmt], prefix: str) -> None:
        for statement in block:
            if isinstance(statement, (*FUNCTION_DEFS, ast.ClassDef)):
                qualname = f"{prefix}{statement.name}"
                self._definitions.setdefault(qualname, []).append(statement)
                self._qualnames[id(statement)] = qualname
                self._starts[statement_first_line(statement)] = prefix[:-1]
                if unread(statement.body):  # an imported module's def: indexed when asked for
                    self._unindexed[qualname + "."] = statement.body
                else:
                    self._index(statement.body, qualname + ".")
            elif isinstance(statement, COMPOUND_STATEMENTS):  # the others hold no statement
                for inner in child_blocks(statement):
                    self._index(inner, prefix)

    def _indexed(self, wanted: Callable[[str, LazyBody], bool]) -> dict[str, list[ast.AST]]:
        """:attr:`definitions`, with the defs of the bodies left unread by :meth:`_index`
        that ``wanted`` (given the body's qualname prefix and the body) picks, read for it."""
        self._build_index()
        while chosen := [prefix for prefix, body in self._unindexed.items() if wanted(prefix, body)]:
            for prefix in chosen:
                self._index(self._unindexed.pop(prefix), prefix)
        return self._definitions

    def definition(self, qualname: str) -> ast.AST | None:
        """The one def or class named ``qualname``; None when absent or redefined."""
        found = self._defined(qualname)
        return found[0] if len(found) == 1 else None

    def enclosing(self, first_line: int) -> str:
        """The qualname of the scopes around the def or class that starts at ``first_line``
        ("" at module level): a chunk parsed on its own starts there."""
        self._indexed(lambda prefix, body: True)
        return self._starts.get(first_line, "")

    @functools.cached_property
    def legacy_scalars(self) -> bool:
        """Whether the file reads ``loss.data[0]`` anywhere, as code written before PyTorch
        0.4 did (see ``legacy_scalar``)."""
        if self._source is not None and ".data[" not in self._source:
            return False
        return any(type(node) is ast.Subscript and legacy_scalar(node) for node in ast.walk(self.tree))

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
        method = self._method_of(instance.cls, "")
        return self.returns(method) if method is not None else None

    def _method_of(self, cls: str, name: str) -> str | None:
        """The qualname of the method that ``instance.name(...)`` runs for an instance of the
        module's class ``cls`` (``name`` "": calling the instance, its ``__call__``, or a torch
        module's ``forward``), from the class or a base class the module defines."""
        wanted = (name,) if name else ("__call__", "forward") if self._is_torch_module(cls) else ("__call__",)
        for klass in self._lineage(cls):
            methods = {item.name for item in klass.body if isinstance(item, FUNCTION_DEFS)}
            found = next((method for method in wanted if method in methods), None)
            if found is not None:
                return f"{self.qualname(klass)}.{found}"
        return None

    def graph_free_call(self, instance: Instance, name: str) -> bool:
        """Whether ``instance.name(...)`` (``name`` "": calling the instance) returns only
        values with no autograd graph: the method runs under ``torch.no_grad()``/
        ``inference_mode`` (see :meth:`returns_without_graph`)."""
        if instance.module and instance.module != self.path:
            return self._abroad(instance, "graph_free_call", name) is True
        method = self._method_of(instance.cls, name)
        return method is not None and self.returns_without_graph(method)

    def returns_without_graph(self, qualname: str) -> bool:
        """Whether the function ``qualname`` of the module returns a value, and every value it
        returns is made under ``torch.no_grad()`` or ``inference_mode`` (its decorator, or a
        ``with`` around each ``return``): an evaluation wrapper, whose results hold no graph."""
        definition = self.definition(qualname)
        if not isinstance(definition, FUNCTION_DEFS):
            return False
        returns = [
            quiet for node, _, _, quiet, _ in self.own_code(definition).nodes
            if isinstance(node, ast.Return) and node.value is not None
        ]
        return bool(returns) and all(returns)

    def torch_module_lineage(self, cls: str) -> list[ast.ClassDef]:
        """The module's class ``cls`` and its bases that the module defines, nearest first,
        when it derives from ``torch.nn.Module``; else empty."""
        return self._lineage(cls) if self._is_torch_module(cls) else []

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
        facts = self._class_facts(instance.cls)
        return facts.attribute(name) if facts is not None else None

    def _class_facts(self, cls: str) -> ClassFacts | None:
        facts = self._classes.get(cls)
        if facts is None:
            node = self.definition(cls)
            if not isinstance(node, ast.ClassDef):
                return None
            facts = self._classes[cls] = ClassFacts(self, node, cls)
        return facts

    def stored_lambda(self, instance: Instance, name: str) -> ast.Lambda | None:
        """The lambda that ``instance.name`` holds (see ``ClassFacts.stored_lambda``), for a
        class of this module: its body is read where it is called."""
        if instance.module and instance.module != self.path:
            return None
        facts = self._class_facts(instance.cls)
        return facts.stored_lambda(name) if facts is not None else None

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
                rebound.update(name for target in stored_targets(inner) for name, _ in target_paths(target))
                if name := written_in_place(inner, self.imports):
                    written.add(name)
            found = frozenset(i for i, name in enumerate(positional) if name in written and name not in rebound)
        self._writes[function] = found
        return found

    def stored_values(self, cls: str) -> dict[str, list[Value | str]]:
        """attribute -> what each store in the methods of the class ``cls`` itself gives
        (its bases' aside): what ``scripts/generate_library_api.py`` reads of a library."""
        node = self.definition(cls)
        return ClassFacts(self, node, cls).stored() if isinstance(node, ast.ClassDef) else {}

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
                    self.project.ask(self, path, ("star_exports",), ModuleSummary.star_exports) or {}
                )
        return aliases

    def star_exports(self) -> dict[str, str]:
        """What ``from this_module import *`` binds: the names of ``__all__``, else every
        public name the module binds at its top level (imports included), each as a dotted
        name that the importer's table can hold (absolute from the project's root). Read
        from the top level alone, so the imports in the module's functions are not among
        them (and their bodies are not parsed for it)."""
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
            if name in self.imports.aliases and not self._defined(name):  # re-exported
                return self.imported_call(self.imports.aliases[name])
            held = self.facts(self.tree).name_value(name)
            return self.instance_call(held) if isinstance(held, Instance) else None
        return None

    def exported_value(self, name: str) -> Value:
        """What this module's module-level ``name`` holds, asked from another module: a class
        it defines (once) is the class itself."""
        if "." in name:
            return None
        if self._defined(name):
            if isinstance(self.definition(name), ast.ClassDef) and len(self.facts(self.tree).bindings.get(name, ())) == 1:
                return ClassObject(name)
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
        here = [self.facts(scope).value_at(argument) for argument, scope in arguments]
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
        (by name), and of those only the ones that spell the name are read. Another method's
        callers are found by its name (:meth:`_passed_to_method`)."""
        if _called_in_file_only(qualname):
            return self._passed_to_method(qualname, parameter, signature)
        owner, _, name = qualname.rpartition(".")
        callers = self._importers_spelling(owner or name)
        if callers is None:
            return None
        question = ("passes", self.path, qualname, parameter, signature.key())
        return self._ask_callers(callers, question, lambda home: home.passes(self.path, qualname, parameter, signature))

    def _ask_callers(self, callers: list[str], question: tuple,
                     answer: Callable[[ModuleSummary], tuple | None]) -> list[Value] | None:
        """What each module of ``callers`` passes, as ``answer`` works it out there (kept
        under ``question``), in this module's terms; None when one cannot tell, or the hops
        between modules run out."""
        values: list[Value] = []
        for path in callers:
            with self.project.hop() as allowed:
                if not allowed:
                    return None
                passed = self.project.ask(self, path, question, answer)
            if not isinstance(passed, tuple):
                return None
            values += [_rebased(value, path) for value in passed]
        return values

    def _passed_to_method(self, qualname: str, parameter: str, signature: _Signature) -> list[Value] | None:
        """What the calls of the project's other modules pass to the method ``qualname`` for
        ``parameter`` ([]: none is read, the file's own calls are all there is; None: unknown).
        An instance reaches modules that never import its class (a trainer is handed the
        model), so its callers are found by the method's name, and read only when that name
        leads to no other method: the project defines it once (:meth:`_sole_method`), and at
        most ``MAX_CALLER_MODULES`` other modules spell ``.name``; then each ``x.name(...)``
        there is taken for a call of it. A name defined twice (``update``, ``step``) keeps the
        file's calls alone, as before, for no module of the project is read for it."""
        name = qualname.rpartition(".")[2]
        if self.project is None or not self._sole_method(qualname):
            return []  # the file alone (no project): its own calls
        spelled = self.project.method_spellings(name, asker=self)
        if spelled is None:
            return []  # read the text of too many modules, or spelt where a call may go unseen
        definers, spellers = spelled
        callers = sorted(spellers - {self.path})
        if definers != {self.path} or not callers:
            return []
        if len(callers) > MAX_CALLER_MODULES:
            return None
        question = ("passes_method", self.path, qualname, parameter, signature.key())
        return self._ask_callers(callers, question, lambda home: home.passes_method(name, parameter, signature))

    def _sole_method(self, qualname: str) -> bool:
        """Whether no call of the method ``qualname`` can come from a library: its name is
        public and none a library calls on the objects it is handed (``forward``, ``step``,
        ``update``, ``on_...``), the module defines nothing else by that name, and its class
        derives from nothing but ``object``, ``torch.nn.Module`` or the module's own such
        classes (a library's base class may call its methods)."""
        owner, _, name = qualname.rpartition(".")
        if not owner or "." in owner or name.startswith(("_", "on_")) or name in _CALLED_BY_LIBRARIES:
            return False
        defined = self._indexed(lambda prefix, body: body.spells(name))
        if sum(len(found) for spelled, found in defined.items() if spelled.rpartition(".")[2] == name) != 1:
            return False
        for klass in self._lineage(owner):
            if klass.keywords:  # a metaclass
                return False
            for base in klass.bases:
                if isinstance(base, ast.Name) and isinstance(self.definition(base.id), ast.ClassDef):
                    continue
                if self.imports.qualify_expression(base) not in _PLAIN_BASES:
                    return False
        return True

    def passes_method(self, name: str, parameter: str, signature: _Signature) -> tuple | None:
        """What this module's calls ``x.name(...)`` pass for ``parameter``, asked from the
        module of the only method of the project so named: () for no call, (what they all
        pass,), or None when unknown (a call passes something else or nothing, or the module
        reads ``x.name`` other than by calling it: a callback)."""
        callers, escaping = self._call_index((name,))
        if "." + name in escaping:
            return None
        values = []
        for call, scope in callers.get("." + name, ()):
            if not signature.binds(call):
                continue  # not a call of that method (it would fail): a library's of that name
            argument = signature.argument(call, parameter)
            if scope is None or argument is None:
                return None
            values.append(self.facts(scope).value_at(argument))
        return _agreed(values)

    def _importers_spelling(self, *words: str) -> list[str] | None:
        """The project's modules that import this one and spell every one of ``words``: the
        ones that may call its functions or read its attributes by those names; None when
        the importers are unknown or more than ``MAX_CALLER_MODULES`` spell them. Every
        importer becomes a dependency: an edit may make it spell them."""
        importers = self.project.importers(self.path, asker=self)
        for package in [i for i in importers or () if i.endswith("__init__.py")]:
            # ``from pkg import f`` of a package that imports it: whether f is this module's,
            # the caller's summary cannot tell (unknown), but the call must not go unseen
            importers = importers | (self.project.importers(package, asker=self) or frozenset())
        if importers is None:
            return None
        spelling = []
        for path in sorted(importers):
            self.depends_on[path] = self.project.digest(path) or ""
            if all(self.project.spells(path, word) for word in words):
                spelling.append(path)
        return spelling if len(spelling) <= MAX_CALLER_MODULES else None

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
            values.append(self.facts(scope).value_at(argument))
        return _agreed(values)

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
            if lines is not None and isinstance(node, ast.stmt) and not spans_any(node, lines):
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
        """The attributes whose kept value the file loads back into a model or optimizer
        anywhere (see :func:`attributes_loaded_back`)."""
        if self._restored is None:
            self._restored = frozenset(attributes_loaded_back(self.tree.body))
        return self._restored

    def restored_in_project(self, attribute: str) -> bool:
        """Whether the file, or a module of the project that imports it, loads the attribute
        back into a model or optimizer (an early-stopping helper's ``self.best_state``, which
        the training script restores): see :meth:`restored_attributes`."""
        if attribute in self.restored_attributes():
            return True
        if self.project is None:
            return False
        readers = self._importers_spelling(attribute, "load_state_dict")
        for path in readers or ():  # unknown or too many to read: not known to be restored
            with self.project.hop() as allowed:
                if not allowed:
                    return False
                restored = self.project.ask(
                    self, path, ("restored",), lambda home: dict.fromkeys(home.restored_attributes(), "")
                )
            if isinstance(restored, dict) and attribute in restored:
                return True
        return False

    def may_run_on_cpu(self) -> bool:
        """Whether the program this module serves may run on the CPU, where ``.cpu()`` returns
        the tensor itself: the module, a module of the project that imports it, or one that
        imports those, picks the CPU as its device (``... else "cpu"``, a ``--cpu`` flag,
        ``device = "cpu"``). Unknown importers, or too many to read, count as no such choice."""
        if self._cpu_run is None:
            # without the text (the fixer's summary), the code as ``ast`` gives it back
            own = (self._source if self._source is not None else ast.unparse(self.tree)).encode("utf-8", "surrogatepass")
            self._cpu_run = chooses_cpu_device(own) or self._importer_chooses_cpu()
        return self._cpu_run

    def _importer_chooses_cpu(self) -> bool:
        if self.project is None:
            return False
        seen, layer = {self.path}, [self.path]
        for _ in range(_CPU_CHOICE_HOPS):
            found: set[str] = set()
            for path in layer:
                found |= self.project.importers(path, asker=self) or frozenset()
            layer = sorted(found - seen)
            if len(seen) + len(layer) > _MAX_CPU_CHOICE_MODULES:
                return False
            for path in layer:
                self.depends_on[path] = self.project.digest(path) or ""
                if self.project.text_satisfies(path, chooses_cpu_device):
                    return True
            seen.update(layer)
        return False

    def defines_data_records(self) -> bool:
        """Whether the file defines a named tuple with a field called ``data``
        (``Binding = namedtuple("Binding", ("name", "data"))``): its ``.data`` is no tensor's."""
        if self._data_records is None:
            lines = self._lines_spelling(("amedtuple", "amedTuple"))
            if lines is None:
                nodes = ast.walk(self.tree)
            else:  # only the statements that spell a record factory: not a walk of the whole tree
                nodes = (
                    node
                    for statement in iter_statements(self.tree)
                    if spans_any(statement, lines) and (
                        isinstance(statement, ast.ClassDef) or not isinstance(statement, COMPOUND_STATEMENTS))
                    for node in ((statement,) if isinstance(statement, ast.ClassDef) else ast.walk(statement))
                )
            self._data_records = any(map(self._is_data_record, nodes))
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
