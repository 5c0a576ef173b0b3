"""TCP007: an in-place method on an advanced-indexing result writes into a copy."""

from __future__ import annotations

import ast

from ..analysis.evaluator import argument_count, first_argument, is_advanced_index, keyword_argument, method_call
from ..analysis.vocabulary import writes_in_place
from ..gates import AdvancedIndexWriteGate
from ..lazy_cst import cst
from ..rule import WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs

# In-place methods whose effect item assignment states exactly: ``x[i].zero_()`` is
# ``x[i] = 0``, ``x[i].add_(v)`` is ``x[i] += v`` (with no ``alpha=``/``rounding_mode=``).
_ASSIGNED = {"zero_": None, "fill_": "value", "copy_": "src"}
_AUGMENTED = {"add_": "AddAssign", "sub_": "SubtractAssign", "mul_": "MultiplyAssign", "div_": "DivideAssign"}
# In-place methods with an out-of-place twin taking the same arguments.
_TWINS = frozenset(
    """
    abs_ neg_ exp_ log_ sqrt_ rsqrt_ sigmoid_ tanh_ relu_ clamp_ clamp_min_ clamp_max_ clip_
    floor_ ceil_ round_ trunc_ sign_ reciprocal_ pow_ masked_fill_ lerp_ addcmul_ addcdiv_
    """.split()
)


class InplaceAdvancedIndex(Rule):
    code = "TCP007"
    name = "inplace-on-advanced-index"
    enabled_by_default = False  # not yet proven blind: see its page
    message = (
        "in-place method on an advanced-indexing result (mask, list or index tensor) changes a copy; "
        "the indexed tensor stays unchanged: use item assignment `x[idx] = v` / `x[idx] += v`, "
        "or index_fill_/index_put_/masked_fill_ on x"
    )
    # An in-place method right after a closing bracket: ``x[m].zero_(``, ``(x[m]).zero_(``.
    triggers = (rf"\](?:[\s\\)]++|\#[^\n]*+)*+\.{WS}\w+_{WS}\(",)
    gate = AdvancedIndexWriteGate()
    docs = RuleDocs(
        what="Flags an in-place method (`zero_`, `fill_`, `add_`, ...) called on `x[idx]` as a "
        "statement, where `idx` is evidently an advanced index: a list literal (or a name bound "
        "to one), a comparison or `~mask`, an inferred bool or long tensor, the result of "
        "`nonzero`/`argsort`/`torch.where(cond)`/`topk(...).indices`, or a tuple holding one.",
        why="Advanced indexing returns a copy, so `x[x > 2].zero_()`, `x[[0, 2]].add_(1)` and "
        "`x[idx_tensor].fill_(0)` write into a temporary that is thrown away: `x` is silently "
        "unchanged. Basic indexing (`x[0]`, `x[1:3]`, `x[..., 0]`) returns a view, so the same call "
        "there does change `x`, which makes the mistake easy to make. Item assignment "
        "(`x[mask] = 0`, `x[[0, 2]] += 1`) writes into `x` for both kinds of index.",
        example="import torch\n\ndef clip_negative(x: torch.Tensor) -> None:\n    x[x < 0].zero_()\n",
        use_instead="import torch\n\ndef clip_negative(x: torch.Tensor) -> None:\n    x[x < 0] = 0\n",
        fixture="fixtures/tcp007_inplace_advanced_index.py",
        known_problems="Only statements are flagged: `y = x[idx].mul_(2)` uses the copy on purpose. A plain "
        "name of unknown type as the index is not flagged (`x[i]` may be an integer), nor a 0-d "
        "integer tensor such as `t.argmax()` (that is basic indexing, a view). {accuracy}",
        fix_safety="Unsafe, because `x` now changes as the code evidently meant: `x[i].zero_()` "
        "becomes `x[i] = 0`, `fill_(v)`/`copy_(v)` become `x[i] = v`, `add_`/`sub_`/`mul_`/`div_` "
        "become `+=`/`-=`/`*=`/`/=` (only without `alpha=`/`rounding_mode=`), and methods with an "
        "out-of-place twin become `x[i] = x[i].clamp(...)`. With repeated indices in a list, "
        "`x[[0, 0]] += 1` adds once.",
    )
    flagged = (
        Example("import torch\ndef f(x: torch.Tensor):\n    x[x > 2].zero_()\n", [(3, 5)]),
        Example("def f(x):\n    x[[0, 2]].add_(1)\n", [(2, 5)]),
        Example("import torch\ndef f(x):\n    idx = torch.tensor([0, 2])\n    x[idx].fill_(0)\n", [(4, 5)]),
        Example("def f(flt, rank, k):\n    flt[(rank < k).unsqueeze(-1).expand_as(flt)].fill_(0)\n", [(2, 5)]),
        Example("def f(x, mask):\n    x[~mask].mul_(2)\n", [(2, 5)]),
        Example("def f(x, m):\n    x[:, m.nonzero()].clamp_(0, 1)\n", [(2, 5)]),
        Example("import torch\ndef f(x, c):\n    x[torch.where(c)].zero_()\n", [(3, 5)]),
        Example("def f(x):\n    idx = [1, 3]\n    x[idx][0].uniform_()\n", [(3, 5)]),
        Example("def f(x, s):\n    x[s.topk(3).indices].mul_(0.5).add_(1)\n", [(2, 5)]),
    )
    clean = (
        "def f(x):\n    x[0].zero_()\n    x[1:3].add_(1)\n    x[..., 0].fill_(2)\n",
        "import torch\ndef f(x: torch.Tensor):\n    x[x > 2] = 0\n    x[[0, 2]] += 1\n",
        "def f(x, i):\n    x[i].zero_()\n",
        "def f(x):\n    y = x[[0, 2]].add_(1)\n    return x[[1]].mul_(2)\n",
        "import torch\ndef f(x, mask):\n    x.masked_fill_(mask, 0)\n    x.index_fill_(0, torch.tensor([0, 2]), 0)\n",
        "def f(x, t):\n    x[t.argmax()].zero_()\n",
        "def f(x):\n    x[[0, 2]].requires_grad_()\n",
    )

    def visit_Expr(self, node: ast.Expr) -> None:
        call = node.value
        outermost = call
        # ``x[m].mul_(2).add_(1)``: every in-place call of the chain hits the same copy.
        while (called := method_call(call)) is not None and writes_in_place(called[1]):
            call = called[0]
        if call is outermost or not isinstance(call, ast.Subscript):
            return
        subscript: ast.expr = call
        while isinstance(subscript, ast.Subscript):
            if is_advanced_index(subscript, self.inference):
                self.report(outermost, fix=_plan(node, outermost))
                return
            subscript = subscript.value


def _plan(statement: ast.Expr, call: ast.Call) -> FixPlan | None:
    """Whether the write has a fix (decided as ``_fix`` builds it), and what it does."""
    receiver, method = method_call(call)
    if not isinstance(receiver, ast.Subscript):
        return None  # a chain of in-place calls: no single assignment says it
    count = argument_count(call)
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    if method in _ASSIGNED:
        if method == "zero_":
            fixable = count == 0
        else:
            # copy_(src, non_blocking=...): not just a store
            fixable = first_argument(call, keyword=_ASSIGNED[method]) is not None and count == 1
    elif method in _AUGMENTED:
        fixable = count == 1 and len(positional) == 1 and keyword_argument(call, "alpha") is None
    else:
        fixable = method in _TWINS
    if not fixable:
        return None
    return FixPlan(safe=False, description=_description(method), build=_fix, anchors=(statement, call))


def _description(method: str) -> str:
    return f"write through item assignment instead of {method} on a copy"


def _fix(site: FixSite) -> Fix | None:
    statement, call = site.nodes
    receiver, method = call.func.value, call.func.attr.value
    target = receiver.with_changes(lpar=[], rpar=[])
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if method in _ASSIGNED:
        # zero_() has no argument; fill_(v) / copy_(src=v) have one (the plan saw to it)
        value = cst.Integer("0") if method == "zero_" else call.args[0].value
        new = cst.Assign(targets=[cst.AssignTarget(target)], value=value)
    elif method in _AUGMENTED:
        new = cst.AugAssign(target=target, operator=getattr(cst, _AUGMENTED[method])(), value=positional[0].value)
    else:
        twin = call.with_changes(func=call.func.with_changes(attr=cst.Name(method[:-1])))
        new = cst.Assign(targets=[cst.AssignTarget(target)], value=twin)
    return Fix(
        replacements=((statement, new.with_changes(semicolon=statement.semicolon)),),
        safe=False,
        description=_description(method),
    )

