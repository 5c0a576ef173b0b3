"""TCP101: a write through ``.data`` where the code shows no graph in play (legacy, harmless here).

TCP001's analysis reports it (one walk for both codes): a write that TCP001 flags, made
inside ``torch.no_grad()``/``inference_mode()``, in initialisation, after the
``backward()``/``step()`` of its function with no backward after it, or on a tensor made in
the same expression (``x.clone().data.normal_()``). The TCP1xx codes are
legacy spellings that the site shows to be harmless, or harmful only in a case the message
names: ``--extend-ignore TCP1`` keeps only what may hurt.
"""

from __future__ import annotations

from ..rule import Example, Rule, RuleDocs
from .tcp001_data_mutation import _INPLACE, HARMLESS_HERE, INITIALISER, DataMutation


class DataWriteOutsideGraph(Rule):
    code = HARMLESS_HERE
    name = "data-write-outside-graph"
    message = _INPLACE.message(INITIALISER)
    triggers = DataMutation.triggers
    gate = DataMutation.gate
    reported_by = DataMutation
    docs = RuleDocs(
        what="Flags the writes through `.data` that TCP001 would, where the code shows that no graph "
        "is in play: inside `with torch.no_grad():` / `torch.inference_mode()` or a function decorated "
        "with them; in initialisation (a function named `__init__`, `reset_parameters` or with an "
        "`init`/`initialize` word in its name, a `.data` handed to `nn.init`, or to the file's own "
        "`*init*` helper that writes it); after a `.backward()` or an optimizer's or grad scaler's "
        "`.step()` earlier in the same function, with no `.backward()` after the write; and, wherever it "
        "is, on a tensor made in the same expression (`x.clone().data.normal_()`, "
        "`torch.zeros_like(x).data.fill_(1)`). A `.backward()` after the write in the same function "
        "makes the others TCP001 again. The message says which of the places it is.",
        why="Nothing here computes a wrong gradient as the code stands: in initialisation no graph has "
        "saved the tensor yet; after the step the next forward records the new values; under no_grad "
        "the write is meant to bypass autograd, and `.data` adds nothing. Two cases remain: a graph "
        "built before the write and backwarded afterwards (a pending backward, or `retain_graph=True` "
        "backwarded again) uses the new values silently through `.data`, while the tensor written "
        "itself (`w.add_()` under no_grad) raises \"one of the variables needed for gradient "
        "computation has been modified by an inplace operation\". `.data` is a legacy spelling that "
        "the PyTorch documentation discourages; the tensor itself under no_grad says the same and "
        "stays loud. TCP1xx codes are this kind of finding: `--extend-ignore TCP1` (flake8, the CLI, "
        "the language server's `ignore`) keeps only the findings where harm is possible.",
        example="import torch\nfrom torch import nn\n\n\ndef init_weights(m: nn.Module):\n"
        "    m.weight.data.normal_(0.0, 0.02)\n\n\ndef clip(w: torch.Tensor):\n    with torch.no_grad():\n"
        "        w.data.clamp_(-1.0, 1.0)\n",
        use_instead="import torch\nfrom torch import nn\n\n\ndef init_weights(m: nn.Module):\n"
        "    nn.init.normal_(m.weight, 0.0, 0.02)\n\n\ndef clip(w: torch.Tensor):\n    with torch.no_grad():\n"
        "        w.clamp_(-1.0, 1.0)\n",
        fixture="fixtures/tcp101_data_write_outside_graph.py",
        known_problems="The place is read from the function's own code, in its text's order: a "
        "write after the step in a loop body runs before the next iteration's backward, which "
        "uses a graph built after it (harmless), unless that graph was built before the loop. "
        "A write in a function called between a forward and its backward elsewhere is TCP101 "
        "when its own function looks like an initialiser or has its own no_grad. Figures are "
        "TCP001's (a finding of either code on a statement labelled TCP001 counts as found): {accuracy}",
        fix_safety="TCP001's fixes, unchanged: `.data` is dropped and the write runs under no_grad "
        "(already so inside a no_grad block); `nn.init.X_(w.data)` becomes `nn.init.X_(w)`.",
    )
    flagged = (
        Example("import torch\ndef f(w):\n    with torch.no_grad():\n        w.data.add_(1.0)\n", [(4, 9)],
                message="inside no_grad: `.data` is redundant there"),
        Example("import torch\n@torch.no_grad()\ndef ema(avg, w):\n    avg.data.mul_(0.9).add_(w, alpha=0.1)\n",
                [(4, 5)], message="inside no_grad"),
        Example("import torch\ndef load(p: torch.Tensor, t):\n    with torch.inference_mode():\n        p.data = t\n", [(4, 9)],
                message="`p.copy_(t)` there lets autograd raise"),
        Example("class Net:\n    def __init__(self, fc):\n        fc.weight.data.normal_(0.0, 0.02)\n", [(3, 9)],
                message="in initialisation is harmless"),
        Example("def reset_parameters(self):\n    self.weight.data.uniform_(-0.1, 0.1)\n    self.bias.data.zero_()\n",
                [(2, 5), (3, 5)], message="in initialisation"),
        Example("from torch import nn\ndef f(m):\n    nn.init.normal_(m.weight.data)\n", [(3, 5)],
                message="(nn.init already runs under no_grad)"),
        Example("import torch.nn.init as init\ndef f(w):\n    init.xavier_uniform_(w.data)\n", [(3, 5)]),
        # nn.init's deprecated names write in place too (they warn and call the new ones).
        Example("from torch.nn import init\ndef f(m):\n    init.normal(m.weight.data, 0.0, 0.02)\n", [(3, 5)]),
        Example("from torch import nn\ndef init(m):\n    w = m.weight.data\n    nn.init.orthogonal_(w)\n", [(4, 5)]),
        # The file's own initialiser writes what it is given.
        Example("from torch import nn\ndef weight_init(w):\n    nn.init.orthogonal_(w)\n"
                "def build(model):\n    for m in model.modules():\n        weight_init(m.weight.data)\n", [(6, 9)],
                message="in initialisation"),
        Example("def initWeights(m, w):\n    m.weight.data = w\n", [(2, 5)], message="assigning .data in initialisation"),
        # A tensor made in the same expression: no graph can have saved it, a backward after it or not.
        Example("def noisy(actions, model, loss_fn):\n    noise = actions.clone().data.normal_(0, 0.1)\n"
                "    loss_fn(model(actions + noise)).backward()\n", [(2, 13)],
                message="of a tensor made right there is harmless"),
        Example("import torch\ndef f(x):\n    return torch.zeros_like(x).data.fill_(1.0)\n", [(3, 12)],
                message="of a tensor made right there"),
        Example("def train(loss, optimizer, w):\n    loss.backward()\n    optimizer.step()\n    w.data.clamp_(0.0, 1.0)\n",
                [(4, 5)], message="after backward()/step() in this function is harmless unless"),
        Example("def train(model, batches, opt):\n    for x in batches:\n        model(x).sum().backward()\n"
                "        opt.step()\n        for p in model.parameters():\n            p.data.clamp_(-0.01, 0.01)\n",
                [(6, 13)], message="after backward()/step()"),
    )
    clean = (
        "import torch\ndef f(w):\n    with torch.no_grad():\n        w.add_(1.0)\n",
        "from torch import nn\ndef init_weights(m):\n    nn.init.normal_(m.weight, 0.0, 0.02)\n",
        # An environment's step ends no training step: nothing is written here anyway.
        "def play(env, action):\n    return env.step(action)\n",
    )


__all__ = ["DataWriteOutsideGraph", "HARMLESS_HERE"]
