"""Regenerate ``flake8_tensorcopy/analysis/torch_api.py`` from torch's own type stubs:
``python3 scripts/generate_torch_api.py``.

Run it with the pinned torch, numpy and pandas installed (the test extra on 3.11). It lives
outside the package so that nothing shipped imports them: linting never does.
``tests/test_torch_api.py`` regenerates the table and compares.

Sources (read as text with ``ast``, so nothing in torch runs, but for numpy's ufuncs):
- ``torch/_C/_VariableFunctions.pyi`` and ``torch/functional.py``: ``torch.*`` functions;
- ``torch/nn/functional.pyi``: the ``torch.nn.functional`` functions it gives signatures for;
- ``torch/_C/__init__.pyi`` (class ``TensorBase``) and ``torch/_tensor.py`` (class ``Tensor``):
  tensor methods and attributes.
- numpy's ufuncs, each called on small CPU tensors: those that give a tensor back.
(What ``torch.nn.functional`` returns is not read from its stub: ``conv2d``, ``linear``,
``pad`` and most others are re-exported from C there without a signature, so every
``torch.nn.functional`` call counts as returning a tensor.)

A function or method counts when every overload is annotated ``-> Tensor``. Tensor-only
methods are those of them that no other value common in training code has: they are
looked up on numpy's arrays, pandas' frames and series, ``torch.nn.Module`` and the
built-in types at generation time, so that ``x.clone()`` can be evidence that ``x`` is a tensor and ``x.view()`` (numpy
has it) cannot. Tensor-only members (any method or attribute) are evidence from use:
a value whose ``.detach()``, ``.numpy()`` or ``.requires_grad`` is read is a tensor. So is
a value passed as the first argument of a function whose first parameter is annotated
``Tensor`` in every overload (``torch.sum(x)``, ``F.relu(x)``; not ``torch.tensor(x)`` nor
``torch.stack(xs)``).
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "flake8_tensorcopy" / "analysis" / "torch_api.py"
_BUILTIN_TYPES = (
    list, dict, str, bytes, bytearray, memoryview, set, frozenset, tuple, range, slice,
    int, float, complex, bool, object,
)


def _tensor_returning(definitions: list[ast.FunctionDef]) -> set[str]:
    """Names all of whose (overloaded) definitions return ``Tensor``."""
    return {name for name, kinds in _return_kinds(definitions).items() if kinds == {"tensor"}}


def _tuple_returning(definitions: list[ast.FunctionDef], tuple_types: set[str]) -> tuple[set[str], set[str]]:
    """(names all of whose overloads return a tuple or list of tensors, ``topk``; names whose
    overloads return either that or a tensor, ``max``: either way, their elements are tensors)."""
    # Unannotated overrides in torch/_tensor.py (``Tensor.split``) defer to the stub's overloads.
    annotated = {d.name for d in definitions if d.returns is not None}
    kinds = _return_kinds([d for d in definitions if d.returns is not None or d.name not in annotated], tuple_types)
    return (
        {name for name, each in kinds.items() if each == {"tuple"}},
        {name for name, each in kinds.items() if each == {"tensor", "tuple"}},
    )


def _return_kinds(definitions: list[ast.FunctionDef], tuple_types: set[str] = frozenset()) -> dict[str, set[str]]:
    """Per public name, what its overloads return: "tensor", "tuple" (of tensors) or "other"."""
    kinds: dict[str, set[str]] = defaultdict(set)
    for definition in definitions:
        if not definition.name.startswith("_"):
            kinds[definition.name].add(_return_kind(definition.returns, tuple_types))
    return kinds


def _return_kind(returns: ast.expr | None, tuple_types: set[str]) -> str:
    text = ast.unparse(returns) if returns is not None else ""
    if text in ("Tensor", "torch.Tensor"):
        return "tensor"
    if text in tuple_types or _tensors_only(returns):
        return "tuple"
    return "other"


def _tensors_only(annotation: ast.expr | None) -> bool:
    """``tuple[Tensor, ...]``, ``tuple[Tensor, Tensor]``, ``list[Tensor]``, ``Sequence[Tensor]``."""
    if not (isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in _SEQUENCES):
        return False
    elements = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    return all(
        ast.unparse(element) in ("Tensor", "torch.Tensor", "...")
        for element in elements
    ) and ast.unparse(elements[0]) != "..."


_SEQUENCES = {"tuple", "Tuple", "list", "List", "Sequence", "typing.Sequence", "collections.abc.Sequence"}


def _tuple_types(path: Path) -> set[str]:
    """The structseq types of ``torch.return_types`` whose every field is a tensor:
    ``class topk(tuple[Tensor, Tensor])``."""
    return {
        f"torch.return_types.{node.name}"
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.ClassDef) and any(_tensors_only(base) for base in node.bases)
    }


def _tensor_input(definitions: list[ast.FunctionDef]) -> set[str]:
    """Names all of whose (overloaded) definitions take a ``Tensor`` first."""
    verdicts: dict[str, list[bool]] = defaultdict(list)
    for definition in definitions:
        positional = [*definition.args.posonlyargs, *definition.args.args]
        first = positional[0].annotation if positional else None
        verdicts[definition.name].append(first is not None and ast.unparse(first) in ("Tensor", "torch.Tensor"))
    return {name for name, each in verdicts.items() if all(each) and not name.startswith("_")}


def _top_level_functions(path: Path) -> list[ast.FunctionDef]:
    return [node for node in ast.parse(path.read_text()).body if isinstance(node, ast.FunctionDef)]


def _functions_anywhere(path: Path) -> list[ast.FunctionDef]:
    """Module-level functions, also those defined under ``if TYPE_CHECKING:`` blocks, with
    their signature type comments (``# type: (Tensor, str) -> Tensor``, TorchScript's
    spelling: ``torch.norm``, ``torch.cdist``) read as annotations. An unannotated
    implementation behind annotated overloads defers to them."""
    tree = ast.parse(path.read_text(), type_comments=True)
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.col_offset in (0, 4)
                 and not _is_method(tree, node)]
    for function in functions:
        _annotate_from_type_comment(function)
    annotated = {function.name for function in functions if function.returns is not None}
    return [function for function in functions if function.returns is not None or function.name not in annotated]


def _annotate_from_type_comment(function: ast.FunctionDef) -> None:
    if function.returns is not None or not function.type_comment:
        return
    signature = ast.parse(function.type_comment, mode="func_type")
    function.returns = signature.returns
    for argument, annotation in zip([*function.args.posonlyargs, *function.args.args], signature.argtypes):
        argument.annotation = argument.annotation or annotation


def _is_method(tree: ast.Module, function: ast.FunctionDef) -> bool:
    return any(isinstance(node, ast.ClassDef) and function in node.body for node in ast.walk(tree))


def _class_body(path: Path, class_name: str) -> list[ast.stmt]:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return node.body
    raise SystemExit(f"class {class_name} not found in {path}")


def _methods(body: list[ast.stmt]) -> list[ast.FunctionDef]:
    return [item for item in body if isinstance(item, ast.FunctionDef)]


def _public_members(body: list[ast.stmt]) -> set[str]:
    """Methods, properties and annotated attributes of a class body."""
    names = {item.name for item in _methods(body)}
    names |= {item.target.id for item in body if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)}
    return {name for name in names if not name.startswith("_")}


def _exported(path: Path) -> set[str]:
    """``__all__`` of a module, read from its text."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


# Members of the figures that training scripts hold too (plotly's `fig.layout`).
_PLOTTING = {"layout"}
# Names so common on the file's own classes (a replay buffer's `size()`, a dataset's
# `data()`) that calling one says nothing, though numpy has them only as attributes.
_GENERIC_CALLS = {"size", "data", "device", "dtype", "shape", "layout"}


def _members_elsewhere() -> tuple[set[str], set[str], set[str], set[str]]:
    """(every member of the other values, those of them that can be called, those that can
    be called on the values other than pandas': what ``x[:, k]`` can be, as pandas objects
    take no tuple of slices; those that can be called on the values other than modules:
    what ``(a == b)`` can be)."""
    import numpy
    import pandas
    import torch

    nn = torch.nn
    tables = [pandas.DataFrame, pandas.Series, pandas.Index]
    arrays = [numpy.ndarray, numpy.matrix, numpy.generic, nn.Module, *_BUILTIN_TYPES]
    kinds = [*arrays, *tables]
    values = [numpy.ndarray, numpy.matrix, numpy.generic, *tables, *_BUILTIN_TYPES]
    members = {name for kind in kinds for name in dir(kind)} | _PLOTTING
    callable_members = {name for kind in kinds for name in dir(kind) if callable(getattr(kind, name, None))}
    callable_on_arrays = {name for kind in arrays for name in dir(kind) if callable(getattr(kind, name, None))}
    callable_on_values = {name for kind in values for name in dir(kind) if callable(getattr(kind, name, None))}
    # What common layers set on their instances (``conv.stride`` is a tuple): never callable.
    for layer in (nn.Conv2d(1, 1, 1), nn.Linear(1, 1), nn.BatchNorm2d(1), nn.LSTM(1, 1), nn.Embedding(1, 1)):
        members |= set(vars(layer))
    return members, callable_members, callable_on_arrays, callable_on_values


def _numpy_ufuncs_giving_tensors() -> set[str]:
    """numpy's ufuncs that give a tensor back when applied to CPU tensors: numpy computes on
    the tensor's memory and ``Tensor.__array_wrap__`` wraps the result (``np.exp(t)``). Each
    is called, all its inputs a tensor, on a float and on an integer tensor; it counts when
    it returns a tensor for one of them and, for the other, a tensor or an error."""
    import warnings

    import numpy
    import torch

    samples = (torch.ones(3), torch.ones(3, dtype=torch.int64))
    found = set()
    for name in dir(numpy):
        ufunc = getattr(numpy, name)
        if not isinstance(ufunc, numpy.ufunc) or ufunc.nout != 1:
            continue
        results = []
        for sample in samples:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # numpy 2's notes on __array_wrap__'s signature
                    results.append(ufunc(*[sample] * ufunc.nin))
            except (TypeError, ValueError, RuntimeError):  # a dtype this ufunc does not take
                continue
        if results and all(isinstance(result, torch.Tensor) for result in results):
            found.add(name)
    return found


def _deprecated_inits(path: Path) -> set[str]:
    """``normal = _make_deprecate(normal_)``: nn.init's old names, which write in place too."""
    return {
        f"torch.nn.init.{statement.targets[0].id}"
        for statement in ast.parse(path.read_text()).body
        if isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "_make_deprecate"
    }


def _self_returning(body: list[ast.stmt]) -> set[str]:
    """The methods annotated ``-> Self``: ``nn.Module.to``, ``.cuda``, ``.train``..."""
    return {method.name for method in _methods(body) if method.returns is not None and ast.unparse(method.returns) == "Self"}


def tables(torch_root: Path) -> dict[str, frozenset[str]]:
    functional_py = torch_root / "functional.py"
    variable_functions = _top_level_functions(torch_root / "_C" / "_VariableFunctions.pyi")
    exported = [d for d in _functions_anywhere(functional_py) if d.name in _exported(functional_py)]
    torch_functions = _tensor_returning(variable_functions) | _tensor_returning(exported)
    tuple_types = _tuple_types(torch_root / "return_types.pyi")
    tuple_functions, either_functions = map(
        set.union, _tuple_returning(variable_functions, tuple_types), _tuple_returning(exported, tuple_types)
    )
    tensor_input = _tensor_input(variable_functions) | _tensor_input(exported)
    nn_functional = _tensor_input(_top_level_functions(torch_root / "nn" / "functional.pyi"))
    bodies = [
        _class_body(torch_root / "_C" / "__init__.pyi", "TensorBase"),
        _class_body(torch_root / "_tensor.py", "Tensor"),
    ]
    methods = set().union(*(_tensor_returning(_methods(body)) for body in bodies))
    tuple_methods, either_methods = _tuple_returning([m for body in bodies for m in _methods(body)], tuple_types)
    members = set().union(*(_public_members(body) for body in bodies))
    elsewhere, callable_elsewhere, callable_on_arrays, callable_on_values = _members_elsewhere()
    return {
        "TORCH_FUNCTIONS": frozenset(torch_functions),
        "TENSOR_INPUT_FUNCTIONS": frozenset(
            {f"torch.{name}" for name in tensor_input} | {f"torch.nn.functional.{name}" for name in nn_functional}
        ),
        "TENSOR_METHODS": frozenset(methods),
        "TENSOR_TUPLE_FUNCTIONS": frozenset(tuple_functions),
        "TENSOR_OR_TUPLE_FUNCTIONS": frozenset(either_functions - tuple_functions),
        "TENSOR_TUPLE_METHODS": frozenset(tuple_methods),
        "TENSOR_OR_TUPLE_METHODS": frozenset(either_methods),
        "TENSOR_ONLY_METHODS": frozenset(methods - callable_elsewhere),
        "TENSOR_ONLY_CALLS": frozenset(members - callable_elsewhere - _GENERIC_CALLS),
        "TENSOR_ONLY_MEMBERS": frozenset(members - elsewhere),
        "SLICED_TENSOR_CALLS": frozenset(members - callable_on_arrays - _GENERIC_CALLS),
        "COMPUTED_TENSOR_METHODS": frozenset(methods - callable_on_values),
        "DEPRECATED_INIT_FUNCTIONS": frozenset(_deprecated_inits(torch_root / "nn" / "init.py")),
        "MODULE_SELF_METHODS": frozenset(_self_returning(_class_body(torch_root / "nn" / "modules" / "module.py", "Module"))),
        **_distributions(torch_root / "distributions"),
        "NUMPY_TENSOR_UFUNCS": frozenset(_numpy_ufuncs_giving_tensors()),
    }


def _distributions(package: Path) -> dict[str, frozenset[str]]:
    """The distribution classes that ``torch.distributions`` exports (subclasses of its
    ``Distribution``, qualified both ways: ``torch.distributions.Normal`` and
    ``torch.distributions.normal.Normal``), and the members of ``Distribution`` annotated
    ``-> Tensor``: the methods (``sample``, ``log_prob``) and the properties (``mean``)."""
    bases: dict[str, tuple[str, set[str]]] = {}  # class -> (its module, its base classes' names)
    for module in sorted(package.glob("*.py")):
        for node in ast.parse(module.read_text()).body:
            if isinstance(node, ast.ClassDef):
                bases[node.name] = (module.stem, {ast.unparse(b).rpartition(".")[2] for b in node.bases})

    def is_distribution(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name == "Distribution":
            return True
        return name in bases and name not in seen and any(is_distribution(b, seen | {name}) for b in bases[name][1])

    classes = {name for name in _exported(package / "__init__.py") if is_distribution(name)}
    members = [m for m in _methods(_class_body(package / "distribution.py", "Distribution")) if not m.name.startswith("_")]
    tensor_members = [m for m in members if m.returns is not None and ast.unparse(m.returns) in ("Tensor", "torch.Tensor")]
    properties = {m.name for m in tensor_members if any(ast.unparse(d) == "property" for d in m.decorator_list)}
    return {
        "DISTRIBUTIONS": frozenset(
            {f"torch.distributions.{name}" for name in classes}
            | {f"torch.distributions.{bases[name][0]}.{name}" for name in classes}
        ),
        "DISTRIBUTION_TENSOR_METHODS": frozenset({m.name for m in tensor_members} - properties),
        "DISTRIBUTION_TENSOR_PROPERTIES": frozenset(properties),
    }


def render(torch_version: str, found: dict[str, frozenset[str]]) -> str:
    lines = [
        f'"""Generated from the type stubs of torch {torch_version} by',
        "`python3 scripts/generate_torch_api.py`: do not edit.",
        "",
        "TORCH_FUNCTIONS and TENSOR_METHODS: names whose every overload returns a Tensor.",
        "TENSOR_INPUT_FUNCTIONS: qualified names whose every overload takes a Tensor first.",
        "TENSOR_TUPLE_*: names whose every overload returns a tuple or list of tensors (topk);",
        "TENSOR_OR_TUPLE_*: some overloads a tensor, the others that (max): either way, each",
        "element of the result is a tensor.",
        "TENSOR_ONLY_METHODS are those tensor methods, TENSOR_ONLY_CALLS any tensor member, that",
        "numpy, pandas, nn.Module and built-in types have nothing callable by that name for;",
        "TENSOR_ONLY_MEMBERS are the tensor members they have nothing at all by that name for.",
        "SLICED_TENSOR_CALLS: the tensor members that numpy, nn.Module and built-in types have",
        "nothing callable by that name for, pandas aside: what ``x[:, 5].unique()`` says of ``x``",
        "(no pandas object takes a tuple of slices as an index).",
        "COMPUTED_TENSOR_METHODS: the tensor methods that numpy, pandas and built-in types have",
        "nothing callable by that name for, modules aside: on what an operator computes",
        "(``(pred == y).float()``), which is never a module.",
        "DEPRECATED_INIT_FUNCTIONS: nn.init's old names without the underscore (``init.normal``),",
        "which write their tensor in place as the new ones do.",
        "MODULE_SELF_METHODS: the nn.Module methods that return the module itself (``.to``, ``.cuda``).",
        "DISTRIBUTIONS: the ``torch.distributions`` classes (qualified names);",
        "DISTRIBUTION_TENSOR_METHODS and _PROPERTIES: what every distribution gives as a tensor.",
        f"NUMPY_TENSOR_UFUNCS: numpy {_numpy_version()}'s ufuncs (``numpy.exp``) that give a tensor back",
        "when applied to CPU tensors (``Tensor.__array_wrap__``); on CUDA they raise.",
        '"""',
        "",
    ]
    for name, values in found.items():
        lines.append(f"{name} = frozenset(")
        lines.append('    """')
        words, line = sorted(values), ""
        for word in words:
            if len(line) + len(word) + 1 > 84:
                lines.append("    " + line.rstrip())
                line = ""
            line += word + " "
        if line:
            lines.append("    " + line.rstrip())
        lines.append('    """.split()')
        lines.append(")")
    return "\n".join(lines) + "\n"


def _numpy_version() -> str:
    import numpy

    return numpy.__version__


def generate() -> str:
    import torch

    root = Path(torch.__file__).parent
    return render(torch.__version__.split("+")[0], tables(root))


if __name__ == "__main__":
    TABLE.write_text(generate())
    sys.stdout.write(f"wrote {TABLE}\n")
