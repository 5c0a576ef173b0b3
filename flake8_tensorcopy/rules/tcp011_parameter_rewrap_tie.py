"""TCP011: tying weights by wrapping another module's Parameter in a new ``nn.Parameter``."""

from __future__ import annotations

import libcst as cst

from ..analysis.vocabulary import PARAMETER_CONSTRUCTORS, TIED_PARAMETER_ATTRIBUTES
from ..gates import ParameterRewrapGate
from ..inference import dotted_name, first_argument, method_call
from ..cst_rule import CstRule
from ..rule import WS, Example, Fix, RuleDocs

_PARAMETER = PARAMETER_CONSTRUCTORS - {"torch.nn.parameter.Buffer"}
_MODULE = cst.Module(body=[])


class ParameterRewrapTie(CstRule):
    code = "TCP011"
    name = "parameter-rewrap-tie"
    message = (
        "nn.Parameter({source}) makes a second Parameter over the same storage: the module lists "
        "both, an optimizer steps the storage twice, and .to(dtype)/.half()/.cuda() silently untie "
        "them; to tie, assign the Parameter itself: {target} = {source}"
    )
    triggers = (rf"Parameter{WS}\(",)
    gate = ParameterRewrapGate()
    docs = RuleDocs(
        what="Flags `A.b = nn.Parameter(X.weight)` (or `.bias`, or another parameter attribute "
        "of a module, also through `.data` or `.detach()`), and "
        "`A.register_parameter(\"b\", nn.Parameter(X.weight))`, where `X.weight` is another "
        "module's Parameter (`X` is not the module `A` itself): weight tying written as a rewrap.",
        why="`nn.Parameter(emb.weight)` is a NEW Parameter object over the SAME storage. The "
        "module now lists two parameters where proper tying lists one, so an optimizer steps the "
        "shared storage twice per step, with two sets of Adam moments (after 3 Adam steps the "
        "weights differ from properly tied ones by 0.28), and a checkpoint saves it twice. Worse, "
        "`.double()`, `.half()`, `.to(dtype)` and `.cuda()` convert each Parameter on its own, "
        "so the two silently stop sharing: from then on they train apart. Assigning the Parameter "
        "itself (`self.out.weight = self.emb.weight`) ties them for good: one Parameter, two "
        "modules.",
        example="import torch.nn as nn\n\n\nclass LM(nn.Module):\n    def __init__(self, vocab: int, dim: int) -> None:\n"
        "        super().__init__()\n        self.emb = nn.Embedding(vocab, dim)\n"
        "        self.out = nn.Linear(dim, vocab, bias=False)\n"
        "        self.out.weight = nn.Parameter(self.emb.weight)\n",
        use_instead="import torch.nn as nn\n\n\nclass LM(nn.Module):\n    def __init__(self, vocab: int, dim: int) -> None:\n"
        "        super().__init__()\n        self.emb = nn.Embedding(vocab, dim)\n"
        "        self.out = nn.Linear(dim, vocab, bias=False)\n"
        "        self.out.weight = self.emb.weight\n",
        fixture="fixtures/tcp011_parameter_rewrap_tie.py",
        known_problems="Measured on the 40 repositories of `bench/accuracy/` where the shapes of "
        "TCP010 and TCP011 occur (every `nn.Parameter(<expr>.weight|bias)` assignment, labelled "
        "blind): {accuracy} The ties found include fairseq's `self.FC2.weight = "
        "nn.Parameter(self.FC1.weight)  # tie weight`. A small sample: the figures will move as "
        "the corpus grows. `nn.Parameter(self.emb.weight.clone())`, often meant as tying, is not "
        "flagged: it is a copy, and nothing is tied at all (the two train apart from the first "
        "step); to tie, assign the Parameter itself. Not flagged either: a rewrap of the same "
        "attribute (`self.fc.weight = nn.Parameter(self.fc.weight)`, which replaces one "
        "Parameter by another) or of another attribute of the same module (`self.w = "
        "nn.Parameter(self.weight)`: most often a plain tensor or a buffer made a Parameter), "
        "a layer's `__init__(self, m)` that builds itself from `m`'s configuration "
        "(`super().__init__(m.in_channels, ...)`) and takes `m`'s parameters as its own "
        "(`self.weight = nn.Parameter(m.weight.detach())`: quantisation and pruning wrappers, "
        "after which `m` is swapped out of the model), "
        "a Parameter of a module the function built itself and may throw "
        "away (`m = nn.Linear(...); self.w = nn.Parameter(m.weight)`), a slice or a view of a "
        "weight, and `setattr(...)`.",
        fix_safety="Safe: the `nn.Parameter(...)` wrapper (and a `.data` or `.detach()` inside it) "
        "is dropped, so the attribute is assigned the Parameter itself. Offered only for a call "
        "with that one argument (`requires_grad=False` would be lost).",
    )
    flagged = (
        Example("import torch.nn as nn\ndef f(self):\n    self.out.weight = nn.Parameter(self.emb.weight)\n", [(3, 23)]),
        Example("import torch\ndef tie(model):\n    model.decoder.bias = torch.nn.Parameter(model.encoder.bias)\n", [(3, 26)]),
        Example("from torch.nn import Parameter\ndef f(self):\n    self.fc.weight = Parameter(self.embed.weight.data)\n", [(3, 22)]),
        Example(
            "import torch.nn as nn\ndef f(self):\n    self.head.register_parameter('weight', nn.Parameter(self.wte.weight))\n",
            [(3, 44)],
        ),
        Example(
            "import torch.nn as nn\nclass LM(nn.Module):\n    def __init__(self, emb):\n"
            "        super().__init__()\n        self.out = nn.Linear(4, 8)\n        self.out.weight = nn.Parameter(emb.weight)\n",
            [(6, 27)],
        ),
        # A module handed in whose configuration the new one does not copy: a tie.
        Example(
            "import torch.nn as nn\nclass Decoder(nn.Module):\n    def __init__(self, embedding):\n"
            "        super().__init__()\n        self.weight = nn.Parameter(embedding.weight)\n",
            [(5, 23)],
        ),
    )
    clean = (
        "import torch.nn as nn\ndef f(self):\n    self.out.weight = self.emb.weight\n",
        # A layer built from the one it replaces (quantisation, pruning): `m` is swapped out.
        "import torch.nn as nn\nclass QuanConv2d(nn.Conv2d):\n    def __init__(self, m, bits):\n"
        "        super().__init__(m.in_channels, m.out_channels, m.kernel_size, stride=m.stride)\n"
        "        self.weight = nn.Parameter(m.weight.detach())\n        self.bias = nn.Parameter(m.bias.detach())\n",
        "import torch.nn as nn\ndef f(self):\n    self.out.weight = nn.Parameter(self.emb.weight.clone())\n",
        "import torch.nn as nn\ndef f(self):\n    self.fc.weight = nn.Parameter(self.fc.weight)\n",
        "import torch.nn as nn\ndef f(self):\n    self.weight = nn.Parameter(self.weight.data)\n",
        "import torch.nn as nn\ndef f(self):\n    m = nn.Linear(2, 2)\n    self.w = nn.Parameter(m.weight)\n",
        "import torch.nn as nn\ndef f(self):\n    self.w = nn.Parameter(self.emb.weight[:10])\n",
        "import torch.nn as nn\ndef f(self, w):\n    self.w = nn.Parameter(w)\n",
        "def f(self, Parameter):\n    self.w = Parameter(self.emb.weight)\n",
        "import torch.nn as nn\ndef f(self):\n    self.out.weight = nn.Parameter(self.emb.running_mean)\n",
        "import torch\nimport torch.nn as nn\ndef f(self):\n    self.weight = torch.zeros(3)\n    self.sub_weight = nn.Parameter(self.weight)\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        # The functions around the node, innermost last: what `_replaced_modules` asks.
        self._functions: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        targets = [t.target for t in node.targets if isinstance(t.target, cst.Attribute)]
        if len(targets) == 1 and len(node.targets) == 1:
            target = targets[0]
            self._check(node.value, dotted_name(target.value), target.attr.value, _code(target))

    def visit_Call(self, node: cst.Call) -> None:
        called = method_call(node)
        if called is None or called[1] != "register_parameter" or len(node.args) != 2:
            return
        name = node.args[0].value
        if isinstance(name, cst.SimpleString) and name.prefix == "":
            attribute = name.raw_value
            self._check(node.args[1].value, dotted_name(called[0]), attribute, f"{_code(called[0])}.{attribute}")

    def _check(self, value: cst.BaseExpression, owner: str | None, attribute: str, target_code: str) -> None:
        """``<owner>.<attribute> = value``: ``owner`` is the dotted name of the module that
        gets the Parameter (None when it is no plain dotted name)."""
        if not isinstance(value, cst.Call) or self.inference.qualify(value.func) not in _PARAMETER:
            return
        argument = first_argument(value, "data")
        if argument is None:
            return
        parameter = argument
        while True:  # X.weight.data, X.weight.detach(): the same storage
            if isinstance(parameter, cst.Attribute) and parameter.attr.value == "data":
                parameter = parameter.value
            elif (called := method_call(parameter)) is not None and called[1] == "detach" and not parameter.args:
                parameter = called[0]
            else:
                break
        if not isinstance(parameter, cst.Attribute) or parameter.attr.value not in TIED_PARAMETER_ATTRIBUTES:
            return
        module = dotted_name(parameter.value)
        if module is not None and module == owner:
            # The module's own attribute: a rewrap of the attribute itself (nothing else
            # shares it), or one of its tensors made a Parameter (a buffer, a plain tensor).
            return
        if not self._kept_module(parameter.value):
            return
        if owner == "self" and isinstance(parameter.value, cst.Name) and parameter.attr.value == attribute \
                and parameter.value.value in self._replaced_modules():
            return  # a module built from the one it replaces takes its parameters over
        fix = None
        if len(value.args) == 1:
            fix = Fix(
                replacements=((value, parameter.with_changes(lpar=value.lpar, rpar=value.rpar)),),
                safe=True,
                description="assign the Parameter itself",
            )
        self.report(value, self.message.format(source=_code(parameter), target=target_code), fix)

    def _replaced_modules(self) -> frozenset[str]:
        """In ``__init__(self, m, ...)``, the parameters ``m`` whose attributes the base class's
        ``__init__`` is called with (``super().__init__(m.in_channels, m.out_channels, ...)``):
        the new module is built as a copy of ``m``'s configuration, to replace ``m`` (a
        quantised, pruned or wrapped layer), so taking ``m``'s parameters is no tie: ``m`` is
        swapped out of the model."""
        if not self._functions or self._functions[-1].name.value != "__init__":
            return frozenset()
        function = self._functions[-1]
        parameters = {param.name.value for param in function.params.params[1:]}
        replaced: set[str] = set()

        class BaseInitCalls(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                called = method_call(call)
                if called is None or called[1] != "__init__":
                    return
                for arg in call.args:
                    root = arg.value
                    while isinstance(root, (cst.Attribute, cst.Subscript)):
                        root = root.value
                    if isinstance(root, cst.Name) and root.value in parameters and root is not arg.value:
                        replaced.add(root.value)

        function.body.visit(BaseInitCalls())
        return frozenset(replaced)

    def _kept_module(self, module: cst.BaseExpression) -> bool:
        """Whether ``module`` (the X of ``X.weight``) is a module that lives on: an attribute
        or item of something, a parameter, a global; not a call's result, nor a name bound
        to one here (a module the function made, which it may throw away)."""
        root = module
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        binding = self.inference.binding(root.value)
        return binding is None or not isinstance(binding.value, cst.Call)


def _code(node: cst.CSTNode) -> str:
    return _MODULE.code_for_node(node)
