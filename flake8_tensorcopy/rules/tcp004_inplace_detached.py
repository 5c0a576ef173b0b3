"""TCP004: an in-place write to a ``.detach()`` result changes the original tensor."""

from __future__ import annotations

import ast

from ..analysis.evaluator import argument_count, is_advanced_index, method_call
from ..analysis.vocabulary import CONVERSION_METHODS, VIEW_METHODS
from ..gates import DetachedWriteGate, _written
from ..rule import INPLACE_SIGNATURE, WS, Example, Rule, RuleDocs, word


class InplaceDetached(Rule):
    code = "TCP004"
    name = "inplace-on-detached"
    enabled_by_default = False  # not yet proven blind: see its page
    message = (
        "in-place write to a .detach() result also changes the original tensor (shared memory); "
        "use .detach().clone() for a copy, or `with torch.no_grad():` to change the original"
    )
    triggers = (rf"{word('detach')}{WS}\({WS}\)", INPLACE_SIGNATURE)
    gate = DetachedWriteGate()
    docs = RuleDocs(
        what="Flags in-place writes (trailing-underscore methods, item assignment, augmented "
        "assignment) to `E.detach()`, directly or through a name bound to it (or to a basic-indexing "
        "view of it) in the same function.",
        why="`detach()` shares storage AND the version counter with the original: "
        "`x.detach().zero_()` zeroes `x`, and `x.detach()[0] = 5` writes into `x`. If `x` was saved "
        "for backward, backward then raises \"one of the variables needed for gradient computation "
        "has been modified by an inplace operation\"; if not, `x` silently changes.",
        example="import torch\n\ndef normalised(x: torch.Tensor) -> torch.Tensor:\n    y = x.detach()\n    y.div_(y.norm())\n    return y\n",
        use_instead="import torch\n\ndef normalised(x: torch.Tensor) -> torch.Tensor:\n    y = x.detach().clone()\n    y.div_(y.norm())\n    return y\n",
        fixture="fixtures/tcp004_inplace_detached.py",
        known_problems="Aliases are tracked through plain names within one function only. A detached call "
        "result (`model(x).detach()`, `helper(x).detach()`, `x = model(x); x = x.detach()`) is "
        "taken as a tensor no one else holds, though a call can return a tensor kept elsewhere. "
        "{accuracy}",
    )
    flagged = (
        Example("def f(x):\n    x.detach().zero_()\n", [(2, 5)]),
        Example("def f(x):\n    x.detach()[0] = 5\n", [(2, 5)]),
        Example("def f(x):\n    x.detach()[1:] += 1\n", [(2, 5)]),
        Example("def f(x):\n    v = x.detach()\n    v.add_(1)\n", [(3, 5)]),
        Example("def f(x):\n    v = x.detach()[0]\n    v *= 2\n", [(3, 5)]),
        Example("def f(x):\n    v = x.detach()\n    v[0] = 1\n", [(3, 5)]),
        Example("def f(x):\n    x = x.detach()\n    x.clamp_(0, 1)\n", [(3, 5)]),  # the caller's x
        Example("def f(model, x):\n    y = model(x)\n    z = y.detach()\n    z.add_(1)\n    return y\n", [(4, 5)]),
    )
    clean = (
        "def f(x):\n    v = x.detach().clone()\n    v.add_(1)\n",
        "def f(x):\n    return x.detach().requires_grad_()\n",
        "def f(x):\n    v = x.detach()\n    v = v.clone()\n    v.add_(1)\n",
        "def f(x):\n    v = x.detach()\n    w = v + 1\n",
        "def f(x):\n    v = x.detach()[[0, 2]]\n    v.add_(1)\n",
        "import torch\ndef f():\n    v = torch.zeros(3).detach()\n    v.add_(1)\n",
        "def f(model, helper, x):\n    g = helper(x).detach()\n    g.div_(2)\n",
        "def f(model, x):\n    preds = model(x)\n    preds = preds.detach()\n    preds[0] += 1\n",
        "def f(model, x, boxes):\n    if boxes:\n        preds, labels = model(x)\n    else:\n        preds = model(x)\n"
        "    preds = preds.detach()\n    preds[0] += 1\n",
        "def f(seqs):\n    out = seqs.clone()\n    out = out.detach()\n    out[:, 1] = 0\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        # id() of `x.detach()` values in `x = x.detach()` where the old x was a call's
        # result: once x is rebound, nothing else holds that storage.
        self._unshared: set[int] = set()

    def _written_detached(self, node: ast.AST) -> None:
        """Report ``node`` when what it writes into in place (``x`` of ``x.add_(1)``,
        ``x[0] = v``, ``x[0] += v``: the gate's :func:`_written`) is a detached view."""
        if any(self._detached_view(written) for written in _written(node)):
            self.report(node)

    visit_Call = visit_AugAssign = _written_detached

    def visit_Assign(self, node: ast.Assign) -> None:
        if any(isinstance(target, ast.Subscript) for target in node.targets):
            self._written_detached(node)
        elif len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            root = _detached_root(node.value)
            old = self.inference.binding(name)
            facts = self.inference.facts
            if isinstance(root, ast.Name) and root.id == name and old is not None and (
                _unshared_result(old.value) or (facts is not None and facts.bound_only_to_results(name))
            ):
                self._unshared.add(id(node.value))

    def _detached_view(self, node: ast.expr, through_names: bool = True) -> bool:
        """``E.detach()`` of an ``E`` whose storage others may hold, a basic-indexing view of
        it, or a name bound to one."""
        if isinstance(node, ast.Name) and through_names:
            binding = self.inference.binding(node.id)
            return (
                binding is not None
                and binding.value is not None
                and id(binding.value) not in self._unshared
                and self._detached_view(binding.value, False)
            )
        if isinstance(node, ast.Subscript):
            return not is_advanced_index(node, self.inference) and self._detached_view(node.value, through_names)
        called = method_call(node)
        if called is None or called[1] != "detach" or argument_count(node):
            return False
        info = self.inference.info(called[0])
        return not (info and info.fresh) and not _unshared_result(called[0])


def _unshared_result(node: ast.expr | None) -> bool:
    """A call's result that no one else holds: ``model(x)``, ``helper(...)``, not a view or
    a conversion of a tensor (``x.view(-1)``, ``x.float()`` may be ``x`` itself)."""
    if not isinstance(node, ast.Call):
        return False
    called = method_call(node)
    return called is None or called[1] not in VIEW_METHODS | CONVERSION_METHODS


def _detached_root(node: ast.expr) -> ast.expr | None:
    """``x`` of ``x.detach()``, also under views and basic indexing (``x.detach()[0]``)."""
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
            continue
        called = method_call(node)
        if called is None:
            return None
        if called[1] == "detach":
            return called[0]
        if called[1] not in VIEW_METHODS:
            return None
        node = called[0]
