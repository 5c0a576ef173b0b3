"""The module summary (``analysis/summary.py``): what a file's own code says its values hold.

Each case is a small module and the value the summary must give for one expression,
read in one scope. Unknown must stay unknown: the look-alikes are as common as the
hazards.
"""

import ast
import textwrap

import pytest

from flake8_tensorcopy.analysis.summary import ModuleSummary
from flake8_tensorcopy.analysis.values import Holds, Instance
from flake8_tensorcopy.analysis.vocabulary import TensorInfo

TENSOR, LIST, LOADER, STATE = "tensor", Holds.TENSORS, Holds.LOADER, Holds.STATE_DICT


def value_of(source: str, expression: str, scope: str = ""):
    """What ``expression`` holds when read at the end of ``scope`` (a qualname, "" = module)."""
    tree = ast.parse(textwrap.dedent(source))
    summary = ModuleSummary.of(tree)
    facts = summary.scope(scope)
    assert facts is not None, f"no scope {scope!r}"
    value = facts.value(ast.parse(expression, mode="eval").body)
    return TENSOR if isinstance(value, TensorInfo) else value


CASES = [
    # The file's own functions.
    ("import torch\ndef make():\n    return torch.stack([torch.ones(1)])\nx = make()", "x", "", TENSOR),
    ("import torch\ndef make(a):\n    if a:\n        return torch.ones(1)\n    return None\nx = make(1)", "x", "", TENSOR),
    ("import torch\ndef make(a):\n    if a:\n        return torch.ones(1)\n    return [1]\nx = make(1)", "x", "", None),
    # A generator is no tensor; what it yields, when all agree, is what iterating it gives.
    ("import torch\ndef make():\n    yield torch.ones(1)\nx = make()", "x", "", Holds.TENSOR_STREAM),
    ("import torch\ndef make():\n    yield torch.ones(1)\nfor x in make():\n    pass", "x", "", TENSOR),
    ("import torch\ndef make(n):\n    yield torch.ones(1)\n    yield n\nfor x in make(1):\n    pass", "x", "", None),
    ("from torch.utils.data import DataLoader\ndef make(d):\n    yield from DataLoader(d)\nfor x, y in make(1):\n    pass",
     "y", "", TENSOR),
    ("from torch.utils.data import DataLoader\ndef make(d):\n    for b in DataLoader(d):\n        yield b\nx = make(1)",
     "x", "", Holds.BATCH_STREAM),
    ("from torch.utils.data import DataLoader\ndef make(d):\n    for b in DataLoader(d):\n        yield\nfor x in make(1):\n    pass",
     "x", "", None),
    ("def loop(n):\n    return loop(n - 1)\nx = loop(3)", "x", "", None),  # recursion ends
    ("import torch\ndef f():\n    return torch.ones(1)\ndef f():\n    return 1\nx = f()", "x", "", None),  # redefined
    ("import torch\ndef make():\n    return torch.ones(1)\ndef use(make):\n    y = make()", "y", "use", None),  # a parameter
    # Attributes, across methods; None (Optional) says nothing.
    ("import torch\nclass A:\n    def __init__(self):\n        self.w = None\n"
     "    def fit(self):\n        self.w = torch.randn(2)\n    def get(self):\n        pass", "self.w", "A.get", TENSOR),
    ("import torch\nclass A:\n    def __init__(self, w):\n        self.w = w\n"
     "    def fit(self):\n        self.w = torch.randn(2)\n    def get(self):\n        pass", "self.w", "A.get", None),
    ("import torch\nclass A:\n    w: torch.Tensor\n    def get(self):\n        pass", "self.w", "A.get", TENSOR),
    ("class A:\n    def __init__(self, model):\n        self.best = model.state_dict()\n    def get(self):\n        pass",
     "self.best", "A.get", STATE),
    ("import torch\nclass A:\n    def __init__(self):\n        self.w = torch.ones(1)\na = A()", "a.w", "", TENSOR),
    ("class A:\n    pass\na = A()", "a", "", Instance("A")),
    ("import torch\nclass A:\n    @staticmethod\n    def make(self):\n        self.w = torch.ones(1)\n"
     "    def get(self):\n        pass", "self.w", "A.get", None),
    ("import torch\nclass A:\n    def make(self):\n        return torch.ones(1)\n    def get(self):\n        x = self.make()",
     "x", "A.get", TENSOR),
    # Loops and unpacking.
    ("import torch\ndef f(t: torch.Tensor):\n    for row in t:\n        pass", "row", "f", TENSOR),
    ("import torch\ndef f(det: torch.Tensor):\n    for *box, conf, cls in det:\n        pass", "box", "f", LIST),
    ("import torch\ndef f(det: torch.Tensor):\n    for *box, conf, cls in det:\n        pass", "conf", "f", TENSOR),
    ("from torch.utils.data import DataLoader\ndef f(ds):\n    for x, y in DataLoader(ds):\n        pass", "y", "f", TENSOR),
    ("from torch.utils.data import DataLoader\ndef f(ds):\n    for batch in DataLoader(ds):\n        pass", "batch", "f", Holds.BATCH),
    ("from torch.utils.data import DataLoader\ndef f(ds, c):\n    for x, y in DataLoader(ds, collate_fn=c):\n        pass",
     "x", "f", None),  # a custom collate makes anything
    ("from torch.utils.data import DataLoader\ndef f(loader: DataLoader):\n    for i, (x, y) in enumerate(loader):\n        pass",
     "x", "f", TENSOR),
    ("from torch.utils.data import DataLoader\ndef f(loader: DataLoader):\n    for i, (x, y) in enumerate(loader):\n        pass",
     "i", "f", None),
    ("def f(model):\n    for name, p in model.named_parameters():\n        pass", "p", "f", TENSOR),
    ("def f(model):\n    sd = model.state_dict()\n    for k, v in sd.items():\n        pass", "v", "f", TENSOR),
    ("import torch\ndef f():\n    a, b = torch.ones(1), 2", "a", "f", TENSOR),
    ("import torch\ndef f():\n    a, b = torch.ones(1), 2", "b", "f", None),
    ("import torch\ndef f(t: torch.Tensor):\n    a, b = t", "b", "f", TENSOR),
    # Containers filled elsewhere.
    ("import torch\ndef f(xs):\n    vals = []\n    for x in xs:\n        vals.append(torch.ones(1) * x)", "vals", "f", LIST),
    ("import torch\ndef f(xs):\n    vals = []\n    for x in xs:\n        vals.append(torch.ones(1))\n    vals.append(0)", "vals", "f", None),
    ("import torch\ndef f(xs):\n    vals = []", "vals", "f", None),
    ("import torch\ndef f(xs):\n    vals = []\n    vals += [torch.ones(1)]", "vals", "f", LIST),
    ("import torch\ndef f(xs):\n    vals = []\n    vals.extend([torch.ones(1)])", "vals", "f", LIST),
    ("import torch\ndef f(xs):\n    vals = []\n    vals.extend(xs)", "vals", "f", None),
    ("import torch\ndef f(xs):\n    vals = [torch.ones(1)]\n    vals[0] = 3", "vals", "f", None),
    ("import torch\ndef f(xs):\n    vals = []\n    vals.append(torch.ones(1))", "vals[0]", "f", TENSOR),
    # Names: every binding must agree; a name read in its own update keeps what it holds.
    ("import torch\ndef f(n):\n    total = torch.zeros(1)\n    for i in n:\n        total = total + i", "total", "f", TENSOR),
    ("import torch\ndef f(n):\n    total = torch.zeros(1)\n    total += 1", "total", "f", TENSOR),
    ("import torch\ndef f(n):\n    total = torch.zeros(1)\n    total = total.item()", "total", "f", None),
    ("import numpy as np\nimport torch\ndef f(n):\n    x = np.ones(1)\n    x = torch.tensor(x)", "x", "f", None),
    ("def f(a):\n    a = a + 1", "a", "f", None),
    ("def f():\n    a = b\n    b = a", "a", "f", None),  # a cycle knows nothing
    # Evidence from use, for a parameter never rebound nor tested.
    ("def f(x):\n    y = x.detach()", "x", "f", TENSOR),
    ("def f(x):\n    y = x.detach()\n    if isinstance(x, list):\n        pass", "x", "f", None),
    ("def f(x):\n    x = x.detach()", "x", "f", TENSOR),  # read before it is rebound
    ("def f(x):\n    y = x.view(-1)", "x", "f", TENSOR),  # numpy's .view takes a dtype: view(-1) raises
    ("def f(x):\n    y = x.view(dtype)", "x", "f", None),  # numpy arrays have .view too
    ("def f(model):\n    model.cuda()\n    model.train()", "model", "f", None),
    # Tensor-only methods and the generated torch table.
    ("def f(out):\n    pass", "out.detach()", "f", TENSOR),
    ("def f(out):\n    pass", "out.sum()", "f", None),
    ("import torch\ndef f(a):\n    pass", "torch.from_numpy(a)", "f", TENSOR),
    ("import torch\ndef f(a):\n    pass", "torch.where(a)", "f", Holds.TENSOR_OR_TENSORS),  # a tuple of index tensors
    ("import torch\ndef f(a: torch.Tensor):\n    pass", "a.chunk(2)", "f", Holds.TENSORS),
    ("import torch\ndef f(a: torch.Tensor):\n    pass", "a.max(1)[0]", "f", TENSOR),
    ("import torch\ndef f(a):\n    pass", "torch.is_tensor(a)", "f", None),
    # The legacy constructors return a tensor, whatever they are given; a store that converts
    # the attribute's own value says nothing of what it held before (numpy, set elsewhere).
    ("import torch\ndef f(xs):\n    x = torch.FloatTensor(xs).cuda()", "x", "f", TENSOR),
    ("import torch\ndef f(xs):\n    x = torch.Tensor(3, 4)", "x", "f", TENSOR),
    ("import torch\nclass A:\n    def __init__(self, x):\n        self.x = torch.FloatTensor(x)\n"
     "    def get(self):\n        pass", "self.x", "A.get", TENSOR),
    ("import torch\nclass A:\n    def load(self):\n        self.x = torch.FloatTensor(self.x)\n"
     "    def get(self):\n        pass", "self.x", "A.get", None),
    ("import numpy as np\nimport torch\nclass A:\n    def __init__(self, x):\n        self.x = np.array(x)\n"
     "        self.x = torch.FloatTensor(self.x)\n    def get(self):\n        pass", "self.x", "A.get", None),
    # Free names: the enclosing function, then the module.
    ("import torch\nw = torch.ones(1)\ndef f():\n    pass", "w", "f", TENSOR),
    ("import torch\nw = torch.ones(1)\ndef f():\n    w = 3", "w", "f", None),
    ("import torch\ndef f():\n    w = torch.ones(1)\n    def g():\n        pass", "w", "f.g", TENSOR),
]


def test_enclosing_names_the_scopes_around_a_definition():
    tree = ast.parse("class A:\n    @property\n    def w(self):\n        def inner():\n            pass\ndef f():\n    pass\n")
    summary = ModuleSummary.of(tree)
    assert (summary.enclosing(2), summary.enclosing(4), summary.enclosing(6)) == ("A", "A.w", "")


def test_a_summary_is_lazy():
    """Creating one walks nothing: a file whose triggers pick nothing pays nothing."""
    summary = ModuleSummary.of(ast.parse("def f():\n    pass\n"))
    assert summary._definitions is None and not summary._facts


def test_every_statement_and_expression_kind_is_walked_without_error():
    source = textwrap.dedent("""\
        import torch
        counter = 0
        def f(*args, k=1, **kwargs):
            global counter
            d = {**kwargs, 'a': torch.ones(1)}
            s = {*args}
            g = (x async for x in args) if False else None
            with open('a') as (h, i):
                pass
            try:
                pass
            except* ValueError as error:
                pass
            match args:
                case [torch.Tensor() as t, *rest] if (n := len(rest)):
                    pass
                case {'k': v, **others}:
                    pass
            def inner():
                nonlocal d
                return lambda q=(w := torch.zeros(1)): q
            return f'{d!r:>{k}}', [y for y in args if (z := y)], d
        """)
    summary = ModuleSummary.of(ast.parse(source))
    facts = summary.scope("f")
    assert {name: facts.name_value(name) for name in ("d", "t", "w", "args")} == dict.fromkeys(("d", "t", "w", "args"))
    assert summary.scope("f.inner").name_value("d") is None and len(facts.calls) == 3  # ones, open, len


TUPLES_AND_INPUTS = [
    ("import torch\ndef prop(x):\n    return torch.ones(1), x, None\ndef f(x):\n    a, b, c = prop(x)", "a", "f", TENSOR),
    ("import torch\ndef prop(x):\n    return torch.ones(1), x, None\ndef f(x):\n    a, b, c = prop(x)", "b", "f", None),
    ("import torch\ndef prop(x):\n    return torch.ones(1), x\ndef f(x):\n    pass", "prop(x)[0]", "f", TENSOR),
    ("import torch\ndef prop(x):\n    if x:\n        return torch.ones(1), 2\n    return [], 3\ndef f(x):\n    a, b = prop(x)",
     "a", "f", None),
    # Evidence from a torch function that takes only a tensor first (from torch's stubs).
    ("import torch\ndef f(x):\n    s = torch.sum(x, dim=1)", "x", "f", TENSOR),
    ("import torch.nn.functional as F\ndef f(x):\n    s = F.relu(input=x)", "x", "f", TENSOR),
    ("import torch\ndef f(x):\n    s = torch.tensor(x)", "x", "f", None),
    ("import torch\ndef f(xs):\n    s = torch.stack(xs)", "xs", "f", None),
    # numpy's ufuncs give a CPU tensor back as a tensor (the table is generated from numpy).
    ("import numpy as np\nimport torch\ndef f(t: torch.Tensor):\n    y = np.logaddexp(t, 0)", "y", "f", TENSOR),
    ("import numpy as np\nimport torch\ndef f(t: torch.Tensor):\n    y = np.exp(t, out=t.numpy())", "y", "f", None),
    ("import numpy as np\nimport torch\ndef f(t: torch.Tensor):\n    y = np.mean(t)", "y", "f", None),
    ("import numpy as np\ndef f(a):\n    y = np.exp(a)", "y", "f", None),
    # POT and einops answer in their inputs' type (POT's log=True: a tuple).
    ("import ot\nimport torch\ndef f(a: torch.Tensor, M):\n    y = ot.sinkhorn(a, a, M, 0.1)", "y", "f", TENSOR),
    ("import ot\nimport torch\ndef f(a: torch.Tensor, M):\n    y = ot.sinkhorn(a, a, M, 0.1, log=True)", "y", "f", None),
    ("import ot\nimport torch\ndef f(a: torch.Tensor, M, opts):\n    y = ot.sinkhorn(a, a, M, 0.1, **opts)", "y", "f", None),
    ("import ot\ndef f(a, M):\n    y = ot.emd(a, a, M)", "y", "f", None),
    ("import torch\nimport einops\ndef f(t: torch.Tensor):\n    y = einops.rearrange(t, 'a b -> b a')", "y", "f", TENSOR),
    ("import torch\nimport einops\ndef f(t: torch.Tensor):\n    y = einops.parse_shape(t, 'a b')", "y", "f", None),
    # Attributes stored by unpacking: each gets its position of the value.
    ("import torch\nclass R:\n    def __init__(self):\n        self.h, self.c = self.init()\n"
     "    def init(self):\n        return torch.zeros(1), []\n    def f(self):\n        pass", "self.h", "R.f", TENSOR),
    ("import torch\nclass R:\n    def __init__(self):\n        self.h, self.c = self.init()\n"
     "    def init(self):\n        return torch.zeros(1), []\n    def f(self):\n        pass", "self.c", "R.f", None),
    ("import torch\nclass R:\n    def __init__(self, n):\n        self.n, (self.w, *self.rest) = n, torch.ones(3)\n"
     "    def f(self):\n        pass", "self.w", "R.f", TENSOR),
    ("import torch\nclass R:\n    def __init__(self, n):\n        self.n, (self.w, *self.rest) = n, torch.ones(3)\n"
     "    def f(self):\n        pass", "self.n", "R.f", None),
    # A return annotation says what a function gives, whatever its body computes.
    ("import torch\ndef load(p) -> torch.Tensor:\n    return read(p)\ndef f(p):\n    x = load(p)", "x", "f", TENSOR),
    ("import torch\ndef load(p) -> list[torch.Tensor]:\n    return read(p)\ndef f(p):\n    x = load(p)", "x", "f", None),
    ("import numpy as np\ndef load(p) -> np.ndarray:\n    return read(p)\ndef f(p):\n    x = load(p)", "x", "f", None),
]


COMPREHENSIONS = [
    ("def f(outs):\n    vals = [o.detach() for o in outs]", "vals", "f", LIST),
    ("import torch\ndef f(t: torch.Tensor):\n    rows = [r * 2 for r in t]", "rows", "f", LIST),
    ("import torch\ndef f(xs):\n    x = torch.ones(1)\n    vals = [x for x in xs]", "vals", "f", None),  # its own x
    ("import torch\ndef f(xs):\n    vals = [x.item() for x in xs]", "vals", "f", None),
]


PARAMETERS = [
    # Used as only a tensor can be, before any rebinding.
    ("import torch\ndef f(hm):\n    m = torch.max(hm.view(3, -1), 1)\n    hm = torch.sum(hm, dim=1)", "hm", "f", TENSOR),
    ("import torch\ndef f(x):\n    x = torch.tensor(x)\n    y = x.detach()", "x", "f", None),
    ("import torch\ndef f(x):\n    y = x.detach()\n    x = x.numpy()", "x", "f", None),  # rebound to something else
    # What the docstring says.
    ('def f(images, k):\n    """Blend.\n\n    Args:\n        images (tensor): frames.\n        k (int): size.\n    """', "images", "f", TENSOR),
    ('def f(boxes):\n    """Args:\n        boxes (Tensor[N, 4], optional): boxes.\n    """', "boxes", "f", TENSOR),
    ('def f(x):\n    """\n    Parameters\n    ----------\n    x : torch.Tensor\n        input\n    """', "x", "f", TENSOR),
    ('def f(x):\n    """\n    :param x: input\n    :type x: torch.Tensor\n    """', "x", "f", TENSOR),
    ('def f(x, mask):\n    """\n    :param x: (torch.Tensor) input.\n    :param mask: (np.ndarray) which.\n    """', "x", "f", TENSOR),
    ('def f(x, mask):\n    """\n    :param x: (torch.Tensor) input.\n    :param mask: (np.ndarray) which.\n    """', "mask", "f", None),
    ('def f(x):\n    """\n    :param torch.Tensor x: input.\n    """', "x", "f", TENSOR),
    ('def f(boxes, variance):\n    """Args:\n        boxes: (tensor) priors.\n        variance: (list[float]) spread.\n    """',
     "boxes", "f", TENSOR),
    ('def f(boxes, variance):\n    """Args:\n        boxes: (tensor) priors.\n        variance: (list[float]) spread.\n    """',
     "variance", "f", None),
    ('def f(xs):\n    """Args:\n        xs (list of tensors): inputs.\n    """', "xs", "f", None),
    ('def f(x):\n    """Args:\n        x (Tensor or ndarray): input.\n    """', "x", "f", None),
    ('def f(x):\n    """Args:\n        x (tensor): input.\n    """\n    if isinstance(x, list):\n        pass', "x", "f", None),
]


@pytest.mark.parametrize("use, expected", [
    ("x.contiguous()", TENSOR),  # memoryview has .contiguous, but not to call
    ("x.stride(0)", TENSOR),  # a conv layer's .stride is a tuple
    ("x.size()", None),  # a replay buffer's size() too
    ("x.size(0)", TENSOR),  # ... but it takes no dimension; numpy's size is an int
    ("x.size(-1)", TENSOR),
    ("x.view(-1, 5)", TENSOR),  # numpy's view takes a dtype, not sizes
    ("x.view(n, 4)", TENSOR),
    ("x.view(np.float32)", None),
    ("x.view(dtype=np.int8)", None),
    ("x.contiguous", None),  # read, not called: a memoryview's flag
])
def test_calls_only_tensors_answer(use, expected):
    assert value_of(f"def f(x):\n    y = {use}", "x", "f") == expected


@pytest.mark.parametrize("call, expected", [("x[0].view(-1, 5)", TENSOR), ("x[0].view(np.float32)", None)])
def test_a_sized_view_is_a_tensor_whatever_its_receiver(call, expected):
    assert value_of(f"def f(x):\n    y = {call}", "y", "f") == expected


ALL_CASES = CASES + TUPLES_AND_INPUTS + COMPREHENSIONS + PARAMETERS


@pytest.mark.parametrize("source, expression, scope, expected", ALL_CASES,
                         ids=[f"{c[1]}@{c[2]}:{i}" for i, c in enumerate(ALL_CASES)])
def test_summary_value(source, expression, scope, expected):
    assert value_of(source, expression, scope) == expected


def test_a_parameter_holds_what_it_was_passed_until_the_function_rebinds_it():
    source = "import torch\ndef f(x: torch.Tensor, y):\n    x = x.tolist()\n    y = 2\n"
    facts = ModuleSummary.of(ast.parse(source)).scope("f")
    assert isinstance(facts.parameter_value("x"), TensorInfo)
    assert facts.value(ast.Name("x")) is None  # wherever it is read: a tensor or a list
    assert facts.parameter_value("y") is None


def test_attributes_set_by_name_at_run_time_are_unknown_unless_init_sets_them():
    """``self.__dict__.update(kwargs)`` (or ``setattr(self, key, v)``) may set any attribute:
    one that only another method binds to a tensor is unknown; one ``__init__`` binds keeps it."""
    source = (
        "import torch\nclass Agent:\n    def __init__(self, **kwargs):\n        self.__dict__.update(kwargs)\n"
        "        self.w = torch.zeros(3)\n    def train(self):\n        self.alpha = torch.ones(1)\n"
        "class Plain:\n    def train(self):\n        self.alpha = torch.ones(1)\n"
    )
    summary = ModuleSummary.of(ast.parse(source), source)
    agent, plain = Instance("Agent", ""), Instance("Plain", "")
    assert summary.attribute(agent, "alpha") is None
    assert summary.attribute(agent, "w") is not None
    assert summary.attribute(plain, "alpha") is not None
