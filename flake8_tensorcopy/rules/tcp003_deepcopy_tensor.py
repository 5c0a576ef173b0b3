"""TCP003: ``copy.deepcopy`` of a tensor."""

from __future__ import annotations

import libcst as cst

from ..inference import first_argument
from ..rule import WS, ArgumentGate, Example, Fix, Rule, RuleDocs, call_method, word


class DeepcopyTensor(Rule):
    code = "TCP003"
    name = "deepcopy-tensor"
    message = (
        "copy.deepcopy of a tensor raises on non-leaf tensors and copies a view's whole storage; "
        "use t.detach().clone()"
    )
    triggers = (rf"{word('deepcopy')}{WS}\(",)
    trigger_imports = frozenset({"copy.deepcopy"})
    gate = ArgumentGate(frozenset({"copy.deepcopy"}), keyword="x")
    docs = RuleDocs(
        what="Flags `copy.deepcopy(t)` where `t` is known to be a tensor or an `nn.Parameter`.",
        why="On a non-leaf tensor (one with a `grad_fn`), even under `no_grad`, deepcopy raises "
        "\"Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
        "at the moment\". On a view it copies the WHOLE base storage: "
        "`deepcopy(torch.zeros(10_000)[:2])` holds 40,000 bytes where `detach().clone()` holds 8. "
        "It also keeps `requires_grad`, deep-copies `.grad`, and is about 10x slower.",
        example="import copy\nimport torch\n\ndef snapshot(t: torch.Tensor) -> torch.Tensor:\n    return copy.deepcopy(t)\n",
        use_instead="import copy\nimport torch\n\ndef snapshot(t: torch.Tensor) -> torch.Tensor:\n    return t.detach().clone()\n",
        fixture="fixtures/tcp003_deepcopy_tensor.py",
        known_problems="Only values known to be tensors are flagged; `copy.deepcopy(model)`, "
        "optimizers, dicts and state_dicts are legitimate and never flagged.",
        fix_safety="`copy.deepcopy(t)` becomes `t.detach().clone()`: unsafe, the copy no longer "
        "requires grad, has no `.grad` and is a plain tensor (not an `nn.Parameter`). No fix "
        "with a `memo` argument.",
    )
    flagged = (
        Example("import copy\nimport torch\ndef f(t: torch.Tensor):\n    return copy.deepcopy(t)\n", [(4, 12)]),
        Example("import copy as c\nimport torch\ndef f():\n    w = torch.nn.Parameter(torch.ones(3))\n    return c.deepcopy(w)\n", [(5, 12)]),
        Example("from copy import deepcopy as dc\nimport torch\ndef f(x):\n    return dc(torch.zeros(3)[:2])\n", [(4, 12)]),
    )
    clean = (
        "import copy\ndef f(model):\n    return copy.deepcopy(model)\n",
        "import copy\ndef f(model):\n    return copy.deepcopy(model.state_dict())\n",
        "import copy\nimport torch\ndef f(t: torch.Tensor):\n    return t.detach().clone()\n",
        "import copy\ndef f(cfg):\n    return copy.deepcopy({'a': cfg})\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.inference.qualify(node.func) != "copy.deepcopy":
            return
        argument = first_argument(node, keyword="x")
        if argument is not None and self.inference.is_tensor(argument):
            self.report(node, fix=_fix(node, argument))


def _fix(node: cst.Call, argument: cst.BaseExpression) -> Fix | None:
    """``copy.deepcopy(t)`` -> ``t.detach().clone()``; not with a ``memo`` argument."""
    if len(node.args) != 1 or node.args[0].star:
        return None
    fixed = call_method(call_method(argument, "detach"), "clone").with_changes(lpar=node.lpar, rpar=node.rpar)
    return Fix(
        replacements=((node, fixed),),
        safe=False,
        description="copy.deepcopy(t) -> t.detach().clone() (the copy no longer requires grad nor has .grad)",
    )
