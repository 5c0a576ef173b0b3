"""TCP011: tying weights by wrapping another module's Parameter in a new ``nn.Parameter``."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence

from ..analysis.ast_patterns import argument_values
from ..analysis.evaluator import argument_count, dotted_name, first_argument, method_call
from ..analysis.vocabulary import PARAMETER_CONSTRUCTORS, TIED_PARAMETER_ATTRIBUTES
from ..gates import ParameterRewrapGate
from ..rule import WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs

_PARAMETER = PARAMETER_CONSTRUCTORS - {"torch.nn.parameter.Buffer"}
_FIX_DESCRIPTION = "assign the Parameter itself"


class ParameterRewrapTie(Rule):
    code = "TCP011"
    name = "parameter-rewrap-tie"
    enabled_by_default = False  # not yet proven blind: see its page
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

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            target = node.targets[0]
            code = _Code(self.context.lines).of(target, node, node.value)
            self._check(node.value, dotted_name(target.value), target.attr, code)

    def visit_Call(self, node: ast.Call) -> None:
        called = method_call(node)
        if called is None or called[1] != "register_parameter" or argument_count(node) != 2:
            return
        name, value = argument_values(node)
        code = _Code(self.context.lines)
        attribute = code.plain_string(name)
        if attribute is not None:
            self._check(value, dotted_name(called[0]), attribute, f"{code.of(called[0], node.func, node.func)}.{attribute}")

    def _check(self, value: ast.expr, owner: str | None, attribute: str, target_code: str) -> None:
        """``<owner>.<attribute> = value``: ``owner`` is the dotted name of the module that
        gets the Parameter (None when it is no plain dotted name)."""
        if not isinstance(value, ast.Call) or self.inference.qualify(value.func) not in _PARAMETER:
            return
        argument = first_argument(value, "data")
        if argument is None:
            return
        parameter, around = argument, None  # around: the expression whose part it is
        while True:  # X.weight.data, X.weight.detach(): the same storage
            if isinstance(parameter, ast.Attribute) and parameter.attr == "data":
                parameter, around = parameter.value, parameter
            elif (called := method_call(parameter)) is not None and called[1] == "detach" and not argument_count(parameter):
                parameter, around = called[0], parameter.func
            else:
                break
        if not isinstance(parameter, ast.Attribute) or parameter.attr not in TIED_PARAMETER_ATTRIBUTES:
            return
        module = dotted_name(parameter.value)
        if module is not None and module == owner:
            # The module's own attribute: a rewrap of the attribute itself (nothing else
            # shares it), or one of its tensors made a Parameter (a buffer, a plain tensor).
            return
        if not self._kept_module(parameter.value):
            return
        if owner == "self" and isinstance(parameter.value, ast.Name) and parameter.attr == attribute \
                and parameter.value.id in self._replaced_modules():
            return  # a module built from the one it replaces takes its parameters over
        fix = None
        if argument_count(value) == 1:
            fix = FixPlan(True, _FIX_DESCRIPTION, _build_unwrap, anchors=(value, parameter))
        code = _Code(self.context.lines)
        source = code.of(parameter, around, around) if around is not None else code.in_call(parameter, value)
        if "\n" in source and self.context.statements:  # inside the call's parentheses: LibCST
            source = code.dedented(source, self.context.statements[-1])  # writes lines from the block's indentation
        self.report(value, self.message.format(source=source, target=target_code), fix)

    def _replaced_modules(self) -> frozenset[str]:
        """In ``__init__(self, m, ...)``, the parameters ``m`` whose attributes the base class's
        ``__init__`` is called with (``super().__init__(m.in_channels, m.out_channels, ...)``):
        the new module is built as a copy of ``m``'s configuration, to replace ``m`` (a
        quantised, pruned or wrapped layer), so taking ``m``'s parameters is no tie: ``m`` is
        swapped out of the model."""
        functions = self.context.functions
        if not functions or functions[-1].name != "__init__":
            return frozenset()
        function = functions[-1]
        parameters = {param.arg for param in function.args.args[1:]}
        replaced: set[str] = set()
        for statement in function.body:
            for call in ast.walk(statement):
                called = method_call(call)
                if called is None or called[1] != "__init__":
                    continue
                for value in argument_values(call):
                    root = value
                    while isinstance(root, (ast.Attribute, ast.Subscript)):
                        root = root.value
                    if isinstance(root, ast.Name) and root.id in parameters and root is not value:
                        replaced.add(root.id)
        return frozenset(replaced)

    def _kept_module(self, module: ast.expr) -> bool:
        """Whether ``module`` (the X of ``X.weight``) is a module that lives on: an attribute
        or item of something, a parameter, a global; not a call's result, nor a name bound
        to one here (a module the function made, which it may throw away)."""
        root = module
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        binding = self.inference.binding(root.id)
        return binding is None or not isinstance(binding.value, ast.Call)


def _build_unwrap(site: FixSite) -> Fix:
    """``nn.Parameter(X.weight)`` -> ``X.weight``, keeping the call's own parentheses."""
    value, parameter = site.nodes
    return Fix(
        replacements=((value, parameter.with_changes(lpar=value.lpar, rpar=value.rpar)),),
        safe=True,
        description=_FIX_DESCRIPTION,
    )


class _Code:
    """The source text of nodes, as the message quotes it: a node with its own parentheses
    (``ast`` leaves them out of its span). Without the source lines, ``ast.unparse``."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def _offset(self, line: int, byte_column: int) -> int:
        text = self.lines[line - 1]
        column = byte_column if text.isascii() else len(text.encode("utf-8")[:byte_column].decode("utf-8", "replace"))
        return sum(len(self.lines[i]) + 1 for i in range(line - 1)) + column

    def _span(self, node: ast.AST) -> tuple[int, int]:
        return self._offset(node.lineno, node.col_offset), self._offset(node.end_lineno, node.end_col_offset)

    def of(self, node: ast.expr, outer: ast.AST, limit: ast.AST) -> str:
        """``node``'s text, with the parentheses around it inside ``outer`` (from its start)
        up to where ``limit`` starts (or, when ``limit`` is ``outer``, ends)."""
        if not self.lines:
            return ast.unparse(node)
        low = self._offset(outer.lineno, outer.col_offset)
        high = self._span(limit)[1 if limit is outer else 0]
        return self._parenthesised(node, low, high)

    def in_call(self, node: ast.expr, call: ast.Call) -> str:
        """The text of ``node``, an argument of ``call``, with its own parentheses (not the call's)."""
        if not self.lines:
            return ast.unparse(node)
        text = "\n".join(self.lines)
        low = text.index("(", self._span(call.func)[1]) + 1
        return self._parenthesised(node, low, self._span(call)[1] - 1)

    def _parenthesised(self, node: ast.expr, low: int, high: int) -> str:
        text = "\n".join(self.lines)
        start, end = self._span(node)
        while True:
            before, after = start - 1, end
            while before >= low and text[before] in " \t\f\\\n":
                before -= 1
            while after < high and text[after] in " \t\f\\\n":
                after += 1
            if before >= low and after < high and text[before] == "(" and text[after] == ")":
                start, end = before, after + 1
            else:
                return text[start:end]

    def dedented(self, text: str, statement: ast.stmt) -> str:
        """``text`` (code inside parentheses) with the indentation of the block that holds
        ``statement`` taken off its continuation lines."""
        first = self.lines[statement.lineno - 1]
        indent = first[: len(first) - len(first.lstrip(" \t\f"))]
        if not indent:
            return text
        head, *rest = text.split("\n")
        return "\n".join([head, *(line[len(indent):] if line.startswith(indent) else line for line in rest)])

    def plain_string(self, node: ast.expr) -> str | None:
        """The text between the quotes of a string literal with no prefix (``"weight"``), as
        written; None for anything else (``r"w"``, ``"a" "b"``, ``f"..."``)."""
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or node.kind is not None:
            return None
        if not self.lines:
            return node.value
        start, end = self._span(node)
        literal = "\n".join(self.lines)[start:end]
        try:
            tokens = [t for t in tokenize.generate_tokens(io.StringIO(literal).readline)
                      if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
        except (tokenize.TokenError, SyntaxError):
            return None
        if len(tokens) != 1 or tokens[0].type != tokenize.STRING or literal[:1] not in ("'", '"'):
            return None
        quotes = 3 if literal[:3] in ("'''", '"""') else 1
        return literal[quotes:-quotes]
