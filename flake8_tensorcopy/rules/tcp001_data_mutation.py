"""TCP001: a write through ``.data`` that autograd cannot see."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ..gates import PARAMETER_ATTRIBUTES, DataWriteGate
from ..analysis.vocabulary import (
    NOT_TENSOR_NAMES,
    ends_a_step,
    initialiser_name,
    writes_first_argument,
    writes_in_place,
)
from ..inference import first_argument, keyword_argument, method_call, subscript_indices
from ..cst_rule import CstRule
from ..rule import WS, Example, Fix, RuleDocs, call_method, module_reference

_LITERALS = (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.BaseString, cst.Integer, cst.Float, cst.ListComp, cst.DictComp)

@dataclass(frozen=True)
class _Shape:
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


@dataclass
class _Write:
    """A finding waiting for the rest of its function: a ``.backward()`` after it makes it TCP001."""

    node: cst.CSTNode
    shape: _Shape
    fix: Fix | None
    where: str  # FRESH, NO_GRAD, INITIALISER or AFTER_STEP as the code before it shows, else ""
    backward_follows: bool = False


@dataclass
class _Frame:
    """What one function (or the module's code) shows about where its writes run."""

    no_grad: int = 0  # nesting of `with torch.no_grad():` (1 for a decorated function)
    initialiser: bool = False
    stepped: bool = False  # a backward()/step() earlier in it
    writes: list[_Write] = field(default_factory=list)


class DataMutation(CstRule):
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
        # definition): what decides the code, the message and the fix; and the statements
        # around the node.
        self._frames = [_Frame()]
        self._containers: list[cst.SimpleStatementLine | cst.SimpleStatementSuite] = []

    def visit_Call(self, node: cst.Call) -> None:
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

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "data":
                if self._evidently_tensor(target.target.value):
                    self._write(node, _ASSIGN)  # no fix: the intent (copy or alias?) is unknown
                    return
            elif isinstance(target.target, cst.Subscript) and _through_data(target.target) \
                    and not self._other_data(target.target):
                fix = None
                if len(node.targets) == 1:
                    fix = self._statement_fix(node, target.target, "drop .data from the item assignment")
                self._write(node, _INPLACE, fix)
                return
            elif isinstance(target.target, cst.Subscript) and (data := self._tensor_data_alias(target.target)):
                self._report_alias(node, target.target, data)  # W = m.weight.data; W[mask] = 0
                return

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if _through_data(node.target) and not self._other_data(node.target) and (
            not isinstance(node.target, cst.Attribute) or self._evidently_tensor(node.target.value)
        ):
            self._write(node, _INPLACE, self._augmented_fix(node))
        elif (data := self._tensor_data_alias(node.target)) is not None:
            self._report_alias(node, node.target, data)  # w = p.data; w -= lr * g

    def _own_writer(self, node: cst.Call) -> str | None:
        """``weight_init(m.weight.data)``: the file's own function that writes, in place, the
        parameter that a ``.data`` is passed to (not rebound here)."""
        summary = self.inference.summary
        if summary is None or not isinstance(node.func, cst.Name) or self.inference.binding(node.func.value):
            return None
        positional = [arg.value for arg in node.args if not arg.keyword and not arg.star]
        written = summary.writes_arguments(node.func.value)
        if any(i < len(positional) and _is_data(positional[i]) and not self._other_data(positional[i]) for i in written):
            return node.func.value
        return None

    # -- a name bound to `.data` --------------------------------------------------
    def _data_alias(self, node: cst.BaseExpression) -> cst.Attribute | None:
        """The ``E.data`` that the name ``node`` (or the name under its items) holds."""
        while isinstance(node, cst.Subscript):
            node = node.value
        if not isinstance(node, cst.Name):
            return None
        binding = self.inference.binding(node.value)
        value = binding.value if binding is not None else None
        if value is None or not _is_data(value) or self._other_data(value):
            return None
        return value

    def _tensor_data_alias(self, node: cst.BaseExpression) -> cst.Attribute | None:
        """As :meth:`_data_alias`, for writes that numpy arrays take too (``w[i] = v``,
        ``w += v``): only when ``E`` is evidently a tensor (a scipy matrix has ``.data``)."""
        data = self._data_alias(node)
        return data if data is not None and self._evidently_tensor(data.value) else None

    def _report_alias(self, node: cst.CSTNode, written: cst.BaseExpression, data: cst.Attribute) -> None:
        while isinstance(written, cst.Subscript):
            written = written.value
        self._write(node, _alias(_source(written), _source(data)))

    # -- where the write runs: TCP001 or TCP101, and the message -----------------
    def _write(self, node: cst.CSTNode, shape: _Shape, fix: Fix | None = None, initialises: bool = False,
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

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._frames.append(_Frame(
            no_grad=int(any(self._enters_no_grad(d.decorator) for d in node.decorators)),
            initialiser=initialiser_name(node.name.value),
        ))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._report_writes(self._frames.pop())

    def leave_Module(self, node: cst.Module) -> None:
        self._report_writes(self._frames[0])

    def visit_With(self, node: cst.With) -> None:
        self._frames[-1].no_grad += sum(self._enters_no_grad(item.item) for item in node.items)

    def leave_With(self, node: cst.With) -> None:
        self._frames[-1].no_grad -= sum(self._enters_no_grad(item.item) for item in node.items)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._containers.append(node)

    def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._containers.pop()

    visit_SimpleStatementSuite = visit_SimpleStatementLine
    leave_SimpleStatementSuite = leave_SimpleStatementLine

    def _enters_no_grad(self, node: cst.BaseExpression) -> bool:
        """``torch.no_grad()``, ``torch.inference_mode()``, bare as a decorator too; not
        ``inference_mode(False)``: an argument may turn it off."""
        if isinstance(node, cst.Call):
            return not node.args and self.inference.qualify(node.func) in _NO_GRAD
        return self.inference.qualify(node) in _NO_GRAD

    def _expression_statement(self, call: cst.Call) -> cst.Expr | None:
        """The statement ``call`` is, when it is one: its value is unused, or only used
        by more in-place writes chained on it (``w.data.mul_(a).add_(b)``)."""
        if self._containers:
            for statement in self._containers[-1].body:
                if isinstance(statement, cst.Expr):
                    value = statement.value
                    while value is not call and (chained := method_call(value)) is not None and (
                        writes_in_place(chained[1]) and chained[1] not in _METADATA_INPLACE
                    ):
                        value = chained[0]
                    if value is call:
                        return statement
        return None

    def _statement_fix(
        self,
        statement: cst.BaseSmallStatement | None,
        through_data: cst.BaseExpression,
        description: str,
        replacement: cst.BaseSmallStatement | None = None,
    ) -> Fix | None:
        """Drop ``.data`` from ``through_data`` (``E.data`` or ``E.data[i]``) in ``statement``
        (or put ``replacement`` in its place) and run it under no_grad: as it is inside a
        no_grad block, else wrapped in ``with torch.no_grad():``."""
        container = self._containers[-1] if self._containers else None
        if statement is None or container is None or not any(s is statement for s in container.body):
            return None
        data = _data_attribute(through_data)
        edit = (statement, replacement) if replacement is not None else (data, _without_data(data))
        safe = self._evidently_tensor(data.value)
        if not safe:
            description += f" (assumes `{_source(data.value)}` is a tensor)"
        if self._frames[-1].no_grad > 0:
            return Fix(replacements=(edit,), safe=safe, description=description)
        if not isinstance(container, cst.SimpleStatementLine) or len(container.body) != 1:
            return None  # `a; b` or `if c: w.data.add_(1)`: no statement line of its own to wrap
        torch, needs_import = module_reference(self.context)
        return Fix(replacements=(edit,), safe=safe, description=description + ", under no_grad",
                   needs_import=needs_import, wrap=(container,), wrap_with=f"{torch}.no_grad()")

    def _function_fix(self, node: cst.Call, function: str, target: cst.Attribute) -> Fix | None:
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
        if not safe:
            description += f" (assumes `{_source(target.value)}` is a tensor)"
        return Fix(replacements=((target, _without_data(target)),), safe=safe, description=description)

    def _augmented_fix(self, node: cst.AugAssign) -> Fix | None:
        """``E.data[i] += v`` -> ``E[i] += v``; ``p.data -= v`` -> ``p -= v`` for a local name
        ``p`` (rebinding it to the same tensor is harmless); for any other ``E``,
        ``E.data -= v`` -> ``E.sub_(v)`` (``E -= v`` would assign ``E``: a property, a
        tuple item, or a global read without `global` would break)."""
        target = node.target
        if isinstance(target, cst.Subscript) or (
            isinstance(target.value, cst.Name) and self.inference.binding(target.value.value) is not None
        ):
            return self._statement_fix(node, target, "drop .data from the augmented assignment")
        method = _AUGMENTED_METHODS.get(node.operator.__class__)
        if method is None or (isinstance(node.value, cst.Yield) and not node.value.lpar):
            return None
        call = call_method(target.value, method, [cst.Arg(node.value)])
        replacement = cst.Expr(value=call, semicolon=node.semicolon)
        return self._statement_fix(node, target, f"augmented assignment to .data -> .{method}()", replacement)

    def _other_data(self, node: cst.BaseExpression) -> bool:
        """``E.data`` (or an item of it) that is not a tensor's: ``E`` is a name bound here to
        what a scipy or numpy function returns (a sparse matrix's ``.data`` is its array of
        values), or, in a file that defines a named tuple with a ``data`` field, nothing shows
        that ``E`` is a tensor (most likely that field)."""
        receiver = _data_attribute(node).value
        if isinstance(receiver, cst.Name) and (binding := self.inference.binding(receiver.value)) is not None \
                and isinstance(binding.value, cst.Call) \
                and (self.inference.qualify(binding.value.func) or "").startswith(_OTHER_ARRAYS):
            return True
        summary = self.inference.summary
        return summary is not None and summary.defines_data_records() and not self._evidently_tensor(receiver)

    def _made_here(self, receiver: cst.BaseExpression) -> bool:
        """``x.clone()`` or a torch factory call (``torch.zeros(...)``, ``torch.randn_like(x)``):
        a tensor no graph can have saved, since it did not exist before this expression."""
        if not isinstance(receiver, cst.Call):
            return False
        called = method_call(receiver)
        if called is not None and called[1] == "clone":
            return True
        return (self.inference.qualify(receiver.func) or "") in _FACTORIES

    def _evidently_tensor(self, receiver: cst.BaseExpression) -> bool:
        if isinstance(receiver, cst.Attribute) and receiver.attr.value in PARAMETER_ATTRIBUTES:
            return True
        return self.inference.is_tensor(receiver)


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
    cst.AddAssign: "add_",
    cst.SubtractAssign: "sub_",
    cst.MultiplyAssign: "mul_",
    cst.DivideAssign: "div_",
    cst.FloorDivideAssign: "floor_divide_",
    cst.ModuloAssign: "remainder_",
    cst.PowerAssign: "pow_",
    cst.BitAndAssign: "bitwise_and_",
    cst.BitOrAssign: "bitwise_or_",
    cst.BitXorAssign: "bitwise_xor_",
}


# Libraries whose functions return arrays and matrices with a `.data` of their own.
_OTHER_ARRAYS = ("scipy.", "numpy.")
# The code of the writes that the site shows run where no graph is in play (its own rule
# module holds its page and examples; this one's visitor reports it).
HARMLESS_HERE = "TCP101"


def _last_name(node: cst.BaseExpression) -> str:
    """``optimizer`` of ``self.optimizer``, ``optimizers[0]`` or ``optimizer``."""
    while isinstance(node, (cst.Subscript, cst.Call)):
        node = node.value if isinstance(node, cst.Subscript) else node.func
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def _data_attribute(node: cst.BaseExpression) -> cst.Attribute:
    """The ``E.data`` under ``E.data[i][j]``."""
    while isinstance(node, cst.Subscript):
        node = node.value
    assert isinstance(node, cst.Attribute)
    return node


def _without_data(data: cst.Attribute) -> cst.BaseExpression:
    """``E.data`` -> ``E`` (keeping parentheses that were around ``E.data``)."""
    receiver = data.value
    if data.lpar:
        receiver = receiver.with_changes(lpar=[*data.lpar, *receiver.lpar], rpar=[*receiver.rpar, *data.rpar])
    return receiver


def _source(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _is_data(node: cst.BaseExpression) -> bool:
    """``E.data`` where ``E`` is not evidently something other than a tensor."""
    return isinstance(node, cst.Attribute) and node.attr.value == "data" and not _plain_object(node.value)


def _through_data(node: cst.BaseExpression) -> bool:
    """``E.data`` or ``E.data[...]`` (any depth of indexing); not ``g.ndata["feat"]``-like
    string keys, which no tensor takes (a graph's or a record's ``.data`` dict)."""
    while isinstance(node, cst.Subscript):
        if any(isinstance(index, cst.BaseString) for index in subscript_indices(node)):
            return False
        node = node.value
    return _is_data(node)


def _plain_object(node: cst.BaseExpression) -> bool:
    return (isinstance(node, cst.Name) and node.value in NOT_TENSOR_NAMES) or isinstance(node, _LITERALS)
