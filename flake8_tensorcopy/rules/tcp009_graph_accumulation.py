"""TCP009: accumulating a loss across iterations keeps every iteration's graph alive."""

from __future__ import annotations

import ast
from functools import partial
from typing import NamedTuple

from ..analysis.evaluator import (
    argument_count,
    bound_names,
    callee_name,
    container_of,
    dotted_name,
    first_argument,
    is_true,
    keyword_argument,
    method_call,
    subscript_indices,
)
from ..analysis.vocabulary import (
    ACCUMULATING_METHODS,
    BACKWARD_CALLEES,
    DETACHING,
    GRAPH_PRESERVING,
    GRAPHLESS_FACTORIES,
    JOINING,
    PLAIN_BUILTINS,
    PLAIN_MODULES,
    VARIABLE_CONSTRUCTORS,
    over_data,
    writes_in_place,
)
from ..ast_scopes import is_no_grad
from ..analysis.ast_patterns import parameter_owners, unstarred
from ..analysis.values import Instance
from ..gates import AccumulationGate, _loss_call, _same, backpropagated_returns
from ..imports import FUNCTION_DEFS
from ..rule import WS, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, call_method, word


class _Candidate(NamedTuple):
    value: ast.expr  # the value that carries the graph; reported, wrapped by the fix
    holder: str  # "total", "self.losses" (a container counts as its name)
    statement: ast.AST
    loop: ast.AST  # the innermost loop of the function around the accumulation
    loss: bool  # the value is (built from) a loss function's result
    names: frozenset[str]  # names it is built from, to match against backward receivers
    branches: tuple[tuple[int, int], ...]  # the ``if`` suites around it (see _Rebinding)
    depth: int  # how many loops are open around it (of the whole walk)
    model_output: bool = False  # built from what a module this function trains returns
    evaluated_output: bool = False  # built from what a module it puts in eval mode returns
    loops: tuple[ast.AST, ...] = ()  # the function's loops around it, outermost first


class _Rebinding(NamedTuple):
    """A binding of a name: the loops around it (ids), its statement (id), where it is,
    and the ``if`` suites around it as (loops open when the suite began, id of the suite)."""

    loops: tuple[int, ...]
    statement: int
    position: tuple[int, int]
    branches: tuple[tuple[int, int], ...]

    def resets(self, candidate: _Candidate) -> bool:
        """Whether it rebinds the candidate's holder before every accumulation of an
        iteration of the candidate's loop reads it: run on every iteration (no ``if`` inside
        the loop holds it), or earlier in the same suite as the accumulation (``loss =
        a`` then ``loss = loss + b`` in one branch); not ``if i % 100 == 0: total = 0``."""
        if id(candidate.loop) not in self.loops or self.statement == id(candidate.statement):
            return False
        inside = tuple(b for b in self.branches if b[0] >= candidate.depth)
        if not inside:
            return True
        around = tuple(b for b in candidate.branches if b[0] >= candidate.depth)
        statement = candidate.statement
        return around[: len(inside)] == inside and self.position < (statement.lineno, statement.col_offset)


class _Frame:
    __slots__ = (
        "loop_base", "no_grad_base", "candidates", "backward", "feeds", "returned", "detached", "evaluates", "rebound",
        "unpacked", "loss_results", "trained", "evaluated", "stepped", "call_results", "reaching", "open_branches",
    )

    def __init__(self, loop_base: int, no_grad_base: int) -> None:
        self.loop_base = loop_base
        self.no_grad_base = no_grad_base
        self.candidates: list[_Candidate] = []
        self.backward: list[tuple[frozenset[str], tuple[int, ...]]] = []
        # name = <expression>, and returned or yielded expressions: their names are collected
        # only for a frame that has candidates (walking every assignment is costly).
        self.feeds: list[tuple[str, ast.expr]] = []
        self.returned: list[ast.expr] = []
        self.detached: list[tuple[str, tuple[int, ...]]] = []  # n = n.detach()
        self.evaluates = False  # puts a model in eval mode: what it returns is a metric, not a loss
        self.rebound: dict[str, list[_Rebinding]] = {}
        # a, b = x, y: the element each name was last unpacked from (the bindings keep no value)
        self.unpacked: dict[str, ast.expr] = {}
        self.loss_results: set[str] = set()  # info = vae.loss_function(...)
        # Modules this function trains: their parameters go to an optimizer built here, or it
        # calls their `.train()`.
        self.trained: set[str] = set()
        self.evaluated: set[str] = set()  # modules put in eval mode: `model.eval()`
        # Names bound to what the file's function hands back after backpropagating it
        # (``loss, acc = step(x)``, whose ``loss.backward()`` ran in it).
        self.stepped: set[str] = set()
        # name -> the call it was last bound to, or unpacked from (`features, out = model(x)`)
        self.call_results: dict[str, ast.Call] = {}
        # name -> every value of a plain binding that may reach here (None: bound otherwise),
        # merged over the branches of ``if``s and loops as the bindings are; and, per open
        # ``if`` or loop, the values before it and at the end of each branch.
        self.reaching: dict[str, tuple[ast.expr | None, ...]] = {}
        self.open_branches: list[tuple[dict, list[dict]]] = []


class GraphAccumulation(Rule):
    code = "TCP009"
    name = "graph-accumulation"
    enabled_by_default = False  # not yet proven blind: see its page
    message = (
        "accumulating a tensor that is part of the autograd graph keeps every iteration's graph "
        "alive (memory grows each step); accumulate loss.item(), or loss.detach() to stay on the device"
    )
    triggers = (
        # A backward or a loss call; ``nn.MSELoss(...)(`` only when called at once (not
        # ``class FocalLoss(_Loss):`` nor ``criterion = nn.MSELoss()``).
        rf"backward{WS}\(|criterion{WS}\(|loss(?:_fn|_func|_function|fn)?{WS}\(|cross_entropy{WS}\("
        rf"|with_logits{WS}\(|kl_div{WS}\(|Loss{WS}\((?:[^()]++|\([^()]*+\))*+(?:\){WS}\(|\()"
        # A loss kept that a function of the file may have backpropagated (``total_loss +=
        # step_loss``); the outputs of a module put in eval mode (``model.eval()``).
        rf"|loss\w*+[ \t]*+[-+]=|[-+]=[ \t]*+\w*loss|\.{WS}(?:append|extend|insert){WS}\({WS}\w*loss"
        rf"|\.{WS}eval{WS}\({WS}\)",
        rf"[-+]=|\]{WS}=(?!=)|\.{WS}(?:append|extend|insert){WS}\("
        rf"|(?<![\w.])([A-Za-z_][\w.]*)[ \t]*=(?!=)(?:[\s\\(]++|\#[^\n]*+)*+\1(?:[\s\\)]++|\#[^\n]*+)*+[-+]",
        rf"(?:{word('for')}|{word('while')})\b",
    )
    gate = AccumulationGate()
    docs = RuleDocs(
        what="Flags accumulating, inside a loop, a value that is evidently part of an autograd "
        "graph into something that outlives the iteration: `total += v`, `total = total + v`, "
        "`losses.append(v)` / `.extend` / `.insert`, or `history[k] = v`, where the holder is not "
        "reset inside the loop. Evidence for `v`: it is (built from) the receiver of `.backward()` "
        "in the same loop or a term of it (`loss = task + reg` or `loss += reg`, then `loss.backward()`: "
        "`task` and `reg`, not the loss function's arguments), or, in a loop over batches (`for x, y in val_loader`, `for batch in data`), "
        "the result of a loss function called on two or more arguments (`criterion(out, y)`, "
        "`loss_fn(...)`, `*_loss(...)`, `F.cross_entropy(...)`, `nn.MSELoss()(...)`), also the names that "
        "say they are losses among those it hands back (`loss, mf_loss, acc = model.bpr_loss(u, i)`: not "
        "`acc`); such a loss accumulated in an inner loop (over tasks, heads) of a loop that "
        "runs a `.backward()` every iteration is judged on that outer loop. Also: a loss the file's own "
        "function (or its class's method) hands back after running a `.backward()` through it (`loss, n = "
        "fit_batch(...)`: a backward in the loop); what a module this function trains returns (`features, out = "
        "model(x)`), kept across the loop that trains it, handed back or not; in a loop over batches, what a "
        "module it puts in eval mode returns (`outputs.append(model(x))`, not `detections += net(x)` into a list). "
        "A name bound in each branch of an `if` has the evidence of every binding that reaches it. Not flagged under "
        "`torch.no_grad()`/`inference_mode()` in the same function, nor when the holder is reset "
        "on every iteration of the loop (a reset under an `if`, every `log_interval` batches, still "
        "keeps that many graphs), feeds a `.backward()`, or (for loss-function evidence) is returned: that is "
        "a loss built from several terms.",
        why="A tensor that requires grad holds its `grad_fn`, and through it the whole graph of "
        "the iteration that produced it. `total_loss += loss` chains every iteration's graph to "
        "`total_loss`, and `losses.append(loss)` keeps each one alive: without a per-step "
        "backward (an evaluation loop outside `no_grad`) that includes every saved activation, so "
        "memory grows linearly until the process runs out; with one, the graph nodes still pile up.",
        example="import torch.nn.functional as F\n\n\ndef train(model, optimizer, batches):\n"
        "    total = 0.0\n    for x, y in batches:\n        loss = F.cross_entropy(model(x), y)\n"
        "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n"
        "        total += loss\n    return total / len(batches)\n",
        use_instead="import torch.nn.functional as F\n\n\ndef train(model, optimizer, batches):\n"
        "    total = 0.0\n    for x, y in batches:\n        loss = F.cross_entropy(model(x), y)\n"
        "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n"
        "        total += loss.item()\n    return total / len(batches)\n",
        fixture="fixtures/tcp009_graph_accumulation.py",
        known_problems="Function-local: an evaluation function called under `no_grad` by its caller is still "
        "flagged (add `@torch.no_grad()` to it, which also saves the memory); a backward made "
        "in another method (`self.backward()`) is not seen, nor a loss handed back by a method "
        "of an object whose class is not known here (`agent.fit_batch()`); a value made under `torch.no_grad()` "
        "carries no module's graph wherever it is kept. The other way round, a loss of what an "
        "evaluation wrapper returns (the file's function, or a method or `__call__` of the project's "
        "class, that makes every value it returns under `torch.no_grad()`) against the batch's own "
        "items is no graph, and is not flagged. Loss functions are recognised by "
        "the name they are called by, so an alias such as `from torch.nn.functional import "
        "mse_loss as mse` is not seen, and a loop over batches by the names in its header. An "
        'entry overwritten each iteration (`logs["loss"] = loss`) is not an accumulation. '
        "{accuracy} On the same lines torch-preflight 0.5's TG001 finds 3 and makes 163 false "
        "findings (`bench/accuracy/peer.py`). Misses there include differences of "
        "parameters kept in a list across a loop over models, not batches. A function that calls the "
        "file's own `loss(x, y)` in a file that never imports torch is taken to compute plain "
        "numbers.",
        fix_safety="Unsafe: the accumulated value becomes `v.detach()`, which keeps the device, "
        "dtype and shape (`.item()` would need a 0-d tensor and synchronises with the GPU), but no "
        "longer carries a graph: code that later backpropagates through the total breaks.",
    )
    flagged = (
        Example(
            "def f(model, opt, data, criterion):\n    total = 0\n    for x, y in data:\n"
            "        loss = criterion(model(x), y)\n        loss.backward()\n        opt.step()\n"
            "        total += loss\n    return total\n",
            [(7, 18)],
        ),
        # A term of the loss that is backpropagated: it carries the graph too.
        Example(
            "def f(self, data):\n    task_total = 0\n    for x, y in data:\n"
            "        task = self.loss(self.model(x), y)\n        task_total += task\n"
            "        loss = task + self.alpha * self.model.penalty()\n        loss.backward()\n",
            [(5, 23)],
        ),
        # Added into the backpropagated loss with ``+=``: a term of it too.
        Example(
            "def f(self, steps):\n    total = 0\n    for _ in range(steps):\n        x, y = self.sample()\n"
            "        loss = self.loss(self.model(x), y)\n        term = self.model.penalty()\n"
            "        total += term\n        loss += term\n        loss.backward()\n",
            [(7, 18)],
        ),
        # An entry of a loss function's result whose "loss" entry is backpropagated each step.
        Example(
            "def f(self, steps):\n    kld_total = 0\n    for _ in range(steps):\n        x = self.sample()\n"
            "        info = self.vae.loss_function(self.vae(x), x)\n"
            "        loss, kld = info[\"loss\"], info[\"kld\"]\n        kld_total += kld\n        loss.backward()\n",
            [(7, 22)],
        ),
        Example(
            "def f(model, data, loss_fn):\n    losses = []\n    for x, y in data:\n"
            "        losses.append(loss_fn(model(x), y))\n    print(sum(losses))\n",
            [(4, 23)],
        ),
        # Moved to the CPU without a detach: `.cpu()` keeps the graph.
        Example(
            "def f(model, data, loss_fn):\n    losses = []\n    for x, true in data:\n        pred = model(x)\n"
            "        loss = loss_fn(pred.cpu(), true.detach().cpu())\n        losses.append(loss)\n"
            "    print(sum(losses))\n",
            [(6, 23)],
        ),
        # A detached value plus one with a graph has the graph.
        Example(
            "def f(model, data, loss_fn, prior):\n    losses = []\n    for x, y in data:\n        pred = model(x)\n"
            "        loss = loss_fn(pred.detach().add(prior(x)), y.detach())\n        losses.append(loss)\n"
            "    print(sum(losses))\n",
            [(6, 23)],
        ),
        Example(
            "import torch.nn.functional as F\ndef f(self, data):\n    for x, y in data:\n"
            "        out = self.model(x)\n        l = F.mse_loss(out, y) * 2\n"
            "        self.running = self.running + l\n",
            [(6, 39)],
        ),
        Example(
            "import torch\ndef f(model, data, opt):\n    history = {}\n    for i, (x, y) in enumerate(data):\n"
            "        loss = torch.nn.MSELoss()(model(x), y)\n        loss.backward()\n"
            "        history[i] = loss\n",
            [(7, 22)],
        ),
        Example(  # unpacked from what the model returns, then backpropagated
            "def f(model, data, opt):\n    total = 0\n    for _ in range(10):\n        res = model(data)\n"
            "        loss, aux = res[\"loss\"], res[\"aux\"]\n        loss.backward()\n        total += loss\n",
            [(7, 18)],
        ),
        Example(  # Variable(volatile=True) is a no-op since PyTorch 0.4: not no_grad
            "from torch.autograd import Variable\ndef validate(model, val_loader, criterion):\n    model.eval()\n"
            "    total = 0\n    for x, y in val_loader:\n        x = Variable(x, volatile=True)\n"
            "        total += criterion(model(x), y)\n    return total\n",
            [(7, 18)],
        ),
        Example(  # volatile=True says the loop evaluates, as model.eval() would
            "from torch.autograd import Variable\ndef validate(model, val_loader, criterion):\n"
            "    total = 0\n    for x, y in val_loader:\n        out = model(Variable(x, volatile=True))\n"
            "        loss = criterion(out, Variable(y, volatile=True))\n        total += loss\n    return total\n",
            [(7, 18)],
        ),
        Example(  # an evaluation outside no_grad: every batch's graph, activations included
            "def evaluate(model, loader, criterion):\n    model.eval()\n    total = 0\n"
            "    for x, y in loader:\n        total += criterion(model(x), y)\n    return total / len(loader)\n",
            [(5, 18)],
        ),
        Example(  # a quiet prediction against a target the model also made: that one keeps its graph
            "import torch\n@torch.no_grad()\ndef predict(model, x):\n    return model(x)\n"
            "def evaluate(model, teacher, loader, criterion):\n    model.eval()\n    total = 0\n    for x, y in loader:\n"
            "        total += criterion(predict(model, x), teacher(x))\n    return total / len(loader)\n",
            [(9, 18)],
        ),
        Example(  # reset only every log_interval batches: that many graphs kept
            "import torch.nn.functional as F\ndef train(model, opt, loader, log_interval):\n    total = 0\n"
            "    for i, (x, y) in enumerate(loader):\n        loss = F.nll_loss(model(x), y)\n"
            "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n        total += loss\n"
            "        if i % log_interval == 0:\n            print(total.item() / log_interval)\n"
            "            total = 0\n",
            [(9, 18)],
        ),
        Example(  # terms a loss function hands back with the loss: the names that say they are losses
            "def train(model, opt, data, n_batch):\n    total, mf_total, acc_total = 0.0, 0.0, 0.0\n"
            "    for idx in range(n_batch):\n        loss, mf_loss, acc = model.bpr_loss(users, data)\n"
            "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n        total += loss\n"
            "        mf_total += mf_loss\n        acc_total += acc\n    print(total, mf_total, acc_total)\n",
            [(8, 18), (9, 21)],
        ),
        Example(  # the gathered list is filled with this step's outputs, graphs and all
            "import torch\nimport torch.distributed as dist\ndef f(model, loader, criterion, world):\n    losses = []\n"
            "    for x, y in loader:\n        out = model(x)\n        criterion(out, y).backward()\n        local = out.detach()\n"
            "        gathered = [torch.zeros_like(local) for _ in range(world)]\n"
            "        gathered[0] = out\n"
            "        mean = torch.stack(gathered).mean(0)\n        losses.append(criterion(mean, y))\n    print(sum(losses))\n",
            [(12, 23)],
        ),
        Example(  # a new tensor, then this step's outputs added into it in place
            "import torch\ndef f(model, loader, criterion):\n    losses = []\n    for x, y in loader:\n"
            "        out = model(x)\n        criterion(out, y).backward()\n        summed = torch.zeros_like(out)\n"
            "        summed.add_(out)\n        losses.append(criterion(summed, y))\n    print(sum(losses))\n",
            [(9, 23)],
        ),
        Example(  # a legacy constructor of a float tensor returns it, graph and all
            "import torch\ndef f(model, loader, criterion):\n    losses = []\n    for x, y in loader:\n"
            "        out = model(x)\n        losses.append(criterion(torch.FloatTensor(out), y))\n"
            "    print(sum(losses))\n",
            [(6, 23)],
        ),
        Example(  # per-class sums of what the model being trained returns, kept across batches
            "import torch\nclass Client:\n    def train(self, model, loader, criterion, classes):\n"
            "        opt = torch.optim.SGD(model.parameters(), lr=0.1)\n        sums = torch.zeros(classes, 8)\n"
            "        for x, y in loader:\n            features, out = model(x)\n            loss = criterion(out, y)\n"
            "            opt.zero_grad()\n            loss.backward()\n            opt.step()\n"
            "            for c in set(y.tolist()):\n                sums[c] += torch.mean(features[y == c], dim=0)\n"
            "        self.centers = sums\n",
            [(13, 28)],
        ),
        # Losses of each task summed inside the batch loop, which trains on every batch: the
        # batch's own sum is its loss; the run's total keeps every batch's graph.
        Example(
            "import torch.nn.functional as F\ndef train(model, opt, loader, heads):\n    total = 0\n"
            "    for x, y in loader:\n        batch = 0\n        for head in heads:\n"
            "            loss = F.cross_entropy(head(model(x)), y)\n            batch += loss\n"
            "            total += loss\n        opt.zero_grad()\n        batch.backward()\n        opt.step()\n"
            "    return total\n",
            [(9, 22)],
        ),
        # Bound in both branches of an ``if``: evidence from every binding that reaches the sum.
        Example(
            "import torch.nn.functional as F\ndef validate(model, val_loader, binary):\n"
            "    model.eval()\n    total = 0\n    for x, y in val_loader:\n        out = model(x)\n"
            "        if binary:\n            loss = model.bce(out, y)\n        else:\n"
            "            loss = F.cross_entropy(out, y)\n        total += loss\n"
            "    return total / len(val_loader)\n",
            [(11, 18)],
        ),
        # Rows of what the trained model returns, kept across its batches and handed back.
        Example(
            "import torch\ndef local_train(model, loader, criterion, classes):\n"
            "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "    rows = [[] for _ in range(classes)]\n    for x, y in loader:\n"
            "        out, features = model(x)\n        loss = criterion(out, y)\n"
            "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n"
            "        for i in range(len(y)):\n            rows[int(y[i])].append(features[i, :])\n"
            "    return rows\n",
            [(12, 36)],
        ),
        # What a module put in eval mode returns, kept across the batches outside no_grad.
        Example(
            "import torch\ndef predict_all(model, loader):\n    model.eval()\n    outputs = []\n"
            "    for x, _ in loader:\n        outputs.append(model(x))\n"
            "    return torch.cat(outputs)\n",
            [(6, 24)],
        ),
        # A loss the file's own function backpropagated and handed back, summed over the steps.
        Example(
            "def fit_batch(model, opt, batch, criterion):\n    out = model(batch[0])\n"
            "    loss = criterion(out, batch[1])\n    opt.zero_grad()\n    loss.backward()\n"
            "    opt.step()\n    return loss, out.shape[0]\n"
            "def train(model, opt, batches, criterion):\n    total_loss, seen = 0, 0\n"
            "    for batch in batches:\n"
            "        step_loss, n = fit_batch(model, opt, batch, criterion)\n"
            "        total_loss += step_loss\n        seen += n\n    return total_loss / seen\n",
            [(12, 23)],
        ),
        # A loss function called by a private name is one too.
        Example(
            "class Learner:\n    def evaluate(self, net, loader):\n        net.eval()\n"
            "        losses = []\n        for x, y in loader:\n"
            "            losses.append(self.__loss_function(net(x), y))\n"
            "        return sum(losses) / len(losses)\n",
            [(6, 27)],
        ),
    )
    clean = (
        # The same sum built afresh for each batch and backpropagated: the loss itself.
        "import torch.nn.functional as F\ndef train(model, opt, loader, heads):\n    for x, y in loader:\n"
        "        total = 0\n        for head in heads:\n            total += F.cross_entropy(head(model(x)), y)\n"
        "        opt.zero_grad()\n        total.backward()\n        opt.step()\n",
        # Counts of right answers: a comparison of the model's outputs holds no graph.
        "import torch\nclass Client:\n    def train(self, model, loader, criterion, classes):\n"
        "        opt = torch.optim.SGD(model.parameters(), lr=0.1)\n        right = torch.zeros(classes)\n"
        "        for x, y in loader:\n            features, out = model(x)\n            loss = criterion(out, y)\n"
        "            opt.zero_grad()\n            loss.backward()\n            opt.step()\n"
        "            for c in set(y.tolist()):\n                right[c] += (out.argmax(1) == y)[y == c].sum()\n"
        "        self.right = right\n",
        # Predictions gathered from every process: new tensors that no graph leads to.
        "import torch\nimport torch.distributed as dist\ndef f(model, loader, criterion, world):\n    losses = []\n"
        "    for x, y in loader:\n        out = model(x)\n        criterion(out, y).backward()\n        local = out.detach()\n"
        "        gathered = [torch.zeros_like(local) for _ in range(world)]\n"
        "        dist.all_gather(gathered, local)\n"
        "        mean = torch.stack(gathered).mean(0)\n        losses.append(criterion(mean, y))\n    print(sum(losses))\n",
        # Bound afresh earlier in the same branch of each iteration: one step's loss terms.
        "def train(model, opt, loader, criterion, split):\n    for x, y in loader:\n        out = model(x)\n"
        "        if not split:\n            loss = criterion(out, y)\n        else:\n"
        "            loss = 0.5 * criterion(out[0], y)\n            loss = loss + 0.5 * criterion(out[1], y)\n"
        "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n",
        # A reward of plain floats shares only the loop's inputs (`/ meta_bsz`) with the loss.
        "def f(opt, tasks, meta_bsz, learner, loss_of):\n    rewards = []\n    for it in range(10):\n"
        "        total_loss, total_reward = 0.0, 0.0\n        for task in tasks:\n"
        "            loss = loss_of(task, learner)\n            total_loss += loss\n"
        "            total_reward += task.reward().sum().item() / meta_bsz\n"
        "        rewards.append(total_reward / meta_bsz)\n        (total_loss / meta_bsz).backward()\n        opt.step()\n",
        # A factor of the detached loss (torch.mean of it): no graph.
        "import torch\ndef f(self, loader, criterion):\n    fish = 0\n    for x, y in loader:\n"
        "        loss = criterion(self.net(x), y)\n        weight = torch.mean(torch.exp(loss.detach()))\n"
        "        loss.backward()\n        fish += weight * self.grads() ** 2\n    return fish\n",
        # The loss's arguments are no terms of it: a count of matches carries no graph.
        "import torch\ndef f(model, opt, data):\n    right = 0\n    for x, y in data:\n"
        "        out = model(x)\n        preds = out.argmax(1)\n        loss = torch.nn.functional.cross_entropy(out, y)\n"
        "        loss.backward()\n        right += torch.sum(preds == y)\n",
        # No torch in the file: its own loss() of plain floats.
        "def loss(x, y):\n    return (x - y) ** 2\ndef f(xs, ys):\n    total = 0\n"
        "    for x_val, y_val in zip(xs, ys):\n        total += loss(x_val, y_val)\n    return total\n",
        "import torch\n@torch.no_grad()\ndef evaluate(model, loader, criterion):\n    model.eval()\n    total = 0\n"
        "    for x, y in loader:\n        total += criterion(model(x), y)\n    return total / len(loader)\n",
        # The predictions come from the file's evaluation wrappers, made under no_grad; the
        # other argument is the batch's own labels.
        "import torch\n@torch.no_grad()\ndef predict(model, x):\n    return model(x)\n"
        "def f(model, loader, criterion):\n    model.eval()\n    total = 0\n    for x, y in loader:\n"
        "        y = y.cuda()\n        total += criterion(predict(model, x), y)\n    return total / len(loader)\n",
        "import torch\nclass Quiet:\n    def __init__(self, net):\n        self.net = net\n"
        "    def __call__(self, x):\n        with torch.no_grad():\n            return self.net(x)\n"
        "def f(net, loader, criterion):\n    net.eval()\n    model = Quiet(net)\n    losses = []\n"
        "    for x, y in loader:\n        out = model(x)\n        losses.append(criterion(out, y))\n"
        "    return sum(losses) / len(losses)\n",
        "def f(model, opt, data, criterion):\n    logs = {}\n    for x, y in data:\n"
        "        loss = criterion(model(x), y)\n        loss.backward()\n        opt.step()\n"
        "        logs['loss'] = loss\n    return logs\n",
        "def f(model, opt, data, criterion):\n    total = 0\n    for x, y in data:\n"
        "        loss = criterion(model(x), y)\n        loss.backward()\n        opt.step()\n"
        "        total += loss.item()\n        total += float(loss)\n        total += loss.detach()\n",
        "import torch\ndef f(model, data, criterion):\n    total = 0\n    with torch.no_grad():\n"
        "        for x, y in data:\n            total += criterion(model(x), y)\n    return total\n",
        "def f(model, xs, ys, criterion):\n    loss = 0\n    for x, y in zip(xs, ys):\n"
        "        loss += criterion(model(x), y)\n    loss.backward()\n",
        "def f(outputs, targets, criterion):\n    total = 0\n    for o, t in zip(outputs, targets):\n"
        "        total = total + criterion(o, t)\n    return total\n",
        "import torch\ndef f(model, data, criterion):\n    for x, y in data:\n        losses = []\n"
        "        for head in model.heads:\n            losses.append(criterion(head(x), y))\n"
        "        torch.stack(losses).sum().backward()\n",
        "def f(model, opt, data):\n    correct = 0\n    for x, y in data:\n        out = model(x)\n"
        "        out.sum().backward()\n        correct += (out.argmax(1) == y).sum()\n",
        "def f(model, data, criterion):\n    for x, y in data:\n        total = 0\n"
        "        total += criterion(model(x), y)\n        print(total)\n",
        # A loss of detached values carries no graph.
        "def f(model, opt, data, criterion):\n    history = []\n    for x, y in data:\n        out = model(x)\n"
        "        loss = criterion(out, y)\n        loss.backward()\n        opt.step()\n"
        "        history.append(criterion(out.detach(), y.detach()))\n",
        # Also moved to the CPU after the detach: `.cpu()` keeps what it is given.
        "def f(model, data, loss_fn):\n    losses = []\n    for x, true in data:\n        pred = model(x)\n"
        "        loss = loss_fn(pred.detach().cpu(), true.detach().cpu())\n        losses.append(loss)\n"
        "    print(sum(losses))\n",
        # An entry of what the model returns, not of a loss function's result: not known to carry a graph.
        "def f(self, steps):\n    acc_total = 0\n    for _ in range(steps):\n        x = self.sample()\n"
        "        out = self.vae(x)\n        loss, acc = out[\"loss\"], out[\"acc\"]\n        acc_total += acc\n"
        "        loss.backward()\n",
        # Terms of a loss backpropagated once, after the loop: one graph, not one an iteration.
        "def f(model, heads, x):\n    loss = 0\n    parts = []\n    for head in heads:\n"
        "        term = head(x).mean()\n        parts.append(term)\n        loss += term\n"
        "    loss.backward()\n    return parts\n",
        "import numpy as np\ndef f(model, data, criterion, history):\n    for x, y in data:\n"
        "        loss = criterion(model(x), y)\n        loss.backward()\n"
        "        loss = np.mean([loss.item()])\n        history.append(loss)\n",
        # The same, each branch's loss taken as a number.
        "import torch.nn.functional as F\ndef validate(model, val_loader, binary):\n"
        "    model.eval()\n    total = 0\n    for x, y in val_loader:\n        out = model(x)\n"
        "        if binary:\n            loss = model.bce(out, y).item()\n        else:\n"
        "            loss = F.cross_entropy(out, y).item()\n        total += loss\n"
        "    return total / len(val_loader)\n",
        # The same rows, detached.
        "import torch\ndef local_train(model, loader, criterion, classes):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    rows = [[] for _ in range(classes)]\n    for x, y in loader:\n"
        "        out, features = model(x)\n        loss = criterion(out, y)\n"
        "        opt.zero_grad()\n        loss.backward()\n        opt.step()\n"
        "        for i in range(len(y)):\n"
        "            rows.setdefault(int(y[i]), []).append(features[i, :].detach())\n"
        "    return rows\n",
        # Made under no_grad, appended after it: no graph.
        "import torch\ndef predict_all(model, loader):\n    model.eval()\n    outputs = []\n"
        "    for x, _ in loader:\n        with torch.no_grad():\n            out = model(x)\n"
        "        outputs.append(out)\n    return torch.cat(outputs)\n",
        # A list extended by what the module returns: its predictions, not a tensor of its graph.
        "def evaluate(net, loader):\n    net.eval()\n    detections = []\n"
        "    for batch in loader:\n        detections += net(batch)\n    return detections\n",
        # The step hands back the loss as a number.
        "def fit_batch(model, opt, batch, criterion):\n    out = model(batch[0])\n"
        "    loss = criterion(out, batch[1])\n    opt.zero_grad()\n    loss.backward()\n"
        "    opt.step()\n    return loss.item(), out.shape[0]\n"
        "def train(model, opt, batches, criterion):\n    total_loss, seen = 0, 0\n"
        "    for batch in batches:\n"
        "        step_loss, n = fit_batch(model, opt, batch, criterion)\n"
        "        total_loss += step_loss\n        seen += n\n    return total_loss / seen\n",
        # The private loss function's result taken as a number.
        "class Learner:\n    def evaluate(self, net, loader):\n        net.eval()\n"
        "        losses = []\n        for x, y in loader:\n"
        "            losses.append(self.__loss_function(net(x), y).item())\n"
        "        return sum(losses) / len(losses)\n",
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self.frames: list[_Frame] = []
        self.branches: list[tuple[int, int]] = []  # the ``if`` suites around (see _Rebinding)
        self._filled: dict[tuple[int, str, bool], bool] = {}  # (scope, name, a list?): see _filled_in_place

    # -- frames ---------------------------------------------------------------------
    def visit_Module(self, node: ast.Module) -> None:
        self.frames.append(_Frame(len(self.context.loops), self.context.no_grad_depth))

    def leave_Module(self, node: ast.Module) -> None:
        self._judge(self.frames.pop())

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        decorated = any(is_no_grad(self.context, decorator) for decorator in node.decorator_list)
        self.frames.append(_Frame(len(self.context.loops), self.context.no_grad_depth - decorated))

    def leave_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._judge(self.frames.pop())

    def _loops(self) -> tuple[ast.AST, ...]:
        return tuple(self.context.loops[self.frames[-1].loop_base :])

    def visit_If_body(self, node: ast.If) -> None:
        self.branches.append((len(self.context.loops), id(node.body)))
        self._enter_branches()

    def visit_If_orelse(self, node: ast.If) -> None:
        self.branches.append((len(self.context.loops), id(node.orelse)))
        frame = self.frames[-1]
        before, ends = frame.open_branches[-1]
        ends.append(frame.reaching)
        frame.reaching = dict(before)

    def leave_If(self, node: ast.If) -> None:
        self._leave_branches()

    def visit_For_body(self, node: ast.For) -> None:
        self._enter_branches()

    visit_While_body = visit_For_body

    def leave_For(self, node: ast.For) -> None:
        self._leave_branches(before=True)  # the body may run zero times

    leave_While = leave_For

    # The values that reach a use, tracked as the walk's bindings are (``analysis/evaluator``
    # merges them into one binding with no value).
    def _enter_branches(self) -> None:
        frame = self.frames[-1]
        frame.open_branches.append((dict(frame.reaching), []))

    def _leave_branches(self, before: bool = False) -> None:
        frame = self.frames[-1]
        if not frame.open_branches:
            return
        start, ends = frame.open_branches.pop()
        ends = [*ends, frame.reaching, *([start] if before else [])]
        merged: dict[str, tuple[ast.expr | None, ...]] = {}
        for name in set().union(*ends):
            values: list[ast.expr | None] = []
            for end in ends:
                for value in end.get(name, (None,)):  # unbound on a path: unknown there
                    if not any(value is seen for seen in values):
                        values.append(value)
            merged[name] = tuple(values)
        frame.reaching = merged

    def _reach(self, name: str, value: ast.expr | None) -> None:
        self.frames[-1].reaching[name] = (value,)

    def leave_If_body(self, node: ast.If) -> None:
        self.branches.pop()

    leave_If_orelse = leave_If_body

    def _rebinding(self, node: ast.stmt) -> _Rebinding:
        return _Rebinding(tuple(id(l) for l in self._loops()), id(node), (node.lineno, node.col_offset),
                          tuple(self.branches))

    def _volatile(self, node: ast.Call) -> bool:
        """``Variable(x, volatile=True)``: code written to evaluate without a graph, which
        the flag no longer gives (a no-op since PyTorch 0.4), as ``model.eval()`` says."""
        return is_true(keyword_argument(node, "volatile")) and self.inference.qualify(node.func) in VARIABLE_CONSTRUCTORS

    def _under_no_grad(self) -> bool:
        return self.context.no_grad_depth > self.frames[-1].no_grad_base

    # -- facts --------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        called = method_call(node)
        callee = callee_name(node)
        # loss.backward(), accelerator.backward(loss), self.manual_backward(loss),
        # torch.autograd.backward(loss) (not helpers such as _must_be_in_backward(x)).
        if (called and callee == "eval" and not argument_count(node)) or self._volatile(node):
            self.frames[-1].evaluates = True
            if called and (module := dotted_name(called[0])):
                self.frames[-1].evaluated.add(module)
        if called and callee == "train" and not argument_count(node) and (module := dotted_name(called[0])):
            self.frames[-1].trained.add(module)
        elif callee[:1].isupper() and (self.inference.qualify(node.func) or "").startswith("torch.optim."):
            self.frames[-1].trained.update(filter(None, map(dotted_name, parameter_owners(node))))
        if callee in BACKWARD_CALLEES:
            keys = set(_names_in(called[0])) if called and callee == "backward" else set()
            for value in _argument_values(node):
                keys.update(_names_in(value))
            self.frames[-1].backward.append((frozenset(keys), tuple(id(l) for l in self._loops())))
        elif called and callee in ACCUMULATING_METHODS and argument_count(node):
            holder = dotted_name(container_of(called[0]))
            value = _last_argument(node)
            values = [unstarred(e) for e in value.elts] if callee == "extend" and isinstance(value, (ast.List, ast.Tuple)) \
                else [value]
            for item in values:
                self._accumulation(holder, item, node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            self.frames[-1].returned.append(node.value)

    def visit_Yield(self, node: ast.Yield) -> None:  # not ``yield from`` (ast.YieldFrom)
        if node.value is not None:
            self.frames[-1].returned.append(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.op, (ast.Add, ast.Sub)):
            self._accumulation(dotted_name(container_of(node.target)), node.value, node)
            if isinstance(node.target, ast.Name):  # loss += term; loss.backward(): term is backpropagated
                self.frames[-1].feeds.append((node.target.id, node.value))
        if isinstance(node.target, ast.Name):
            self._reach(node.target.id, None)
            self.frames[-1].stepped.discard(node.target.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        frame = self.frames[-1]
        loops = tuple(id(l) for l in self._loops())
        rebinding = self._rebinding(node)
        for target in node.targets:
            if isinstance(target, ast.Attribute) and (dotted := dotted_name(target)):
                frame.rebound.setdefault(dotted, []).append(rebinding)  # self.loss = 0
            for name in bound_names(target):
                frame.rebound.setdefault(name, []).append(rebinding)
                frame.feeds.append((name, node.value))
                frame.unpacked.pop(name, None)
                if _detaches(node.value):
                    frame.detached.append((name, loops))  # loss = loss.detach()
            for name in bound_names(target):
                frame.stepped.discard(name)
            if isinstance(node.value, ast.Call) and isinstance(target, (ast.Name, ast.Tuple)) \
                    and not self._under_no_grad():  # made under no_grad: no module's graph
                for name in bound_names(target):
                    frame.call_results[name] = node.value
                stepped = self._stepped(target, node.value)
                if stepped:
                    # The call runs a backward on them: one in this loop, for the rule's test.
                    frame.stepped.update(stepped)
                    frame.backward.append((frozenset(stepped), loops))
            else:
                for name in bound_names(target):
                    frame.call_results.pop(name, None)
            if isinstance(target, ast.Name):
                if isinstance(node.value, ast.Call) and _loss_call(node.value):
                    frame.loss_results.add(target.id)
                else:
                    frame.loss_results.discard(target.id)
            unpacked = _unpacked(target, node.value) or _losses_unpacked(target, node.value)
            frame.unpacked.update(unpacked)
            frame.feeds.extend(unpacked.items())  # loss, kld = info["loss"], info["kld"]: one each
        if len(node.targets) != 1:
            return
        target = node.targets[0]
        value = node.value
        if isinstance(target, ast.Subscript) and not _constant_key(target):
            # `losses[step] = loss` keeps one per iteration; `loss_dict["d"] = loss`
            # overwrites the same entry each time.
            self._accumulation(dotted_name(container_of(target)), value, node)
        elif isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)) and _spelled_alike(node, value):
            self._accumulation(dotted_name(container_of(target)), value.right, node)

    def leave_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            for name in bound_names(target):
                self._reach(name, node.value if isinstance(target, ast.Name) else None)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        frame = self.frames[-1]
        for name in bound_names(node.target):
            frame.rebound.setdefault(name, []).append(self._rebinding(node))
            self._reach(name, None)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._reach(node.target.id, None)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            for name in bound_names(item.optional_vars) if item.optional_vars is not None else ():
                self._reach(name, None)

    def visit_For(self, node: ast.For) -> None:
        # The scope opener ran first: this loop is already on the stack, so the target
        # counts as bound inside it.
        frame = self.frames[-1]
        for name in bound_names(node.target):
            frame.rebound.setdefault(name, []).append(self._rebinding(node))
            frame.unpacked.pop(name, None)
            self._reach(name, None)
            frame.stepped.discard(name)

    # -- accumulations ------------------------------------------------------------------
    def _accumulation(self, holder: str | None, value: ast.expr, statement: ast.AST) -> None:
        loops = self._loops()
        if holder is None or not loops or self._under_no_grad():
            return
        evidence = self._evidence(value, 0)
        if evidence is None:
            return
        loss, names = evidence
        frame = self.frames[-1]
        model_output = bool(frame.trained) and self._model_output(value, 0)
        # ``detections += net(x)`` into a list (``detections = []``): the module hands back a
        # list (predictions made ready for use), not a tensor of its graph.
        evaluated_output = bool(frame.evaluated) and self._model_output(value, 0, frame.evaluated) and not (
            isinstance(statement, ast.AugAssign) and isinstance(self._bound_value(holder), (ast.List, ast.ListComp))
        )
        frame.candidates.append(
            _Candidate(value, holder, statement, loops[-1], loss, names, tuple(self.branches), len(self.context.loops),
                       model_output, evaluated_output, loops)
        )

    def _model_output(self, node: ast.expr, depth: int, modules: set[str] | None = None) -> bool:
        """Whether ``node`` is what a module this function trains returns (``model(x)``, a
        name bound to it or unpacked from it), or made of it by operations that keep the
        graph: tensor methods such as ``mean``, torch's functions of them, indexing,
        arithmetic (not comparisons, ``argmax``: no graph). ``modules``: those whose outputs
        count (the trained ones unless told)."""
        if depth > 6:
            return False
        frame = self.frames[-1]
        modules = frame.trained if modules is None else modules
        output = partial(self._model_output, modules=modules)
        if isinstance(node, ast.Name):
            call = frame.call_results.get(node.id)
            return call is not None and output(call, depth + 1)
        if isinstance(node, ast.Call):
            if dotted_name(node.func) in modules:
                return True
            qualified = self.inference.qualify(node.func) or ""
            if qualified.startswith("torch.") and qualified.rpartition(".")[2] in GRAPH_PRESERVING:
                first = first_argument(node)
                return first is not None and output(first, depth + 1)
            called = method_call(node)
            return not qualified and called is not None and called[1] in GRAPH_PRESERVING \
                and output(called[0], depth + 1)
        if isinstance(node, ast.Subscript):
            return output(node.value, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return output(node.left, depth + 1) or output(node.right, depth + 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return output(node.operand, depth + 1)
        return False

    def _evidence(self, node: ast.expr, depth: int) -> tuple[bool, frozenset[str]] | None:  # noqa: C901
        """(is a loss, names it is built from), or None when it is evidently no graph."""
        if depth > 4:
            return False, frozenset()
        name = _name(node)
        if name is not None:
            value = self._bound_value(name)
            if _literal(value, (int, float)) and depth < 3:
                # `teacher_loss = 0` then `teacher_loss += term`: what it holds is its terms
                terms = [v for fed, v in self.frames[-1].feeds if fed == name and not _literal(v, (int, float))]
                parts = [p for p in (self._evidence(term, depth + 1) for term in terms) if p is not None]
                if parts:
                    return any(p[0] for p in parts), frozenset({name}).union(*(p[1] for p in parts))
            if value is not None and depth < 3:
                inner = self._evidence(value, depth + 1)
                if inner is None:
                    return None
                return inner[0], inner[1] | {name}
            if name in self.frames[-1].stepped:
                return True, frozenset({name})  # a loss the called function backpropagated
            if depth < 3 and (values := self._reaching_values(name)):
                # Bound in each branch of an ``if``: evidence from every binding that reaches
                # here; a loss when one is (on that path it is), no graph only when none has one.
                parts = [self._evidence(value, depth + 1) for value in values]
                if all(part is None for part in parts):
                    return None
                parts = [p for p in parts if p is not None]
                return any(p[0] for p in parts), frozenset({name}).union(*(p[1] for p in parts))
            return False, frozenset({name})
        if isinstance(node, ast.Attribute):
            if node.attr in DETACHING:
                return None
            dotted = dotted_name(node)
            return False, frozenset({dotted} if dotted else ())
        if isinstance(node, ast.Call):
            if _loss_call(node):
                values = _argument_values(node)
                # criterion(pred.detach(), y), criterion(predict(x), y) of an evaluation wrapper,
                # criterion(torch.stack(gathered).mean(0), y): of values made without a graph
                # (the batch's own items count only beside another such value).
                if all(self._graph_free(value) for value in values) \
                        and any(self._graph_free(value, data_items=False) for value in values):
                    return None
                return (not self._plain_own_function(node.func)), frozenset()
            qualified = self.inference.qualify(node.func) or ""
            if _detaches(node) or qualified.startswith(PLAIN_MODULES):
                return None
            if qualified:  # torch.mean(x): a function of a module, not a method of `torch`
                first = first_argument(node)
                if qualified.rpartition(".")[2] in GRAPH_PRESERVING and first is not None:
                    return self._evidence(first, depth + 1)
                return False, frozenset()
            called = method_call(node)
            if called is not None and called[1] in GRAPH_PRESERVING:
                return self._evidence(called[0], depth + 1)
            if isinstance(node.func, ast.Name) and node.func.id in PLAIN_BUILTINS:
                return None
            return False, frozenset()  # an opaque call: no evidence either way
        if isinstance(node, ast.Subscript):
            # An entry of a loss function's result (``info["kld"]`` of ``info = vae.loss_function(...)``)
            # is tied to the loss through its container; it may be a detached item for logging, so
            # it is no loss by itself. An entry of anything else: no evidence either way.
            inner = self._evidence(node.value, depth + 1)
            if inner is None:
                return None
            return False, inner[1] if inner[0] else frozenset()
        if isinstance(node, ast.BinOp):
            parts = [self._evidence(node.left, depth + 1), self._evidence(node.right, depth + 1)]
        elif isinstance(node, ast.UnaryOp):
            parts = [self._evidence(node.operand, depth + 1)]
        elif isinstance(node, (ast.Tuple, ast.List)):
            parts = [self._evidence(unstarred(e), depth + 1) for e in node.elts]
        elif isinstance(node, ast.Dict):
            parts = [self._evidence(value, depth + 1) for key, value in zip(node.keys, node.values) if key is not None]
        else:
            return None
        parts = [p for p in parts if p is not None]
        if not parts:
            return None
        return any(p[0] for p in parts), frozenset().union(*(p[1] for p in parts))

    def _bound_value(self, name: str) -> ast.expr | None:
        binding = self.inference.binding(name)
        return None if binding is None else binding.value or self.frames[-1].unpacked.get(name)

    def _stepped(self, target: ast.expr, call: ast.Call) -> set[str]:
        """The names of ``target`` bound to what the called function of the file (or method
        of the file's class) hands back after backpropagating it: ``loss, acc =
        self.step(x)`` where ``step`` runs ``loss.backward()`` and returns ``loss, acc``."""
        definition = self._own_definition(call)
        if definition is None:
            return set()
        positions = backpropagated_returns(definition)
        if isinstance(target, ast.Name):
            return {target.id} if None in positions else set()
        if not isinstance(target, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in target.elts):
            return set()
        return {
            element.id for position, element in enumerate(target.elts)
            if isinstance(element, ast.Name) and (position, len(target.elts)) in positions
        }

    def _own_definition(self, call: ast.Call) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The file's function ``f`` of ``f(...)``, or its class's method of ``obj.m(...)``
        (``self.m(...)``) where ``obj`` is known to be an instance of that class."""
        summary = self.inference.summary
        if summary is None:
            return None
        func = call.func
        if isinstance(func, ast.Name):
            definition = summary.definition(func.id) if self.inference.binding(func.id) is None else None
        elif isinstance(func, ast.Attribute):
            instance = self.inference.summarised(func.value)
            if not isinstance(instance, Instance) or (instance.module and instance.module != summary.path):
                return None
            definition = summary.definition(f"{instance.cls}.{func.attr}")
        else:
            return None
        return definition if isinstance(definition, FUNCTION_DEFS) else None

    def _reaching_values(self, name: str) -> tuple[ast.expr, ...]:
        """The values of the plain bindings that reach a use of ``name`` where the walk's
        binding merged several (``if a: loss = f(x)`` ``else: loss = g(x)``): two or more,
        each ``name = value``; else empty."""
        binding = self.inference.binding(name)
        if binding is None or binding.value is not None or binding.opaque or name in self.frames[-1].unpacked:
            return ()
        values = self.frames[-1].reaching.get(name, ())
        return values if len(values) > 1 and all(value is not None for value in values) else ()

    def _source_of(self, node: ast.expr) -> ast.expr:
        """What ``node`` is made from, past methods that keep the graph (or its absence) and
        a name's binding: ``x.detach()`` of ``y = x.detach().cpu(); y``."""
        node = _under_graph_preserving(node)
        if (name := _name(node)) is not None and (value := self._bound_value(name)) is not None:
            node = _under_graph_preserving(value)
        return node

    def _graph_free(  # noqa: C901
        self, node: ast.expr, depth: int = 0, data_items: bool = True, hidden: frozenset[str] = frozenset()
    ) -> bool:
        """Evidently made without a graph: ``x.detach()``, a literal, a new tensor of a
        factory (``torch.zeros_like(x)``), an evaluation wrapper's output, one of the data
        loop's items (with ``data_items``), or torch functions, methods, arithmetic, lists and
        joins (``torch.stack``) of those only; a name through its binding, unless something
        may fill it in place. ``hidden``: a comprehension's own names, bound to nothing known."""
        if depth > 10:
            return False
        node = _under_graph_preserving(node)
        if _detaches(node) or _literal(node, (int, float, str, bytes)):
            return True
        if (name := _name(node)) is not None:
            if name in hidden:
                return False
            if data_items and self._data_item(node):
                return True
            value = self._bound_value(name)
            return value is not None and not self._filled_in_place(name, value) \
                and self._graph_free(value, depth + 1, data_items, hidden)
        parts: list[ast.expr]
        if isinstance(node, ast.Call):
            if self._graph_free_call(node):
                return True
            qualified = self.inference.qualify(node.func) or ""
            if qualified in GRAPHLESS_FACTORIES:
                return not is_true(keyword_argument(node, "requires_grad"))
            called = method_call(node)
            if qualified in JOINING or (qualified.startswith("torch.") and qualified.rpartition(".")[2] in GRAPH_PRESERVING):
                parts = _argument_values(node)
            elif not qualified and called is not None and called[1] in GRAPH_PRESERVING:
                parts = [called[0], *_argument_values(node)]
            else:
                return False
        elif isinstance(node, (ast.List, ast.Tuple)):
            parts = [unstarred(element) for element in node.elts]
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            hidden = hidden.union(*(bound_names(generator.target) for generator in node.generators))
            parts = [node.elt]
        elif isinstance(node, ast.BinOp):
            parts = [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            parts = [node.operand]
        elif isinstance(node, ast.Subscript):
            parts = [node.value]
        elif isinstance(node, ast.IfExp):
            parts = [node.body, node.orelse]
        else:
            return False
        return bool(parts) and all(self._graph_free(part, depth + 1, data_items, hidden) for part in parts)

    def _filled_in_place(self, name: str, value: ast.expr) -> bool:
        """Whether the function may put values into ``name`` (bound to ``value``): ``name[i] =
        v``, ``name.append(v)``, ``name.add_(v)``, ``name += ...``, or, for a list, handing it
        to a call (but to torch's own functions). At the module's level, anywhere in the module."""
        functions = self.context.functions
        summary = self.inference.summary
        scope = functions[-1] if functions else summary.tree if summary is not None else None
        if scope is None:
            return True
        container = isinstance(value, (ast.List, ast.ListComp, ast.BinOp))  # `[None] * n` too
        key = (id(scope), name, container)
        if key not in self._filled:
            self._filled[key] = any(_fills(node, name, container, self.inference.qualify) for node in ast.walk(scope))
        return self._filled[key]

    def _data_item(self, node: ast.expr) -> bool:
        """``y`` of ``for x, y in loader`` (also ``y.to(device)``, or a name bound to that): an
        item of the batches a loop over data reads, which carries no graph."""
        name = _name(self._source_of(node))
        return name is not None and any(
            _over_data(loop) and name in bound_names(loop.target) for loop in self._loops()
        )

    def _graph_free_call(self, node: ast.expr) -> bool:
        """``predict(x)``, ``self.evaluate(x)``, ``wrapper(x)``: a call of the file's function,
        or of a method of an instance of the project's classes, that makes what it returns
        under ``torch.no_grad()`` (an evaluation wrapper): no graph."""
        summary = self.inference.summary
        if summary is None or not isinstance(node, ast.Call):
            return False
        func = node.func
        if isinstance(func, ast.Name):
            if self.inference.binding(func.id) is None and summary.returns_without_graph(func.id):
                return True
            receiver, method = func, ""
        elif isinstance(func, ast.Attribute):
            receiver, method = func.value, func.attr
        else:
            return False
        instance = self.inference.summarised(receiver)
        return isinstance(instance, Instance) and summary.graph_free_call(instance, method)

    # -- judgement ----------------------------------------------------------------------
    def _plain_own_function(self, func: ast.expr) -> bool:
        """``loss(x, y)`` where ``loss`` is the file's own function and the file never imports
        torch: a course's loss of plain floats, no graph."""
        summary = self.inference.summary
        return (
            isinstance(func, ast.Name)
            and summary is not None
            and isinstance(summary.definition(func.id), FUNCTION_DEFS)
            and not any(full == "torch" or full.startswith("torch.") for full in self.context.imports.aliases.values())
        )

    def _judge(self, frame: _Frame) -> None:
        # Cheap tests first: most candidates have no evidence of a graph at all.
        suspects = []
        # What each backward reaches: its receiver and the operands assigned into it
        # (`loss = train_loss + reg; loss.backward()` backpropagates through train_loss; not
        # through a call's arguments: `loss = criterion(out, labels)` says nothing of labels).
        operands = partial(_operands, loss_results=frame.loss_results, modules=frozenset(self.context.imports.aliases))
        backward = [(_closure(set(keys), frame.feeds, operands), loops) for keys, loops in frame.backward] \
            if frame.candidates else []
        stepping = {loop for _, loops in frame.backward for loop in loops}  # loops that run a backward
        for candidate in frame.candidates:
            loop = id(candidate.loop)
            names = candidate.names - {name for name, loops in frame.detached if loop in loops}
            # A graph made each iteration runs through a name computed in the loop; one shared
            # only through a loop's inputs (`/ batch_size`) ties no graph to the total.
            names = {name for name in names if any(loop in bound.loops for bound in frame.rebound.get(name, ()))}
            backward_each_iteration = any(loop in loops and keys & names for keys, loops in backward)
            if backward_each_iteration or (candidate.loss and _over_data(candidate.loop)):
                suspects.append((candidate, backward_each_iteration))
            elif (training := _training_loop(candidate, stepping)) is not None \
                    and (candidate.model_output or candidate.loss and training is not candidate.loop):
                # What the trained model returns, kept across the iterations of a loop that
                # trains on each (``stats[i] += features.mean(0)`` under ``for i in labels``
                # inside the batch loop), or a loss kept so from an inner loop (``total +=
                # loss`` under ``for task in tasks`` there): its graph, judged on that loop. A
                # loss summed so was backpropagated each iteration: handing it back is no loss
                # to use, nor are outputs kept so (the optimizer stepped since: their graphs are
                # stale). (A loss stored each iteration of the loop that backpropagates it is
                # one term of the loss being built: ``terms[i] = loss_i``, then their sum.)
                depth = candidate.depth - (len(candidate.loops) - candidate.loops.index(training)) + 1
                suspects.append((candidate._replace(loop=training, depth=depth), True))
            elif candidate.evaluated_output and (data := _data_loop(candidate)) is not None:
                # What a module put in eval mode here returns, kept across the batches of a loop
                # over data outside no_grad (``outputs.append(model(x))``): every batch's
                # graph, activations included, until the holder goes.
                depth = candidate.depth - (len(candidate.loops) - candidate.loops.index(data)) + 1
                suspects.append((candidate._replace(loop=data, depth=depth), True))
        if not suspects:
            return
        backpropagated = _closure(set().union(*(keys for keys, _ in frame.backward)), frame.feeds)
        returned = None
        for candidate, backward_each_iteration in suspects:
            if candidate.holder in backpropagated:
                continue  # the total is what gets backpropagated: a loss built in a loop
            if any(bound.resets(candidate) for bound in frame.rebound.get(candidate.holder, ())):
                continue  # reset on every iteration: it does not outlive the iteration
            if not backward_each_iteration:
                # A sum of losses over heads, scales or terms, or one handed back, is a loss
                # built from several terms; over batches it is an evaluation that keeps graphs.
                if returned is None:
                    returned = _closure(set().union(*map(_names_in, frame.returned)), frame.feeds)
                if candidate.holder in returned and not frame.evaluates:
                    continue
            self.report(candidate.value, fix=_fix(candidate.value))


def _closure(sinks: set[str], feeds: list[tuple[str, ast.expr]], names_in=None) -> set[str]:
    """``sinks`` plus every name assigned into one of them (``total = a + b`` feeds a, b):
    all the names in the value, or those ``names_in`` picks."""
    names_in = names_in or _names_in
    reached, pending = set(sinks), feeds
    grown = True
    while grown:
        grown, rest = False, []
        for name, value in pending:
            if name in reached:
                reached |= names_in(value)
                grown = True
            else:
                rest.append((name, value))
        pending = rest
    return reached


def _operands(node: ast.expr, loss_results: set[str], modules: frozenset[str] = frozenset()) -> set[str]:
    """The names a value is computed from by arithmetic (``a + w * b``, ``-a``, ``a.mean()``):
    what a graph through the value runs through; not a call's arguments nor what is detached,
    nor an entry of a container unless it is one of ``loss_results`` (a loss function's)."""
    name = _name(node)
    if name is not None:
        return {name}
    if isinstance(node, ast.Attribute):
        dotted = dotted_name(node)
        return {dotted} if dotted and node.attr not in DETACHING else set()
    if isinstance(node, ast.BinOp):
        return _operands(node.left, loss_results, modules) | _operands(node.right, loss_results, modules)
    if isinstance(node, ast.UnaryOp):
        return _operands(node.operand, loss_results, modules)
    if isinstance(node, ast.Subscript):  # info["loss"]: through a loss function's result
        container = dotted_name(node.value)
        return {container} if container in loss_results else set()
    called = method_call(node)
    if called is not None and called[1] in GRAPH_PRESERVING:
        if isinstance(called[0], ast.Name) and called[0].id in modules:  # torch.mean(x)
            first = first_argument(node)
            return _operands(first, loss_results, modules) if first is not None else set()
        return _operands(called[0], loss_results, modules)
    return set()


def _data_loop(candidate: _Candidate) -> ast.AST | None:
    """The innermost of the candidate's loops that runs over batches of data."""
    return next((loop for loop in reversed(candidate.loops) if _over_data(loop)), None)


def _training_loop(candidate: _Candidate, stepping: set[int]) -> ast.AST | None:
    """The innermost of the candidate's loops that runs a backward on every iteration (the
    ids of such loops: ``stepping``)."""
    return next((loop for loop in reversed(candidate.loops) if id(loop) in stepping), None)


def _fills(node: ast.AST, name: str, container: bool, qualify) -> bool:
    """Whether ``node`` may put values into what ``name`` holds, a list where ``container``
    (see ``GraphAccumulation._filled_in_place``)."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(
            isinstance(target, ast.Subscript) and _name(container_of(target)) == name
            or isinstance(node, ast.AugAssign) and _name(target) == name
            for target in targets
        )
    if isinstance(node, ast.Call):
        called = method_call(node)
        if called is not None and _name(called[0]) == name and (
            called[1] in ACCUMULATING_METHODS or called[1] == "__setitem__" or writes_in_place(called[1])
        ):
            return True
        if container and any(_name(value) == name for value in _argument_values(node)):
            # torch's functions read a list (torch.stack) or fill it without a graph
            # (torch.distributed.all_gather); torch.distributed.nn's return theirs.
            return not (qualify(node.func) or "").startswith("torch.")
    return False


def _unpacked(target: ast.expr, value: ast.expr) -> dict[str, ast.expr]:
    """``a, b = x, y``: each name with the element it receives."""
    if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))):
        return {}
    pairs = list(zip(target.elts, value.elts))
    if len(target.elts) != len(value.elts) or any(isinstance(part, ast.Starred) for pair in pairs for part in pair):
        return {}
    return {name.id: element for name, element in pairs if isinstance(name, ast.Name)}


def _losses_unpacked(target: ast.expr, value: ast.expr) -> dict[str, ast.expr]:
    """``loss, mf_loss, reg_loss = model.bpr_loss(...)``: the names that say they are losses,
    each with the loss call, whose terms they are (not ``acc`` of ``loss, acc = ...``)."""
    if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Call) and _loss_call(value)):
        return {}
    return {
        element.id: value for element in target.elts
        if isinstance(element, ast.Name) and "loss" in element.id.lower()
    }


_DESCRIPTION = "accumulate a detached value (no graph)"


def _fix(value: ast.expr) -> FixPlan | None:
    if isinstance(value, (ast.Tuple, ast.List, ast.Dict)):
        return None
    return FixPlan(safe=False, description=_DESCRIPTION, build=_build_fix, anchors=(value,))


def _build_fix(site: FixSite) -> Fix | None:
    """``v`` becomes ``v.detach()`` (``(a + b).detach()``)."""
    (value,) = site.nodes
    return Fix(replacements=((value, call_method(value, "detach")),), safe=False, description=_DESCRIPTION)


def _over_data(loop: ast.AST) -> bool:
    """``for x, y in val_loader``, ``for batch in tqdm(data)``: a loop over batches of data."""
    return isinstance(loop, (ast.For, ast.AsyncFor)) and over_data(_names_in(loop.iter) | set(bound_names(loop.target)))


def _detaches(value: ast.expr) -> bool:
    """``loss.detach()``, ``loss.item()``, ``loss.data``, ``float(loss)``: no graph past here."""
    if isinstance(value, ast.Attribute):
        return value.attr == "data"
    if isinstance(value, ast.Call):
        called = method_call(value)
        if called is not None:
            return called[1] in DETACHING
        return isinstance(value.func, ast.Name) and value.func.id in PLAIN_BUILTINS
    return False


def _under_graph_preserving(node: ast.expr) -> ast.expr:
    """``x.detach()`` of ``x.detach().cpu().float()``: what a chain of methods that keep
    the graph (or its absence) and add none is called on: without arguments, or with a
    device, a dtype or a shape (not ``x.detach().add(y)``: ``y`` may carry one)."""
    while isinstance(node, ast.Call) and (called := method_call(node)) is not None and called[1] in GRAPH_PRESERVING \
            and (not argument_count(node) or called[1] in _RESHAPING):
        node = called[0]
    return node


_RESHAPING = frozenset({"to", "cuda", "cpu", "view", "reshape", "squeeze", "unsqueeze", "flatten", "expand"})


def _spelled_alike(node: ast.Assign, value: ast.BinOp) -> bool:
    """``total = total + v``: the target spelled again, as it is (``total = (total) + v`` is
    not: neither is parenthesised, and their code is as long)."""
    target, left = node.targets[0], value.left
    return (
        (left.lineno, left.col_offset) == (value.lineno, value.col_offset)
        and (target.lineno, target.col_offset) == (node.lineno, node.col_offset)
        and _extent(left) == _extent(target)
        and _same(left, target)
    )


def _extent(node: ast.AST) -> tuple[int, int]:
    lines = node.end_lineno - node.lineno
    return lines, node.end_col_offset - (0 if lines else node.col_offset)


def _name(node: ast.AST) -> str | None:
    """The name ``node`` is spelled as: a variable's, or ``True``, ``False``, ``None`` (which
    the rule has always read as names)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, bool)):
        return repr(node.value)
    return None


def _literal(node: ast.AST, types: tuple[type, ...]) -> bool:
    """A literal number or string of ``types`` (``True`` and ``1j`` are not; an f-string is a string)."""
    if isinstance(node, ast.JoinedStr):
        return str in types
    return isinstance(node, ast.Constant) and type(node.value) in types


def _argument_values(call: ast.Call) -> list[ast.expr]:
    """Every argument's value: ``*args`` and ``**kwargs`` without their stars."""
    return [*map(unstarred, call.args), *(keyword.value for keyword in call.keywords)]


def _last_argument(call: ast.Call) -> ast.expr:
    """The value of the call's last argument in source order (``f(a, k=1, *b)``: ``b``)."""
    last = max((*call.args, *call.keywords), key=lambda node: (node.lineno, node.col_offset))
    return last.value if isinstance(last, (ast.Starred, ast.keyword)) else last


def _names_in(node: ast.AST) -> set[str]:
    """Every name and dotted name inside ``node``; also, as the rule has always read them,
    attribute names, keyword names, lambda parameters and ``True``, ``False``, ``None``."""
    names: set[str] = set()
    for current in ast.walk(node):
        if isinstance(current, ast.Attribute):
            dotted = dotted_name(current)
            if dotted:
                names.add(dotted)
            names.add(current.attr)
        elif isinstance(current, ast.keyword):
            if current.arg is not None:
                names.add(current.arg)
        elif isinstance(current, ast.arg):
            names.add(current.arg)
        elif (name := _name(current)) is not None:
            names.add(name)
    return names


def _constant_key(target: ast.Subscript) -> bool:
    """``d["loss"]``, ``d[0]``: every index a literal, so each iteration writes the same entry."""
    indices = subscript_indices(target)
    return bool(indices) and all(_literal(index, (int, str, bytes)) for index in indices)
