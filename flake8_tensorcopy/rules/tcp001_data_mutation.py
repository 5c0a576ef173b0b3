"""TCP001: a write through ``.data`` that autograd cannot see."""

from __future__ import annotations

import libcst as cst

from ..inference import PARAMETER_ATTRIBUTES, first_argument, keyword_argument, method_call, writes_in_place
from ..rule import WS, Example, Rule, RuleDocs

# Receivers whose ``.data`` is an ordinary attribute, not ``Tensor.data``
# (``self.data`` in a Dataset, ``args.data`` from argparse).
_NOT_TENSOR_NAMES = frozenset(
    {"self", "cls", "args", "opt", "opts", "options", "config", "cfg", "conf", "hparams", "settings"}
)
_LITERALS = (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.BaseString, cst.Integer, cst.Float, cst.ListComp, cst.DictComp)

_INPLACE_MESSAGE = (
    "in-place write through .data is invisible to autograd (silently wrong gradients); "
    "write to the tensor itself inside `with torch.no_grad():`"
)
_ASSIGN_MESSAGE = (
    "assigning .data swaps the tensor's storage behind autograd's back; "
    "use `with torch.no_grad(): p.copy_(t)`"
)


class DataMutation(Rule):
    code = "TCP001"
    name = "data-mutation"
    message = _INPLACE_MESSAGE
    triggers = (rf"\.data{WS}(?:\.|\[|=|[-+*/%@&|^<>]+=|[,)])",)
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
        "`.weight`/`.bias` attribute, or a loop variable over `.parameters()`), so writes to "
        "unannotated tensors can be missed. `self.data`, `args.data` and similar are never flagged.",
        fix_safety="`nn.init.X_(w.data)` becomes `nn.init.X_(w)` (safe: nn.init runs under no_grad). "
        "An in-place method on `.data` used as a statement loses `.data` and is wrapped in "
        "`with torch.no_grad():` unless it already runs under one (safe). `p.data = t` has no fix.",
    )
    flagged = (
        Example("def f(w):\n    w.data.add_(1.0)\n", [(2, 5)]),
        Example("from torch import nn\ndef f(m):\n    nn.init.normal_(m.weight.data)\n", [(3, 5)]),
        Example("def f(m):\n    m.weight.data = torch.zeros(3)\n", [(2, 5)]),
        Example("def f(model, lr):\n    for p in model.parameters():\n        p.data -= lr * p.grad\n", [(3, 9)]),
        Example("def f(w):\n    w.data[0] = 99\n", [(2, 5)]),
        Example("def f(w):\n    w.data[0].zero_()\n", [(2, 5)]),
        Example("import torch\ndef f(a, b, w):\n    torch.add(a, b, out=w.data)\n", [(3, 5)]),
        Example("import torch.nn.init as init\ndef f(w):\n    init.xavier_uniform_(w.data)\n", [(3, 5)]),
    )
    clean = (
        "def f(x):\n    y = x.data\n    return x.data.norm() + x.data.clone()\n",
        "class D:\n    def __init__(self, data):\n        self.data = data\n        self.data.append_(1)\n",
        "def f(args, data):\n    args.data = data\n",
        "def f(w):\n    w.data.requires_grad_(False)\n",
        "import torch\ndef f(w: torch.Tensor):\n    with torch.no_grad():\n        w.add_(1.0)\n",
        "def f(thing, v):\n    thing.data = v\n",
        "def f(x, w):\n    x.copy_(w.data)\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        called = method_call(node)
        if called and writes_in_place(called[1]) and _through_data(called[0]):
            self.report(node)
            return
        function = self.inference.qualify(node.func) or ""
        target = first_argument(node)
        short = function.rpartition(".")[2]
        if function.startswith("torch.") and writes_in_place(short) and target is not None and _is_data(target):
            self.report(node, f"`.data` passed to in-place `{short}` hides the write from autograd; "
                        "pass the tensor itself (nn.init already runs under no_grad)")
            return
        out = keyword_argument(node, "out")
        if out is not None and _is_data(out):
            self.report(node, "out=.data hides the write from autograd; "
                        "pass the tensor itself inside `with torch.no_grad():`")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "data":
                if self._evidently_tensor(target.target.value):
                    self.report(node, _ASSIGN_MESSAGE)
                    return
            elif isinstance(target.target, cst.Subscript) and _through_data(target.target):
                self.report(node)
                return

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if _through_data(node.target) and (
            not isinstance(node.target, cst.Attribute) or self._evidently_tensor(node.target.value)
        ):
            self.report(node)

    def _evidently_tensor(self, receiver: cst.BaseExpression) -> bool:
        if isinstance(receiver, cst.Attribute) and receiver.attr.value in PARAMETER_ATTRIBUTES:
            return True
        return self.inference.is_tensor(receiver)


def _is_data(node: cst.BaseExpression) -> bool:
    """``E.data`` where ``E`` is not evidently something other than a tensor."""
    return isinstance(node, cst.Attribute) and node.attr.value == "data" and not _plain_object(node.value)


def _through_data(node: cst.BaseExpression) -> bool:
    """``E.data`` or ``E.data[...]`` (any depth of indexing)."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return _is_data(node)


def _plain_object(node: cst.BaseExpression) -> bool:
    return (isinstance(node, cst.Name) and node.value in _NOT_TENSOR_NAMES) or isinstance(node, _LITERALS)
