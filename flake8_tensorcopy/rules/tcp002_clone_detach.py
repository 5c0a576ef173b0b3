"""TCP002: ``.clone().detach()`` records an autograd node only to drop it."""

from __future__ import annotations

import ast

from ..analysis.evaluator import method_call
from ..gates import CloneDetachGate
from ..rule import WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, call_method, word


class CloneDetach(Rule):
    code = "TCP002"
    name = "clone-detach"
    message = ".clone().detach() records a CloneBackward0 node only to throw it away; use .detach().clone()"
    triggers = (rf"\){WS}\.{WS}detach{WS}\({WS}\)", rf"{word('clone')}{WS}\(")
    gate = CloneDetachGate()
    docs = RuleDocs(
        what="Flags `E.clone().detach()` and `torch.clone(E).detach()`.",
        why="Both orders give the same values, but on a tensor that requires grad `clone()` first "
        "records a `CloneBackward0` node in the autograd graph, which `detach()` then discards. "
        "`E.detach().clone()` records nothing. The cost is autograd bookkeeping (about 1-2 us per "
        "call on small tensors), not memory: a style and performance rule, not a correctness one. "
        "torch's own warning for `torch.tensor(t)` recommends `t.detach().clone()`.",
        example="import torch\n\ndef snapshot(x: torch.Tensor) -> torch.Tensor:\n    return x.clone().detach()\n",
        use_instead="import torch\n\ndef snapshot(x: torch.Tensor) -> torch.Tensor:\n    return x.detach().clone()\n",
        fixture="fixtures/tcp002_clone_detach.py",
        known_problems="{accuracy}",
        fix_safety="`E.clone(...).detach()` becomes `E.detach().clone(...)` and "
        "`torch.clone(E, ...).detach()` becomes `E.detach().clone(...)`: safe, the values, dtype, "
        "device and memory format are the same.",
    )
    flagged = (
        Example("def f(x):\n    return x.clone().detach()\n", [(2, 12)]),
        Example("import torch\ndef f(x):\n    y = torch.clone(x).detach()\n", [(3, 9)]),
        Example("def f(x):\n    y = x.clone(memory_format=torch.contiguous_format).detach()\n", [(2, 9)]),
    )
    clean = (
        "def f(x):\n    return x.detach().clone()\n",
        "def f(x):\n    return x.detach().clone().requires_grad_()\n",
        "def f(x):\n    return x.clone().detach_()\n",
    )

    def visit_Call(self, node: ast.Call) -> None:
        called = method_call(node)
        if called is None or called[1] != "detach" or node.args or node.keywords:
            return
        inner = called[0]
        if not isinstance(inner, ast.Call):
            return
        inner_method = method_call(inner)
        qualified = self.inference.qualify(inner.func)
        if inner_method is not None and inner_method[1] == "clone" and qualified is None:
            self.report(node, fix=FixPlan(True, _DESCRIPTION, _swap, (node,)))
        elif qualified == "torch.clone":
            plain = inner.args and not isinstance(inner.args[0], ast.Starred) and len(inner.args) == 1 and all(
                keyword.arg is not None for keyword in inner.keywords
            )
            self.report(node, fix=FixPlan(True, _DESCRIPTION, _function_swap, (node,)) if plain else None)


_DESCRIPTION = "swap to .detach().clone()"


def _swap(site: FixSite) -> Fix:
    """``E.clone(args).detach()`` -> ``E.detach().clone(args)``, dots and spacing kept."""
    (node,) = site.nodes
    inner = node.func.value
    detach = inner.with_changes(
        func=inner.func.with_changes(attr=node.func.attr),
        args=node.args,
        whitespace_before_args=node.whitespace_before_args,
        whitespace_after_func=node.whitespace_after_func,
    )
    clone = node.with_changes(
        func=node.func.with_changes(value=detach, attr=inner.func.attr),
        args=inner.args,
        whitespace_before_args=inner.whitespace_before_args,
        whitespace_after_func=inner.whitespace_after_func,
    )
    return Fix(replacements=((node, clone),), safe=True, description=_DESCRIPTION)


def _function_swap(site: FixSite) -> Fix:
    """``torch.clone(E, memory_format=m).detach()`` -> ``E.detach().clone(memory_format=m)``."""
    (node,) = site.nodes
    first, *rest = node.func.value.args
    fixed = call_method(call_method(first.value, "detach"), "clone", rest)
    fixed = fixed.with_changes(lpar=node.lpar, rpar=node.rpar)
    return Fix(replacements=((node, fixed),), safe=True, description=_DESCRIPTION)
