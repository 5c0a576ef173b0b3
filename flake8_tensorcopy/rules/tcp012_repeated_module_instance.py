"""TCP012: one module instance repeated in the list a ``ModuleList``/``Sequential``/``ModuleDict`` registers."""

from __future__ import annotations

import ast
import re

from ..analysis.evaluator import first_argument, integer_literal
from ..analysis.vocabulary import MODULE_CONTAINERS, PARAMETER_CONSTRUCTORS, STATELESS_MODULES, is_module_base
from ..lazy_cst import cst
from ..rule import WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, module_reference

# A branch, a parameter or a name that says the repetition is meant.
_SHARING = re.compile(r"shar(?:e|ed|ing)|(?<![a-z])ti(?:e|ed|ying)(?![a-z])|reuse|same", re.IGNORECASE)
_STATE_REGISTRARS = frozenset({"register_buffer", "register_parameter"})
_DESCRIPTION = "build one instance per entry"


class RepeatedModuleInstance(Rule):
    code = "TCP012"
    name = "repeated-module-instance"
    message = (
        "{container} gets {what} {times}: it is registered once, so every entry "
        "shares one set of weights and buffers (parameters() yields it once); build one instance "
        "per entry"
    )
    triggers = (rf"(?:ModuleList|Sequential|ModuleDict){WS}\(",)
    enabled_by_default = False
    docs = RuleDocs(
        what="Flags a module instance repeated in the list, tuple or dict that reaches "
        "`nn.ModuleList`, `nn.Sequential` or `nn.ModuleDict`: `[X] * n`, `n * [X]`, "
        "`[X, Y] * n`, and a comprehension whose element is an existing instance that does not "
        "depend on the loop (`[layer for _ in range(n)]`, `{k: layer for k in keys}`), also "
        "through a name bound to such a list in the same function, where `X` is a module that "
        "holds parameters or buffers: a `torch.nn` layer with state (not an activation, dropout, "
        "pooling, padding, `Identity` or a loss), or a class of the file deriving from "
        "`nn.Module` that makes one.",
        why="`[nn.Linear(d, d)] * 3` is a list holding ONE `Linear` three times. The container "
        "registers that one module under each index, `parameters()` yields its weights once, "
        "and every entry runs the same weights and shares the same BatchNorm statistics: the "
        "model trains one layer where three were meant, with a third of the parameters, and "
        "nothing fails or warns. Fixed in zalandoresearch/pytorch-vq-vae#2, "
        "yaoppeng/U-Net_v2#10, linkedin/Liger-Kernel#269 and deep-learning-with-pytorch/"
        "dlwpt-code#89, among others. A comprehension that calls the constructor "
        "(`[nn.Linear(d, d) for _ in range(3)]`) builds one instance per entry.",
        example="import torch.nn as nn\n\n\nclass MLP(nn.Module):\n    def __init__(self, dim: int, depth: int) -> None:\n"
        "        super().__init__()\n        self.layers = nn.ModuleList([nn.Linear(dim, dim)] * depth)\n",
        use_instead="import torch.nn as nn\n\n\nclass MLP(nn.Module):\n    def __init__(self, dim: int, depth: int) -> None:\n"
        "        super().__init__()\n        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])\n",
        fixture="fixtures/tcp012_repeated_module_instance.py",
        known_problems="{accuracy} The shape is rare in that corpus (one look-alike: repeated "
        "activations); not measured blind yet, so opt-in (`--enable-extensions TCP012`). Not "
        "flagged: sharing the code declares (an `if` branch, a parameter of the function or the "
        "repeated name itself named for sharing or tying: `if share_weights:`, `shared_block`), "
        "modules without state, an instance whose class is not known here (a parameter, an "
        "import from another module), lists of tensors, and a repeat count of 0 or 1.",
        fix_safety="Unsafe: the model gets one instance per entry, so its parameter count and "
        "what it computes change (that is the point). A constructor call is made once per entry "
        "(`[X(...) for _ in range(n)]`); an existing instance is deep-copied per entry "
        "(`[copy.deepcopy(layer) for _ in range(n)]`, adding `import copy` where the file lacks it).",
        harmless="Sharing is sometimes meant (weight-tied recurrent or universal-transformer "
        "blocks). Then name it: a branch or a name that says `share` or `tie` is not flagged.",
        noqa="When one instance is deliberately applied several times and the code names it for "
        "something else.",
    )
    flagged = (
        Example("import torch.nn as nn\ndef f(self, d, n):\n    self.layers = nn.ModuleList([nn.Linear(d, d)] * n)\n",
                [(3, 33)], "one nn.Linear instance n times"),
        Example("import torch.nn as nn\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fc = nn.Linear(4, 4)\ndef f(n):\n    return nn.Sequential(*[Block()] * n)\n", [(7, 27)]),
        Example("from torch import nn\ndef f(n):\n    layer = nn.TransformerEncoderLayer(8, 2)\n"
                "    return nn.ModuleList(n * [layer])\n", [(4, 26)], "one layer instance n times"),
        Example("import torch.nn as nn\ndef f(n):\n    layer = nn.Conv2d(3, 3, 3)\n    return nn.ModuleList([layer for _ in range(n)])\n",
                [(4, 26)]),
        Example("import torch.nn as nn\ndef f(n):\n    blocks = [nn.BatchNorm1d(4), nn.Linear(4, 4)] * n\n    return nn.Sequential(*blocks)\n",
                [(3, 14)]),
        Example("import torch.nn as nn\ndef f(keys):\n    head = nn.Linear(4, 2)\n    return nn.ModuleDict({k: head for k in keys})\n",
                [(4, 26)]),
    )
    clean = (
        "import torch.nn as nn\ndef f(d, n):\n    return nn.ModuleList([nn.Linear(d, d) for _ in range(n)])\n",
        "import copy\nimport torch.nn as nn\ndef f(layer, n):\n    return nn.ModuleList([copy.deepcopy(layer) for _ in range(n)])\n",
        "import torch.nn as nn\ndef f(n):\n    return nn.Sequential(*[nn.ReLU()] * n)\n",
        "import torch.nn as nn\ndef f(n):\n    return nn.ModuleList([nn.Dropout(0.1)] * n)\n",
        "import torch\nimport torch.nn as nn\ndef f(n):\n    return [torch.zeros(3)] * n\n",
        "import torch.nn as nn\ndef f(d, n, share_weights):\n    layer = nn.Linear(d, d)\n"
        "    if share_weights:\n        return nn.ModuleList([layer] * n)\n    return nn.ModuleList([nn.Linear(d, d) for _ in range(n)])\n",
        "import torch.nn as nn\ndef f(d, n):\n    shared_block = nn.Linear(d, d)\n    return nn.ModuleList([shared_block] * n)\n",
        "import torch.nn as nn\ndef f(layer, n):\n    return nn.ModuleList([layer] * n)\n",
        "import torch.nn as nn\ndef f(d):\n    return nn.ModuleList([nn.Linear(d, d)] * 1)\n",
        "import torch.nn as nn\ndef f(d, n):\n    return nn.ModuleList([nn.Linear(d, d) for i in range(n)] * 1)\n",
        "import torch.nn as nn\ndef f(layers, n):\n    return nn.ModuleList([layers[i] for i in range(n)])\n",
        "import torch.nn as nn\nclass Act(nn.Module):\n    def forward(self, x):\n        return x * 2\n"
        "def f(n):\n    return nn.Sequential(*[Act()] * n)\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._tests: list[ast.expr] = []  # the tests of the `if`s around the node

    def visit_If(self, node: ast.If) -> None:
        self._tests.append(node.test)

    def leave_If(self, node: ast.If) -> None:
        self._tests.pop()

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._tests.append(node.test)

    def leave_IfExp(self, node: ast.IfExp) -> None:
        self._tests.pop()

    def visit_Call(self, node: ast.Call) -> None:
        container = self.inference.qualify(node.func)
        if container not in MODULE_CONTAINERS or self._sharing_declared():
            return
        if container == "torch.nn.Sequential":
            handed = [arg.value for arg in node.args if isinstance(arg, ast.Starred)]
        else:
            argument = first_argument(node, "modules")
            handed = [argument] if argument is not None else []
        spelled = ast.unparse(node.func)
        for value in handed:
            self._check(value, spelled)

    def _check(self, value: ast.expr, container: str) -> None:
        if isinstance(value, ast.Name):  # blocks = [Block()] * n; nn.Sequential(*blocks)
            binding = self.inference.binding(value.id)
            if binding is None or binding.value is None or isinstance(binding.value, ast.Name):
                return
            value = binding.value
        repeated = _repeated(value)
        if repeated is None:
            return
        elements, times = repeated
        if not elements or not all(self._holds_state(element) for element in elements):
            return
        if any(_SHARING.search(ast.unparse(element)) for element in elements):
            return
        what = _what(elements)
        copy_name, copy_import = module_reference(self.context, "copy")
        plan = FixPlan(False, _DESCRIPTION, _one_per_entry, (value,), (copy_name, copy_import))
        self.report(value, self.message.format(container=f"{container}(...)", what=what, times=times), plan)

    def _sharing_declared(self) -> bool:
        """An ``if`` around, or a parameter of the function, named for sharing or tying."""
        if any(_SHARING.search(ast.unparse(test)) for test in self._tests):
            return True
        functions = self.context.functions
        if functions:
            arguments = functions[-1].args
            names = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
            return any(_SHARING.search(name) for name in names)
        return False

    def _holds_state(self, element: ast.expr, depth: int = 0) -> bool:
        """Whether ``element`` is a module instance with parameters or buffers."""
        if isinstance(element, ast.Name):
            binding = self.inference.binding(element.id)
            return binding is not None and isinstance(binding.value, ast.Call) and self._holds_state(binding.value, depth)
        if not isinstance(element, ast.Call) or depth > 3:
            return False
        qualified = self.inference.qualify(element.func)
        if qualified is not None:
            if qualified in MODULE_CONTAINERS:
                arguments = [a.value if isinstance(a, ast.Starred) else a for a in element.args]
                return any(self._holds_state(a, depth + 1) for a in arguments)
            return is_module_base(qualified) and qualified not in STATELESS_MODULES and not qualified.endswith("Loss")
        if isinstance(element.func, ast.Name):
            return self._class_holds_state(element.func.id, depth)
        return False

    def _class_holds_state(self, name: str, depth: int) -> bool:
        """A class of the file deriving from ``nn.Module`` whose code makes a parameter, a
        buffer, or a module that holds either."""
        if self.inference.binding(name) is not None:
            return False  # the name is rebound here: not the class
        for cls in self.context.summary.torch_module_lineage(name):
            for node in ast.walk(cls):
                if not isinstance(node, ast.Call):
                    continue
                if isinstance(node.func, ast.Attribute) and node.func.attr in _STATE_REGISTRARS:
                    return True
                qualified = self.context.imports.qualify_expression(node.func)
                if qualified in PARAMETER_CONSTRUCTORS:
                    return True
                if self._holds_state(node, depth + 1):
                    return True
        return False


def _repeated(value: ast.expr) -> tuple[list[ast.expr], str] | None:
    """(the repeated elements, how many times, as spelled) of ``[X] * n``, ``n * [X, Y]``,
    ``[x for _ in ...]`` or ``{k: x for k in ...}`` whose element does not depend on the loop."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        for display, count in ((value.left, value.right), (value.right, value.left)):
            if isinstance(display, (ast.List, ast.Tuple)) and not isinstance(count, (ast.List, ast.Tuple)):
                if not display.elts or any(isinstance(e, ast.Starred) for e in display.elts):
                    return None
                if integer_literal(count) and isinstance(count, ast.Constant) and count.value in (0, 1):
                    return None
                return list(display.elts), f"{ast.unparse(count)} times"
        return None
    if isinstance(value, (ast.ListComp, ast.GeneratorExp, ast.DictComp)):
        element = value.value if isinstance(value, ast.DictComp) else value.elt
        if not isinstance(element, (ast.Name, ast.Attribute)):
            return None
        variables = {n.id for clause in value.generators for n in ast.walk(clause.target) if isinstance(n, ast.Name)}
        if any(isinstance(n, ast.Name) and n.id in variables for n in ast.walk(element)):
            return None
        return [element], "for every entry"
    return None


def _what(elements: list[ast.expr]) -> str:
    """How the message names the repeated instance: its class (``nn.Linear``) or its name."""
    names = list(dict.fromkeys(
        ast.unparse(element.func if isinstance(element, ast.Call) else element) for element in elements
    ))
    return f"one {names[0]} instance" if len(names) == 1 else f"one instance each of {', '.join(names)}"


def _one_per_entry(site: FixSite) -> Fix | None:
    """``[X(...)] * n`` -> ``[X(...) for _ in range(n)]``; an existing instance is deep-copied."""
    (value,) = site.nodes
    copy_name, copy_import = site.data
    code = site.module.code_for_node
    needs_copy = False

    def fresh(element: cst.BaseExpression) -> str:
        nonlocal needs_copy
        if isinstance(element, cst.Call):
            return code(element)
        needs_copy = True
        return f"{copy_name}.deepcopy({code(element)})"

    if isinstance(value, cst.BinaryOperation):
        display, count = (value.left, value.right) if isinstance(value.left, (cst.List, cst.Tuple)) else (value.right, value.left)
        elements = [fresh(element.value) for element in display.elements]
        if len(elements) == 1:
            text = f"[{elements[0]} for _ in range({code(count)})]"
        else:
            text = f"[module for _ in range({code(count)}) for module in ({', '.join(elements)})]"
        new = cst.parse_expression(text)
    elif isinstance(value, cst.DictComp):
        new = value.with_changes(value=cst.parse_expression(fresh(value.value)))
    elif isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        new = value.with_changes(elt=cst.parse_expression(fresh(value.elt)))
    else:
        return None
    new = new.with_changes(lpar=value.lpar, rpar=value.rpar)
    return Fix(replacements=((value, new),), safe=False, description=_DESCRIPTION,
               needs_import=copy_import if needs_copy else None)
