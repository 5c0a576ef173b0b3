"""TCP006: an in-place write through a conversion that aliases only sometimes."""

from __future__ import annotations

import ast

from ..analysis.evaluator import (
    container_of,
    is_advanced_index,
    is_copying_conversion,
    method_call,
)
from ..analysis.vocabulary import CONVERSION_METHODS, VIEW_METHODS, writes_in_place
from ..ast_text import subscript_elements
from ..lazy_cst import cst
from ..rule import INPLACE_SIGNATURE, WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, call_method, module_reference

_VIEWS = VIEW_METHODS - {"detach"}  # an in-place write through .detach() is TCP004's
_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})
_DTYPES = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
    "int": "int32", "long": "int64", "short": "int16", "bool": "bool", "byte": "uint8", "char": "int8",
}  # fmt: skip

# A conversion call and an in-place write in the same function: the write may go through
# a name bound to the conversion, so the two need not share a statement.
_CONVERSION_CALL = rf"\.{WS}(?:{'|'.join(sorted(CONVERSION_METHODS))}){WS}\("


class InplaceOnConversion(Rule):
    code = "TCP006"
    name = "inplace-on-conversion"
    message = (
        "in-place write to a conversion result: .{method}() returns the tensor itself when no "
        "conversion is needed, so this changes the original on some devices, dtypes or layouts "
        "and not on others; use .to(..., copy=True) or .clone() for a copy, or an out-of-place op"
    )
    triggers = (_CONVERSION_CALL, INPLACE_SIGNATURE)
    # Opt-in: about 3 in 4 findings on real code were real hazards (see known problems).
    enabled_by_default = False
    docs = RuleDocs(
        what="Flags an in-place write (a trailing-underscore method, item assignment, augmented "
        "assignment) to the result of `.to(...)`, `.cpu()`, `.cuda()`, `.float()`/`.double()`/"
        "`.half()`/..., `.type(...)`, `.contiguous()`, `.reshape(...)` or `.flatten()`: directly "
        "(`x.cpu().add_(1)`), through views and basic indexing of it, or through a name bound to it "
        "in the same function (`img = img.to(device); img /= 255`), when the converted tensor can "
        "be seen elsewhere: a parameter, an attribute, an item of a container, a global.",
        why="These conversions return the SAME tensor when no conversion is needed: `.cpu()` on a "
        "CPU tensor, `.cuda()` on one already on that GPU, `.float()` on float32, `.contiguous()` "
        "on a contiguous tensor, `.reshape()` when the strides allow a view. So `x.cpu().add_(1)` "
        "changes `x` on a CPU machine and not on a GPU one, and `img = img.to(device); img /= 255` "
        "divides the caller's tensor only when it already was on `device`: code that passes its "
        "tests on one machine silently corrupts data on another.",
        example="import torch\n\n\ndef normalise(img: torch.Tensor, device: str) -> torch.Tensor:\n"
        "    img = img.to(device)\n    img /= 255\n    return img\n",
        use_instead="import torch\n\n\ndef normalise(img: torch.Tensor, device: str) -> torch.Tensor:\n"
        "    img = img.to(device)\n    img = img / 255\n    return img\n",
        fixture="fixtures/tcp006_inplace_on_conversion.py",
        known_problems="Off by default: on real code (torch and 39 PyTorch projects, 6.6 M lines) "
        "16 of 25 findings were real hazards; the rest were numpy arrays, writes that land the "
        "same either way, or writes through `.reshape()`/`.flatten()` into weights on "
        "purpose (when writing into the original is meant, `.view()` says so: it never copies, it "
        "raises). A chain that starts from a fresh tensor (`torch.zeros(3).cuda()`), a copy "
        "(`x.clone().float()`, `.to(..., copy=True)`) or the result of a call (`model(x).float()`) "
        "is not flagged, nor one from a loop variable or a local name: nothing else is known to see "
        "it, nor `.permute(...).contiguous()` (it copies). Aliases are followed through plain names "
        "within one function; a binding made by `:=` is not followed. {accuracy} False findings "
        "there include scipy arrays, an integer tensor whose write changes nothing, a batch's "
        "targets zeroed when never read again and an argument the caller no longer uses; a missed "
        "hazard, a batch already on the device normalised in place twice: it stays opt-in.",
        fix_safety="Unsafe (the original no longer changes, which is the point): the conversion "
        "nearest to the write becomes a copy: `.to(...)` gains `copy=True`, `.cpu()`/`.cuda()` "
        "become `.to(\"cpu\"/\"cuda\", copy=True)`, `.float()` and the other dtype shorthands become "
        "`.to(torch.float32, copy=True)` and so on; `.contiguous()`, `.reshape()`, `.flatten()` and "
        "`.type()` get a `.clone()` after them.",
    )
    flagged = (
        Example("def f(x):\n    x.cpu().add_(1)\n", [(2, 5)]),
        Example("def f(img, device):\n    img = img.to(device)\n    img /= 255\n", [(3, 5)]),
        Example("def f(self):\n    w = self.weight.float()\n    w.mul_(2)\n", [(3, 5)]),
        Example("def f(x):\n    x.contiguous().view(-1)[0] = 1\n", [(2, 5)]),
        Example("def f(batch):\n    x = batch['image'].to('cuda')\n    x[0] += 1\n", [(3, 5)]),
        Example("def f(x):\n    y = x.reshape(-1)\n    y.clamp_(0, 1)\n    return y\n", [(3, 5)]),
    )
    clean = (
        "def f(x, bs, n):\n    x = x.view(bs, n, -1).permute(0, 2, 1).contiguous()\n    x[..., :2] *= 2\n    return x\n",
        "import torch\ndef f():\n    torch.zeros(3).cuda().add_(1)\n    t = torch.zeros(3).cuda()\n    t.add_(1)\n",
        "def f(x):\n    x.clone().float().div_(2)\n",
        "def f(x, d):\n    y = x.to(d, copy=True)\n    y.add_(1)\n",
        "def f(img, d):\n    img = img.to(d)\n    img = img / 255\n",
        "def f(model, x):\n    out = model(x).float()\n    out.mul_(2)\n",
        "def f(x):\n    y = x.cpu()[x > 0].zero_()\n    return x.cpu().add(1)\n",
        "def f(batch, d):\n    batch = batch.to(d)\n    batch['labels'] = None\n",
        "def f(x):\n    x.detach().cpu().requires_grad_()\n",
        "def f(p):\n    idx = (p == 1).nonzero()[:, 1].reshape(-1, 2)\n    idx[:, -1] -= 1\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        # Values bound to a name (by `=`) that are aliasing conversion chains, judged with
        # the bindings of the moment: id(value) -> the conversion nearest to the name.
        self.aliasing_values: dict[int, ast.Call] = {}
        self.parameters: list[set[str]] = [set()]  # of each enclosing function

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        arguments = node.args
        every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
        self.parameters.append({p.arg for p in every if p is not None})

    def leave_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.parameters.pop()

    def visit_Call(self, node: ast.Call) -> None:
        called = method_call(node)
        if called and writes_in_place(called[1]):
            self._check(node, called[0])

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Subscript) and not _keyed(target, self.lines):
                self._check(node, target.value)
        self._remember(node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None and isinstance(node.target, ast.Name):
            self._remember(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        target = node.target
        if isinstance(target, ast.Subscript) and not _keyed(target, self.lines):
            self._check(node, target.value)
        elif isinstance(target, ast.Name):
            self._check(node, target)

    def _remember(self, value: ast.expr) -> None:
        conversion = self._aliasing_chain(value)
        if conversion is not None:
            self.aliasing_values[id(value)] = conversion

    def _check(self, node: ast.AST, written: ast.expr) -> None:
        if isinstance(written, ast.Name):
            if written.id.startswith("__"):
                return
            binding = self.inference.binding(written.id)
            if binding is None or binding.value is None or (binding.info and binding.info.fresh):
                return
            conversion = self.aliasing_values.get(id(binding.value))
        else:
            conversion = self._aliasing_chain(written)
        if conversion is not None:
            method = method_call(conversion)[1]
            self.report(node, self.message.format(method=method), fix=self._fix(conversion))

    def _aliasing_chain(self, node: ast.expr) -> ast.Call | None:
        """The conversion nearest to ``node`` when ``node`` may be the converted tensor itself
        (through views and basic indexing) and that tensor can be seen elsewhere."""
        conversion = None
        while True:
            if isinstance(node, ast.Subscript):
                if is_advanced_index(node, self.inference):
                    return None  # a copy
                if conversion is not None:
                    break  # converting an item of something: batch["image"].to(device)
                if _keyed(node, self.lines):
                    return None  # writing an item of a mapping, not of a tensor
                node = node.value
                continue
            called = method_call(node)
            if called is None or self.inference.qualify(node.func) is not None:
                break  # (torch.flatten(x) is a function: its result is opaque here)
            receiver, name = called
            if name in _VIEWS:
                node = receiver
            elif name in CONVERSION_METHODS:
                if not _may_alias(node):
                    return None
                conversion = conversion or node
                node = receiver
            else:
                break
        if conversion is None:
            return None
        while True:  # views of the root: x.T, x.data, x[:n]
            if isinstance(node, ast.Attribute) and node.attr in _VIEW_ATTRIBUTES:
                node = node.value
            elif isinstance(node, ast.Subscript) and all(
                isinstance(e, ast.Slice) for e in subscript_elements(node, self.lines)
            ):
                node = node.value
            else:
                break
        return conversion if self._visible(node) else None

    def _visible(self, root: ast.expr) -> bool:
        """Can something besides this expression see the tensor ``root`` evaluates to?"""
        if isinstance(root, ast.Attribute):
            return True  # self.weight, outputs.logits
        if isinstance(root, ast.Subscript):  # batch["image"], inputs[0]: held by the container
            container = container_of(root)  # unless that is a temporary: x.nonzero()[:, 1]
            return isinstance(container, (ast.Name, ast.Attribute)) or self._visible(container)
        if not isinstance(root, ast.Name):
            return False  # a call result or an arithmetic result: a temporary
        binding = self.inference.binding(root.id)
        if binding is None:
            return True  # a global, or a name of an enclosing function
        if binding.info and binding.info.fresh:
            return False
        value = binding.value
        if value is None:  # the caller's argument; not a loop variable, nor a merge of branches
            return root.id in self.parameters[-1]
        if id(value) in self.aliasing_values or isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
            return True
        return False  # bound to a call's result: nothing else is known to hold it

    def _fix(self, conversion: ast.Call) -> FixPlan:
        name = method_call(conversion)[1]
        torch, needs_import = module_reference(self.context)
        return FixPlan(
            safe=False,
            description=f"make .{name}() always return a copy",
            build=_build_fix,
            anchors=(conversion,),
            data=(torch, needs_import),
        )


def _build_fix(site: FixSite) -> Fix:
    """The conversion nearest to the write (``site.nodes[0]``) made a copy; ``site.data``:
    torch's local name and the import it needs (for the dtype shorthands)."""
    (conversion,) = site.nodes
    receiver, name = conversion.func.value, conversion.func.attr.value
    needs_import = None
    if name == "to":
        new = conversion.with_changes(args=[*_with_comma(conversion.args), _copy_true()])
    elif name in ("cpu", "cuda") and not conversion.args:
        new = call_method(receiver, "to", [cst.Arg(cst.SimpleString(f'"{name}"')), _copy_true()])
    elif name in _DTYPES and not conversion.args:
        torch, needs_import = site.data
        dtype = cst.Attribute(value=cst.Name(torch), attr=cst.Name(_DTYPES[name]))
        new = call_method(receiver, "to", [cst.Arg(dtype), _copy_true()])
    else:
        new = call_method(conversion, "clone")
    new = new.with_changes(lpar=conversion.lpar, rpar=conversion.rpar)
    return Fix(
        replacements=((conversion, new),),
        safe=False,
        description=f"make .{name}() always return a copy",
        needs_import=needs_import,
    )


def _copy_true() -> cst.Arg:
    return cst.Arg(
        cst.Name("True"),
        keyword=cst.Name("copy"),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )


def _with_comma(args):
    args = list(args)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return args


def _may_alias(call: ast.Call) -> bool:
    """Does this conversion call return its receiver when nothing needs converting?"""
    receiver, name = method_call(call)
    if name in ("to", "type") and not (call.args or call.keywords):
        return False  # .type() returns a string; .to() without arguments is unusual
    if name == "contiguous" and (inner := method_call(receiver)) is not None and inner[1] in _REORDERING:
        return False  # x.permute(...).contiguous() copies (unless the order changed nothing)
    return not is_copying_conversion(call)


# Views whose result is not contiguous (for any shape that matters).
_REORDERING = frozenset({"permute", "transpose", "t", "swapaxes", "swapdims", "movedim", "moveaxis"})


def _keyed(node: ast.Subscript, lines: list[str] | None) -> bool:
    """``batch["image"]``: an item of a mapping, not a tensor index."""
    return any(
        isinstance(e, ast.JoinedStr) or (isinstance(e, ast.Constant) and isinstance(e.value, (str, bytes)))
        for e in subscript_elements(node, lines)
    )
