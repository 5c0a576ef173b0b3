"""TCP005: ``torch.tensor(t)`` and friends on something that already is a tensor."""

from __future__ import annotations

import libcst as cst

from ..inference import first_argument, method_call
from ..rule import WS, Example, Rule, RuleDocs

_LEGACY_TYPES = "Float Double Half BFloat16 Byte Char Short Int Long Bool ComplexFloat ComplexDouble".split()
_LEGACY_CONSTRUCTORS = frozenset(
    f"torch.{module}{kind}Tensor" for kind in _LEGACY_TYPES for module in ("", "cuda.")
)
# A first argument made only of numbers, brackets and commas cannot hold a tensor.
_NUMBERS = r"(?>[\s,\[\]()+-]|\d[\w.]*|\.\d[\w.]*|True\b|False\b)*+"
_NOT_NUMBERS_ONLY = rf"(?!{WS}(?:[-+\d.\[(]|True\b|False\b){_NUMBERS}(?:\)|[A-Za-z_]\w*{WS}=(?!=)))"


class TensorFromTensor(Rule):
    code = "TCP005"
    name = "tensor-from-tensor"
    message = (
        "torch.tensor(t) on a tensor warns and copies via a slow path; "
        "use t.detach().clone() (plus .requires_grad_(True) if needed)"
    )
    triggers = (rf"(?:\btensor|Tensor|\bnew_tensor){WS}\({_NOT_NUMBERS_ONLY}",)
    trigger_imports = frozenset({"torch.tensor", "torch.Tensor"} | _LEGACY_CONSTRUCTORS)
    docs = RuleDocs(
        what="Flags `torch.tensor(t)`, `torch.Tensor(t)`, legacy typed constructors "
        "(`torch.FloatTensor(t)`, `torch.cuda.LongTensor(t)`, ...) and `x.new_tensor(t)` where "
        "`t` is known to be a tensor, and `torch.tensor([...])` of a list or tuple holding tensors.",
        why="`torch.tensor(t)` emits a UserWarning on every call (\"To copy construct from a tensor, "
        "it is recommended to use sourceTensor.detach().clone()\") and returns a detached copy. "
        "`torch.Tensor(t)` is worse: it does NOT copy, it aliases `t` (`torch.Tensor(x).add_(10)` "
        "changes `x`) and does not convert the dtype; `torch.FloatTensor(double_tensor)` raises "
        "TypeError. `torch.tensor([t0, t1])` of 0-d tensors calls `.item()` per element and "
        "silently drops autograd; `torch.stack` keeps the graph.",
        example="import torch\n\ndef as_tensor(t: torch.Tensor) -> torch.Tensor:\n    return torch.tensor(t)\n",
        use_instead="import torch\n\ndef as_tensor(t: torch.Tensor) -> torch.Tensor:\n    return t.detach().clone()\n",
        fixture="fixtures/tcp005_tensor_from_tensor.py",
        known_problems="Numbers, lists of numbers, numpy arrays, `.tolist()` and `.item()` values and "
        "shapes (`torch.Tensor(3, 4)`) are never flagged; only values known to be tensors are.",
        fix_safety="`torch.tensor(t, dtype=..., device=..., requires_grad=...)` becomes "
        "`t.detach().clone()` with `.to(...)` and `.requires_grad_(True)` as asked (safe). "
        "`torch.Tensor(t)` (alias becomes copy) and `torch.tensor([t0, t1])` -> `torch.stack([t0, t1])` "
        "(the result now keeps the graph and the elements' device) are unsafe.",
    )
    flagged = (
        Example("import torch\ndef f(t: torch.Tensor):\n    return torch.tensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(t: torch.Tensor):\n    return torch.Tensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(t: torch.Tensor):\n    return torch.cuda.LongTensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(x, t: torch.Tensor):\n    return x.new_tensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.tensor([a.sum(), b.sum()])\n", [(3, 12)]),
        Example("from torch import tensor as T\nimport torch\ndef f():\n    x = torch.ones(2)\n    return T(x * 2)\n", [(5, 12)]),
    )
    clean = (
        "import torch\ndef f():\n    return torch.tensor([1.0, 2.0]), torch.Tensor(3, 4)\n",
        "import torch\ndef f(t: torch.Tensor):\n    return torch.tensor(t.tolist()), torch.tensor(t.item())\n",
        "import torch\ndef f(a):\n    return torch.tensor(a)\n",
        "import torch\ndef f(t: torch.Tensor):\n    return t.detach().clone()\n",
        "import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.stack([a, b])\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.inference.qualify(node.func)
        data = first_argument(node, keyword="data")
        if data is None:
            return
        if qualified == "torch.tensor":
            if self.inference.is_tensor(data):
                self.report(node)
            elif _holds_tensor(self, data):
                self.report(node, "torch.tensor([...]) of tensors calls .item() per element and drops "
                            "autograd; use torch.stack([...])")
        elif qualified == "torch.Tensor" and self.inference.is_tensor(data):
            self.report(node, "torch.Tensor(t) does not copy: it aliases t (writes change t); "
                        "use t.detach().clone()")
        elif qualified in _LEGACY_CONSTRUCTORS and self.inference.is_tensor(data):
            short = qualified.partition(".")[2]
            self.report(node, f"torch.{short}(t) does not copy (it aliases t, or raises on a dtype "
                        "mismatch); use t.detach().clone().to(dtype)")
        elif qualified is None and _is_new_tensor(node) and self.inference.is_tensor(data):
            self.report(node, "x.new_tensor(t) on a tensor warns and copies via a slow path; "
                        "use t.detach().clone().to(x)")


def _holds_tensor(rule: Rule, node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.List, cst.Tuple)) and any(
        rule.inference.is_tensor(element.value) for element in node.elements
    )


def _is_new_tensor(node: cst.Call) -> bool:
    called = method_call(node)
    return called is not None and called[1] == "new_tensor"

