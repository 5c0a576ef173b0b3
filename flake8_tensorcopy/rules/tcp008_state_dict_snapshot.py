"""TCP008: a ``state_dict()`` kept as a snapshot goes on tracking the live weights."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import NamedTuple

from ..analysis.ast_patterns import argument_values, parameter_owners, unstarred
from ..analysis.evaluator import argument_count, bound_names, callee_name, container_of, dotted_name, first_argument, method_call
from ..analysis.own_code import compares_metrics
from ..analysis.vocabulary import DICT_COPIES, SAVING, TRAINING_METHODS, holds_live_state, writes_in_place
from ..gates import SnapshotGate
from ..gates import _holder  # the gate's: where a stored value lives on
from ..lazy_cst import cst
from ..rule import WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, module_reference

# Calls that compare what they are given: torch.equal, torch.allclose, assertEqual, ...
_COMPARING = ("equal", "close", "assert", "same", "compare")
_COMPARED = (
    "state_dict() tensors share memory with the live parameters: this snapshot and the later "
    "state_dict() hold the same tensors, so comparing them never shows a change; keep "
    "copy.deepcopy(model.state_dict())"
)


class _Candidate(NamedTuple):
    value: ast.expr  # the aliasing expression, reported and wrapped by the fix
    holder: tuple[str, str]  # ("name", "best") or ("attr", "self.best")
    position: int
    loop: ast.For | ast.While | None  # the innermost loop of the function around the store
    in_branch: bool  # under an `if` that compares metrics
    module: str | None  # whose state_dict: "model", "model[1]" (None: not a plain reference)
    # ``v.cpu()`` of ``{k: v.cpu() for k, v in sd.items()}``: a copy, but on a CPU run the
    # tensor itself (None: the snapshot aliases on every device)
    to_cpu: ast.Call | None = None


class _Frame:
    __slots__ = (
        "loop_base", "constructor", "training", "moved", "optimizers", "optimised", "sources", "candidates", "reads",
        "loaded", "loop_spans", "branches", "bound", "comparisons", "written_through", "written", "loaded_modules",
    )

    def __init__(self, loop_base: int, constructor: bool = False) -> None:
        self.loop_base = loop_base
        self.constructor = constructor  # an ``__init__``: nothing it was given has been stepped by it yet
        self.training = False
        # When the weights moved, and which modules: `.backward()`/`.step()`, or a write to a
        # parameter or through `.data` (positions, for snapshots taken outside loops and
        # branches). The modules are those of an optimizer built here (empty: a backward or
        # a scheduler's step, which move nothing themselves), None where any module may move.
        self.moved: list[tuple[int, frozenset[str] | None]] = []
        # name -> the modules whose `.parameters()` the optimizer bound to it was built on
        # (None: bound to something else as well).
        self.optimizers: dict[str, frozenset[str] | None] = {}
        self.optimised: set[str] = set()  # every module an optimizer here was built on
        # name -> the names it was bound to references of (`net = global_model`: one module).
        self.sources: dict[str, set[str]] = {}
        self.candidates: list[_Candidate] = []
        self.reads: dict[str, list[int]] = {}
        self.loaded: list[tuple[str, int]] = []  # load_state_dict(holder)
        self.loop_spans: dict[int, tuple[int, int]] = {}
        self.branches: list[bool] = []
        self.bound: dict[str, list[int]] = {}  # every binding of a name
        # Statements that compare something: (position, the names they read).
        self.comparisons: list[tuple[int, set[str]]] = []
        # Names through which weights are written (`sd[k].data.fill_(0)`, `sd[k].data += v`): a
        # state_dict used so is a handle on the weights, meant to alias them.
        self.written_through: set[str] = set()
        # Writes through one module's state_dict (`target_sd[k].data.copy_(...)`, an EMA):
        # (position, that module), which move that module alone.
        self.written: list[tuple[int, str]] = []
        # Names bound here to a model read from a file (`m = torch.load(path)`): nothing here
        # trains them unless an optimizer is built on them.
        self.loaded_modules: set[str] = set()


class StateDictSnapshot(Rule):
    code = "TCP008"
    name = "state-dict-snapshot"
    enabled_by_default = False  # not yet proven blind: see its page
    message = (
        "state_dict() tensors share memory with the live parameters: this snapshot changes as "
        "training goes on; keep copy.deepcopy(model.state_dict())"
    )
    # The second: training or a load in the same function, a store on an attribute that
    # the file may load back elsewhere (`self.best = model.state_dict()`), or a comparison.
    triggers = (
        rf"\.{WS}state_dict{WS}\(",
        rf"\.{WS}(?:backward|step){WS}\(|load_state_dict|\.{WS}\w+{WS}(?:,[^=\n]*)?=(?!=)|[=!]="
        rf"|{'|'.join(_COMPARING)}",
    )
    gate = SnapshotGate()
    docs = RuleDocs(
        what="Flags a `.state_dict()` result (also through `dict(...)`, `OrderedDict(...)`, "
        "`.copy()`, `copy.copy(...)`, a dict literal, or `{k: v ...}`/`{k: v.detach() ...}`, and "
        "`{k: v.cpu() ...}` in a program that can pick the CPU as its device) that is "
        "stored for later, not copied: bound to a name, an attribute or a container inside a loop, "
        "or inside a branch that compares metrics (`if acc > best_acc:`, `if is_best:`), while "
        "training goes on in the same function (`.backward()` or `.step()`), or the snapshot is "
        "loaded back later with `load_state_dict`. A name counts as kept when it is read after "
        "the loop, in the next iteration, or by `load_state_dict`, not only saved.",
        why="`model.state_dict()` returns tensors that SHARE storage with the parameters and "
        "buffers (`dict(sd)` and `sd.copy()` still do). After one more optimizer step, a saved "
        "\"best\" state_dict equals the new weights, so early stopping silently restores the last "
        "weights instead of the best ones. Same for `optimizer.state_dict()`.",
        example="import torch\n\n\ndef train(model, optimizer, batches, evaluate):\n"
        "    best_loss, best_state = float(\"inf\"), None\n"
        "    for x, y in batches:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n"
        "        val = evaluate(model)\n        if val < best_loss:\n"
        "            best_loss, best_state = val, model.state_dict()\n"
        "    model.load_state_dict(best_state)\n",
        use_instead="import copy\n\nimport torch\n\n\ndef train(model, optimizer, batches, evaluate):\n"
        "    best_loss, best_state = float(\"inf\"), None\n"
        "    for x, y in batches:\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n"
        "        val = evaluate(model)\n        if val < best_loss:\n"
        "            best_loss, best_state = val, copy.deepcopy(model.state_dict())\n"
        "    model.load_state_dict(best_state)\n",
        fixture="fixtures/tcp008_state_dict_snapshot.py",
        known_problems="Function-local: training that happens in another function (a `train_epoch(...)` call) "
        "counts only through a later `load_state_dict` of the snapshot here. `torch.save(sd, "
        "f)`, a value passed straight to a call or returned at once, `copy.deepcopy(...)` and "
        "`{k: v.clone() ...}` are never flagged; neither are learning-rate schedulers, grad "
        "scalers and data loaders, whose state_dict holds plain values. `{k: v.cpu() ...}` copies off a "
        "GPU and returns the tensors themselves on the CPU: it is flagged only where the file, a module of "
        "the project that imports it, or one importing those picks the CPU as a device (`... else \"cpu\"`, "
        "`\"cpu\" if ...`, `device = \"cpu\"`, `default=\"cpu\"`, a `--cpu` or `--no-cuda` flag), with a "
        "message that says so; a program that only ever runs on a GPU is not told. A snapshot taken outside loops and "
        "branches is flagged when the weights move after it (`.backward()`, `.step()`, a write "
        "through `.data`) and it is read or loaded after that; one kept on an attribute "
        "(`self.best = model.state_dict()` in an early-stopping helper) when the file, or a module of the "
        "project that imports it, loads that attribute back anywhere (`model.load_state_dict(stopper.best)`); one compared with a later state_dict of the "
        "same module (`assert before != after`: the same tensors twice). An optimizer's state_dict taken in an "
        "`__init__` that does not train is not flagged: its state is still empty. Training moves only the modules of the "
        "optimizers a function builds, when every step in it is theirs (a federated client's "
        "snapshot of the global model is not moved by its own optimizer), and a name bound again "
        "before a read holds the new value. {accuracy} "
        "A forward pass in train mode that updates batch-norm buffers is not seen as moving the weights. "
        "An optimizer's state_dict (its exp_avg, momentum buffers and step counts) is judged as a model's, "
        "with a message of its own; a line keeping both gets one finding. Of the blind set's TCP008 "
        "hazards one is an optimizer's (learn2learn: the state loaded into the validation optimizer, whose "
        "steps then change it), and six are `{k: v.cpu() ...}` snapshots of an early-stopping helper in "
        "projects that fall back to the CPU without a GPU (flagged since, above; those six were read to build it).",
        fix_safety="Unsafe: the value is wrapped in `copy.deepcopy(...)` (adding `import copy` when "
        "needed), which now holds a second copy of the weights in memory and no longer follows "
        "them, which is the point. In `{k: v.cpu() ...}` the `.cpu()` becomes `.to(\"cpu\", copy=True)`: "
        "one copy on every device, as `.cpu()` made off a GPU.",
    )
    flagged = (
        Example(
            "def f(model, opt, data, score):\n    best = None\n    for x in data:\n"
            "        model(x).sum().backward()\n        opt.step()\n        if score() > 0.9:\n"
            "            best = model.state_dict()\n    return best\n",
            [(7, 20)],
        ),
        Example(
            "def f(self, loader):\n    for batch in loader:\n        self.step(batch)\n"
            "        self.snapshot = self.model.state_dict()\n",
            [(4, 25)],
        ),
        Example(
            "def f(model, opt, data):\n    history = []\n    for x in data:\n"
            "        model(x).sum().backward()\n        opt.step()\n"
            "        history.append(dict(model.state_dict()))\n    return history\n",
            [(6, 24)],
        ),
        Example(
            "def f(model, epochs, train_epoch):\n    init = model.state_dict()\n    for e in epochs:\n"
            "        train_epoch(model)\n        if e > 3:\n            prev = model.state_dict().copy()\n"
            "    model.load_state_dict(prev)\n",
            [(6, 20)],
        ),
        Example(
            "def f(model, opt, data, acc):\n    best = {}\n    for x in data:\n"
            "        model(x).sum().backward()\n        opt.step()\n        if acc() > 0.5:\n"
            "            best = {'model': model.state_dict(), 'opt': opt.state_dict()}\n"
            "    return best\n",
            [(7, 30)], "the live parameters and the optimizer's state",
        ),
        Example(  # evolution strategies: perturb, evaluate, restore (restores nothing)
            "def f(net, noise, evaluate):\n    old = net.state_dict()\n"
            "    for p, n in zip(net.parameters(), noise):\n        p.data += n\n"
            "    score = evaluate(net)\n    net.load_state_dict(old)\n    return score\n",
            [(2, 11)],
        ),
        Example(  # an early-stopping helper: the trainer restores the "best" weights
            "class EarlyStopping:\n    def step(self, loss, model):\n        if loss < self.best_loss:\n"
            "            self.best_loss, self.best_weights = loss, model.state_dict()\n\n"
            "def train(model, stopper, epochs, run_epoch):\n    for epoch in range(epochs):\n"
            "        stopper.step(run_epoch(model), model)\n    model.load_state_dict(stopper.best_weights)\n",
            [(4, 55)],
        ),
        Example(  # the same, kept in a tuple
            "class Stopper:\n    def step(self, loss, model):\n        if loss < self.best:\n"
            "            self.best, self.weights = loss, (model.state_dict(),)\n\n"
            "def restore(model, stopper):\n    model.load_state_dict(stopper.weights[0])\n",
            [(4, 46)],
        ),
        Example(  # the optimizer built here updates the module whose snapshot is kept
            "import torch\ndef f(model, data):\n    opt = torch.optim.SGD(model.fc.parameters(), lr=0.1)\n"
            "    sd = model.state_dict()\n    for x in data:\n        model(x).sum().backward()\n"
            "        opt.step()\n    print(sd)\n",
            [(4, 10)],
        ),
        Example(  # a "best" snapshot bound before the loop, kept if no epoch improves
            "import copy\ndef f(model, opt, data, acc):\n    best = model.state_dict()\n    for x in data:\n"
            "        model(x).sum().backward()\n        opt.step()\n        if acc() > 0.5:\n"
            "            best = copy.deepcopy(model.state_dict())\n    model.load_state_dict(best)\n",
            [(3, 12)],
        ),
        Example(  # both bindings alias: the loop's, which replaces the first, is the finding
            "def f(model, opt, data, acc):\n    best, best_acc = model.state_dict(), -1\n    for x in data:\n"
            "        model(x).sum().backward()\n        opt.step()\n        if acc() > best_acc:\n"
            "            best = model.state_dict()\n    model.load_state_dict(best)\n",
            [(7, 20)],
        ),
        Example(  # a model's weights taken in a constructor, restored later: flagged
            "class Averager:\n    def __init__(self, model):\n        self.initial = model.state_dict()\n\n"
            "    def reset(self, model):\n        model.load_state_dict(self.initial)\n",
            [(3, 24)],
        ),
        Example(  # an optimizer's state after a resume is live; in the constructor it is empty
            "class Wrapper:\n    def __init__(self, optimizer):\n        self._optimizer = optimizer\n"
            "        self.initial_state = self._optimizer.state_dict()\n\n"
            "    def load_state_dict(self, state):\n        self._optimizer.load_state_dict(state)\n"
            "        self.initial_state = self._optimizer.state_dict()\n\n"
            "    def sync(self):\n        self._optimizer.load_state_dict(self.initial_state)\n",
            [(8, 30)],
        ),
        Example(  # a test that the forward pass leaves batch-norm alone: it can never fail
            "import torch\ndef check(model, x):\n    before = model[1].state_dict()\n    model(x)\n"
            "    after = model[1].state_dict()\n"
            "    assert all(torch.equal(v, after[k]) for k, v in before.items())\n",
            [(3, 14)],
        ),
        # An optimizer's state: its exp_avg and momentum buffers move with every step.
        Example(
            "def f(model, optimizer, data, score):\n    best = None\n    for x in data:\n"
            "        model(x).sum().backward()\n        optimizer.step()\n        if score() > 0.9:\n"
            "            best = optimizer.state_dict()\n    return best\n",
            [(7, 20)], "optimizer.state_dict() holds the optimizer's live state tensors",
        ),
        # A model's and an optimizer's on one line: one finding, whose fix copies both.
        Example(
            "def f(model, opt, data, score):\n    best = None\n    for x in data:\n"
            "        model(x).sum().backward()\n        opt.step()\n        if score() > 0.9:\n"
            "            best = (model.state_dict(), opt.state_dict())\n    return best\n",
            [(7, 21)], "the live parameters and the optimizer's state",
        ),
        # The same local optimizer stepped again after the snapshot: the kept state moves.
        Example(
            "import torch\ndef inner(self, model, batches):\n    opt = torch.optim.Adam(model.parameters())\n"
            "    for x in batches:\n        model(x).sum().backward()\n        opt.step()\n"
            "        self.inner_state = opt.state_dict()\ndef outer(self, other):\n    other.load_state_dict(self.inner_state)\n",
            [(7, 28)], "opt.state_dict() holds the optimizer's live state tensors",
        ),
        # Saved, then read again after the loop: still a snapshot that moved on.
        Example(
            "import torch\ndef f(model, opt, data, score, path):\n    best = 0\n    for x in data:\n"
            "        model(x).sum().backward()\n        opt.step()\n        if score() > best:\n"
            "            best_model = model.state_dict()\n            torch.save(best_model, path)\n"
            "    model.load_state_dict(best_model)\n",
            [(8, 26)],
        ),
        # A model read from a file that an optimizer here then trains: its snapshot moves.
        Example(
            "import torch\ndef f(data, path):\n    best = None\n    saved = torch.load(path)\n"
            "    opt = torch.optim.SGD(saved.parameters(), lr=0.1)\n    for x in data:\n"
            "        saved(x).sum().backward()\n        opt.step()\n        best = saved.state_dict()\n"
            "    saved.load_state_dict(best)\n",
            [(9, 16)],
        ),
        Example(  # `.cpu()` returns the tensor itself where the program falls back to the CPU
            "import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
            "def f(model, opt, data, acc):\n    for x in data:\n        model(x.to(device)).sum().backward()\n"
            "        opt.step()\n        if acc() > 0.5:\n"
            "            best = {k: v.detach().cpu() for k, v in model.state_dict().items()}\n"
            "    model.load_state_dict(best)\n",
            [(8, 20)], "on a CPU run (this program can pick the CPU) .cpu() returns the tensor itself",
        ),
        Example(  # an early-stopping helper of a program with a --cpu flag
            "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--cpu', action='store_true')\n"
            "class Stopper:\n    def check(self, model, loss):\n        if loss < self.best:\n"
            "            self.best_state = {k: v.cpu() for k, v in model.state_dict().items()}\n\n"
            "def restore(model, stopper):\n    model.load_state_dict(stopper.best_state)\n",
            [(7, 31)], ".cpu() returns the tensor itself",
        ),
        Example(  # the attribute is loaded back, as kept, in another method
            "class Client:\n    def train(self, loader):\n        self.w = self.model.state_dict()\n"
            "        for x in loader:\n            self.model(x).sum().backward()\n            self.opt.step()\n\n"
            "    def rollback(self):\n        self.model.load_state_dict(self.w)\n",
            [(3, 18)],
        ),
        Example(  # the optimizer may be the first one still, which trains `bad`
            "import torch\ndef f(net, bad, data, fresh):\n    opt = torch.optim.SGD(bad.parameters(), lr=0.1)\n"
            "    for x in data:\n        bad(x).sum().backward()\n        opt.step()\n    kept = bad.state_dict()\n"
            "    if fresh:\n        opt = torch.optim.SGD(net.parameters(), lr=0.1)\n    for x in data:\n"
            "        net(x).sum().backward()\n        opt.step()\n    print(kept)\n",
            [(7, 12)],
        ),
        Example(  # taken in one branch, the step after the `if` runs after it
            "def f(model, opt, x, warm):\n    if warm:\n        before = model.state_dict()\n"
            "    model(x).sum().backward()\n    opt.step()\n    return before\n",
            [(3, 18)],
        ),
        Example(  # bound again only in a branch: the old snapshot may be what is loaded
            "def f(net, opt, data, average, clients, ready):\n    w_glob = net.state_dict()\n    for x in data:\n"
            "        net(x).sum().backward()\n        opt.step()\n        if ready:\n"
            "            w_glob = average(clients)\n        net.load_state_dict(w_glob)\n",
            [(2, 14)],
        ),
        Example(  # an optimizer built on the module's parameters too
            "import torch\ndef f(net, data, feature):\n    w = net.state_dict()\n"
            "    opt = torch.optim.SGD([feature, *net.parameters()], lr=0.1)\n    for x in data:\n"
            "        (net(x) * feature).sum().backward()\n        opt.step()\n    return w\n",
            [(3, 9)],
        ),
    )
    clean = (
        # The attribute is bound anew just before each load: no kept snapshot is loaded back.
        "class Client:\n    def train(self, loader):\n        self.w = self.model.state_dict()\n"
        "        for x in loader:\n            self.model(x).sum().backward()\n            self.opt.step()\n\n"
        "    def update(self, weights):\n        self.w = weights\n        self.model.load_state_dict(self.w)\n",
        # Bound again outside any branch, `opt` trains `net` alone after the snapshot of `bad`.
        "import torch\ndef f(net, bad, data):\n    opt = torch.optim.SGD(bad.parameters(), lr=0.1)\n"
        "    for x in data:\n        bad(x).sum().backward()\n        opt.step()\n    kept = bad.state_dict()\n"
        "    opt = torch.optim.SGD(net.parameters(), lr=0.1)\n    for x in data:\n"
        "        net(x).sum().backward()\n        opt.step()\n    print(kept)\n",
        # The step lies in the other arm of the `if`: it never runs after the snapshot.
        "import copy\ndef apply(server, updates, lr, use_optimizer):\n    if not use_optimizer:\n"
        "        w = server.model.state_dict()\n        for key in w:\n            w[key] = w[key] - lr * updates[key]\n"
        "        server.model.load_state_dict(copy.deepcopy(w))\n    else:\n        server.optimizer.step()\n",
        # A `with` body always runs: the name is bound anew before it is loaded.
        "import torch\ndef f(net, opt, data, average, clients):\n    w_glob = net.state_dict()\n    for x in data:\n"
        "        net(x).sum().backward()\n        opt.step()\n        with torch.no_grad():\n"
        "            w_glob = average(clients)\n        net.load_state_dict(w_glob)\n",
        # An optimizer built on a tensor of its own moves that tensor, not the module.
        "import torch\ndef f(net, data, feature):\n    w = net.state_dict()\n"
        "    opt = torch.optim.SGD([feature], lr=0.1)\n    for x in data:\n"
        "        (net(x) * feature).sum().backward()\n        opt.step()\n    return w\n",
        # `.cpu()` copies off a GPU: a program that never picks the CPU keeps the values.
        "import torch\ndevice = torch.device('cuda')\n"
        "def f(model, opt, data, acc):\n    for x in data:\n        model(x.to(device)).sum().backward()\n"
        "        opt.step()\n        if acc() > 0.5:\n"
        "            best = {k: v.cpu() for k, v in model.state_dict().items()}\n"
        "    model.load_state_dict(best)\n",
        # Moving a checkpoint to the CPU is no choice of device; `.clone()` copies anyway.
        "import torch\nstate = torch.load('best.pt', map_location='cpu')\n"
        "def f(model, opt, data, acc):\n    for x in data:\n        model(x).sum().backward()\n"
        "        opt.step()\n        if acc() > 0.5:\n"
        "            best = {k: v.cpu() for k, v in model.state_dict().items()}\n"
        "    model.load_state_dict(best)\n",
        "device = 'cpu'\ndef f(model, opt, data, acc):\n    for x in data:\n        model(x).sum().backward()\n"
        "        opt.step()\n        if acc() > 0.5:\n"
        "            best = {k: v.cpu().clone() for k, v in model.state_dict().items()}\n"
        "    model.load_state_dict(best)\n",
        # The state_dict of a model just read from a file: nothing here trains it.
        "import torch\ndef f(model, opt, data, path):\n    best = None\n    for x in data:\n"
        "        model(x).sum().backward()\n        opt.step()\n        saved = torch.load(path)\n"
        "        best = saved.state_dict()\n    model.load_state_dict(best)\n",
        # Saved at once, then only deleted: `del` keeps nothing.
        "import torch\ndef f(model, opt, data, score, path):\n    best = 0\n    for x in data:\n"
        "        model(x).sum().backward()\n        opt.step()\n        if score() > best:\n"
        "            best_model = model.state_dict()\n            torch.save(best_model, path)\n    del best_model\n",
        # A local optimizer that steps no more after the snapshot (it is dropped at the end).
        "import torch\ndef inner(self, model, batches):\n    opt = torch.optim.Adam(model.parameters())\n"
        "    for x in batches:\n        model(x).sum().backward()\n        opt.step()\n"
        "    self.inner_state = opt.state_dict()\ndef outer(self, other):\n    other.load_state_dict(self.inner_state)\n",
        "import torch\ndef f(model, optimizer, data, path):\n    for x in data:\n        model(x).sum().backward()\n"
        "        optimizer.step()\n        state = optimizer.state_dict()\n        torch.save(state, path)\n",
        "import copy\ndef f(model, optimizer, data, score):\n    best = None\n    for x in data:\n"
        "        model(x).sum().backward()\n        optimizer.step()\n        if score() > 0.9:\n"
        "            best = copy.deepcopy(optimizer.state_dict())\n    return best\n",
        "import copy, torch\ndef check(model, x):\n    before = copy.deepcopy(model.state_dict())\n    model(x)\n"
        "    after = model.state_dict()\n    assert all(torch.equal(v, after[k]) for k, v in before.items())\n",
        "def check(model, x):\n    before = model.state_dict()\n    before = {k: v.clone() for k, v in before.items()}\n"
        "    model(x)\n    after = model.state_dict()\n    assert before.keys() == after.keys()\n",
        "def same_keys(student, teacher):\n    a = student.state_dict()\n    b = teacher.state_dict()\n"
        "    assert a.keys() == b.keys()\n",
        "import torch\ndef f(model, opt, data):\n    for x in data:\n        model(x).sum().backward()\n"
        "        opt.step()\n        torch.save(model.state_dict(), 'ckpt.pt')\n",
        "import copy\ndef f(model, opt, data, acc):\n    for x in data:\n        model(x).sum().backward()\n"
        "        opt.step()\n        if acc() > 0.5:\n            best = copy.deepcopy(model.state_dict())\n"
        "    return best\n",
        "def f(model, opt, data, acc):\n    for x in data:\n        model(x).sum().backward()\n        opt.step()\n"
        "        if acc() > 0.5:\n            best = {k: v.detach().clone() for k, v in model.state_dict().items()}\n"
        "    return best\n",
        "import torch\ndef f(model, opt, data):\n    for i, x in enumerate(data):\n        model(x).sum().backward()\n"
        "        opt.step()\n        sd = model.state_dict()\n        torch.save(sd, f'ckpt{i}.pt')\n",
        "def f(model, ema, opt, data):\n    for x in data:\n        model(x).sum().backward()\n        opt.step()\n"
        "        msd = model.state_dict()\n        for k, v in ema.state_dict().items():\n"
        "            v.mul_(0.9).add_(msd[k].detach(), alpha=0.1)\n",
        "def f(model, opt, sched, data):\n    for x in data:\n        opt.step()\n        s = sched.state_dict()\n"
        "    return s\n",
        "def f(model):\n    return model.state_dict()\n",
        "def f(policy, target, opt, data):\n    for x in data:\n        policy(x).sum().backward()\n        opt.step()\n"
        "        target.load_state_dict(policy.state_dict())\n",
        "import torch\ndef f(model, opt, data):\n    sd = model.state_dict()\n    for x in data:\n"
        "        model(x).sum().backward()\n        opt.step()\n    torch.save(sd, 'final.pt')\n",
        "def f(model, other, opt, x):\n    sd = other.state_dict()\n    model.load_state_dict(sd)\n"
        "    model(x).sum().backward()\n    opt.step()\n",
        # The only optimizer stepped here is built on another module's parameters (SCAFFOLD).
        "import torch\ndef f(net, c_global, data):\n    opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "    c = c_global.state_dict()\n    for x in data:\n        net(x).sum().backward()\n        opt.step()\n"
        "        print(c)\n",
        # An optimizer's state_dict taken in its wrapper's constructor: no step yet, no state to alias.
        "class Wrapper:\n    def __init__(self, optimizer):\n        self._optimizer = optimizer\n"
        "        self.initial_state = self._optimizer.state_dict()\n\n"
        "    def sync(self):\n        self._optimizer.load_state_dict(self.initial_state)\n",
        # Bound again before every later read: what is read is the new state_dict.
        "def f(models, opt, data, average):\n    for m in models:\n        sd = m.state_dict()\n"
        "        sd.update(average)\n        m.load_state_dict(sd)\n    for m in models:\n"
        "        opt.step()\n        sd = m.state_dict()\n        print(sd)\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self.frames: list[_Frame] = []
        self.position = 0
        # The blocks around each position (ids of the statement lists that hold it,
        # outermost first; an ``elif`` opens none, as in LibCST's tree): a binding on
        # every path between two positions hides the first's value.
        self.blocks: tuple[int, ...] = ()
        self.blocks_at: list[tuple[int, ...]] = [()]
        # The arm of each `if` a block lies in: block -> ((that if, 0 body / 1 else), ...),
        # outermost first; an `elif` lies in the else arm of the `if` before it.
        self.arms: dict[int, tuple[tuple[int, int], ...]] = {}
        self.elif_arms: dict[int, tuple[tuple[int, int], ...]] = {}
        self.not_reads: set[int] = set()
        self.statement_reads: set[str] | None = None  # names read by the current statement line
        self.statement_compares = False
        # Simple statements that start or end a statement line (``a = 1; b = 2`` is one);
        # those of a body on its header's line (``if x: a = 1``) are on none.
        self.line_starts: set[int] = set()
        self.line_ends: set[int] = set()

    # -- frames: the module and each function -------------------------------------
    def visit_Module(self, node: ast.Module) -> None:
        self.frames.append(_Frame(len(self.context.loops)))
        self._lines(node.body, suite=False)

    def leave_Module(self, node: ast.Module) -> None:
        self._judge(self.frames.pop())

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.frames.append(_Frame(len(self.context.loops), constructor=node.name == "__init__"))

    def leave_FunctionDef(self, node: ast.FunctionDef) -> None:
        frame = self.frames.pop()
        self._judge(frame)
        if frame.training and self.frames:  # a closure that trains, e.g. for optimizer.step
            self.frames[-1].training = True
            self.frames[-1].moved.append((self._tick(), None))

    def _tick(self) -> int:
        self.position += 1
        self.blocks_at.append(self.blocks)
        return self.position

    # -- blocks: each statement list under a header -----------------------------------
    def _enter(self, body: list[ast.stmt], suite: bool, opens: bool = True) -> None:
        """Open the block of ``body`` (unless ``opens`` is false: a body that always runs);
        ``suite``: whether ``body`` seems to follow its header on the header's line (what the
        source lines, when known, say for certain)."""
        if body:
            if opens:
                self.blocks = (*self.blocks, id(body))
            lines = self.context.lines
            if lines:
                line = lines[body[0].lineno - 1]
                suite = bool(line.encode("utf-8")[: body[0].col_offset].strip() if not line.isascii()
                             else line[: body[0].col_offset].strip())
            self._lines(body, suite)

    def _leave(self, body: list[ast.stmt]) -> None:
        if body:
            self.blocks = self.blocks[:-1]

    def _lines(self, body: list[ast.stmt], suite: bool) -> None:
        """Mark where the statement lines of ``body`` start and end: statements joined by
        ``;`` share one; a body on its header's line has none."""
        if suite:
            return
        previous = None
        for statement in body:
            if previous is None or statement.lineno != previous.end_lineno:
                if previous is not None:
                    self.line_ends.add(id(previous))
                self.line_starts.add(id(statement))
            previous = statement
        if previous is not None:
            self.line_ends.add(id(previous))

    def visit_FunctionDef_body(self, node: ast.FunctionDef) -> None:
        arguments = node.args
        parts = [*arguments.posonlyargs, *arguments.args, arguments.vararg, *arguments.kwonlyargs,
                 *arguments.kw_defaults, arguments.kwarg, *arguments.defaults, node.returns]
        self._enter(node.body, _on_header(node.body, node, parts))

    def leave_FunctionDef_body(self, node: ast.FunctionDef) -> None:
        self._leave(node.body)

    def visit_ClassDef_body(self, node: ast.ClassDef) -> None:
        self._enter(node.body, _on_header(node.body, node, [*node.bases, *node.keywords]))

    def leave_ClassDef_body(self, node: ast.ClassDef) -> None:
        self._leave(node.body)

    def visit_If_body(self, node: ast.If) -> None:
        self.arms[id(node.body)] = (*self.elif_arms.get(id(node), ()), (id(node), 0))
        self._enter(node.body, _on_header(node.body, node, [node.test]))

    def leave_If_body(self, node: ast.If) -> None:
        self._leave(node.body)

    def visit_If_orelse(self, node: ast.If) -> None:
        arms = (*self.elif_arms.get(id(node), ()), (id(node), 1))
        if _is_elif(node):  # the elif's own arms lie inside this one
            self.elif_arms[id(node.orelse[0])] = arms
        else:
            self.arms[id(node.orelse)] = arms
            self._enter(node.orelse, _else_suite(node, node.body, node.orelse))

    def leave_If_orelse(self, node: ast.If) -> None:
        if not _is_elif(node):
            self._leave(node.orelse)

    def visit_For_body(self, node: ast.For) -> None:
        self._enter(node.body, _on_header(node.body, node, [node.target, node.iter]))

    def leave_For_body(self, node: ast.For) -> None:
        self._leave(node.body)

    def visit_While_body(self, node: ast.While) -> None:
        self._enter(node.body, _on_header(node.body, node, [node.test]))

    leave_While_body = leave_For_body

    def visit_For_orelse(self, node: ast.For | ast.While) -> None:
        self._enter(node.orelse, _else_suite(node, node.body, node.orelse))

    def leave_For_orelse(self, node: ast.For | ast.While) -> None:
        self._leave(node.orelse)

    visit_While_orelse = visit_For_orelse
    leave_While_orelse = leave_For_orelse

    def visit_With_body(self, node: ast.With) -> None:
        parts = [part for item in node.items for part in (item.context_expr, item.optional_vars)]
        self._enter(node.body, _on_header(node.body, node, parts), opens=False)

    def visit_Try_body(self, node: ast.Try) -> None:
        self._enter(node.body, _on_header(node.body, node, []))

    def leave_Try_body(self, node: ast.Try) -> None:
        self._leave(node.body)

    def visit_Try_orelse(self, node: ast.Try) -> None:
        before = node.handlers[-1].body if node.handlers else node.body
        self._enter(node.orelse, _else_suite(node, before, node.orelse))

    def leave_Try_orelse(self, node: ast.Try) -> None:
        self._leave(node.orelse)

    def visit_Try_finalbody(self, node: ast.Try) -> None:
        before = node.orelse or (node.handlers[-1].body if node.handlers else node.body)
        self._enter(node.finalbody, _else_suite(node, before, node.finalbody))

    def leave_Try_finalbody(self, node: ast.Try) -> None:
        self._leave(node.finalbody)

    visit_TryStar_body, leave_TryStar_body = visit_Try_body, leave_Try_body
    visit_TryStar_orelse, leave_TryStar_orelse = visit_Try_orelse, leave_Try_orelse
    visit_TryStar_finalbody, leave_TryStar_finalbody = visit_Try_finalbody, leave_Try_finalbody

    def visit_ExceptHandler_body(self, node: ast.ExceptHandler) -> None:
        if node.name:  # LibCST's `as e` is a name read, before the block
            self._read(node.name)
        self._enter(node.body, _on_header(node.body, node, [node.type]))

    def leave_ExceptHandler_body(self, node: ast.ExceptHandler) -> None:
        self._leave(node.body)

    def visit_match_case_body(self, node: ast.match_case) -> None:
        self._enter(node.body, _on_header(node.body, node.pattern, [node.pattern, node.guard]))

    def leave_match_case_body(self, node: ast.match_case) -> None:
        self._leave(node.body)

    def _exclusive(self, first: int, second: int) -> bool:
        """Whether the two positions lie in different arms of one `if`: one never runs after
        the other (where no loop around that `if` runs it again)."""
        taken = {node: arm for block in self.blocks_at[first] for node, arm in self.arms.get(block, ())}
        return any(
            taken.get(node, arm) != arm
            for block in self.blocks_at[second] for node, arm in self.arms.get(block, ())
        )

    def _still_bound(self, frame: _Frame, name: str, since: int, until: int) -> bool:
        """Whether the value ``name`` held at ``since`` may still be its value at ``until``:
        no binding between them on every path (in a block around either position)."""
        around = (self.blocks_at[since], self.blocks_at[until])
        return not any(
            since < p < until and any(blocks[: len(self.blocks_at[p])] == self.blocks_at[p] for blocks in around)
            for p in frame.bound.get(name, ())
        )

    def visit_For(self, node: ast.For) -> None:
        frame = self.frames[-1]
        frame.loop_spans[id(node)] = (self._tick(), 0)
        for name in bound_names(node.target):  # rebound each iteration: the old value is gone
            frame.bound.setdefault(name, []).append(frame.loop_spans[id(node)][0])

    def visit_While(self, node: ast.While) -> None:
        self.frames[-1].loop_spans[id(node)] = (self._tick(), 0)

    def leave_For(self, node: ast.For | ast.While) -> None:
        spans = self.frames[-1].loop_spans
        spans[id(node)] = (spans[id(node)][0], self._tick())

    leave_While = leave_For

    def visit_If(self, node: ast.If) -> None:
        self.frames[-1].branches.append(compares_metrics(node.test))

    def leave_If(self, node: ast.If) -> None:
        self.frames[-1].branches.pop()

    # -- reads of names -------------------------------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if id(node) not in self.not_reads and not isinstance(node.ctx, ast.Del):  # `del sd` keeps nothing
            self._read(node.id)

    def _read(self, name: str) -> None:
        self.frames[-1].reads.setdefault(name, []).append(self._tick())
        if self.statement_reads is not None:
            self.statement_reads.add(name)

    # Names that LibCST's tree holds as name nodes and ``ast`` as plain strings or constants:
    # each counts as read where it stands.
    def visit_Constant(self, node: ast.Constant) -> None:
        if (node.value is None or node.value is True or node.value is False) and id(node) not in self.not_reads:
            self._read(str(node.value))

    def visit_ClassDef_bases(self, node: ast.ClassDef) -> None:
        self._read(node.name)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._read(alias.name.split(".", 1)[0])
            if alias.asname:
                self._read(alias.asname)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module:
            self._read(node.module.split(".", 1)[0])
        for alias in node.names:
            if alias.name != "*":
                self._read(alias.name)
                if alias.asname:
                    self._read(alias.asname)

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self._read(name)

    visit_Nonlocal = visit_Global

    def leave_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self._read(node.name)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._read(node.name)

    def leave_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self._read(node.rest)

    def visit_MatchClass_kwd_patterns(self, node: ast.MatchClass) -> None:
        for name in node.kwd_attrs:
            self._read(name)

    # -- statements that compare: `assert before == after`, `torch.equal(a[k], b[k])` ----
    def visit_SimpleStatement(self, node: ast.stmt) -> None:
        if id(node) in self.line_starts:
            self.statement_reads, self.statement_compares = set(), False

    def leave_SimpleStatement(self, node: ast.stmt) -> None:
        if id(node) in self.line_ends:
            if self.statement_compares and self.statement_reads:
                self.frames[-1].comparisons.append((self._tick(), self.statement_reads))
            self.statement_reads = None

    def visit_Compare(self, node: ast.Compare) -> None:
        if any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            self.statement_compares = True

    # -- stores, training, loads ------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        frame = self.frames[-1]
        called = method_call(node)
        name = callee_name(node)
        if any(word in name.lower() for word in _COMPARING):
            self.statement_compares = True
        if called and name in TRAINING_METHODS:
            frame.training = True
            frame.moved.append((self._tick(), _stepped(frame, node, called[0], name)))
        elif called and writes_in_place(name) and self._holds_weights(called[0]):
            self._note_write(called[0])
        elif name == "load_state_dict":
            argument = first_argument(node, keyword="state_dict")
            key = _dotted(argument) if argument is not None else None
            if key:
                frame.loaded.append((key, self._tick()))
        elif any(word in name.lower() for word in SAVING):
            for argument in argument_values(node):  # torch.save(sd, f) serialises: not a read for later
                values = argument.values if isinstance(argument, ast.Dict) else [argument]
                for value in values:
                    if isinstance(value, ast.Name) or _dotted(value) is not None:
                        self.not_reads.add(id(value))
        elif called and name in ("append", "insert", "extend") and argument_count(node):
            holder = _holder(called[0])
            value = argument_values(node)[-1]
            if name == "extend" and isinstance(value, (ast.List, ast.Tuple)):
                values = [unstarred(e) for e in value.elts]
            else:
                values = [value]
            for item in values:
                if holder and (module := self._snapshot(item)) is not None:
                    self._store(item, holder, module)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self._holds_weights(container_of(node.target)):
            self._note_write(container_of(node.target))

    def _note_write(self, written: ast.expr) -> None:
        """A write to weights: through one module's state_dict kept here, it moves that module
        alone; else any module may have moved."""
        frame = self.frames[-1]
        root = _alias_root(written)
        module = next((c.module for c in reversed(frame.candidates) if c.holder == ("name", root)), None)
        if module is not None:
            frame.written.append((self._tick(), module))
        else:
            frame.moved.append((self._tick(), None))
        self._note_written_through(written)

    def _note_written_through(self, written: ast.expr) -> None:
        if (root := _alias_root(written)) is not None:
            self.frames[-1].written_through.add(root)

    def _holds_weights(self, node: ast.expr) -> bool:
        """``p.data`` or a parameter: writing it moves the weights a state_dict shares."""
        if isinstance(node, ast.Attribute) and node.attr == "data":
            return True
        info = self.inference.info(node)
        return bool(info and info.parameter)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.not_reads.add(id(target))
            self._assign(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.not_reads.add(id(node.target))
        if node.value is not None:
            self._assign(node.target, node.value)

    def _assign(self, target: ast.expr, value: ast.expr) -> None:
        frame = self.frames[-1]
        if isinstance(target, (ast.Tuple, ast.List)) and not isinstance(value, (ast.Tuple, ast.List)):
            for name in bound_names(target):  # a, b = f(): rebound, to nothing known
                frame.bound.setdefault(name, []).append(self._tick())
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
            if len(target.elts) == len(value.elts):
                for t, v in zip(target.elts, value.elts):
                    if not isinstance(t, ast.Starred) and not isinstance(v, ast.Starred):
                        self.not_reads.add(id(t))
                        self._assign(t, v)
            return
        holder = _holder(target)
        if holder is None:
            return
        if isinstance(target, ast.Name):
            frame.bound.setdefault(target.id, []).append(self._tick())
            if (root := _alias_root(value)) is not None:
                frame.sources.setdefault(target.id, set()).add(root)
            if isinstance(value, ast.Call) and self.inference.qualify(value.func) == "torch.load":
                frame.loaded_modules.add(target.id)
            else:
                frame.loaded_modules.discard(target.id)
            if isinstance(value, ast.Call):
                built = frozenset(_optimised_modules(value, self.context.lines)) or None
                frame.optimised.update(built or ())
                # Bound again outside any branch, the name holds the new optimizer alone.
                known = frame.optimizers.get(target.id, frozenset()) if frame.branches else frozenset()
                frame.optimizers[target.id] = None if built is None or known is None else known | built
        for snapshot, module in self._snapshots_in(value):
            self._store(snapshot, holder, module)

    def _snapshots_in(self, value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
        """(snapshot, whose state_dict) for each snapshot ``value`` holds."""
        module = self._snapshot(value)
        if module is not None:
            return [(value, module)]
        if isinstance(value, ast.Dict):  # {"model": model.state_dict()}
            elements = [v for k, v in zip(value.keys, value.values) if k is not None]
        elif isinstance(value, (ast.Tuple, ast.List)):  # (sd, epoch)
            elements = [e for e in value.elts if not isinstance(e, ast.Starred)]
        else:
            return []
        return [(e, module) for e in elements if (module := self._snapshot(e)) is not None]

    def _store(self, value: ast.expr, holder: tuple[str, str], module: ast.expr) -> None:
        frame = self.frames[-1]
        loops = self.context.loops[frame.loop_base :]
        frame.candidates.append(
            _Candidate(value, holder, self._tick(), loops[-1] if loops else None, any(frame.branches),
                       _module_key(module, self.context.lines), _cpu_step(value))
        )

    def _snapshot(self, node: ast.expr) -> ast.expr | None:
        """Whose ``state_dict()`` ``node`` aliases (``model`` of ``dict(model.state_dict())``),
        when it evaluates to a dict aliasing live tensors."""
        inner = node
        if isinstance(inner, ast.Call):
            qualified = self.inference.qualify(inner.func) or (
                inner.func.id if isinstance(inner.func, ast.Name) else None
            )
            called = method_call(inner)
            if qualified in DICT_COPIES and argument_count(inner) == 1:
                inner = argument_values(inner)[0]
            elif called and called[1] == "copy" and not argument_count(inner):
                inner = called[0]
        elif isinstance(inner, ast.DictComp):
            inner = _aliasing_comprehension_source(inner)
            if inner is None:
                return None
        called = method_call(inner)
        if called is None or called[1] != "state_dict":
            return None
        return called[0] if holds_live_state(_dotted(called[0]) or "") else None

    # -- judgement at the end of the function ---------------------------------------
    def _judge(self, frame: _Frame) -> None:
        stale = [
            candidate for candidate in frame.candidates
            if self._stale(frame, candidate) and (candidate.to_cpu is None or self._may_run_on_cpu())
        ]
        stale = [candidate for candidate in stale if not _superseded(candidate, stale)]
        by_line: dict[int, list[_Candidate]] = {}
        for candidate in stale:
            by_line.setdefault(candidate.value.lineno, []).append(candidate)
        for together in by_line.values():  # one finding per line, whose fix copies each snapshot
            values = tuple(candidate.value for candidate in together)
            compared = any(_compared_with_later(frame, candidate) for candidate in together)
            on_cpu = all(candidate.to_cpu is not None for candidate in together)
            fix = self._copy_to_cpu(*(c.to_cpu for c in together)) if on_cpu else self._fix(*values)
            self.report(values[0], _CPU_RUN if on_cpu else _message(together, compared), fix=fix)

    def _may_run_on_cpu(self) -> bool:
        """Whether this program may run on the CPU (see ``ModuleSummary.may_run_on_cpu``)."""
        summary = self.inference.summary
        return summary is not None and summary.may_run_on_cpu()

    def _stale(self, frame: _Frame, candidate: _Candidate) -> bool:
        """Whether the snapshot ``candidate`` is kept while what it aliases moves on."""
        trained = _trained_modules(frame)
        if candidate.holder[0] == "name" and candidate.holder[1] in frame.written_through:
            return False  # written into: the function uses it to change the weights, not to keep them
        if frame.constructor and not frame.training and _is_optimizer(candidate.module):
            return False  # an optimizer's state taken as it is handed over: empty, it aliases nothing
        if _compared_with_later(frame, candidate):
            return True
        if self._never_moves(frame, candidate):
            return False
        if self._restored_elsewhere(candidate):
            return True
        # Training moves this snapshot's module (it may, unless this function builds
        # every optimizer it steps, on other modules).
        trains = frame.training and (trained is None or _related(frame, candidate.module, trained)) and (
            candidate.loop is not None or any(not self._exclusive(candidate.position, p) for p, _ in frame.moved)
        )
        if candidate.loop is None and not candidate.in_branch:
            return self._read_after_moving(frame, candidate, trained)
        kind, key = candidate.holder
        loaded = any(
            k == key and p > candidate.position and (candidate.loop is not None or not self._exclusive(candidate.position, p))
            for k, p in frame.loaded
        )
        if kind == "attr":
            stale = trains or loaded
        else:
            reads = frame.reads.get(key, [])
            loads = [p for k, p in frame.loaded if k == key]
            stale = self._moved_on(frame, candidate, reads) and (trains or self._moved_on(frame, candidate, loads))
        return stale

    def _never_moves(self, frame: _Frame, candidate: _Candidate) -> bool:
        """What the snapshot aliases cannot change after it is taken: a model this function
        read from a file and builds no optimizer on (``m = torch.load(p)``), or an optimizer it
        built itself and steps no more after the snapshot (it is dropped when the function ends)."""
        module = candidate.module
        if module is None:
            return False
        root = _root(module)
        if root in frame.loaded_modules and not any(_root(m) == root for m in frame.optimised):
            return True
        if module in frame.optimizers and frame.optimizers[module] is not None:
            start, _ = frame.loop_spans[id(candidate.loop)] if candidate.loop is not None else (candidate.position, 0)
            return not any(p > start for p, _ in frame.moved)  # in a loop, the next turn's steps too
        return False

    def _restored_elsewhere(self, candidate: _Candidate) -> bool:
        """``self.best = model.state_dict()`` in an early-stopping helper, loaded back by a
        ``load_state_dict(....best)`` anywhere in the file, or in a module of the project that
        imports it: the restore restores nothing."""
        kind, key = candidate.holder
        summary = self.inference.summary
        return kind == "attr" and summary is not None and summary.restored_in_project(key.rpartition(".")[2])

    def _moved_on(self, frame: _Frame, candidate: _Candidate, positions: list[int]) -> bool:
        """Is one of ``positions`` (reads or loads of the snapshot) where the weights may have
        moved on: after the loop, or at the top of the next iteration? (Without a loop: after
        the store.) A read after the name is bound again reads the new value."""
        key = candidate.holder[1]
        stored = candidate.position
        if candidate.loop is None:
            return any(
                p > stored and not self._exclusive(stored, p) and self._still_bound(frame, key, stored, p)
                for p in positions
            )
        start, end = frame.loop_spans[id(candidate.loop)]
        return any(
            (p > end and self._still_bound(frame, key, stored, p))
            or (start < p < stored and self._still_bound(frame, key, stored, end) and self._still_bound(frame, key, start, p))
            for p in positions
        )

    def _read_after_moving(self, frame: _Frame, candidate: _Candidate, trained: frozenset[str] | None) -> bool:
        """A snapshot taken once (``old = net.state_dict()``, ``best = model.state_dict()``
        before the epoch loop), then its module's weights move, then it is read or loaded
        back (before the name is bound to something else)."""
        kind, key = candidate.holder
        after = candidate.position
        moved = sorted([
            p for p, modules in frame.moved
            if p > after and (modules is None or trained is None or _related(frame, candidate.module, modules))
        ] + [
            p for p, module in frame.written
            if p > after and _related(frame, candidate.module, frozenset({module}))
        ])
        moved = [p for p in moved if not self._exclusive(after, p)]  # in the other arm of an `if`: never after
        if kind != "name" or not moved:
            return False
        later = frame.reads.get(key, []) + [p for k, p in frame.loaded if k == key]
        return any(
            p > moved[0] and not self._exclusive(after, p) and self._still_bound(frame, key, after, p) for p in later
        )

    @staticmethod
    def _copy_to_cpu(*calls: ast.Call) -> FixPlan:
        """``v.cpu()`` -> ``v.to("cpu", copy=True)``: a copy on every device, made once."""
        return FixPlan(False, _CPU_FIX_DESCRIPTION, _build_cpu_copy, anchors=calls)

    def _fix(self, *values: ast.expr) -> FixPlan:
        """Wrap each of ``values`` in ``copy.deepcopy(...)``: how this file spells it is known now."""
        aliases = self.context.imports.aliases.items()
        local = next((name for name, full in aliases if full == "copy.deepcopy"), None)
        if local is not None:
            data = (local, None, None)
        else:
            module, needs_import = module_reference(self.context, "copy")
            data = (None, module, needs_import)
        return FixPlan(False, _FIX_DESCRIPTION, _build_deepcopy, anchors=values, data=data)


_FIX_DESCRIPTION = "keep a deep copy of the state_dict"
_CPU_FIX_DESCRIPTION = 'copy each tensor to the CPU: .to("cpu", copy=True)'


def _build_deepcopy(site: FixSite) -> Fix:
    """``copy.deepcopy(<value>)`` (or the file's own name for ``deepcopy``) of each value, the
    value's parentheses kept outside."""
    local, module, needs_import = site.data
    replacements = []
    for value in site.nodes:
        if local is not None:
            func: cst.BaseExpression = cst.Name(local)
        else:
            func = cst.Attribute(value=cst.Name(module), attr=cst.Name("deepcopy"))
        wrapped = cst.Call(func=func, args=[cst.Arg(value.with_changes(lpar=[], rpar=[]))])
        replacements.append((value, wrapped.with_changes(lpar=value.lpar, rpar=value.rpar)))
    return Fix(
        replacements=tuple(replacements),
        safe=False,
        description=_FIX_DESCRIPTION,
        needs_import=needs_import,
    )


def _build_cpu_copy(site: FixSite) -> Fix | None:
    replacements = []
    for call in site.nodes:
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and not call.args):
            return None
        to = call.func.with_changes(attr=cst.Name("to"))
        arguments = [
            cst.Arg(cst.SimpleString('"cpu"')),
            cst.Arg(cst.Name("True"), keyword=cst.Name("copy"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))),
        ]
        replacements.append((call, call.with_changes(func=to, args=arguments)))
    return Fix(replacements=tuple(replacements), safe=False, description=_CPU_FIX_DESCRIPTION)


def _compared_with_later(frame: _Frame, candidate: _Candidate) -> bool:
    """``before = model.state_dict()``, later ``after = model.state_dict()``, then a statement
    that compares the two (``assert before != after``): the same tensors twice, so the check
    can never see a change."""
    kind, before = candidate.holder
    if kind != "name" or candidate.module is None:
        return False
    for later in frame.candidates:
        after = later.holder[1]
        if later.holder[0] != "name" or after == before or later.module != candidate.module \
                or later.position < candidate.position:
            continue
        for position, names in frame.comparisons:
            if position > later.position and {before, after} <= names and not any(
                start < p < position
                for name, start in ((before, candidate.position), (after, later.position))
                for p in frame.bound.get(name, [])
            ):
                return True
    return False


def _module_key(node: ast.expr, lines: Sequence[str] = ()) -> str | None:
    """``"model"``, ``"self.net"``, ``"model[1]"``: a reference to the same module each time
    (the index as written, when ``lines`` has the source; the gate's key leaves it out: ``model[]``)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
        base = _dotted(node.value)
        return f"{base}[{_literal(node.slice, lines)}]" if base else None
    return _dotted(node)


def _literal(node: ast.Constant, lines: Sequence[str]) -> str:
    """How a one-line literal is written (``0x1``), else its value's text."""
    if not lines or node.lineno != node.end_lineno:
        return str(node.value)
    return lines[node.lineno - 1].encode("utf-8")[node.col_offset : node.end_col_offset].decode("utf-8", "replace")


def _stepped(frame: _Frame, call: ast.Call, receiver: ast.expr, method: str) -> frozenset[str] | None:
    """The modules a ``.backward()``/``.step()`` call updates: none for a backward (the step
    does) or a scheduler's step; those of an optimizer built here (also handed to
    ``scaler.step(opt)``); None when unknown."""
    if method == "backward":
        return frozenset()
    stepped = _dotted(receiver) or ""
    if "sched" in stepped.lower():
        return frozenset()
    if stepped in frame.optimizers:
        return frame.optimizers[stepped]
    argument = first_argument(call)
    handed = _dotted(argument) if argument is not None else None
    return frame.optimizers.get(handed) if handed else None


def _trained_modules(frame: _Frame) -> frozenset[str] | None:
    """The modules training in this function updates, when every step in it is known to be
    that of an optimizer built here on their ``.parameters()``; None when any module may be."""
    moves = [modules for _, modules in frame.moved]
    if None in moves or not any(moves):  # an unknown step, or training done elsewhere
        return None
    return frozenset().union(*moves)


def _related(frame: _Frame, module: str | None, modules: frozenset[str]) -> bool:
    """Whether updating ``modules`` may change ``module``'s weights: the same module, one
    inside the other, or names bound from one another (``net = global_model``)."""
    if module is None:
        return True
    root = _root(module)
    for other in modules:
        if module == other or module.startswith((other + ".", other + "[")) or other.startswith((module + ".", module + "[")):
            return True
        if root in frame.sources.get(_root(other), ()) or _root(other) in frame.sources.get(root, ()):
            return True
    return False


def _superseded(candidate: _Candidate, stale: list[_Candidate]) -> bool:
    """``best = model.state_dict()`` before the loop that keeps ``best = model.state_dict()``
    on improvement: the loop's snapshot, flagged too, is the one the loop replaces it with
    (at the first improvement, which a sentinel such as ``best_loss = inf`` makes the first
    evaluation). Once that one is fixed, the first is judged on its own again."""
    if candidate.loop is not None or candidate.holder[0] != "name" or candidate.module is None:
        return False
    return any(
        other.loop is not None and other.holder == candidate.holder and other.module == candidate.module
        and other.position > candidate.position
        for other in stale
    )


def _message(together: list[_Candidate], compared: bool) -> str | None:
    """The finding's message: the model's (None: the rule's own), an optimizer's, or both's."""
    optimizers = [c for c in together if _is_optimizer(c.module)]
    if compared:
        return _COMPARED
    if not optimizers:
        return None
    if len(optimizers) < len(together):
        return _BOTH
    return _OPTIMIZER.format(optimizer=optimizers[0].module or "optimizer")


_CPU_RUN = (
    "on a CPU run (this program can pick the CPU) .cpu() returns the tensor itself, which shares "
    "memory with the live parameters: this snapshot changes as training goes on; keep "
    '{k: v.to("cpu", copy=True) ...}'
)
_OPTIMIZER = (
    "{optimizer}.state_dict() holds the optimizer's live state tensors (exp_avg, momentum buffers, "
    "step counts): this snapshot changes with every step(), so restoring it restores the latest "
    "state; keep copy.deepcopy({optimizer}.state_dict())"
)
_BOTH = (
    "state_dict() tensors share memory with the live parameters and the optimizer's state: these "
    "snapshots change as training goes on; keep copy.deepcopy(...) of each"
)


def _is_optimizer(module: str | None) -> bool:
    """``self._optimizer``, ``opt_g``: named as an optimizer (a model's state_dict always
    holds its weights, an optimizer's only the state its steps have made)."""
    name = (module or "").rpartition(".")[2].lower()
    return "optim" in name or "opt" in name.strip("_").split("_")


def _root(dotted: str) -> str:
    return dotted.split(".", 1)[0].split("[", 1)[0]


def _optimised_modules(call: ast.Call, lines: Sequence[str] = ()) -> set[str]:
    """``{"net"}`` for ``SGD(net.parameters(), ...)`` or ``Adam([{"params": net.fc.parameters()}])``:
    the modules whose parameters a constructor's arguments name (an optimizer's). Built on a
    list of names (``SGD([feature_avg], lr=0.1)``), it moves those tensors alone."""
    params = first_argument(call, keyword="params")
    if isinstance(params, (ast.List, ast.Tuple)) and params.elts and all(isinstance(e, ast.Name) for e in params.elts):
        return {e.id for e in params.elts}
    modules: set[str] = set()
    for owner in parameter_owners(call):
        module = _module_key(owner, lines)
        if module is None:
            return set()  # parameters of something unnamed: not known
        modules.add(module)
    return modules


def _alias_root(value: ast.expr) -> str | None:
    """``global_model`` for ``global_model``, ``self.model`` or ``nets[i]``: what a plain
    reference names (not a call's result: ``copy.deepcopy(m)`` is another module)."""
    while isinstance(value, (ast.Attribute, ast.Subscript)):
        value = value.value
    return _dotted(value) if isinstance(value, (ast.Name, ast.Constant)) else None


def _dotted(node: ast.expr) -> str | None:
    """``dotted_name``, where ``True``, ``False`` and ``None`` count as names too (as in LibCST's
    tree, from which this rule's keys come)."""
    if isinstance(node, ast.Constant) and (node.value is None or node.value is True or node.value is False):
        return str(node.value)
    return dotted_name(node)


def _aliasing_comprehension_source(node: ast.DictComp) -> ast.expr | None:
    """``sd`` of ``{k: v for k, v in sd.items()}`` (also ``v.detach()``, ``v.data``, and
    ``v.cpu()``, see :func:`_cpu_step`): no copy."""
    if len(node.generators) != 1:
        return None
    comp = node.generators[0]
    called = method_call(comp.iter)
    if called is None or called[1] != "items":
        return None
    target = comp.target
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(unstarred(target.elts[1]), ast.Name)):
        return None
    value_name = unstarred(target.elts[1]).id
    value, _ = _without_aliasing_steps(node.value)
    if isinstance(value, ast.Name) and value.id == value_name:
        return called[0]
    return None


def _without_aliasing_steps(value: ast.expr) -> tuple[ast.expr, ast.Call | None]:
    """What ``v.detach()``, ``v.data``, ``v.cpu()`` (and chains of them) are taken of, and
    the ``.cpu()`` call among them: the steps that return the tensor itself (``.cpu()`` only
    on the CPU)."""
    to_cpu = None
    while True:
        if isinstance(value, ast.Attribute) and value.attr == "data":
            value = value.value
            continue
        inner = method_call(value)
        if inner is None or argument_count(value) or inner[1] not in ("detach", "cpu"):
            return value, to_cpu
        if inner[1] == "cpu":
            to_cpu = value
        value = inner[0]


def _cpu_step(snapshot: ast.expr) -> ast.Call | None:
    """The ``v.cpu()`` of a snapshot ``{k: v.cpu() for k, v in sd.items()}``."""
    if not isinstance(snapshot, ast.DictComp):
        return None
    return _without_aliasing_steps(snapshot.value)[1]


# -- where LibCST's tree has statement lines --------------------------------------------


def _is_elif(node: ast.If) -> bool:
    """``elif``: LibCST nests its ``if`` in no block (``else:`` + ``if`` is indented under it)."""
    orelse = node.orelse
    return len(orelse) == 1 and isinstance(orelse[0], ast.If) and orelse[0].col_offset == node.col_offset


def _on_header(body: list[ast.stmt], node: ast.AST, parts: list) -> bool:
    """Whether ``body`` follows its header on the header's line (``if x: a = 1``)."""
    if not body:
        return False
    ends = [part.end_lineno for part in parts if part is not None and hasattr(part, "end_lineno")]
    return body[0].lineno == max([node.lineno, *ends])


def _else_suite(node: ast.AST, before: list[ast.stmt], body: list[ast.stmt]) -> bool:
    """Whether the ``else:``/``finally:`` clause ``body`` sits on its keyword's line: the line
    right after the clause before it, or (with lines between) not aligned with that block."""
    if not body or not before:
        return False
    first = body[0]
    if first.lineno == before[-1].end_lineno + 1:
        return True
    return first.col_offset >= node.col_offset + 5 and first.col_offset != before[0].col_offset
