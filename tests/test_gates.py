"""The gates lose no finding, and do refuse the functions they exist to refuse.

The argument gates (TCP003, TCP005): every way the inference can know a tensor, crossed
with every gated callee and argument shape, gives the same findings with and without
the shortcuts. The shape gates (TCP004, TCP008, TCP009, TCP010, TCP011): every rule's own
examples and a table of near misses per gate, each both ways.

Per binding, one module holds a function for each call and argument shape (one call
each, so that every gate decision is tested on its own); the bindings also run at
module level.
"""

import ast
import itertools

import pytest

from flake8_tensorcopy import prefilter
from flake8_tensorcopy.analysis.summary import ModuleSummary
from flake8_tensorcopy.engine import AnalysisError, lint_source
from flake8_tensorcopy.gates import (
    AccumulationGate,
    AdvancedIndexWriteGate,
    ArgumentGate,
    CloneDetachGate,
    DataWriteGate,
    DetachedWriteGate,
    NumpyAliasWriteGate,
    ParameterRewrapGate,
    SnapshotGate,
)
from flake8_tensorcopy.rules import ALL_RULES

HEADER = (
    "import copy\nimport numpy as np\nimport torch\nfrom typing import Optional\n"
    "from copy import deepcopy as dc\nfrom torch import tensor as T\nimport torch as th\n"
    "def helper():\n    return torch.zeros(2)\n"
    "class Box:\n    def __init__(self):\n        self.w = torch.ones(2)\n"
    "class Net(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"
    "class Plain:\n    def forward(self, x):\n        return torch.relu(x)\n"
    "class Keeper:\n    def __init__(self):\n        self.vals = []\n"
    "    def add(self, x):\n        self.vals.append(torch.relu(x))\n"
)
# (signature, lines before the call, what happens to ``torch.tensor(t)``): "flagged"
# (the inference knows t), "refused" (the gate keeps LibCST away) or "parsed" (the gate
# over-approximates: parsed, not flagged). A last line ending in ":" opens a block.
BINDINGS = [
    ("t: torch.Tensor", [], "flagged"),
    ("t: Optional[torch.Tensor] = None", [], "flagged"),
    ("t: 'torch.Tensor'", [], "refused"),
    ("t: th.nn.Parameter", [], "flagged"),
    ("t: int", [], "refused"),
    ("t", [], "refused"),
    ("*t: torch.Tensor", [], "refused"),  # a tuple of tensors, not a tensor
    ("m", ["t = torch.ones(3)"], "flagged"),
    ("m", ["t = m.weight.data"], "flagged"),
    ("m", ["t = m.grad"], "flagged"),
    ("m", ["t = np.ones(2)"], "refused"),
    ("m", ["t = [1, 2]"], "refused"),
    ("m", ["t, u = torch.ones(2), 1"], "flagged"),
    ("m", ["t: torch.Tensor = m"], "flagged"),
    ("m", ["t: int = torch.ones(2)"], "flagged"),
    ("m", ["u = torch.zeros(2)", "t = u * 2"], "flagged"),
    ("m", ["u = torch.zeros(2)", "t = u.view(-1)"], "flagged"),
    ("m", ["u = torch.zeros(2)", "t = u.tolist()"], "refused"),  # a tensor method returning no tensor
    ("m", ["a = b = torch.ones(2)", "t = b"], "flagged"),
    ("m", ["t = torch.ones(2) if m else torch.zeros(2)"], "flagged"),
    ("m", ["t = torch.ones(2) if m else None"], "refused"),
    ("m", ["t = u", "u = torch.ones(2)"], "flagged"),  # u holds a tensor wherever it is bound
    ("m", ["for t in m.parameters():"], "flagged"),
    ("m", ["for n, t in m.named_buffers():"], "flagged"),
    ("m", ["for i, t in enumerate(m.parameters()):"], "flagged"),
    ("m", ["for t in m.children():"], "refused"),
    ("m", ["if (t := torch.ones(2)) is not None:"], "flagged"),
    ("m", ["with torch.no_grad() as t:"], "refused"),
    ("m", ["t = torch.ones(2)", "del t"], "parsed"),
    ("m", ["t = torch.ones(2)", "if not isinstance(t, torch.Tensor):"], "parsed"),
    ("m", ["import torch as t"], "refused"),
    ("t: torch.Tensor", ["def inner():"], "flagged"),  # the summary: t of the enclosing function
    ("m", ["def inner(t: torch.Tensor):", "    pass"], "refused"),
    # What the module summary knows (analysis/summary.py).
    ("m", ["t = helper()"], "flagged"),
    ("m", ["t = Box().w"], "flagged"),
    ("m", ["t = m.detach()"], "flagged"),
    ("m", ["t = m.view(-1)"], "flagged"),  # sizes: only a tensor's view takes them
    ("m", ["t = m.view(np.float32)"], "refused"),  # a dtype: numpy's too
    ("m", ["t = torch.from_numpy(m)"], "flagged"),
    ("t", ["u = t.detach()"], "flagged"),
    ("t", ["u = t.detach()", "if isinstance(t, np.ndarray):"], "refused"),  # t's type is tested: no evidence
    ("m", ["t = torch.ones(2)", "if isinstance(t, np.ndarray):"], "parsed"),
    ("m", ["for t in torch.ones(2, 2):"], "flagged"),
    ("m", ["for t, u in torch.utils.data.DataLoader(m):"], "flagged"),
    ("m", ["for t in torch.utils.data.DataLoader(m):"], "parsed"),  # a batch: not known as a tensor
    ("m", ["t = []", "t.append(1)"], "refused"),
    ("m", ["net = Net()", "t = net(m)"], "flagged"),  # a torch module's call runs forward
    ("m", ["t = Net()(m)"], "refused"),  # (not followed through a call's result)
    ("m", ["t = Plain()"], "refused"),
    ("m", ["p = Plain()", "t = p(m)"], "refused"),  # no __call__: calling it raises
    ("m", ["t = Keeper().vals[0]"], "flagged"),  # filled with tensors by its own methods
    # Torch functions and tensor methods that return tuples of tensors (torch_api.py).
    ("m", ["t, u = torch.ones(2, 2).chunk(2)"], "flagged"),
    ("m", ["_, t = torch.ones(2).max(0)"], "flagged"),
    ("m", ["t = torch.topk(m, 2)[0]"], "flagged"),
]
CALLS = [
    "torch.tensor({})", "th.tensor(data={})", "T({})", "torch.Tensor({})", "torch.cuda.LongTensor({})",
    "m.new_tensor({})", "copy.deepcopy({})", "copy.deepcopy(x={})", "dc({})", "torch.tensor([{}, 1])",
    "torch.tensor((*({}),))", "np.tensor({})", "lambda: torch.tensor({})",
]
ARGUMENTS = [
    "t", "t * 2", "2 + t", "t[0]", "t.T", "t.real", "t.sum()", "t.add_(1)", "-t", "not t", "t > 0", "t in m",
    "t if m else t", "t if m else 0", "(u := t)", "t.tolist()", "t.shape", "[t]", "m.weight.data", "m.data",
    "m.grad", "torch.ones(2)", "th.nn.functional.relu(m)", "np.ones(2)", "1.0", "m.x",
]


def function_source(number: int, signature: str, before: list[str], call: str) -> str:
    lines = [f"def f{number}({signature}):", *(f"    {line}" for line in before)]
    indent = "        " if before and before[-1].endswith(":") else "    "
    return "\n".join([*lines, f"{indent}return {call}"]) + "\n"


def module_source(before: list[str], call: str) -> str:
    indent = "    " if before and before[-1].endswith(":") else ""
    return HEADER + "\n".join([*before, f"{indent}result = {call}"]) + "\n"


GATED = [rule for rule in ALL_RULES if isinstance(rule.gate, ArgumentGate)]


def test_gates_are_declared():
    assert {rule.code: type(rule.gate) for rule in ALL_RULES if rule.gate is not None} == {
        "TCP001": DataWriteGate,
        "TCP002": CloneDetachGate,
        "TCP003": ArgumentGate,
        "TCP004": DetachedWriteGate,
        "TCP005": ArgumentGate,
        "TCP007": AdvancedIndexWriteGate,
        "TCP008": SnapshotGate,
        "TCP009": AccumulationGate,
        "TCP010": NumpyAliasWriteGate,
        "TCP011": ParameterRewrapGate,
        "TCP101": DataWriteGate,  # TCP001's, whose analysis reports it
    }


def _binding_id(binding) -> str:
    return "; ".join([binding[0], *binding[1]])


@pytest.mark.slow
@pytest.mark.parametrize("binding", BINDINGS, ids=_binding_id)
def test_functions_lose_no_finding(binding):
    signature, before, bare_t = binding
    cases = list(itertools.product(CALLS, ARGUMENTS))
    functions = [function_source(n, signature, before, call.format(argument)) for n, (call, argument) in enumerate(cases)]
    source = HEADER + "\n".join(functions)
    whole = lint_source(source, rules=GATED, shortcuts=False)
    assert lint_source(source, rules=GATED, shortcuts=True) == whole
    # And for the plain ``torch.tensor(t)``, the gate does what BINDINGS says.
    tree = ast.parse(source)
    function = tree.body[len(ast.parse(HEADER).body) + cases.index(("torch.tensor({})", "t"))]
    plan = prefilter.plan(source, [rule.trigger_spec() for rule in GATED], ModuleSummary.of(tree, source))
    parsed = any(start <= function.end_lineno and end >= function.lineno for start, end in plan.spans)
    flagged = any(function.lineno <= f.line <= function.end_lineno and f.code == "TCP005" for f in whole)
    assert {"flagged": (True, True), "parsed": (True, False), "refused": (False, False)}[bare_t] == (parsed, flagged)


# At module level (no parameters, no nested functions) with fewer argument shapes.
MODULE_BINDINGS = [binding for binding in BINDINGS if binding[0] == "m" and "def" not in binding[1][0]]
MODULE_ARGUMENTS = ["t", "t.sum()", "m.grad", "1.0"]


@pytest.mark.parametrize("binding", MODULE_BINDINGS, ids=_binding_id)
def test_module_level_loses_no_finding(binding):
    _, before, bare_t = binding
    findings = 0
    for call, argument in itertools.product(CALLS, MODULE_ARGUMENTS):
        source = module_source(before, call.format(argument))
        whole = lint_source(source, rules=GATED, shortcuts=False)
        assert lint_source(source, rules=GATED, shortcuts=True) == whole
        findings += len(whole)
    # Every callee spelling but np.tensor flags m.grad (12); a known t adds t and t.sum().
    assert findings >= (36 if bare_t == "flagged" else 12)


def test_an_expression_too_deep_to_judge_costs_only_its_function():
    # Deeper than Python's recursion limit, not than its parser's: the gate cannot judge
    # it, so the function goes to the parse, whose limits refuse it with a reason.
    deep = " + ".join(["t"] * 1_500)
    source = (
        f"import torch\ndef f(t: torch.Tensor):\n    u = {deep}\n    return torch.tensor(u)\n\n"
        "def g(t: torch.Tensor):\n    return torch.tensor(t)\n"
    )
    with pytest.raises(AnalysisError, match="lines 2-4: line 3: an expression nested 1501 deep") as raised:
        lint_source(source, rules=GATED)
    assert [(f.line, f.code) for f in raised.value.findings] == [(7, "TCP005")]


def exact_findings(source: str) -> list[tuple[int, str]]:
    """(line, code) of the gated rules' findings, once checked equal with and without the
    shortcuts."""
    whole = lint_source(source, rules=GATED, shortcuts=False)
    assert lint_source(source, rules=GATED, shortcuts=True) == whole
    return [(f.line, f.code) for f in whole]


@pytest.mark.parametrize("scope", ["function", "module"])
@pytest.mark.parametrize("extra, flagged", [
    ("", True), ("t.append(1)", False),
    ("t.extend(m)", True),  # whatever m adds, the tensors appended are converted one by one
])
def test_a_list_filled_with_tensors(scope, extra, flagged):
    body = ["t = []", "for x in m.parameters():", "    t.append(x * 2)", extra, "result = torch.tensor(t)"]
    if scope == "function":
        source = "import torch\n\ndef f(m):\n" + "".join(f"    {line}\n" for line in body)
    else:
        source = "import torch\n\n" + "".join(f"{line}\n" for line in body)
    whole = lint_source(source, rules=GATED, shortcuts=False)
    assert lint_source(source, rules=GATED, shortcuts=True) == whole
    expected = [(source.count("\n"), "TCP005")] if flagged else []
    assert [(f.line, f.code) for f in whole] == expected
    assert all("torch.stack" in f.message and f.fix is None for f in whole)


@pytest.mark.parametrize("scope", ["function", "module"])
@pytest.mark.parametrize("value, flagged", [
    ("torch.ones(2).split(1)", True), ("torch.topk(m, 1)", True),
    ("torch.max(m, 0)", False),  # a tensor or a tuple: only its elements are known
])
def test_a_tuple_of_tensors_from_torch(scope, value, flagged):
    body = [f"t = {value}", "a = torch.tensor(t)", "b = copy.deepcopy(t)"]
    if scope == "function":
        source = "import copy\nimport torch\n\ndef f(m):\n" + "".join(f"    {line}\n" for line in body)
    else:
        source = "import copy\nimport torch\n\n" + "".join(f"{line}\n" for line in body)
    whole = lint_source(source, rules=GATED, shortcuts=False)
    assert lint_source(source, rules=GATED, shortcuts=True) == whole
    last = source.count("\n")
    assert [(f.line, f.code) for f in whole] == ([(last - 1, "TCP005"), (last, "TCP003")] if flagged else [])


@pytest.mark.parametrize("loop, flagged", [
    ("for (a, b), t in zip(pairs, torch.ones(3)):", True),
    ("for t in reversed(torch.ones(3)):", True),
    ("for i, t in enumerate(torch.ones(3)):", True),
    ("for t, u in torch.ones(3, 2):", True),
    ("for t in pairs:", False),
    ("for t in zip(pairs, torch.ones(3)):", False),  # a tuple, not a tensor
    ("for b in torch.utils.data.DataLoader(pairs):\n        t, u = b", True),  # a batch, unpacked
    ("for t in torch.utils.data.DataLoader(pairs):", False),  # the batch itself may be a dict
])
def test_loops_over_tensors(loop, flagged):
    source = f"import torch\n\ndef f(pairs):\n    {loop}\n        torch.tensor([t])\n"
    assert exact_findings(source) == ([(source.count("\n"), "TCP005")] if flagged else [])


@pytest.mark.parametrize("before, flagged", [
    (["t, u = torch.ones(2), 1"], True),
    (["t, u = torch.ones(2), 1", "x = torch.tensor(t)", "t = 5"], True),
    (["t, u = split(m)"], True),
    (["u, t = split(m)"], False),
    (["t, u = split(m)", "x = torch.tensor(t)", "t = 5"], True),
])
def test_tuples_unpacked(before, flagged):
    body = "".join(f"    {line}\n" for line in before)
    source = (
        "import torch\n\ndef split(m):\n    return torch.ones(1), m\n\n"
        f"def f(m):\n{body}    return torch.tensor(t)\n"
    )
    whole = lint_source(source, rules=GATED, shortcuts=False)
    assert lint_source(source, rules=GATED, shortcuts=True) == whole
    assert bool(whole) == flagged


@pytest.mark.parametrize("appended, flagged", [("x * 2", True), ("x.item()", False)])
def test_a_list_converted_in_place(appended, flagged):
    """``vals = []``, appends, then ``vals = torch.tensor(vals)``: the name ends as a tensor,
    but where it is converted it is the list the appends filled."""
    source = (
        "import torch\n\ndef f(m):\n    vals = []\n    for x in m.parameters():\n"
        f"        vals.append({appended})\n    vals = torch.tensor(vals)\n    return vals\n"
    )
    assert exact_findings(source) == ([(7, "TCP005")] if flagged else [])


@pytest.mark.parametrize("fill, flagged", [
    # One path puts a tensor in, another something unknown: either way tensors are converted.
    (["if m:", "    vals.append(m.score(x).mean())", "else:", "    vals.append((x * 2).sum() / x.sum())"], True),
    (["vals.append(m.score(x).mean())"], False),  # nothing says a tensor goes in
    (["vals.append(x.item() if m else 0.0)", "vals.append(x * 2)"], True),  # the first is unknown, not plain
    (["vals.append(x * 2)", "vals.append(x.item())"], False),  # a plain value goes in too
    (["vals.append(x * 2)", "vals.append(len(m))"], False),
    # Rows: a list of lists that receive tensors, or of what a function returns as one.
    (["rows[0].append(x * 2)"], True),
    (["rows[0].append(x.item())"], False),
    (["vals.append(pair(x))"], True),
    (["vals.append([x * 2, 1.0])"], True),
])
def test_a_list_that_receives_tensors(fill, flagged):
    body = "".join(f"        {line}\n" for line in fill)
    converted = "rows" if "rows" in body else "vals"
    source = (
        "import torch\n\ndef pair(x: torch.Tensor):\n    return [x, x * 2]\n\n"
        "def f(m, xs):\n    vals = []\n    rows = [[] for _ in range(3)]\n"
        f"    for x in m.parameters():\n{body}    return torch.tensor({converted})\n"
    )
    assert exact_findings(source) == ([(source.count("\n"), "TCP005")] if flagged else [])


@pytest.mark.parametrize("comprehension, flagged", [
    ("[w / total for w in weights]", True),  # reads the weights bound before it: a tensor
    ("[w.item() * 2 for w in weights]", False),
    ("[w / total for w in weights if w > 0]", True),  # a condition keeps only some rows: tensors still
    ("[w / total for w in range(3)]", True),  # a number over a tensor is a tensor, whatever w is
    ("[w * 2 for w in range(3)]", False),
])
def test_a_comprehension_over_a_tensor_rebinding_its_name(comprehension, flagged):
    source = (
        "import torch\n\ndef scale(weights):\n    weights = torch.maximum(weights, torch.tensor(0))\n"
        f"    total = weights.sum()\n    weights = {comprehension}\n    return torch.tensor(weights)\n"
    )
    assert exact_findings(source) == ([(7, "TCP005")] if flagged else [])


@pytest.mark.parametrize("made", [
    ["w = torch.ones(3)", "vals = [x * 2 for x in w]", "w = None"],  # only the inference knows w there
    ["w = torch.ones(3)", "rows = [x * 2 for x in w]", "w = None", "vals = [r + 1 for r in rows]"],
])
def test_a_comprehension_the_summary_cannot_judge_is_still_parsed(made):
    body = "".join(f"    {line}\n" for line in made)
    source = f"import torch\n\ndef f(m):\n{body}    return torch.tensor(vals), torch.tensor(m)\n"
    assert exact_findings(source) == [(source.count("\n"), "TCP005")]


@pytest.mark.parametrize("value, flagged", [
    ("Categorical(m).sample()", True),
    ("D.Normal(m, 1.0).log_prob(m)", True),
    ("dist.entropy()", True),
    ("dist.mean", True),
    ("self.dist.sample()", True),  # an attribute holding a distribution
    ("dist.sample().item()", False),
    ("dist.batch_shape", False),
    ("dist.expand((2,))", False),  # another distribution
])
def test_what_a_distribution_gives(value, flagged):
    source = (
        "import torch\nimport torch.distributions as D\nfrom torch.distributions import Categorical\n\n"
        "class Policy:\n    def __init__(self, m):\n        self.dist = D.normal.Normal(m, 1.0)\n\n"
        f"    def act(self, m):\n        dist = Categorical(m)\n        a = {value}\n        return torch.tensor(a)\n"
    )
    assert exact_findings(source) == ([(source.count("\n"), "TCP005")] if flagged else [])


@pytest.mark.parametrize("value", ["Categorical(m).sample()", "D.Normal(m, 1.0).mean"])
def test_what_a_distribution_gives_read_in_place(value):
    source = (
        "import torch\nimport torch.distributions as D\nfrom torch.distributions import Categorical\n\n"
        f"def act(m):\n    return torch.tensor({value})\n"
    )
    assert exact_findings(source) == [(6, "TCP005")]


def test_a_starred_loop_target_over_a_tensor_is_a_list_not_its_old_binding():
    source = (
        "import torch\n\ndef f(det: torch.Tensor):\n    box = torch.ones(4)\n"
        "    for *box, conf in det:\n        torch.tensor(box), torch.tensor(conf)\n"
    )
    whole = lint_source(source, rules=GATED, shortcuts=False)
    assert lint_source(source, rules=GATED, shortcuts=True) == whole
    # conf is a tensor; box is no longer the tensor bound before the loop (a list whose
    # bindings disagree: not known).
    assert [(f.line, f.col, "stack" in f.message) for f in whole] == [(6, 27, False)]


@pytest.mark.parametrize("source, expected", [
    # The argument's tensor binding comes after the call: the call reads the old one.
    ("def f(x):\n    x = list(x)\n    x = torch.tensor(x)\n    return x\n", "refused"),
    # ... also in a loop: the rule reads the body once, in order, so neither does the gate
    # follow the binding back to the loop's top (see analysis/in_force.py).
    ("def f(xs):\n    t = None\n    for x in xs:\n        if t is not None:\n            y = torch.tensor(t)\n"
     "        t = torch.ones(2)\n", "refused"),
    # The last plain binding before the call is the one in force: the array step() returned.
    ("def f(envs, a):\n    obs = torch.Tensor(envs.reset())\n    for _ in range(9):\n"
     "        obs, reward = envs.step(a)\n        obs = torch.Tensor(obs)\n", "refused"),
    ("def f(envs, a):\n    obs = envs.reset()\n    for _ in range(9):\n"
     "        obs, reward = torch.ones(2), 1\n        obs = torch.Tensor(obs)\n", "flagged"),
    # A binding in a branch before the call, or a for target: each may be the one in force.
    ("def f(a, c):\n    obs = a.tolist()\n    if c:\n        obs = torch.ones(2)\n    return torch.tensor(obs)\n",
     "parsed"),
    ("def f(m):\n    t = None\n    for t in m.parameters():\n        y = torch.tensor(t)\n", "flagged"),
    ("def f(t: torch.Tensor):\n    with open(t) as t:\n        return torch.tensor(t)\n", "parsed"),
    # What POT gives back for tensors bound before it: a tensor.
    ("def f(cost, n):\n    mu = torch.ones(n) / n\n    T = ot.sinkhorn(mu, mu, cost, 0.1)\n"
     "    T = torch.tensor(T)\n", "flagged"),
    ("def f(cost, n):\n    mu = np.ones(n) / n\n    T = ot.sinkhorn(mu, mu, cost, 0.1)\n"
     "    T = torch.tensor(T)\n", "refused"),
    # The parameter when nothing binds it before the call; an augmented assignment, which
    # the rule does not follow, leaves every binding to count.
    ("def f(t: torch.Tensor, c):\n    if c:\n        return torch.tensor(t)\n    t = t.tolist()\n", "flagged"),
    ("def f(t):\n    t = torch.ones(2)\n    t += [1]\n    return torch.tensor(t)\n", "flagged"),
    # A walrus before the call in its own statement, and a lambda whose name is its own.
    ("def f(t):\n    t = [1]\n    y = (t := torch.ones(2)), torch.tensor(t)\n", "flagged"),
    ("def f(t):\n    t = torch.ones(2)\n    t = [1]\n    g = lambda t: torch.tensor(t)\n", "parsed"),
    # In a nested def's default: the gate judges it with that def, as the rule's scopes do.
    ("T = torch.ones(2)\ndef f():\n    def g(x=torch.tensor(T)):\n        return x\n    return g\n", "flagged"),
    # A walrus in the call's own arguments.
    ("def f(m):\n    return torch.tensor([(t := torch.ones(2)), t])\n", "flagged"),
])
def test_a_binding_counts_where_it_may_be_in_force(source, expected):
    source = "import numpy as np\nimport ot\nimport torch\n" + source
    rules = [rule for rule in GATED if rule.code == "TCP005"]
    whole = lint_source(source, rules=rules, shortcuts=False)
    assert lint_source(source, rules=rules) == whole
    tree = ast.parse(source)
    plan = prefilter.plan(source, [rule.trigger_spec() for rule in rules], ModuleSummary.of(tree, source))
    assert (bool(plan.spans), bool(whole)) == {"flagged": (True, True), "parsed": (True, False), "refused": (False, False)}[
        expected
    ]


# -- the shape gates ---------------------------------------------------------------
SHAPE_GATED = {rule.code: rule for rule in ALL_RULES if rule.gate is not None and not isinstance(rule.gate, ArgumentGate)}


RULE_EXAMPLES = [
    pytest.param(rule, code, id=f"{rule.code}-{kind}-{number}")
    for rule in SHAPE_GATED.values()
    for kind, codes in (("flagged", [example.code for example in rule.flagged]), ("clean", rule.clean))
    for number, code in enumerate(codes)
]


@pytest.mark.parametrize("rule, source", RULE_EXAMPLES)
def test_shape_gates_lose_no_finding_on_the_rules_examples(rule, source):
    # Also as a method and at module level: the gates judge those scopes too.
    method = "class Trainer:\n" + "".join(f"    {line}\n" if line else "\n" for line in source.splitlines())
    for variant in (source, method):
        assert lint_source(variant, rules=[rule]) == lint_source(variant, rules=[rule], shortcuts=False)


# (rule, source, what happens to the function ``f``): "flagged", "parsed" (admitted by
# the gate, not flagged) or "refused" (the gate keeps LibCST away).
NEAR_MISSES = [
    # TCP002: clone then detach, by method or through torch.clone, imported bare too.
    ("TCP002", "def f(x):\n    return x.clone().detach()\n", "flagged"),
    ("TCP002", "from torch import clone\ndef f(x):\n    return clone(x).detach()\n", "flagged"),
    ("TCP002", "def f(x):\n    y = x.clone()\n    return y.detach(), x.detach().clone()\n", "refused"),
    ("TCP002", "def f(x):\n    return x.clone().detach(True)\n", "refused"),
    ("TCP002", "import numpy as np\ndef f(x):\n    return np.clone(x).detach()\n", "parsed"),
    # TCP004: a write into a detached tensor that others hold, or into a copy or a fresh result.
    ("TCP004", "def f(x):\n    y = x.detach()\n    y.add_(1)\n", "flagged"),
    ("TCP004", "def f(x):\n    y: object = x.detach()[0]\n    y += 1\n", "flagged"),
    ("TCP004", "def f(x):\n    if (y := x.detach()) is not None:\n        y[0] = 1\n", "flagged"),
    ("TCP004", "def f(x):\n    x.float().detach().zero_()\n", "flagged"),
    ("TCP004", "def f(x):\n    y = x.detach().clone()\n    y.add_(1)\n", "refused"),
    ("TCP004", "def f(x):\n    y = x.detach()\n    y.requires_grad_()\n", "refused"),
    ("TCP004", "def f(model, x):\n    y = model(x).detach()\n    y.add_(1)\n", "refused"),
    ("TCP004", "def f(x):\n    y = x.detach()\n    def g(y):\n        y.add_(1)\n", "refused"),
    ("TCP004", "import torch\ndef f():\n    y = torch.zeros(2).detach()\n    y.add_(1)\n", "refused"),
    ("TCP004", "def f(x):\n    y = x.detach()\n    z = y + 1\n    z.add_(1)\n", "refused"),
    # TCP007: an in-place method on a copy made by advanced indexing, or on a view.
    ("TCP007", "def f(x):\n    x[[0, 2]].zero_()\n", "flagged"),
    ("TCP007", "import torch\ndef f(x, out: torch.Tensor):\n    mask = out < 0.5\n    x[mask].fill_(0)\n", "flagged"),
    ("TCP007", "def f(x, out):\n    mask = out < 0.5\n    x[mask].fill_(0)\n", "refused"),
    ("TCP007", "def f(x):\n    idx = [0, 2]\n    x.data[idx].add_(1)\n", "flagged"),
    ("TCP007", "def f(x, s):\n    x[:, s.topk(2).indices].mul_(2).add_(1)\n", "flagged"),
    ("TCP007", "def f(x, n):\n    for i in range(n):\n        x[i].zero_()\n        x[i, 1:].add_(1)\n", "refused"),
    ("TCP007", "def f(x):\n    y = x[[0, 2]].add_(1)\n", "refused"),
    ("TCP007", "def f(x, key):\n    x[key].add_(1)\n", "refused"),
    ("TCP007", "def f(x, t):\n    x[t.argmax()].zero_()\n", "parsed"),
    # TCP008: a snapshot that can go stale, or one used at once.
    ("TCP008", "def f(model, opt, data):\n    best = model.state_dict()\n    for x in data:\n"
     "        model(x).sum().backward()\n        opt.step()\n    model.load_state_dict(best)\n", "flagged"),
    ("TCP008", "def f(model, opt, data, log):\n    for x in data:\n        opt.step()\n"
     "        current = dict(model.state_dict())\n        log(current)\n", "refused"),
    ("TCP008", "def f(model, opt, data, acc):\n    for x in data:\n        opt.step()\n        if acc(x) > 1:\n"
     "            best = dict(model.state_dict())\n    return best\n", "flagged"),
    ("TCP008", "def f(self, model, data):\n    for x in data:\n        self.best = {k: v for k, v in "
     "model.state_dict().items()}\n        model.fit(x)\n        self.opt.step()\n", "flagged"),
    ("TCP008", "def f(model, path):\n    sd = model.state_dict()\n    torch.save(sd, path)\n", "refused"),
    ("TCP008", "def f(model, other):\n    sd = model.state_dict()\n    sd.update(other)\n"
     "    model.load_state_dict(sd)\n", "refused"),
    ("TCP008", "def f(model, sched, opt):\n    for _ in range(3):\n        s = sched.state_dict()\n"
     "        opt.step()\n        print(s)\n", "refused"),
    ("TCP008", "def f(model, w):\n    old = model.state_dict()\n    model.seen = 0\n    w.add_(1)\n    return old\n",
     "parsed"),
    ("TCP008", "def f(model, w):\n    old = model.state_dict()\n    model.seen = 0\n    w.data.add_(1)\n    return old\n",
     "flagged"),
    ("TCP008", "class A:\n    def keep(self, model):\n        self.best = model.state_dict()\n"
     "    def back(self, model):\n        model.load_state_dict(self.best)\n"
     "def f(self, model):\n    self.best = model.state_dict()\n", "flagged"),
    ("TCP008", "def f(model, data):\n    for x in data:\n        ema = model.state_dict()\n"
     "        def closure():\n            model(x).sum().backward()\n    print(ema)\n", "flagged"),
    # Read only in the iteration that stored it, before any step: never stale.
    ("TCP008", "def f(model, opt, data):\n    for x in data:\n        ema = model.state_dict()\n"
     "        print(ema)\n        opt.step()\n", "refused"),
    # A snapshot stored once, read before training begins (a pretrained checkpoint).
    ("TCP008", "def f(model, ckpt, opt, data):\n    sd = ckpt.state_dict()\n    model.load_state_dict(sd)\n"
     "    del sd\n    for x in data:\n        opt.step()\n", "refused"),
    ("TCP008", "def f(model, ckpt, opt, data):\n    sd = ckpt.state_dict()\n    model.load_state_dict(sd)\n"
     "    for x in data:\n        opt.step()\n    print(sd)\n", "flagged"),
    # Two snapshots of different modules, both read: no comparison of one module with itself.
    ("TCP008", "def f(model, opt, data):\n    a = model.state_dict()\n    b = opt.state_dict()\n"
     "    print(a == b)\n", "refused"),
    # Under an `if` that is no metric test, a store counts as taken once.
    ("TCP008", "def f(model, opt, data, resume):\n    if resume:\n        sd = model.state_dict()\n"
     "        print(sd)\n    for x in data:\n        opt.step()\n", "refused"),
    # TCP009: an accumulated graph, or numbers, or a loss built from terms.
    ("TCP009", "def f(model, opt, data, criterion):\n    total = 0\n    for x, y in data:\n"
     "        loss = criterion(model(x), y)\n        loss.backward()\n        total += loss\n", "flagged"),
    ("TCP009", "def f(model, data, loss_fn):\n    losses = []\n    for x, y in data:\n"
     "        losses.insert(0, loss_fn(model(x), y).mean())\n", "flagged"),
    ("TCP009", "def f(model, opt, data):\n    history = {}\n    for i, (x, y) in enumerate(data):\n"
     "        out = model(x)\n        l = out.sum()\n        l.backward()\n        history[i] = l\n", "flagged"),
    ("TCP009", "def f(model, opt, data, criterion):\n    total = 0\n    for x, y in data:\n"
     "        loss = criterion(model(x), y)\n        loss.backward()\n        total += loss.item()\n", "refused"),
    ("TCP009", "def f(model, data, criterion):\n    total = 0\n    for x, y in data:\n"
     "        out = model(x)\n        out.sum().backward()\n        total += float(criterion(out, y))\n", "refused"),
    ("TCP009", "def f(model, data):\n    correct = 0\n    for x, y in data:\n        out = model(x)\n"
     "        out.sum().backward()\n        correct += (out.argmax(1) == y).sum()\n", "refused"),
    ("TCP009", "def f(outputs, targets, criterion):\n    total = 0\n    for o, t in zip(outputs, targets):\n"
     "        total = total + criterion(o, t)\n    return total\n", "refused"),
    ("TCP009", "def f(model, xs, criterion):\n    total = 0\n    for x in xs:\n"
     "        total += criterion(model(x), x)\n    total.backward()\n", "refused"),
    ("TCP009", "def f(model, opt, data, criterion):\n    for x, y in data:\n"
     "        loss = criterion(model(x), y)\n        loss.backward()\n        model.n += len(x)\n", "refused"),
    # A number weighted by a name bound only to numbers (the OGB examples' train loops).
    ("TCP009", "def f(model, opt, data):\n    total = 0\n    for x in data:\n        out = model(x)\n"
     "        loss = out.mean()\n        loss.backward()\n        n = out.size(0)\n"
     "        total += loss.item() * n\n", "refused"),
    ("TCP009", "def f(model, opt, data):\n    total = 0\n    for x in data:\n        out = model(x)\n"
     "        loss = out.mean()\n        loss.backward()\n        n = out.size(0)\n"
     "        total += loss * n\n", "flagged"),
    ("TCP009", "def f(model, opt, data):\n    total = 0\n    for x in data:\n        loss = model(x).mean()\n"
     "        scaled = loss\n        loss.backward()\n        total += scaled\n", "flagged"),
    # No graph is recorded under no_grad: an evaluation loop in the same function.
    ("TCP009", "import torch\ndef f(model, data, criterion):\n    total = 0\n    with torch.no_grad():\n"
     "        for x, y in data:\n            total += criterion(model(x), y)\n", "refused"),
    ("TCP009", "import torch\n@torch.inference_mode()\ndef f(model, data, criterion):\n    total = 0\n"
     "    for x, y in data:\n        total += criterion(model(x), y)\n", "refused"),
    ("TCP009", "import torch\ndef f(model, data, criterion):\n    total = 0\n    with torch.no_grad():\n"
     "        pass\n    for x, y in data:\n        total += criterion(model(x), y)\n", "flagged"),
    # TCP010: a name bound to a .numpy() array (or a view of one), written in place.
    ("TCP010", "def f(t):\n    a = t.numpy()\n    b = a.T\n    b[0] += 1\n", "flagged"),
    ("TCP010", "def f(t):\n    a = t.numpy()\n    a.sort()\n", "flagged"),
    ("TCP010", "def f(t):\n    a = t.numpy()\n    np.clip(a, 0, 1, out=(a,))\n", "flagged"),
    ("TCP010", "def f(t):\n    a: object = t.cpu().numpy()\n    a[0] = 1\n", "flagged"),
    ("TCP010", "import torch\ndef f():\n    a = torch.zeros(2).numpy()\n    a += 1\n", "parsed"),
    ("TCP010", "def f(t):\n    a = t.numpy()\n    b = a * 2\n    b += 1\n", "refused"),
    ("TCP010", "def f(t):\n    a = t.numpy().copy()\n    a += 1\n", "refused"),
    ("TCP010", "def f(t):\n    a = t.numpy()\n    def g(a):\n        a += 1\n", "refused"),
    # TCP011: a Parameter rewrapped into an attribute.
    ("TCP011", "import torch.nn as nn\ndef f(self):\n    self.a.weight = nn.Parameter(data=self.b.weight.detach())\n", "flagged"),
    ("TCP011", "import torch.nn as nn\ndef f(self):\n    w = nn.Parameter(self.b.weight)\n", "refused"),
    ("TCP011", "import torch.nn as nn\ndef f(self):\n    self.a.weight = nn.Parameter(self.b.weight.clone())\n", "refused"),
    ("TCP011", "import torch.nn as nn\ndef f(self):\n    self.a.weight = nn.Parameter(self.a.weight)\n", "parsed"),
]


@pytest.mark.parametrize("code, source, expected", NEAR_MISSES)
def test_shape_gates_refuse_only_what_cannot_be_flagged(code, source, expected):
    rule = SHAPE_GATED[code]
    whole = lint_source(source, rules=[rule], shortcuts=False)
    assert lint_source(source, rules=[rule]) == whole
    tree = ast.parse(source)
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "f")
    plan = prefilter.plan(source, [rule.trigger_spec()], ModuleSummary.of(tree, source))
    parsed = any(start <= function.lineno <= end for start, end in plan.spans)
    flagged = any(function.lineno <= f.line <= function.end_lineno for f in whole)
    assert {"flagged": (True, True), "parsed": (True, False), "refused": (False, False)}[expected] == (parsed, flagged)


# -- statements alone (the flake8 plugin, which shows no fixes) ----------------------
@pytest.mark.parametrize("source, alone", [
    ("def f(m, lr):\n    for p in m.parameters():\n        p.data.add_(-lr * p.grad)\n"
     "        p.data[0] = 1; n = 2\n        torch.nn.init.zeros_(p.data)\n", [(3, 3), (4, 4), (5, 5)]),
    ("def f(w: torch.Tensor, v):\n    w.data.zero_()\n    w.data = v\n", None),  # `.data =`: is w a tensor?
    ("def f(w, v):\n    w.data.zero_()\n    w.data = v\n", [(2, 2)]),  # w is no known tensor: never flagged
    ("def f(m, v):\n    m.weight.data = v\n", [(2, 2)]),  # a parameter whatever the bindings
    ("def f(self, opt):\n    self.data = opt.data\n    with open(opt.data) as f:\n        pass\n"
     "    torch.nn.init.zeros_(self.w.data)\n", None),  # a `with`: where the writes run decides their code
    ("def f(self, opt):\n    self.data = opt.data\n    torch.nn.init.zeros_(self.w.data)\n", [(3, 3)]),  # plain objects' .data
    ("def f(w: torch.Tensor):\n    w.data += 1\n", None),
    ("def f(w):\n    if w.data.add_(1).sum() > 0:\n        pass\n", None),  # in a header
    ("def f(w, c):\n    if c:\n        pass\n    else: w.data.zero_()\n", None),  # not code alone
    ("def f(w):\n    def g():\n        return 1\n    w.data.zero_()\n", [(4, 4)]),
    ("x = torch.zeros(2)\nx.data.zero_()\n", [(2, 2)]),  # module level
    ("def f(up):\n    w = up.weight.data\n    w.mul_(0.5)\n", None),  # through a name: its binding decides
    ("class A:\n    w = torch.zeros(2)\n    w.data[0] = 1\n", [(3, 3)]),
    # In a nested def's default: judged with that def (its header is no statement alone).
    ("def f(w):\n    @torch.no_grad()\n    def g(x=w.data.zero_()):\n        return x\n    return g\n", None),
])
def test_the_plugin_parses_writes_through_data_alone(source, alone):
    assert_parsed_alone("TCP001 TCP101", source, alone)  # one analysis reports both


@pytest.mark.parametrize("source, alone", [
    ("def f(x, y):\n    a = 1\n    b = x.clone().detach()\n    for z in y:\n        c = z.clone().detach(); d = 2\n",
     [(3, 3), (5, 5)]),
    ("def f(x):\n    if x.clone().detach().sum() > 0:\n        pass\n", None),  # in a header
    ("y = torch.clone(x).detach()\n", [(1, 1)]),  # module level
])
def test_the_plugin_parses_clone_detach_alone(source, alone):
    assert_parsed_alone("TCP002", source, alone)


def assert_parsed_alone(code: str, source: str, alone: list[tuple[int, int]] | None) -> None:
    """The plan (no fixes) for ``code`` (codes, space-separated) parses ``alone``'s statements,
    not their scopes (None: the scope), and finds what the whole file's analysis finds."""
    source = "import torch\n" + source
    rules = [rule for rule in ALL_RULES if rule.code in code.split()]
    tree = ast.parse(source)
    plan = prefilter.plan(source, [rule.trigger_spec() for rule in rules], ModuleSummary.of(tree, source), fixes=False)
    if alone is None:
        assert plan.statements == () and (plan.spans or plan.module_level is not None)
    else:
        assert [(first - 1, last - 1) for first, last, _ in plan.statements] == alone
        assert plan.spans == () and plan.module_level is None
    whole = lint_source(source, rules=rules, shortcuts=False)
    assert whole and lint_source(source, rules=rules, fixes=False) == whole


TRIGGER_SOURCES = [
    *(example.code for rule in ALL_RULES for example in rule.flagged),
    *(code for rule in ALL_RULES for code in rule.clean),
    # the first trigger widened by the import table: an alias, a star import
    "from copy import deepcopy as dc\nimport torch\ndef f(x: torch.Tensor):\n    return dc(x)\n",
    "from copy import *\nimport torch\ndef f(x: torch.Tensor):\n    return deepcopy(x)\n",
    "import torch\ndef f(x):\n    return x + 1\n",  # no rule's trigger
]


@pytest.mark.parametrize("source", TRIGGER_SOURCES)
def test_the_plan_is_the_same_from_the_rules_the_text_may_trigger(source):
    # The plugin and the engine hand the plan only the rules may_trigger keeps: it must
    # plan exactly as it would from all of them, with and without fixes.
    specs = [rule.trigger_spec() for rule in ALL_RULES]
    kept = prefilter.may_trigger(source, specs)
    assert set(kept) <= set(specs)
    tree = ast.parse(source)
    for fixes in (True, False):
        whole = prefilter.plan(source, specs, ModuleSummary.of(tree, source), fixes)
        assert prefilter.plan(source, kept, ModuleSummary.of(tree, source), fixes) == whole
        assert bool(kept) or not whole.needs_parse
    assert any(spec.code == "TCP003" for spec in kept) == ("deepcopy" in source)
