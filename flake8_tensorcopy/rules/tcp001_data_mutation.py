"""TCP001: a write through ``.data`` that autograd cannot see."""

from __future__ import annotations

import ast
from typing import NamedTuple

from ..analysis.evaluator import first_argument, keyword_argument, method_call, positional_arguments, subscript_indices
from ..analysis.vocabulary import (
    ends_a_step,
    initialiser_name,
    writes_first_argument,
    writes_in_place,
)
from ..gates import PARAMETER_ATTRIBUTES, DataWriteGate, _binds_other_array, _is_data
from ..lazy_cst import cst
from ..rule import WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, call_method, module_reference


class _Shape(NamedTuple):
    """How one kind of write through ``.data`` is spoken of, in each place it can be."""

    subject: str  # "in-place write through .data"
    hides: str  # "is invisible to autograd"
    itself: str  # the clean spelling, as a subject: "writing the tensor itself"
    advice: str  # the clean spelling, as advice
    redundant: bool = True  # dropping `.data` is the whole fix (not so for `p.data = t`)

    def message(self, where: str) -> str:
        """The message for a write in ``where``: "" (nothing shows that no graph is in
        play), ``no_grad``, ``initialiser``, ``after_step``, or ``fresh`` (the write's tensor is
        made in the same expression: ``x.clone().data.normal_()``)."""
        if where == NO_GRAD:
            if self.redundant:
                return (f"{self.subject} inside no_grad: `.data` is redundant there, and {self.itself} lets "
                        f"autograd raise instead of computing silently wrong gradients {_IF_SAVED}")
            return (f"{self.subject} inside no_grad {self.hides}; {self.itself} there lets autograd raise "
                    f"instead of computing silently wrong gradients {_IF_SAVED}")
        if where == FRESH:
            return (f"{self.subject} of a tensor made right there is harmless (no graph can have saved it); "
                    "cleaner: drop `.data`")
        if where == INITIALISER:
            return f"{self.subject} in initialisation is harmless (no graph has saved the tensor yet); cleaner: {self.advice}"
        if where == AFTER_STEP:
            return (f"{self.subject} after backward()/step() in this function is harmless unless a graph "
                    f"saved before is backwarded again; cleaner: {self.advice}")
        return f"{self.subject} {self.hides}: if a pending backward saved this tensor, its gradient is silently wrong; {self.advice}"


NO_GRAD, INITIALISER, AFTER_STEP, FRESH = "no_grad", "initialiser", "after_step", "fresh"
_IF_SAVED = "if a pending backward saved it"
_NO_GRAD_ADVICE = "inside `with torch.no_grad():`"
_INPLACE = _Shape("in-place write through .data", "is invisible to autograd", "writing the tensor itself",
                  f"write to the tensor itself {_NO_GRAD_ADVICE}")
_ASSIGN = _Shape("assigning .data", "swaps the tensor's storage behind autograd's back", "`p.copy_(t)`",
                 "use `with torch.no_grad(): p.copy_(t)`", redundant=False)
_OUT = _Shape("out=.data", "hides the write from autograd", "passing the tensor itself",
              f"pass the tensor itself {_NO_GRAD_ADVICE}")


def _alias(name: str, data: str) -> _Shape:
    return _Shape(f"writing `{name}` (which is `{data}`) in place", "is invisible to autograd",
                  "writing the tensor itself", f"write to the tensor itself {_NO_GRAD_ADVICE}")


def _passed(function: str, init: bool) -> _Shape:
    advice = "(nn.init already runs under no_grad)" if init else _NO_GRAD_ADVICE
    return _Shape(f"`.data` passed to in-place `{function}`", "hides the write from autograd",
                  "passing the tensor itself", f"pass the tensor itself {advice}")


def _own_writer(function: str) -> _Shape:
    return _Shape(f"`.data` passed to `{function}`, which writes it in place,", "hides the write from autograd",
                  "passing the tensor itself", f"pass the tensor itself and write under {_NO_GRAD_ADVICE[7:]}")


class _Write:
    """A finding waiting for the rest of its function: a ``.backward()`` after it makes it TCP001."""

    __slots__ = ("node", "shape", "fix", "where", "backward_follows")

    def __init__(self, node: ast.AST, shape: _Shape, fix: FixPlan | None, where: str) -> None:
        self.node = node
        self.shape = shape
        self.fix = fix
        self.where = where  # FRESH, NO_GRAD, INITIALISER or AFTER_STEP as the code before it shows, else ""
        self.backward_follows = False


class _Frame:
    """What one function (or the module's code) shows about where its writes run."""

    __slots__ = ("no_grad", "initialiser", "stepped", "writes")

    def __init__(self, no_grad: int = 0, initialiser: bool = False) -> None:
        self.no_grad = no_grad  # nesting of `with torch.no_grad():` (1 for a decorated function)
        self.initialiser = initialiser
        self.stepped = False  # a backward()/step() earlier in it
        self.writes: list[_Write] = []


class DataMutation(Rule):
    code = "TCP001"
    name = "data-mutation"
    message = _INPLACE.message("")
    # A write through `.data`, or a name bound to it alone on a line (`w = m.weight.data`),
    # which the gate reads on: written later through the name, it is one too.
    triggers = (
        rf"\.data(?:{WS}(?:\.{WS}\w*[A-Za-z0-9]_{WS}\(|\[|=|[-+*/%@&|^<>]+=|[,)])|[ \t]*+(?:\#[^\n]*+)?(?:\n|\Z))",
    )
    gate = DataWriteGate()
    docs = RuleDocs(
        what="Flags writes through `.data`: in-place methods on it, assignments to it or "
        "its items, and `.data` handed to in-place functions such as `nn.init.normal_` or `out=`.",
        why="`.data` returns a tensor that autograd does not track: a write through it does not "
        "bump the version counter. If the tensor was saved for backward, the gradient is silently "
        "wrong. With `y = (x * w).sum()`, `w.data.add_(100.)` before `y.backward()` gives "
        "`x.grad == [101, 102, 103]` instead of `[1, 2, 3]`, with no error and no warning. The "
        "same write under `torch.no_grad()` raises \"one of the variables needed for gradient "
        "computation has been modified by an inplace operation\".",
        example="import torch\n\ndef step(w: torch.Tensor, lr: float):\n    w.data.add_(-lr * w.grad)\n",
        use_instead="import torch\n\ndef step(w: torch.Tensor, lr: float):\n    with torch.no_grad():\n        w.add_(-lr * w.grad)\n",
        fixture="fixtures/tcp001_data_mutation.py",
        known_problems="`E.data = v` needs evidence that `E` is a tensor (an inferred tensor, a "
        "`.weight`/`.bias`/`.running_mean` attribute, or a loop variable over `.parameters()`), "
        "so such writes to unannotated tensors can be missed. `self.data`, `args.data` and "
        'similar are never flagged, nor `.data["key"]` (no tensor takes a string key), nor the `.data` of a name bound to '
        "what a scipy or numpy function returns (`m = sp.csr_matrix(...)`: a sparse matrix's array of "
        "values), nor, in a "
        "file that defines a named tuple with a `data` field (TensorRT bindings), a `.data` whose "
        "receiver is not known as a tensor. {accuracy} False findings there include numpy "
        "buffers of caffe blobs, a box list's dict of numpy fields and DGL graph dicts indexed by a "
        "computed key. A name bound to `.data` and written later is flagged too (`w = "
        "m.weight.data; w.mul_(s)`, `nn.init.orthogonal_(w)`; `w[i] = v` and `w += v` when `E` is "
        "evidently a tensor: a scipy matrix's `.data` takes them too), and so is a `.data` passed to "
        "a function of the file that writes that parameter in place (`weight_init(m.weight.data)` "
        "with `nn.init.orthogonal_(w)` inside). Misses include `.data` of a "
        "parameter fetched with `getattr` or reached through a getter of another module, and a "
        "name bound to `.data` in one branch only (`if isinstance(item, Parameter): item = item.data`).",
        fix_safety="`nn.init.X_(w.data)` as a statement becomes `nn.init.X_(w)` (nn.init runs under "
        "no_grad). A statement that writes through `.data` (`w.data.add_(v)`, `w.data[i] = v`, "
        "`p.data -= v`) loses `.data` and runs under no_grad: inside `with torch.no_grad():` / "
        "`torch.inference_mode()` or a function decorated with them nothing else changes; elsewhere "
        "the statement, or a run of such statements (a whole loop body), is wrapped in one "
        "`with torch.no_grad():`. `E.data -= v` becomes `E.sub_(v)` unless `E` is a local name, "
        "so that nothing is re-assigned. The fix is safe when `E` is known to be a tensor and unsafe "
        "otherwise (something else with a `.data` attribute, such as a PackedSequence, would break). "
        "No fix for `p.data = t` (copy or alias?), for in-place methods that change the shape "
        "(`unsqueeze_`, `resize_`, `t_`: through `.data` they leave the tensor alone), when the "
        "write's value is used, for `out=w.data`, or for a statement sharing its line outside a "
        "no_grad block.",
        harmless="Where no graph that saved the tensor is backwarded after the write. The site shows "
        "four such places, and their writes are reported as TCP101 (data-write-outside-graph), each "
        "with a message naming its place: inside `with torch.no_grad():` / `torch.inference_mode()` or "
        "a function decorated with them (`.data` is redundant there; the tensor itself would let "
        "autograd raise if a pending backward saved it); in initialisation (`__init__`, "
        "`reset_parameters`, a function with an `init`/`initialize` word in its name, `nn.init.X_(w.data)`: "
        "no graph has saved the tensor yet); after the `.backward()` or the optimizer's `.step()` of "
        "the same function, with no backward after the write (the next forward records the new "
        "values; only a graph saved before and backwarded again sees them); on a tensor made in the "
        "same expression (`x.clone().data.normal_()`, `torch.zeros_like(x).data.fill_(1)`: no graph "
        "can have saved it). A `.backward()` after the write in the same function keeps the first "
        "three TCP001. To keep only the findings where harm is possible: "
        "`extend-ignore = TCP1` (flake8's configuration, or `--extend-ignore TCP1`; the CLI and the "
        "language server's `ignore` read the same codes).",
        noqa="When the write must bypass autograd on purpose and the code cannot show it: an update "
        "helper called only after the step (an EMA of weights, weight clipping, a manual SGD step) "
        "that is not decorated with `@torch.no_grad()` and has no backward of its own. Better than "
        "`# noqa: TCP001` there: decorate it with `@torch.no_grad()` and drop `.data` (the finding "
        "goes, and autograd stays loud if a pending backward saved the tensor). Never silence one "
        "between a forward and its backward: that is the silently wrong gradient.",
    )
    flagged = (
        Example("def f(w):\n    w.data.add_(1.0)\n", [(2, 5)],
                message="if a pending backward saved this tensor, its gradient is silently wrong"),
        # A backward after the write in the same function: a graph before it may have saved it.
        Example("def f(model, x, w):\n    y = model(x).sum()\n    w.data.add_(1.0)\n    y.backward()\n", [(3, 5)],
                message="if a pending backward saved this tensor"),
        Example("import torch\ndef f(model, x, w):\n    y = model(x).sum()\n    with torch.no_grad():\n"
                "        w.data.add_(1.0)\n    y.backward()\n", [(5, 9)],
                message="inside no_grad: `.data` is redundant there"),
        Example("def init_and_fit(model, x, w):\n    w.data.normal_()\n    model(x).sum().backward()\n", [(2, 5)],
                message="if a pending backward saved this tensor"),
        # An environment's or a scheduler's step ends no training step.
        Example("def act(env, a, w):\n    env.step(a)\n    w.data.zero_()\n", [(3, 5)]),
        Example("def f(m):\n    m.weight.data = torch.zeros(3)\n", [(2, 5)]),
        Example("def f(model, lr):\n    for p in model.parameters():\n        p.data -= lr * p.grad\n", [(3, 9)]),
        Example("def f(w):\n    w.data[0] = 99\n", [(2, 5)]),
        # Rebound from a scipy matrix to a tensor before the write: the tensor's `.data`.
        Example("import scipy.sparse as sp\nimport torch\ndef f(adj):\n    adj = sp.coo_matrix(adj)\n"
                "    adj = torch.from_numpy(adj.toarray())\n    adj.data[adj.data > 1] = 1\n", [(6, 5)]),
        Example("def f(w):\n    w.data[0].zero_()\n", [(2, 5)]),
        Example("import torch\ndef f(a, b, w):\n    torch.add(a, b, out=w.data)\n", [(3, 5)]),
        Example("import torch.distributed as dist\ndef f(p):\n    dist.all_reduce(p.grad.data)\n", [(3, 5)]),
        Example("def f(new, old):\n    new.running_mean.data = old.running_mean.data\n", [(2, 5)],
                message="assigning .data swaps the tensor's storage behind autograd's back: if a pending"),
        # A name bound to `.data` and written through later.
        Example("def fill(up):\n    w = up.weight.data\n    w.mul_(0.5)\n    w[0, 0] = 1.0\n", [(3, 5), (4, 5)],
                message="writing `w` (which is `up.weight.data`) in place"),
        Example("def step(p, scale):\n    grad = p.grad.data\n    grad /= scale\n", [(3, 5)]),
        # The file's own helper writes what it is given.
        Example("def orthogonalise(w):\n    w.copy_(w.T)\n"
                "def fix_all(model):\n    for m in model.modules():\n        orthogonalise(m.weight.data)\n", [(5, 9)],
                message="passed to `orthogonalise`, which writes it in place,"),
        Example("def f(gru, w):\n    gru.weight_ih_l0.data = w\n", [(2, 5)]),  # RNNs name them per layer
        Example("import torch\nfrom collections import namedtuple\nBinding = namedtuple('Binding', 'name data')\n"
                "def f(w: torch.Tensor):\n    w.data.add_(1.0)\n", [(5, 5)]),
        # A deep copy of a model's parameter list, written back pairwise (federated clients).
        Example("import copy\nclass Client:\n    def __init__(self, model):\n        self.model = model\n"
                "        self.local = copy.deepcopy(list(model.parameters()))\n    def sync(self):\n"
                "        for new, old in zip(self.model.parameters(), self.local):\n"
                "            old.data = new.data.clone()\n", [(8, 13)]),
    )
    clean = (
        "def f(x):\n    y = x.data\n    return x.data.norm() + x.data.clone()\n",
        "class D:\n    def __init__(self, data):\n        self.data = data\n        self.data.append_(1)\n",
        "def f(args, data):\n    args.data = data\n",
        "def f(w):\n    w.data.requires_grad_(False)\n",
        # A name bound to `.data` of what may be a scipy matrix or a numpy buffer: only a
        # tensor's own in-place methods tell; rebound before the write, it holds something else.
        "def f(matrix, mask):\n    values = matrix.data\n    values[mask] = 0\n    values += 1\n",
        "def f(p):\n    g = p.grad.data\n    g = g.clone()\n    g.mul_(2)\n",
        # A helper that copies what it is given before writing, or writes another parameter.
        "from torch import nn\ndef init(w, scratch):\n    w = w.clone()\n    nn.init.orthogonal_(w)\n    scratch.zero_()\n"
        "def f(m, buf):\n    init(m.weight.data, buf)\n",
        "import torch\ndef f(w: torch.Tensor):\n    with torch.no_grad():\n        w.add_(1.0)\n",
        "def f(thing, v):\n    thing.data = v\n",
        "def f(x, w):\n    x.copy_(w.data)\n",
        "def f(g, feat):\n    g.edges['cites'].data['feat'] = feat\n    g.ndata['h'].data['x'] += 1\n",
        # A scipy sparse matrix's `.data` is its numpy array of values.
        "import scipy.sparse as sp\ndef f(rows, cols, vals, n, mask):\n    m = sp.csr_matrix((vals, (rows, cols)), shape=(n, n))\n"
        "    m.data[mask] = 0\n    m.data *= 2\n    m.data[:] = m.data ** 0.5\n    return m\n",
        "import scipy.sparse as sp\ndef normalise(adj):\n    adj = sp.coo_matrix(adj)\n    adj.data[adj.data > 1] = 1\n    return adj\n",
        # A named tuple's `data` field (TensorRT bindings), in both spellings:
        "from collections import namedtuple\nBinding = namedtuple('Binding', ('name', 'shape', 'data'))\n"
        "def resize(bindings, name, shape):\n    bindings[name].data.resize_(shape)\n",
        "from typing import NamedTuple\nclass Record(NamedTuple):\n    name: str\n    data: list\n"
        "def f(records):\n    records[0].data[0] = 1\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        # Per function frame (a nested def does not run under the `with` around its
        # definition): what decides the code, the message and the fix.
        self._frames = [_Frame()]
        self._lines: list[bytes] | None = None  # the walked text, when a message first quotes it

    def visit_Call(self, node: ast.Call) -> None:
        called = method_call(node)
        if called and ends_a_step(called[1], _last_name(called[0])):
            frame = self._frames[-1]
            frame.stepped = True
            if called[1] != "step":
                for write in frame.writes:
                    write.backward_follows = True
        if called and writes_in_place(called[1]) and _through_data(called[0]) and not self._other_data(called[0]):
            fix = None
            if called[1] not in _METADATA_INPLACE:
                statement = self._expression_statement(node)
                fix = self._statement_fix(statement, called[0], f"drop .data from .{called[1]}()")
            self._write(node, _INPLACE, fix, fresh=self._made_here(_data_attribute(called[0]).value))
            return
        if called and writes_in_place(called[1]) and (data := self._data_alias(called[0])) is not None:
            self._report_alias(node, called[0], data)
            return
        function = self.inference.qualify(node.func) or ""
        target = first_argument(node)
        short = function.rpartition(".")[2]
        if writes_first_argument(function) and target is not None and (data := self._data_alias(target)) is not None:
            self._report_alias(node, target, data)
            return
        if (written := self._own_writer(node)) is not None:
            self._write(node, _own_writer(written), initialises=initialiser_name(written))
            return
        if writes_first_argument(function) and target is not None and _is_data(target) \
                and not self._other_data(target):
            init = function.startswith("torch.nn.init.")
            self._write(node, _passed(short, init), self._function_fix(node, function, target), initialises=init)
            return
        out = keyword_argument(node, "out")
        if out is not None and _is_data(out) and not self._other_data(out):
            self._write(node, _OUT)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == "data":
                if self._evidently_tensor(target.value):
                    self._write(node, _ASSIGN)  # no fix: the intent (copy or alias?) is unknown
                    return
            elif isinstance(target, ast.Subscript) and _through_data(target) and not self._other_data(target):
                fix = None
                if len(node.targets) == 1:
                    fix = self._statement_fix(node, target, "drop .data from the item assignment")
                self._write(node, _INPLACE, fix)
                return
            elif isinstance(target, ast.Subscript) and (data := self._tensor_data_alias(target)):
                self._report_alias(node, target, data)  # W = m.weight.data; W[mask] = 0
                return

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if _through_data(node.target) and not self._other_data(node.target) and (
            not isinstance(node.target, ast.Attribute) or self._evidently_tensor(node.target.value)
        ):
            self._write(node, _INPLACE, self._augmented_fix(node))
        elif (data := self._tensor_data_alias(node.target)) is not None:
            self._report_alias(node, node.target, data)  # w = p.data; w -= lr * g

    def _own_writer(self, node: ast.Call) -> str | None:
        """``weight_init(m.weight.data)``: the file's own function that writes, in place, the
        parameter that a ``.data`` is passed to (not rebound here)."""
        summary = self.inference.summary
        if summary is None or not isinstance(node.func, ast.Name) or self.inference.binding(node.func.id):
            return None
        positional = positional_arguments(node)
        written = summary.writes_arguments(node.func.id)
        if any(i < len(positional) and _is_data(positional[i]) and not self._other_data(positional[i]) for i in written):
            return node.func.id
        return None

    # -- a name bound to `.data` --------------------------------------------------
    def _data_alias(self, node: ast.expr) -> ast.Attribute | None:
        """The ``E.data`` that the name ``node`` (or the name under its items) holds."""
        while isinstance(node, ast.Subscript):
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        binding = self.inference.binding(node.id)
        value = binding.value if binding is not None else None
        if value is None or not _is_data(value) or self._other_data(value):
            return None
        return value

    def _tensor_data_alias(self, node: ast.expr) -> ast.Attribute | None:
        """As :meth:`_data_alias`, for writes that numpy arrays take too (``w[i] = v``,
        ``w += v``): only when ``E`` is evidently a tensor (a scipy matrix has ``.data``)."""
        data = self._data_alias(node)
        return data if data is not None and self._evidently_tensor(data.value) else None

    def _report_alias(self, node: ast.AST, written: ast.expr, data: ast.Attribute) -> None:
        while isinstance(written, ast.Subscript):
            written = written.value
        self._write(node, _alias(self._code(written), self._code(data)))

    # -- where the write runs: TCP001 or TCP101, and the message -----------------
    def _write(self, node: ast.AST, shape: _Shape, fix: FixPlan | None = None, initialises: bool = False,
               fresh: bool = False) -> None:
        """A finding, reported when its function ends (what follows it counts too)."""
        frame = self._frames[-1]
        where = FRESH if fresh else NO_GRAD if frame.no_grad > 0 else INITIALISER if frame.initialiser or initialises \
            else AFTER_STEP if frame.stepped else ""
        frame.writes.append(_Write(node, shape, fix, where))

    def _report_writes(self, frame: _Frame) -> None:
        """A write is TCP101 where the code shows no graph in play: under no_grad, in
        initialisation, after the step; TCP001 elsewhere and wherever a backward follows it
        in the same function. The message says which place it is."""
        for write in frame.writes:
            where = write.where
            if write.backward_follows and where not in (NO_GRAD, FRESH):
                where = ""
            if where == FRESH:  # no graph can have saved it, whatever follows
                self.report(write.node, write.shape.message(where), write.fix, HARMLESS_HERE)
                continue
            code = self.code if write.backward_follows or not where else HARMLESS_HERE
            self.report(write.node, write.shape.message(where), write.fix, code)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._frames.append(_Frame(
            no_grad=int(any(self._enters_no_grad(decorator) for decorator in node.decorator_list)),
            initialiser=initialiser_name(node.name),
        ))

    def leave_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._report_writes(self._frames.pop())

    def leave_Module(self, node: ast.Module) -> None:
        self._report_writes(self._frames[0])

    def visit_With(self, node: ast.With) -> None:
        self._frames[-1].no_grad += sum(self._enters_no_grad(item.context_expr) for item in node.items)

    def leave_With(self, node: ast.With) -> None:
        self._frames[-1].no_grad -= sum(self._enters_no_grad(item.context_expr) for item in node.items)

    def _enters_no_grad(self, node: ast.expr) -> bool:
        """``torch.no_grad()``, ``torch.inference_mode()``, bare as a decorator too; not
        ``inference_mode(False)``: an argument may turn it off."""
        if isinstance(node, ast.Call):
            return not node.args and not node.keywords and self.inference.qualify(node.func) in _NO_GRAD
        return self.inference.qualify(node) in _NO_GRAD

    def _expression_statement(self, call: ast.Call) -> ast.Expr | None:
        """The statement ``call`` is, when it is one: its value is unused, or only used
        by more in-place writes chained on it (``w.data.mul_(a).add_(b)``)."""
        statements = self.context.statements
        if statements and isinstance(statements[-1], ast.Expr):
            statement = statements[-1]
            value = statement.value
            while value is not call and (chained := method_call(value)) is not None and (
                writes_in_place(chained[1]) and chained[1] not in _METADATA_INPLACE
            ):
                value = chained[0]
            if value is call:
                return statement
        return None

    # -- fixes: decided here, written with LibCST by the builders below ------------
    def _statement_fix(
        self,
        statement: ast.stmt | None,
        through_data: ast.expr,
        description: str,
        method: str | None = None,
    ) -> FixPlan | None:
        """Drop ``.data`` from ``through_data`` (``E.data`` or ``E.data[i]``) in ``statement``
        (or, given ``method``, make ``E.data op= v`` ``E.method(v)``) and run it under
        no_grad: as it is inside a no_grad block, else wrapped in ``with torch.no_grad():``."""
        if statement is None:
            return None
        data = _data_attribute(through_data)
        safe = self._evidently_tensor(data.value)
        shown = description if safe else description + f" (assumes `{self._code(data.value)}` is a tensor)"
        anchors = (statement, data)
        if self._frames[-1].no_grad > 0:
            return FixPlan(safe, shown, _build_statement_fix, anchors, (description, safe, method, None, None))
        if not self._own_line(statement):
            return None  # `a; b` or `if c: w.data.add_(1)`: no statement line of its own to wrap
        torch, needs_import = module_reference(self.context)
        return FixPlan(safe, shown + ", under no_grad", _build_statement_fix, anchors,
                       (description, safe, method, f"{torch}.no_grad()", needs_import))

    def _function_fix(self, node: ast.Call, function: str, target: ast.Attribute) -> FixPlan | None:
        """``nn.init.normal_(w.data)`` -> ``nn.init.normal_(w)``: nn.init runs under no_grad.
        Other in-place torch functions are fixed like methods."""
        statement = self._expression_statement(node)
        if not function.startswith("torch.nn.init."):
            short = function.rpartition(".")[2]
            if short in _METADATA_INPLACE:
                return None
            return self._statement_fix(statement, target, f"drop .data from {short}()")
        if statement is None:
            return None  # its value is used: `w.data` and `w` are different objects
        safe = self._evidently_tensor(target.value)
        description = "drop .data (nn.init already runs under no_grad)"
        shown = description if safe else description + f" (assumes `{self._code(target.value)}` is a tensor)"
        return FixPlan(safe, shown, _build_init_fix, (target,), (description, safe))

    def _augmented_fix(self, node: ast.AugAssign) -> FixPlan | None:
        """``E.data[i] += v`` -> ``E[i] += v``; ``p.data -= v`` -> ``p -= v`` for a local name
        ``p`` (rebinding it to the same tensor is harmless); for any other ``E``,
        ``E.data -= v`` -> ``E.sub_(v)`` (``E -= v`` would assign ``E``: a property, a
        tuple item, or a global read without `global` would break)."""
        target = node.target
        if isinstance(target, ast.Subscript) or (
            isinstance(target.value, ast.Name) and self.inference.binding(target.value.id) is not None
        ):
            return self._statement_fix(node, target, "drop .data from the augmented assignment")
        method = _AUGMENTED_METHODS.get(type(node.op))
        if method is None or (isinstance(node.value, (ast.Yield, ast.YieldFrom)) and _unparenthesised_value(node)):
            return None  # `E.sub_(yield v)` would not parse
        return self._statement_fix(node, target, f"augmented assignment to .data -> .{method}()", method)

    def _own_line(self, statement: ast.stmt) -> bool:
        """Whether ``statement`` has its line(s) to itself (LibCST: a ``SimpleStatementLine``
        of one statement): no ``;`` and another statement before or after it, not in a
        compound statement's header line (``if c: w.data.add_(1)``). Without the walked text,
        the fix's builder alone can tell."""
        lines = self._text_lines()
        if lines is None or statement.end_lineno > len(lines):
            return True
        before = lines[statement.lineno - 1][:statement.col_offset]
        after = lines[statement.end_lineno - 1][statement.end_col_offset:].strip()
        if after.startswith(b";"):
            after = after[1:].strip()
        return not before.strip() and (not after or after.startswith(b"#"))

    def _code(self, node: ast.expr) -> str:
        """``node`` as the code spells it (what messages and fixes quote)."""
        lines = self._text_lines()
        if lines is None:
            return ast.unparse(node)  # a walk given no text: the code, as ast rewrites it
        return _segment(lines, node)

    def _text_lines(self) -> list[bytes] | None:
        """The walked text's lines in UTF-8 (``ast`` counts columns in bytes), when the walk has it."""
        if self._lines is None:
            text = self.context.source
            if text is None:
                return None
            self._lines = [line.encode() for line in text.split("\n")]
        return self._lines

    def _other_data(self, node: ast.expr) -> bool:
        """``E.data`` (or an item of it) that is not a tensor's: ``E`` is a name bound here to
        what a scipy or numpy function returns (a sparse matrix's ``.data`` is its array of
        values), or, in a file that defines a named tuple with a ``data`` field, nothing shows
        that ``E`` is a tensor (most likely that field)."""
        receiver = _data_attribute(node).value
        if isinstance(receiver, ast.Name) and (binding := self.inference.binding(receiver.id)) is not None \
                and _binds_other_array((binding.value,), self.inference.imports):
            return True
        summary = self.inference.summary
        return summary is not None and summary.defines_data_records() and not self._evidently_tensor(receiver)

    def _made_here(self, receiver: ast.expr) -> bool:
        """``x.clone()`` or a torch factory call (``torch.zeros(...)``, ``torch.randn_like(x)``):
        a tensor no graph can have saved, since it did not exist before this expression."""
        if not isinstance(receiver, ast.Call):
            return False
        called = method_call(receiver)
        if called is not None and called[1] == "clone":
            return True
        return (self.inference.qualify(receiver.func) or "") in _FACTORIES

    def _evidently_tensor(self, receiver: ast.expr) -> bool:
        if isinstance(receiver, ast.Attribute) and receiver.attr in PARAMETER_ATTRIBUTES:
            return True
        return self.inference.is_tensor(receiver)


# -- the fix builders: LibCST nodes at the spans of the plan's anchors -------------------
def _build_statement_fix(site: FixSite) -> Fix | None:
    """``anchors``: the statement and its ``E.data``; ``data``: the description, whether it
    is safe, the method of ``E.data op= v`` (None: drop ``.data``), the ``with`` to wrap the
    statement in (None inside a no_grad block) and the import that needs."""
    statement, data = site.nodes
    description, safe, method, wrap_with, needs_import = site.data
    if not safe:
        description += f" (assumes `{_source(data.value)}` is a tensor)"
    if method is None:
        edit = (data, _without_data(data))
    else:
        if isinstance(statement.value, cst.Yield) and not statement.value.lpar:
            return None
        call = call_method(data.value, method, [cst.Arg(statement.value)])
        edit = (statement, cst.Expr(value=call, semicolon=statement.semicolon))
    if wrap_with is None:
        return Fix(replacements=(edit,), safe=safe, description=description)
    line = site.line_of(statement)
    if line is None or len(line.body) != 1:
        return None
    return Fix(replacements=(edit,), safe=safe, description=description + ", under no_grad",
               needs_import=needs_import, wrap=(line,), wrap_with=wrap_with)


def _build_init_fix(site: FixSite) -> Fix | None:
    """``nn.init.X_(w.data)`` -> ``nn.init.X_(w)``; ``anchors``: the ``w.data``."""
    (target,) = site.nodes
    description, safe = site.data
    if not safe:
        description += f" (assumes `{_source(target.value)}` is a tensor)"
    return Fix(replacements=((target, _without_data(target)),), safe=safe, description=description)


# Torch functions that return a new tensor of their own (a `.data` write to it is harmless).
_FACTORIES = frozenset(
    f"torch.{name}" for name in """
    zeros ones empty full rand randn randint zeros_like ones_like empty_like full_like rand_like randn_like
    randint_like arange linspace eye
    """.split()
)
_NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                      "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode"})
# In-place methods that change a tensor's shape or storage, not its values: through
# `.data` they change a throwaway shallow copy and leave the tensor itself alone, so
# dropping `.data` would change behaviour. No fix for them. (`rename_`: named tensors,
# gone from torch 2.13, kept for code written against older torch.)
_METADATA_INPLACE = frozenset(
    """
    resize_ resize_as_ set_ as_strided_ squeeze_ unsqueeze_ t_ transpose_ swapdims_ swapaxes_
    rename_
    """.split()
)
# `E.data op= v` -> `E.method_(v)`: the in-place method each augmented operator calls.
_AUGMENTED_METHODS = {
    ast.Add: "add_",
    ast.Sub: "sub_",
    ast.Mult: "mul_",
    ast.Div: "div_",
    ast.FloorDiv: "floor_divide_",
    ast.Mod: "remainder_",
    ast.Pow: "pow_",
    ast.BitAnd: "bitwise_and_",
    ast.BitOr: "bitwise_or_",
    ast.BitXor: "bitwise_xor_",
}


# The code of the writes that the site shows run where no graph is in play (its own rule
# module holds its page and examples; this one's visitor reports it).
HARMLESS_HERE = "TCP101"


def _last_name(node: ast.expr) -> str:
    """``optimizer`` of ``self.optimizer``, ``optimizers[0]`` or ``optimizer``."""
    while isinstance(node, (ast.Subscript, ast.Call)):
        node = node.value if isinstance(node, ast.Subscript) else node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _data_attribute(node: ast.expr) -> ast.Attribute:
    """The ``E.data`` under ``E.data[i][j]``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    assert isinstance(node, ast.Attribute)
    return node


def _through_data(node: ast.expr) -> bool:
    """``E.data`` or ``E.data[...]`` (any depth of indexing); not ``g.ndata["feat"]``-like
    string keys, which no tensor takes (a graph's or a record's ``.data`` dict). (The gate's
    ``_through_data`` is looser: it reads neither bytes keys nor a tuple item's strings.)"""
    while isinstance(node, ast.Subscript):
        if any(_is_string(index) for index in subscript_indices(node)):
            return False
        node = node.value
    return _is_data(node)


def _is_string(node: ast.expr | None) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def _unparenthesised_value(node: ast.AugAssign) -> bool:
    """Whether the statement ends where its value does (a parenthesised value ends before)."""
    return (node.end_lineno, node.end_col_offset) == (node.value.end_lineno, node.value.end_col_offset)


def _segment(lines: list[bytes], node: ast.expr) -> str:
    """The code of ``node`` in ``lines`` (UTF-8, as ``ast`` counts columns), with the
    parentheses of its own (``(w)`` in ``(w).data``) as LibCST's ``code_for_node`` gives."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if last >= len(lines):
        return ast.unparse(node)
    head, tail = lines[first], lines[last]
    start, end = node.col_offset, node.end_col_offset
    while True:
        before = len(head[:start].rstrip())
        after = len(tail) - len(tail[end:].lstrip())
        if not (before and head[before - 1:before] == b"(" and tail[after:after + 1] == b")"):
            break
        start, end = before - 1, after + 1
    if first == last:
        return head[start:end].decode("utf-8", "replace")
    # Its other lines lose the indentation of the block around it, as LibCST's do, but
    # for the lines that go on a string.
    indent = head[:len(head) - len(head.lstrip(b" \t\f"))]
    in_strings = {line for n in ast.walk(node) if isinstance(n, (ast.Constant, ast.JoinedStr))
                  for line in range(n.lineno, n.end_lineno)}
    rest = [line[len(indent):] if number not in in_strings and line.startswith(indent) else line
            for number, line in enumerate([*lines[first + 1:last], tail[:end]], first + 1)]
    return b"\n".join([head[start:], *rest]).decode("utf-8", "replace")


def _without_data(data: cst.Attribute) -> cst.BaseExpression:
    """``E.data`` -> ``E`` (keeping parentheses that were around ``E.data``)."""
    receiver = data.value
    if data.lpar:
        receiver = receiver.with_changes(lpar=[*data.lpar, *receiver.lpar], rpar=[*receiver.rpar, *data.rpar])
    return receiver


def _source(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)
