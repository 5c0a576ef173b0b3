"""TCP003: ``copy.deepcopy`` of a tensor."""

from __future__ import annotations

import ast

from ..analysis.evaluator import argument_count, first_argument, method_call
from ..analysis.vocabulary import TensorInfo
from ..rule import WS, ArgumentGate, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, call_method, word


class DeepcopyTensor(Rule):
    code = "TCP003"
    name = "deepcopy-tensor"
    message = (
        "copy.deepcopy of a tensor raises on non-leaf tensors and copies a view's whole storage; "
        "use t.detach().clone()"
    )
    triggers = (rf"{word('deepcopy')}{WS}\(",)
    trigger_imports = frozenset({"copy.deepcopy"})
    gate = ArgumentGate(frozenset({"copy.deepcopy"}), keyword="x", elements=True, copies=True)
    docs = RuleDocs(
        what="Flags `copy.deepcopy(t)` where `t` is known to be a tensor or an `nn.Parameter`, "
        "or a list or tuple of tensors (`heads = h.chunk(3)`, a list the file fills with tensors).",
        why="On a non-leaf tensor (one with a `grad_fn`), even under `no_grad`, deepcopy raises "
        "\"Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
        "at the moment\". On a view it copies the WHOLE base storage: "
        "`deepcopy(torch.zeros(10_000)[:2])` holds 40,000 bytes where `detach().clone()` holds 8. "
        "It also keeps `requires_grad`, deep-copies `.grad`, and is about 10x slower. A parameter (a "
        "leaf, never a view) neither raises nor drags a base storage along: its message says what "
        "remains, a copy of `.grad` and a copy that still requires grad, into which a loss that uses "
        "it (a proximal term against the saved weights) backpropagates.",
        example="import copy\nimport torch\n\ndef snapshot(t: torch.Tensor) -> torch.Tensor:\n    return copy.deepcopy(t)\n",
        use_instead="import copy\nimport torch\n\ndef snapshot(t: torch.Tensor) -> torch.Tensor:\n    return t.detach().clone()\n",
        fixture="fixtures/tcp003_deepcopy_tensor.py",
        known_problems="Only values known to be tensors are flagged; `copy.deepcopy(model)`, optimizers, dicts "
        "and state_dicts are legitimate and never flagged. Evidence comes from the whole file and "
        "the project's modules it imports: annotations, torch calls, what the project's functions "
        "return and its classes store on `self`, methods only tensors have (`out.detach()`, and "
        "`x.view(-1, 5)` and `x.size(0)`: numpy's view takes a dtype and its size is a number), a "
        "parameter used as only a tensor can be, or its docstring's type, or "
        "to which every call passes a tensor (the file's, and for a module-level function or a class's "
        "`__init__` those of the modules that import it); `list(model.parameters())`; a number to which a tensor "
        "is added (`s = 0.0; s += t`); a copy bound to a name the function uses as only a tensor can "
        "be (`image = copy.deepcopy(im)`, then `Variable(image)`); an attribute chain the function uses as only "
        "a tensor can be (`torch.zeros_like(loss_fn.anchor.data)`), when nothing rebinds the name under it "
        "or assigns the chain in between; the input or target of a torch.nn loss (`criterion(out, y)`). {accuracy} Misses include values whose receiver no "
        "reading can tell (an attribute of an object moved through a chain of calls) and a "
        "parameter some call passes something else to.",
        fix_safety="`copy.deepcopy(t)` becomes `t.detach().clone()`: unsafe, the copy no longer "
        "requires grad, has no `.grad` and is a plain tensor (not an `nn.Parameter`). No fix "
        "with a `memo` argument.",
    )
    flagged = (
        Example("import copy\nimport torch\ndef f(t: torch.Tensor):\n    return copy.deepcopy(t)\n", [(4, 12)]),
        Example("import copy as c\nimport torch\ndef f():\n    w = torch.nn.Parameter(torch.ones(3))\n    return c.deepcopy(w)\n", [(5, 12)]),
        Example("from copy import deepcopy as dc\nimport torch\ndef f(x):\n    return dc(torch.zeros(3)[:2])\n", [(4, 12)]),
        # A name holds what its value held where it was bound, whatever the names it read
        # were bound to afterwards.
        Example("import copy\nimport torch\ndef f(rows):\n    x = torch.ones(3)\n    y = x * 2\n    x = rows\n"
                "    return copy.deepcopy(y)\n", [(7, 12)]),
        # What the rest of the file says (the module summary):
        Example("import copy\nimport torch\ndef propagate(x):\n    return torch.stack([x, x])\n"
                "def f(x):\n    return copy.deepcopy(propagate(x))\n", [(6, 12)]),
        Example("import copy\nimport torch\nclass Net:\n    def __init__(self):\n        self.W = torch.randn(3, 3)\n"
                "    def snapshot(self):\n        return copy.deepcopy(self.W)\n", [(7, 16)]),
        Example("import copy\ndef f(out):\n    return copy.deepcopy(out.detach())\n", [(3, 12)]),
        Example("import copy\ndef f(rep):\n    scale = rep.norm()\n    return copy.deepcopy(rep) / scale\n", [(4, 12)]),
        Example("import copy\nimport torch\ndef f(x: torch.Tensor):\n    top, _ = torch.sort(x)\n"
                "    return copy.deepcopy(top)\n", [(5, 12)]),
        Example("import copy\nimport torch\ndef f(x: torch.Tensor):\n    heads = x.chunk(4)\n"
                "    return copy.deepcopy(heads)\n", [(5, 12)]),
        # A number plus a tensor is a tensor.
        Example("import copy\nimport torch.nn.functional as F\ndef f(xs, y):\n    s = 0.0\n    for x in xs:\n"
                "        s += F.cosine_similarity(x, y)\n    return copy.deepcopy(s)\n", [(7, 12)]),
        # A federated client's copy of the weights: a list of Parameters (pFedMe, PFLlib).
        Example("import copy\nclass Client:\n    def __init__(self, model):\n"
                "        self.local = copy.deepcopy(list(model.parameters()))\n", [(4, 22)],
                message="of a list of parameters copies their .grad too"),
        Example("import copy\ndef f(model):\n    for p in model.parameters():\n        yield copy.deepcopy(p)\n",
                [(4, 15)], message="of a parameter copies its .grad too"),
        # A copy has its original's type: what the function does with the copy tells.
        Example("import copy\nfrom torch.autograd import Variable\ndef attack(im, net):\n"
                "    image = copy.deepcopy(im)\n    return net(Variable(image, requires_grad=True))\n", [(4, 13)]),
        # A parameter moved onto itself (`x = x.cuda()`: a tensor's or a module's) and then
        # indexed with a new axis for autograd: only a tensor takes both.
        Example("import copy\nfrom torch.autograd import Variable\ndef fool(image, net):\n    image = image.cuda()\n"
                "    out = net(Variable(image[None, :, :], requires_grad=True))\n    return copy.deepcopy(image), out\n",
                [(6, 12)]),
        # `.numpy()` of its `.cpu()`: a module's `.cpu()` has no `.numpy()`.
        Example("import copy\ndef f(image):\n    shape = image.cpu().numpy().shape\n    return copy.deepcopy(image), shape\n",
                [(4, 12)]),
        # An attribute chain the function hands to `torch.zeros_like`: the same tensor where
        # it is copied.
        Example("import copy\nimport torch\ndef f(loss_fn):\n    start = copy.deepcopy(loss_fn.anchor.data)\n"
                "    return start, torch.zeros_like(loss_fn.anchor.data)\n", [(4, 13)]),
        # The input of a torch.nn loss: only a tensor.
        Example("import copy\nfrom torch import nn\ndef f(model, x, target):\n    criterion = nn.MSELoss()\n"
                "    out, feats = model(x)\n    kept = copy.deepcopy(feats.data)\n"
                "    return criterion(feats, target), kept\n", [(6, 12)]),
    )
    clean = (
        # Bound from a list, the name stays unknown though the list's name is a tensor later.
        "import copy\nimport torch\ndef f(rows):\n    x = list(rows)\n    y = x\n    x = torch.ones(3)\n"
        "    return copy.deepcopy(y)\n",
        # `.cuda()` alone: a module has it too.
        "import copy\ndef f(net):\n    net = net.cuda()\n    return copy.deepcopy(net)\n",
        # An element of a list into Variable: the list is no tensor.
        "import copy\nfrom torch.autograd import Variable\ndef f(xs, net):\n    out = net(Variable(xs[0]))\n"
        "    return copy.deepcopy(xs), out\n",
        # Rebound to something else before the use: the use says nothing of the parameter.
        "import copy\nfrom torch.autograd import Variable\ndef f(x, load):\n    y = copy.deepcopy(x)\n    x = load(x)\n"
        "    return Variable(x[None, :]), y\n",
        "import copy\ndef attack(im, net):\n    image = copy.deepcopy(im)\n    return net(image.copy())\n",
        # Bound to a list the code spells out: a use as a tensor is a bug there, not evidence.
        "import copy\ndef f():\n    t = [0.0, 0.0]\n    z = t.clone()\n    return copy.deepcopy(t), z\n",
        "import copy\ndef f(model):\n    return copy.deepcopy(model)\n",
        "import copy\ndef f(model):\n    return copy.deepcopy(model.state_dict())\n",
        "import copy\nimport torch\ndef f(t: torch.Tensor):\n    return t.detach().clone()\n",
        "import copy\ndef f(cfg):\n    return copy.deepcopy({'a': cfg})\n",
        "import copy\nimport torch\nclass Net(torch.nn.Module):\n    pass\ndef f():\n    net = Net()\n    return copy.deepcopy(net)\n",
        "import copy\ndef f(x):\n    if isinstance(x, dict):\n        return copy.deepcopy(x)\n    return x.detach()\n",
        "import copy\nfrom torch import nn\ndef f():\n    layers = []\n    layers.append(nn.Linear(2, 2))\n    return copy.deepcopy(layers)\n",
        "import copy\ndef f(xs):\n    s = 0.0\n    for x in xs:\n        s += x.item()\n    return copy.deepcopy(s)\n",
        # The name under the chain is bound again: the use may be of another object.
        "import copy\nimport torch\ndef f(run, load):\n    kept = copy.deepcopy(run.best)\n    run = load(run)\n"
        "    return kept, torch.zeros_like(run.best)\n",
        # Assigned in the loop that reads it: what the use sees may not be what is copied.
        "import copy\nimport torch\ndef f(run, items):\n    for item in items:\n        kept = copy.deepcopy(run.best)\n"
        "        run.best = item\n        torch.zeros_like(run.best)\n    return kept\n",
        # CTCLoss's lengths may be tuples of ints: only a loss's input and target tell.
        "import copy\nfrom torch import nn\ndef f(log_probs, targets, lengths):\n    ctc = nn.CTCLoss()\n"
        "    kept = copy.deepcopy(lengths)\n    return ctc(log_probs, targets, lengths, lengths), kept\n",
        # A comprehension's own `x`, not the function's, goes into the loss.
        "import copy\nfrom torch import nn\ndef f(x, pairs):\n    crit = nn.MSELoss()\n    kept = copy.deepcopy(x)\n"
        "    return [crit(x, t) for x, t in pairs], kept\n",
        # A callable the file does not know for a torch.nn loss.
        "import copy\ndef f(make_loss, out, y):\n    criterion = make_loss()\n    kept = copy.deepcopy(y)\n"
        "    return criterion(out, y), kept\n",
    )

    def visit_Call(self, node: ast.Call) -> None:
        if self.inference.qualify(node.func) != "copy.deepcopy":
            return
        argument = first_argument(node, keyword="x")
        if argument is None:
            return
        info = self.inference.info(argument)
        if info is not None:
            self.report(node, _PARAMETER_MESSAGE if info.parameter else None, fix=_plan(node))
        elif _list_of_parameters(argument, self.inference):
            self.report(node, _PARAMETERS_MESSAGE)
        elif self.inference.holds_tensors(argument):
            self.report(node, "copy.deepcopy of a list of tensors raises on non-leaf tensors and copies "
                        "views' whole storage; use [t.detach().clone() for t in ts]")
        elif self._copy_named_as_tensor(node):
            self.report(node, fix=_plan(node))

    def _copy_named_as_tensor(self, node: ast.Call) -> bool:
        """``image = copy.deepcopy(im)`` where what the scope does with ``image`` says it is
        a tensor (``Variable(image)``, ``image.backward()``): a copy has its original's type."""
        statement = self.context.statements[-1] if self.context.statements else None
        facts = self.inference.facts
        return (
            isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and facts is not None
            and isinstance(facts.name_value(statement.targets[0].id), TensorInfo)
        )


# Parameters are leaves and no views: the copy neither raises nor holds a base storage,
# but it is a Parameter that requires grad and carries a copy of `.grad`.
_PARAMETER_MESSAGE = (
    "copy.deepcopy of a parameter copies its .grad too, and the copy still requires grad (a loss "
    "that uses it backpropagates into it); use p.detach().clone() for a copy of its values"
)
_PARAMETERS_MESSAGE = (
    "copy.deepcopy of a list of parameters copies their .grad too, and the copies still require grad "
    "(a loss that uses them backpropagates into them); use [p.detach().clone() for p in ps] for a copy of their values"
)


def _list_of_parameters(node: ast.expr, inference) -> bool:
    """``list(model.parameters())`` or ``tuple(...)`` of it: leaves, never views."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple")
            and argument_count(node) == 1 and inference.binding(node.func.id) is None):
        return False
    if node.keywords or isinstance(node.args[0], ast.Starred) or not isinstance(node.args[0], ast.Call):
        return False
    argument = node.args[0]
    called = method_call(argument)
    return called is not None and called[1] == "parameters" and not argument_count(argument)  # as holds_tensors reads it


_DESCRIPTION = "copy.deepcopy(t) -> t.detach().clone() (the copy no longer requires grad nor has .grad)"


def _plan(node: ast.Call) -> FixPlan | None:
    """``copy.deepcopy(t)`` -> ``t.detach().clone()``; not with a ``memo`` argument."""
    if argument_count(node) != 1 or (node.args and isinstance(node.args[0], ast.Starred)) \
            or (node.keywords and node.keywords[0].arg is None):
        return None
    return FixPlan(safe=False, description=_DESCRIPTION, build=_fix, anchors=(node,))


def _fix(site: FixSite) -> Fix:
    (node,) = site.nodes
    argument = node.args[0].value  # the one argument: ``t`` or ``x=t``
    fixed = call_method(call_method(argument, "detach"), "clone").with_changes(lpar=node.lpar, rpar=node.rpar)
    return Fix(replacements=((node, fixed),), safe=False, description=_DESCRIPTION)
