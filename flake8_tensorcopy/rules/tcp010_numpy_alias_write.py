"""TCP010: an in-place write to the ``.numpy()`` array of the caller's CPU tensor."""

from __future__ import annotations

import ast
from typing import NamedTuple

from ..analysis.ast_patterns import unstarred
from ..analysis.evaluator import (
    bound_names,
    first_argument,
    is_advanced_index,
    is_copying_conversion,
    method_call,
)
from ..analysis.vocabulary import (
    CONVERSION_METHODS,
    NUMPY_ARRAY_VIEWS,
    NUMPY_VIEW_FUNCTIONS,
    NUMPY_WRITING_FUNCTIONS,
    NUMPY_WRITING_METHODS,
    VIEW_METHODS,
)
from ..ast_text import cst_code, subscript_elements
from ..gates import NumpyAliasWriteGate, _array_writes
from ..rule import INPLACE_SIGNATURE, WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, call_method

# Attributes of a tensor that are views of it.
_TENSOR_VIEW_ATTRIBUTES = frozenset({"data", "T", "mT", "H", "mH", "real", "imag"})
# Of an array.
_ARRAY_VIEW_ATTRIBUTES = frozenset({"T", "real", "imag"})
# Any in-place write to an array: `a *= s`, `a[...] = v`, `out=a`, `np.random.shuffle(a)`, `a.fill(0)`.
_ARRAY_WRITE = (
    rf"{INPLACE_SIGNATURE}|out{WS}=(?!=)"
    rf"|\.{WS}(?:{'|'.join(sorted(NUMPY_WRITING_METHODS))}){WS}\("
    rf"|(?:{'|'.join(sorted(NUMPY_WRITING_FUNCTIONS))}){WS}\("
)
# Words in a docstring that say the function writes into its argument on purpose.
_WRITES_ON_PURPOSE = ("in place", "in-place", "inplace", "out-parameter", "output buffer")


class _Alias(NamedTuple):
    """A name bound to an array that shares memory with the caller's tensor ``root``."""

    numpy: ast.Call  # the `.numpy()` call (the fix makes it `.numpy().copy()`)
    root: str  # the tensor, as written: "images", "self.buffer", "batch['image']"
    root_name: str  # the plain name the root starts from ("self", "images")
    through_cpu: bool  # the chain has `.cpu()`/`.to(...)`: a CUDA tensor is copied there


class _Frame:
    """One function: its caller's names, and the names bound to aliasing arrays."""

    __slots__ = ("docstring", "qualname", "visible", "aliases", "returned", "writes")

    def __init__(
        self,
        docstring: str,
        qualname: str | None,
        visible: set[str],
        aliases: dict[str, _Alias],
        returned: set[str],
        writes: list[tuple[ast.AST, _Alias]],
    ) -> None:
        self.docstring = docstring
        self.qualname = qualname  # in the module summary (None: not summarised)
        self.visible = visible  # names that hold the caller's tensors (or containers of them)
        self.aliases = aliases
        self.returned = returned  # names the function returns while they hold no alias (tensors)
        # Writes found, reported when the function ends (a later `return t` makes them deliberate).
        self.writes = writes


class NumpyAliasWrite(Rule):
    code = "TCP010"
    name = "numpy-alias-write"
    message = (
        "in-place write to the .numpy() array of {root}: on the CPU the array shares memory with "
        "the tensor, so this also changes {root} and autograd never sees it{device}; use "
        ".numpy().copy() or an out-of-place op (a = a * s)"
    )
    triggers = (rf"\.{WS}numpy{WS}\(", _ARRAY_WRITE)
    gate = NumpyAliasWriteGate()
    # Opt-in until its precision on real code reaches 98% (see known problems).
    enabled_by_default = False
    docs = RuleDocs(
        what="Flags an in-place write (`a *= s`, `a[...] = v`, `a += 1`, `out=a`, "
        "`np.random.shuffle(a)`, `a.fill(v)`, `a.sort()`, `np.copyto(a, v)`...) to a name bound to "
        "`t.numpy()`, `t.cpu().numpy()`, `t.detach().cpu().float().numpy()`, `t.numpy(force=True)` "
        "(views, basic indexing and aliasing conversions in the chain, array views such as "
        "`.transpose(1, 2, 0)` or `np.transpose(a, ...)` after it) before the name is bound again, where `t` is the caller's: "
        "a parameter of the function, an attribute of one (`self.buffer`), an element of one "
        "(`batch['image']`, `images[i]`, `img, info = batch['seg']`), or a loop variable over one "
        "(also through `enumerate`, `zip`, `.items()`, `.values()` and `tqdm(...)`).",
        why="`.numpy()` of a CPU tensor shares its memory, and `.cpu()`, `.detach()`, `.float()` "
        "on a float32 CPU tensor return the tensor itself: `a = images.cpu().float().numpy(); "
        "a *= 255` multiplies the caller's batch by 255. Autograd cannot see the write "
        "(`t._version` stays 0), so a tensor saved for backward gives silently wrong gradients, "
        "and a dataset or a batch that is plotted, saved or evaluated again drifts "
        "(pytorch/vision#680, #217). On CUDA `.cpu()` copies, so the same line is harmless "
        "there: code that is right on the GPU corrupts data on a CPU-only machine.",
        example="import numpy as np\nimport torch\n\n\n"
        "def to_uint8(images: torch.Tensor) -> np.ndarray:\n"
        "    array = images.cpu().float().numpy()\n    array *= 255\n    return array.astype(np.uint8)\n",
        use_instead="import numpy as np\nimport torch\n\n\n"
        "def to_uint8(images: torch.Tensor) -> np.ndarray:\n"
        "    array = images.cpu().float().numpy().copy()\n    array *= 255\n    return array.astype(np.uint8)\n",
        fixture="fixtures/tcp010_numpy_alias_write.py",
        known_problems="Off by default: a new rule ships on only at 98% precision or more on real code. "
        "Measured on the 40 repositories of `bench/accuracy/` where the shape occurs (every name "
        "bound to `.numpy()` and written in place, labelled blind): {accuracy} Its findings "
        "include the YOLO family's `plot_images` scaling the caller's batch, detectron2's "
        "panoptic evaluator shifting the model's output, fairseq's noise augmentation writing "
        "into the caller's waveforms and 3D detectors rewriting the caller's boxes; its false "
        "findings, detections of a CUDA-only model, where `.cpu()` copies. Misses include a "
        "tensor held in a local dict across repetitions (`model_kwargs['y']['lengths']`). "
        "Only names bound with `=` in one function are followed, in the order of the source "
        "(a rebinding in one branch counts as done); a write straight into `t.numpy()[i] = v` "
        "(a deliberate write into the tensor) is not flagged. Not flagged: a tensor the function "
        "made itself (`torch.zeros`, a model's output, any call's result), a chain through "
        "`.clone()`, `.copy()`, `.astype()`, arithmetic or `np.array(...)` (copies), an advanced "
        "index, a gradient (`p.grad.numpy()`, written through on purpose), and deliberate "
        "write-through: a function that returns the tensor it wrote through, or whose docstring "
        "says it works in place; with the project analysis, a parameter for which every call in "
        "the file passes a tensor the caller made and never reads again (`pi = actor(obs); "
        "act(pi)`). A `.to(...)`, `.float()` or `.reshape()` in the chain copies for some devices, dtypes or layouts: the finding still stands, the write changes the "
        "caller's tensor whenever no conversion was needed.",
        fix_safety="Unsafe (the caller's tensor no longer changes, which is the point, but code "
        "that relied on the write-through would break): `.numpy()` becomes `.numpy().copy()`.",
    )
    flagged = (
        Example("def f(images):\n    a = images.cpu().float().numpy()\n    a *= 255\n", [(3, 5)]),
        Example(
            "import numpy as np\ndef f(batch):\n    img = batch.numpy()\n    view = np.transpose(img[0], (1, 2, 0))\n"
            "    view *= 255\n",
            [(5, 5)],
        ),
        Example("def f(t):\n    a = t.numpy()\n    a[0] = 1\n", [(3, 5)]),
        Example("def f(self):\n    a = self.buffer.detach().cpu().numpy()\n    a += 1\n", [(3, 5)]),
        Example("def f(batch):\n    img = batch['image'][0].numpy(force=True)\n    img[img > 1] = 1\n", [(3, 5)]),
        Example(
            "import numpy as np\ndef f(x):\n    a = x.numpy().transpose(1, 2, 0)\n    np.clip(a, 0, 1, out=a)\n",
            [(4, 5)],
        ),
        Example("import numpy as np\ndef f(x):\n    a = x.numpy()\n    np.random.shuffle(a)\n", [(4, 5)]),
        Example("def f(images):\n    for img in images:\n        a = img.cpu().numpy()\n        a.fill(0)\n", [(4, 9)]),
        Example(
            "def f(outputs):\n    for key, out in tqdm(outputs.items()):\n        boxes, scores = out['det']\n"
            "        b = boxes.cpu().numpy()\n        b[:, 0] += 1\n",
            [(5, 9)],
        ),
        Example(
            "import torch\ndef f(images):\n    if isinstance(images, torch.Tensor):\n"
            "        images = images.cpu().float().numpy()\n    images *= 255\n    return images\n",
            [(5, 5)],
        ),
    )
    clean = (
        "def f(t):\n    a = t.cpu().numpy().copy()\n    a *= 255\n",
        "def f(t):\n    a = t.clone().numpy()\n    a *= 255\n",
        "import numpy as np\ndef f(t):\n    a = np.array(t.numpy())\n    a *= 255\n",
        "def f(t):\n    a = t.numpy().astype('float32')\n    a *= 255\n",
        "def f(t):\n    a = (t * 2).numpy()\n    a *= 255\n",
        "def f(t):\n    a = t.numpy()\n    a = a * 255\n    a += 1\n",
        "import torch\ndef f():\n    t = torch.zeros(3)\n    a = t.numpy()\n    a += 1\n",
        "def f(model, x):\n    a = model(x).cpu().numpy()\n    a *= 2\n",
        "def f(p):\n    g = p.grad.numpy()\n    g[:] = 0\n",
        "def f(t, v):\n    a = t.numpy()\n    a[:] = v\n    return t\n",
        "def f(t, v):\n    '''Write v into t in place.'''\n    a = t.numpy()\n    a[:] = v\n",
        "def f(t):\n    a = t.numpy()\n    b = a[[0, 2]]\n    b += 1\n",
        "def f(t):\n    a = t.numpy()\n    print(a.sum())\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self.frames: list[_Frame] = []

    # -- scopes -------------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        arguments = node.args
        every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
        docstring = _docstring(node)
        visible = {p.arg for p in every if p is not None}
        # The qualname, not the facts: asking the summary for them would cost the language server its reuse.
        self.frames.append(_Frame(docstring.lower(), self.inference.qualname, visible, {}, set(), []))

    def leave_FunctionDef(self, node: ast.FunctionDef) -> None:
        frame = self.frames.pop()
        for write, alias in frame.writes:
            if not self._on_purpose(frame, alias) and not self._callers_drop(frame, alias):
                self._report(write, alias)

    def visit_Return(self, node: ast.Return) -> None:
        if self.frames and node.value is not None:
            frame = self.frames[-1]
            frame.returned.update(name for name in _names_in(node.value) if name not in frame.aliases)

    # -- bindings -----------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> None:
        self._check_writes(node)
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        unpacked = [n for t in node.targets if isinstance(t, (ast.Tuple, ast.List)) for n in bound_names(t)]
        self._bind(names, node.value, others=[n for t in node.targets for n in bound_names(t)], unpacked=unpacked)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Subscript):
            self._check_writes(node)
        elif isinstance(node.target, ast.Name) and node.value is not None:
            self._bind([node.target.id], node.value)

    def visit_For(self, node: ast.For) -> None:
        if not self.frames:
            return
        frame = self.frames[-1]
        names = list(bound_names(node.target))
        self._unbind(names)
        # for img in images / for i, img in enumerate(images) / for a, b in zip(xs, ys)
        for name, iterable in _loop_pairs(node.target, node.iter):
            if self._root_name(iterable) in frame.visible and not _is_grad(iterable):
                frame.visible.add(name)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._unbind(list(bound_names(node.target)))

    def _bind(self, names: list[str], value: ast.expr, others: list[str] = (),
              unpacked: list[str] = ()) -> None:
        """``names = value``: an alias when ``value`` is one, a view of the caller's tensor
        when it is one; anything else ends what the names held. ``unpacked``: the names of
        ``a, b = value``, the caller's when ``value`` is (``img, info = batch["seg"]``)."""
        if not self.frames or not (names or others):
            return
        frame = self.frames[-1]
        alias = self._alias_of(value)
        view_of_caller = alias is None and self._caller_view(value)
        held_by_caller = view_of_caller or (isinstance(value, ast.Name) and value.id in frame.visible)
        self._unbind([*names, *others])
        for name in names:
            if alias is not None:
                frame.aliases[name] = alias
            elif held_by_caller:  # x = images, x = images[0], x = self.buffer.cpu()
                frame.visible.add(name)
        if held_by_caller:
            frame.visible.update(unpacked)

    def _unbind(self, names: list[str]) -> None:
        if self.frames:
            frame = self.frames[-1]
            for name in names:
                frame.aliases.pop(name, None)
                frame.visible.discard(name)

    # -- writes -------------------------------------------------------------------
    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_writes(node)

    def visit_Call(self, node: ast.Call) -> None:
        self._check_writes(node)

    def _check_writes(self, node: ast.AST) -> None:
        """The arrays ``node`` writes into in place (what the gate looks for): ``a *= s``,
        ``a[i] = v``, ``out=a``, ``a.fill(0)``, ``np.random.shuffle(a)``."""
        if not self.frames:
            return
        frame = self.frames[-1]
        for written in _array_writes(node):
            if isinstance(written, ast.Name) and (alias := frame.aliases.get(written.id)) is not None:
                frame.writes.append((node, alias))

    def _report(self, node: ast.AST, alias: _Alias) -> None:
        device = "; on CUDA .cpu() copies, so there it is harmless" if alias.through_cpu else ""
        message = self.message.format(root=f"`{alias.root}`", device=device)
        fix = FixPlan(safe=False, description=_FIX_DESCRIPTION, build=_build_fix, anchors=(alias.numpy,))
        self.report(node, message, fix)

    def _code(self, node: ast.expr) -> str:
        """``node`` as the source spells it (as LibCST did: see ``ast_text.cst_code``)."""
        lines = self.lines
        if lines is None:
            return ast.unparse(node)
        statements = self.context.statements
        line = lines[statements[-1].lineno - 1] if statements else ""
        return cst_code(lines, node, line[: len(line) - len(line.lstrip())])

    @staticmethod
    def _on_purpose(frame: _Frame, alias: _Alias) -> bool:
        """Deliberate write-through: the function returns the tensor it wrote through, or
        says it works in place."""
        return alias.root in frame.returned or any(
            words in frame.docstring for words in _WRITES_ON_PURPOSE
        )

    def _callers_drop(self, frame: _Frame, alias: _Alias) -> bool:
        """Every call of the file passes, for the parameter written through, a value its
        caller made and never reads again (``pi = actor(obs); act(pi)``): no one sees the write."""
        summary = self.inference.summary
        if summary is None or frame.qualname is None or alias.root != alias.root_name:
            return False
        arguments = summary.passed_arguments(frame.qualname, alias.root)
        return bool(arguments) and all(_dropped(argument, scope) for argument, scope in arguments)

    # -- chains -------------------------------------------------------------------
    def _alias_of(self, value: ast.expr) -> _Alias | None:
        """The alias ``value`` is: array views of ``<caller's tensor>.<chain>.numpy()``, or of
        a name bound to such an array."""
        node = value
        while True:  # the array side: a[1:], a.transpose(1, 2, 0), a.T, np.transpose(a, ...)
            if isinstance(node, ast.Subscript):
                if is_advanced_index(node, self.inference) or _has_array_index(node, self.lines):
                    return None
                node = node.value
            elif isinstance(node, ast.Attribute) and node.attr in _ARRAY_VIEW_ATTRIBUTES:
                node = node.value
            elif (viewed := self._numpy_view_of(node)) is not None:
                node = viewed
            elif (called := method_call(node)) is not None and called[1] in NUMPY_ARRAY_VIEWS:
                node = called[0]
            else:
                break
        if isinstance(node, ast.Name):
            return self.frames[-1].aliases.get(node.id)
        called = method_call(node)
        if called is None or called[1] != "numpy":
            return None
        numpy_call = node
        node, through_cpu = called[0], False
        while True:  # the tensor side: views, basic indexing, aliasing conversions
            if isinstance(node, ast.Subscript):
                if is_advanced_index(node, self.inference):
                    return None
                if _keyed(node, self.lines):
                    break  # batch["image"]: the root is the item
                node = node.value
            elif isinstance(node, ast.Attribute) and node.attr in _TENSOR_VIEW_ATTRIBUTES:
                node = node.value
            elif (called := method_call(node)) is not None and called[1] in VIEW_METHODS | CONVERSION_METHODS:
                if called[1] in CONVERSION_METHODS and (is_copying_conversion(node) or called[1] == "type"):
                    return None
                through_cpu = through_cpu or called[1] in ("cpu", "to")
                node = called[0]
            else:
                break
        if _is_grad(node) or self._root_name(node) not in self.frames[-1].visible:
            return None
        return _Alias(numpy_call, self._code(node), self._root_name(node), through_cpu)

    def _numpy_view_of(self, node: ast.expr) -> ast.expr | None:
        """``a`` of ``np.transpose(a, (1, 2, 0))``, ``np.asarray(a)``: numpy functions that
        return a view of their argument."""
        if not isinstance(node, ast.Call):
            return None
        qualified = self.inference.qualify(node.func) or ""
        module, _, function = qualified.rpartition(".")
        return first_argument(node) if module == "numpy" and function in NUMPY_VIEW_FUNCTIONS else None

    def _caller_view(self, value: ast.expr) -> bool:
        """``value`` may be the caller's tensor (or container) itself: ``images[i]``,
        ``self.buffer``, ``x.view(-1)``, ``batch['image'].cpu()``."""
        node = value
        while True:
            if isinstance(node, ast.Subscript):
                if is_advanced_index(node, self.inference):
                    return False
                node = node.value
            elif isinstance(node, ast.Attribute):
                node = node.value
            elif (called := method_call(node)) is not None and called[1] in VIEW_METHODS | CONVERSION_METHODS:
                if is_copying_conversion(node):
                    return False
                node = called[0]
            else:
                break
        return isinstance(node, ast.Name) and node is not value and node.id in self.frames[-1].visible

    @staticmethod
    def _root_name(node: ast.expr) -> str | None:
        """The plain name an attribute or item chain starts from: ``self`` of ``self.x[0]``."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None


_FIX_DESCRIPTION = "copy the array: .numpy().copy()"


def _build_fix(site: FixSite) -> Fix:
    """The ``.numpy()`` call (``site.nodes[0]``) made ``.numpy().copy()``."""
    (numpy_call,) = site.nodes
    return Fix(replacements=((numpy_call, call_method(numpy_call, "copy")),), safe=False, description=_FIX_DESCRIPTION)


def _docstring(node: ast.FunctionDef) -> str:
    """The function's docstring as written (LibCST's ``get_docstring(clean=False)``)."""
    body = node.body
    if body and isinstance(body[0], ast.Expr):
        value = body[0].value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return ""


def _positional(call: ast.Call) -> ast.expr | None:
    """The call's first argument when it is a plain positional one (not ``*args``)."""
    return call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None


def _loop_pairs(target: ast.expr, iterable: ast.expr):
    """(name, what it iterates) for ``for x in xs``, ``enumerate(xs)``, ``zip(xs, ys)``,
    ``d.values()``, ``d.items()``, and any of these in ``tqdm(...)``."""
    while (wrapped := _progress_bar(iterable)) is not None:
        iterable = wrapped
    called = method_call(iterable)
    if called is not None and called[1] == "values" and not (iterable.args or iterable.keywords):
        iterable = called[0]
    if isinstance(target, ast.Name):
        yield target.id, iterable
        return
    elements = [unstarred(e) for e in target.elts] if isinstance(target, (ast.Tuple, ast.List)) else []
    if called is not None and called[1] == "items" and not (iterable.args or iterable.keywords) and len(elements) == 2:
        yield from _loop_pairs(elements[1], called[0])
        return
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)) or not elements:
        return
    args = [a for a in iterable.args if not isinstance(a, ast.Starred)]
    if iterable.func.id == "enumerate" and len(elements) == 2 and args:
        yield from _loop_pairs(elements[1], args[0])
    elif iterable.func.id == "zip" and len(elements) == len(args):
        for element, arg in zip(elements, args):
            yield from _loop_pairs(element, arg)


def _progress_bar(node: ast.expr) -> ast.expr | None:
    """``xs`` of ``tqdm(xs, ...)`` (also ``tqdm.tqdm``, ``trange`` is no wrapper)."""
    if not isinstance(node, ast.Call) or (first := _positional(node)) is None:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return first if name == "tqdm" else None


def _is_grad(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "grad"


def _keyed(node: ast.Subscript, lines: list[str] | None) -> bool:
    """``batch["image"]``: an item of a mapping, not a tensor index."""
    return any(
        isinstance(e, ast.Constant) and isinstance(e.value, (str, bytes)) for e in subscript_elements(node, lines)
    )


def _has_array_index(node: ast.Subscript, lines: list[str] | None) -> bool:
    """An index that may be an integer array or a mask (``a[idx]`` where ``idx`` is unknown
    copies when it is an array): only slices, integers and names of the loop count as basic."""
    for index in subscript_elements(node, lines):
        if isinstance(index, ast.Slice):
            continue
        if isinstance(index, ast.Constant) and (type(index.value) in (int, bool) or index.value in (None, ...)):
            continue
        if isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant) \
                and type(index.operand.value) is int:
            continue
        if isinstance(index, ast.Name):  # a[i]: an integer, most often (a loop counter)
            continue
        return True
    return False


def _names_in(node: ast.expr) -> set[str]:
    """The plain names a returned expression is made of: ``return t``, ``return a, t``."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, (ast.Tuple, ast.List)):
        return {name for element in node.elts for name in _names_in(unstarred(element))}
    return set()


def _dropped(argument: ast.expr, scope: ast.AST) -> bool:
    """``argument`` is a call's result, or a name that ``scope`` binds only to calls' results
    and reads nowhere else: what the callee does to it, no one else sees."""
    if isinstance(argument, ast.Call):
        return _made(argument)
    if not isinstance(argument, ast.Name):
        return False
    name = argument.id
    reads = stores = 0
    assigned = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and node.id == name:
            reads += isinstance(node.ctx, ast.Load)
            stores += not isinstance(node.ctx, ast.Load)
        elif isinstance(node, ast.arg) and node.arg == name:
            return False  # the caller's own parameter: its caller's tensor
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            assigned.append(node.value)
    made = all(isinstance(value, ast.Call) and _made(value) for value in assigned)
    return reads == 1 and stores == len(assigned) > 0 and made


def _made(call: ast.Call) -> bool:
    """A new tensor (``actor(obs)``), not a view or conversion of another (``t.view(-1)``, ``t.cpu()``)."""
    return not (isinstance(call.func, ast.Attribute) and call.func.attr in VIEW_METHODS | CONVERSION_METHODS)
