"""TCP005: ``torch.tensor(t)`` and friends on something that already is a tensor."""

from __future__ import annotations

import ast

from ..analysis.evaluator import first_argument, method_call
from ..analysis.vocabulary import LEGACY_CONSTRUCTORS
from ..analysis.ast_patterns import unstarred
from ..lazy_cst import cst
from ..rule import WS, ArgumentGate, Example, Fix, FixPlan, FixSite, Rule, RuleDocs, call_method, module_reference, word

_LEGACY_CONSTRUCTORS = LEGACY_CONSTRUCTORS - {"torch.Tensor"}


class TensorFromTensor(Rule):
    code = "TCP005"
    name = "tensor-from-tensor"
    enabled_by_default = False  # not yet proven blind: see its page
    message = (
        "torch.tensor(t) on a tensor warns and copies via a slow path; "
        "use t.detach().clone() (plus .requires_grad_(True) if needed)"
    )
    # Literal-first (see prefilter.word): tensor, new_tensor, Tensor and FloatTensor & co.;
    # the gate then drops numbers, lists of numbers and anything not known as a tensor.
    triggers = (
        rf"ensor(?:(?<={word('tensor')})|(?<={word('new_tensor')})|(?<=Tensor)){WS}\(",
    )
    trigger_imports = frozenset({"torch.tensor", "torch.Tensor"} | _LEGACY_CONSTRUCTORS)
    gate = ArgumentGate(trigger_imports, frozenset({"new_tensor"}), keyword="data", elements=True)
    docs = RuleDocs(
        what="Flags `torch.tensor(t)`, `torch.Tensor(t)`, legacy typed constructors "
        "(`torch.FloatTensor(t)`, `torch.cuda.LongTensor(t)`, ...) and `x.new_tensor(t)` where "
        "`t` is known to be a tensor, and `torch.tensor([...])` of a list or tuple holding tensors.",
        why="`torch.tensor(t)` emits a UserWarning on every call (\"To copy construct from a tensor, "
        "it is recommended to use sourceTensor.detach().clone()\") and returns a detached copy. "
        "`torch.Tensor(t)` is worse: it does NOT copy, it aliases `t` (`torch.Tensor(x).add_(10)` "
        "changes `x`) and does not convert the dtype; `torch.FloatTensor(double_tensor)` raises "
        "TypeError. `torch.tensor([t0, t1])` of 0-d tensors calls `.item()` per element and "
        "silently drops autograd; `torch.stack` keeps the graph.",
        example="import torch\n\ndef as_tensor(t: torch.Tensor) -> torch.Tensor:\n    return torch.tensor(t)\n",
        use_instead="import torch\n\ndef as_tensor(t: torch.Tensor) -> torch.Tensor:\n    return t.detach().clone()\n",
        fixture="fixtures/tcp005_tensor_from_tensor.py",
        known_problems="Numbers, lists of numbers, numpy arrays, `.tolist()` and `.item()` values and shapes "
        "(`torch.Tensor(3, 4)`) are never flagged; only values known to be tensors are, from "
        "the whole file (see TCP003), lists into which the file puts tensors and no plain "
        "values (`vals.append(t)`, also on one path of several, and rows: `rows[i].append(t)`), "
        "items of a name bound to a tensor in one branch and to nothing plain in the others "
        "(`cur = torch.full(...)` there, `cur = head[idx]` here, then `vals.append(cur[i])`), "
        "comprehensions over a tensor (`[w / s for w in weights]`), the rows of tensors it loops "
        "over (`for *box, conf, cls in det`), the batches of a `DataLoader` (`for i, data in "
        "enumerate(loader): x, y = data`, `next(iter(loader))`), the items of the project's generators "
        "that yield only such batches or only tensors (`for batch in loader: yield batch`), a list of tensors repeated "
        "(`[torch.zeros(0, 6)] * n`), `Variable(t)`, what calling the file's own torch "
        "modules returns (their `forward`), the parts of `topk`/`sort`/`chunk`/`max(dim)`, what "
        "a `torch.nn` loss module returns (`criterion(out, y)`), what a torchvision transform that ends in a "
        "tensor gives (`Compose([..., ToTensor(), Normalize(...)])`), a loop variable or a name bound once used as only a "
        "tensor can be (`det[:, 5].unique()`, `loss.backward()`), an item of a batch (`images[0]`), a name "
        "bound to a list display holding tensors (`mat = [[torch.cos(a), 0], ...]`), what a function returns after an `if`/`else` that binds the "
        "returned name to a tensor in every branch, what a `torch.distributions` distribution samples or "
        "scores (`Categorical(p).sample()`, `dist.log_prob(a)`), what a function annotated `-> torch.Tensor` "
        "returns, what every class a name may hold an instance of agrees on (`agent = NAF(...)` in one "
        "branch, `agent = DDPG(...)` in the other, then `agent.select_action(s)`), what a lambda returns "
        "for the arguments a call passes it when its body reads only its parameters and the file's "
        "imports (`self.dist = lambda x, m: (x - m).T @ (x - m)`), what a numpy ufunc gives back for a tensor (`np.exp(t)` is a tensor on the CPU, "
        "`Tensor.__array_wrap__`), what POT and einops give back for tensors (they answer in their "
        "inputs' type: `ot.sinkhorn(a, b, M, reg)` without `log=True`, `einops.rearrange(t, ...)`), "
        "the tensor fields of a torchvision dataset the file makes "
        "(`datasets.MNIST(root).targets`, from a table generated from torchvision's sources), a "
        "method's parameter to which every call the file makes passes a tensor (`self._exclude_pos(..., "
        "score, ...)` keeping rows of `score`); what the project's "
        "other modules return, store or hold (`from data.loader import get_loader`, `from utils import *`), and "
        "any function's parameter to which every call passes a tensor: the file's own calls, and for a "
        "module-level function or a class's `__init__` the calls of the modules that import it too (a "
        "`save_one_box(xyxy)` whose callers in `detect.py` pass rows of detections). {accuracy} Misses "
        "include tensors of a library's conventions (the `targets` of a torchvision dataset "
        "passed in by a caller, the items of a dataset built with `transforms.ToTensor()`), the batches a "
        "method gets from a trainer in another module (a method's callers are read in its own "
        "file only), models loaded from "
        "files, an optimizer's state, values that depend on a command-line flag, and a helper "
        "called with a tensor at one call and another kind at the others (an "
        "`AverageMeter.update(acc1[0])` where another meter gets floats): the callee is judged "
        "for all its calls.",
        fix_safety="`torch.tensor(t)` becomes `t.detach().clone()`, and "
        "`torch.tensor(t, dtype=d, device=v, requires_grad=r)` becomes "
        "`t.detach().to(dtype=d, device=v, copy=True).requires_grad_(r)`, which is what torch "
        "itself does with a tensor argument (safe). One difference: inside "
        "`with torch.device(...)` or after `torch.set_default_device(...)`, `torch.tensor(t)` "
        "puts the copy on that default device while the fix keeps `t`'s device. "
        "`torch.Tensor(t)` and the typed constructors (`torch.FloatTensor(t)`) become "
        "`t.detach().clone()` (unsafe: an alias becomes a copy), and `torch.tensor([t0, t1])` "
        "becomes `torch.stack([t0, t1])` (unsafe: the result now keeps the graph and the "
        "elements' device; `dtype=`/`device=` become `.to(...)`). No fix for `pin_memory=` (it "
        "raises for a tensor), for `x.new_tensor(t)`, or for a list that mixes tensors and numbers.",
    )
    flagged = (
        Example("import torch\ndef f(t: torch.Tensor):\n    return torch.tensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(t: torch.Tensor):\n    return torch.Tensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(t: torch.Tensor):\n    return torch.cuda.LongTensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(x, t: torch.Tensor):\n    return x.new_tensor(t)\n", [(3, 12)]),
        Example("import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.tensor([a.sum(), b.sum()])\n", [(3, 12)]),
        Example("from torch import tensor as T\nimport torch\ndef f():\n    x = torch.ones(2)\n    return T(x * 2)\n", [(5, 12)]),
        # What the rest of the file says (the module summary):
        Example("import torch\ndef find_hits(scores: torch.Tensor):\n    return (scores > 0.5).float().sum(0)\n"
                "def rate(scores, n):\n    hits = find_hits(scores)\n    return torch.FloatTensor(hits / n)\n", [(6, 12)]),
        Example("import torch\ndef boxes(det: torch.Tensor):\n    for *box, conf, cls in det:\n"
                "        yield torch.tensor(box), torch.tensor(conf)\n", [(4, 15), (4, 34)]),
        Example("import torch\nfrom torch.utils.data import DataLoader\ndef first(dataset):\n"
                "    for x, y in DataLoader(dataset):\n        return torch.tensor(x)\n", [(5, 16)]),
        # The items of the file's generators: DataLoader batches, tensors.
        Example("import torch\nfrom torch.utils.data import DataLoader\ndef batches(dataset):\n"
                "    for batch in DataLoader(dataset, batch_size=8):\n        yield batch\n"
                "def first_images(dataset):\n    for images, labels in batches(dataset):\n"
                "        return torch.tensor(images)\n", [(8, 16)]),
        Example("import torch\ndef rows(x: torch.Tensor):\n    for i in range(len(x)):\n        yield x[i] * 2\n"
                "def first(x):\n    for row in rows(x):\n        return torch.tensor(row)\n", [(7, 16)]),
        Example("import torch\nfrom torch.utils.data import DataLoader\nloader = DataLoader(range(8), batch_size=4)\n"
                "for i, data in enumerate(loader):\n    inputs, labels = data\n    x = torch.tensor(inputs)\n",
                [(6, 9)]),
        Example("import torch\nfrom torch.autograd import Variable\ndef f(y_data, xs):\n"
                "    labels = Variable(torch.LongTensor(y_data))\n    for x, label in zip(xs, labels):\n"
                "        yield torch.LongTensor([label])\n", [(6, 15)]),
        Example("import torch\ndef gather(model, xs):\n    vals = []\n    for x in xs:\n"
                "        vals.append(model(x).detach())\n    return torch.tensor(vals)\n", [(6, 12)]),
        Example("import torch\ndef entropies(dists):\n    ents = []\n    for d in dists:\n"
                "        ents.append(d.probs.log().neg().mean())\n    ents = torch.tensor(ents)\n    return ents\n",
                [(6, 12)]),
        Example("import torch\ndef pick(w):\n    idx = torch.multinomial(w, 1)[0]\n    return torch.Tensor([[idx]]).long()\n",
                [(4, 12)]),
        Example("import torch\ndef peaks(hm):\n    top = torch.max(hm.view(2, -1), 1)\n    row = hm[0]\n"
                "    return torch.FloatTensor([row[1] - row[0], row[2]])\n", [(5, 12)]),
        Example('import torch\ndef gray(images):\n    """Args:\n        images (tensor): frames.\n    """\n'
                "    return torch.tensor(images)\n", [(6, 12)]),
        Example("import torch\nfrom torch import nn\nclass Net(nn.Module):\n    def forward(self, x):\n"
                "        return torch.relu(x)\ndef predict(x):\n    model = Net()\n    return torch.tensor(model(x))\n",
                [(8, 12)]),
        Example("import torch\ndef scaled(x, half):\n    n = x.contiguous()\n    if half:\n        n = n.half()\n"
                "    else:\n        n = torch.tensor(x)\n    return n\n", [(7, 13)]),
        Example("import torch\ndef predicted(out: torch.Tensor):\n    _, pred = out.max(1)\n"
                "    return torch.tensor(pred)\n", [(4, 12)]),
        Example("import torch\nclass Agent:\n    def __init__(self):\n        self.rewards = []\n"
                "    def act(self, out: torch.Tensor):\n        self.rewards.append(out.sum())\n"
                "    def finish(self):\n        return torch.tensor(self.rewards)\n", [(8, 16)]),
        # What a torch.nn loss module returns, and what an operator computes and only a
        # tensor can convert (`.float()`: a module has it, but no comparison is a module).
        Example("import torch\nfrom torch import nn\nclass Trainer:\n    def __init__(self):\n"
                "        self.criterion = nn.CrossEntropyLoss()\n    def evaluate(self, model, loader):\n"
                "        losses = []\n        for x, y in loader:\n"
                "            losses.append(self.criterion(model(x), y))\n        return torch.tensor(losses)\n",
                [(10, 16)]),
        # What a torchvision pipeline that ends in a tensor gives (a Dataset's transform).
        Example("import torch\nfrom torchvision import transforms\nclass Pictures:\n    def __init__(self, xs):\n"
                "        self.xs = xs\n        self.transform = transforms.Compose([\n"
                "            transforms.ToPILImage(), transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])\n"
                "    def __getitem__(self, i):\n        img = self.transform(self.xs[i])\n"
                "        return torch.FloatTensor(img)\n", [(10, 16)]),
        Example("import torch\ndef f(model, loader):\n    accs = []\n    for x, y in loader:\n"
                "        accs.append((model(x).argmax(1) == y).float().mean())\n    return torch.tensor(accs)\n",
                [(6, 12)]),
        # A list into which some path puts tensors (the others: nothing known), also as
        # rows of a list of lists or as a function's list of tensors; torch.norm's result.
        Example('import torch\ndef entropy(dists, mask):\n    """:param mask: (torch.Tensor) live agents."""\n'
                "    ents = []\n    for d in dists:\n        if mask is not None:\n"
                "            ents.append((d.entropy() * mask).sum() / mask.sum())\n        else:\n"
                "            ents.append(d.entropy().mean())\n    return torch.tensor(ents).mean()\n", [(10, 12)]),
        Example("import torch\ndef overlaps(ws, n):\n    rows = [[] for _ in range(n)]\n    for i in range(n):\n"
                "        for j in range(n):\n            rows[i].append(torch.norm(ws[i] - ws[j]))\n"
                "    return torch.tensor(rows)\n", [(7, 12)]),
        # Items of a name bound to a tensor in one branch (in the others, to what the file
        # cannot tell): on that path the list holds 0-d tensors.
        Example("import torch\ndef kept(head, full, n):\n    found = []\n    if full:\n"
                "        cur = torch.full((n,), 3)\n    else:\n        cur = head[:n]\n    for i in range(n):\n"
                "        h = cur[i]\n        found.append(h)\n    return torch.tensor(found)\n", [(11, 12)]),
        # What a torch.distributions distribution samples or scores.
        Example("import torch\nfrom torch.distributions import Categorical\ndef act(probs):\n"
                "    action = Categorical(probs).sample()\n    return torch.LongTensor([action])\n", [(5, 12)]),
        # A loop variable used as only a tensor can be (a detector's rows of boxes): its
        # rows are tensors, and a starred target is a list of 0-d tensors.
        Example("import torch\ndef f(pred):\n    for i, det in enumerate(pred):\n"
                "        classes = det[:, 5].unique()\n        for *xyxy, conf, cls in reversed(det):\n"
                "            box = torch.tensor(xyxy)\n", [(6, 19)]),
        # A comprehension whose element is a tensor whatever its variables hold.
        Example("import torch\ndef best(logits, beams):\n    rows = []\n    for x in logits:\n"
                "        rows.append(torch.log_softmax(x, -1))\n"
                "    return torch.tensor([rows[i][b] for i, b in enumerate(beams)])\n", [(6, 12)]),
        # What a legacy constructor returns is a tensor, whatever it was given.
        Example("import torch\ndef roots(joints, device):\n    points = torch.Tensor(joints).to(device).float()\n"
                "    return torch.tensor(points[:, 0])\n", [(4, 12)]),
        # What a function is annotated to return.
        Example("import torch\ndef read_labels(path) -> torch.Tensor:\n    return decode(path).long()\n"
                "def load(path):\n    return torch.LongTensor(read_labels(path))\n", [(5, 12)]),
        # A torchvision dataset's tensor fields (the table is generated from its sources).
        Example("import torch\nfrom torchvision import datasets\ndef labels(root):\n"
                "    train_set = datasets.MNIST(root, train=True)\n    return torch.tensor(train_set.targets)\n",
                [(5, 12)]),
        # A list of tensors repeated is one too; the first batch of a DataLoader is a batch.
        Example("import torch\ndef empty(n):\n    output = [torch.zeros((0, 6))] * n\n"
                "    return torch.tensor(output[0])\n", [(4, 12)]),
        Example("import torch\nfrom torch.utils.data import DataLoader\ndef peek(dataset):\n"
                "    images, labels = next(iter(DataLoader(dataset)))\n    return torch.LongTensor(labels)\n",
                [(5, 12)]),
        # Sizes where numpy's view takes a dtype: only a tensor's view, whose rows are tensors.
        Example("import torch\ndef targets(target, n, w):\n    for b in range(n):\n"
                "        tbox = target[b].view(-1, 5)\n        gx, gw = [i * w for i in (tbox[0][1], tbox[0][3])]\n"
                "        yield torch.FloatTensor([gx, gw])\n", [(6, 15)]),
        Example("import torch\ndef flat(x):\n    rows = x.view(x.shape[0], -1)\n    return torch.Tensor(x)\n",
                [(4, 12)]),
        Example("import torch\ndef pad(f0, n):\n    diff = f0.size(0) - n\n    if diff > 0:\n        f0 = f0[:n]\n"
                "    means = [f0[i:i + 2].mean() for i in range(n)]\n    return torch.tensor(means)\n", [(7, 12)]),
        # A numpy ufunc applied to a CPU tensor gives a tensor back (Tensor.__array_wrap__).
        Example("import numpy as np\nimport torch\ndef probs(logits: torch.Tensor):\n"
                "    p = np.exp(logits)\n    return torch.tensor(p / p.sum())\n", [(5, 12)]),
        # POT and einops answer in their inputs' type: tensors in, a tensor out.
        Example("import ot\nimport torch\ndef transport(cost: torch.Tensor, n):\n    mu = torch.ones(n) / n\n"
                "    T = ot.sinkhorn(mu, mu, cost, 0.1)\n    return torch.tensor(T).float()\n", [(6, 12)]),
        Example("import torch\nfrom einops import rearrange\ndef tokens(x: torch.Tensor):\n"
                "    return torch.Tensor(rearrange(x, 'b c h w -> b (h w) c'))\n", [(4, 12)]),
        # A name bound once, then used as only a tensor can be (`.backward()`); lists bound
        # empty together (`a, b = [], []`).
        Example("import torch\ndef train(batches, step):\n    losses, accs = [], []\n    for batch in batches:\n"
                "        loss, acc = step(batch)\n        loss.backward()\n        losses.append(loss.detach())\n"
                "        accs.append(acc)\n    return torch.Tensor(losses).mean()\n", [(9, 12)]),
        # An item of a DataLoader's batch, and a name bound to a display holding tensors.
        Example("import torch\nfrom torch.utils.data import DataLoader\ndef first_images(dataset):\n"
                "    for _, images in enumerate(DataLoader(dataset, batch_size=8)):\n"
                "        return torch.Tensor(images[0])\n", [(5, 16)]),
        Example("import torch\ndef rotate2d(theta):\n    mat = [[torch.cos(theta), torch.sin(-theta), 0],\n"
                "           [torch.sin(theta), torch.cos(theta), 0],\n           [0, 0, 1]]\n"
                "    return torch.tensor(mat, dtype=torch.float32)\n", [(6, 12)]),
        # What a helper returns after an if/else that converts in each branch.
        Example("import torch\ndef to_tensor(v, cuda):\n    if cuda:\n        v = torch.cuda.FloatTensor(v)\n"
                "    else:\n        v = torch.FloatTensor(v)\n    return v\n"
                "def returns(r, cuda):\n    return torch.FloatTensor(to_tensor(r, cuda))\n", [(9, 12)]),
        # What every call passes, read where the call is made: the binding in force there
        # (`labels = torch.tensor(labels)`), not every binding of the name.
        Example("import torch\nclass Windows:\n    def __init__(self, raw):\n        labels = raw[-1]\n"
                "        labels = torch.tensor(labels).double()\n        self.labels = self.split(labels)\n"
                "    def split(self, labels):\n        rows = []\n        for i in range(len(labels)):\n"
                "            rows.append(labels[i])\n        return torch.Tensor(rows)\n", [(11, 16)]),
        # What a function nested in this one returns; a slice of a list of tensors is one.
        Example("import torch\ndef run(model, batches):\n    def evaluate(batch):\n        losses = []\n"
                "        for x in batch:\n            losses.append(model(x).sum().detach())\n        return losses\n"
                "    history = []\n    for batch in batches:\n        [first, last] = evaluate(batch)\n"
                "        history.append(last)\n    return torch.tensor(history[-5:])\n", [(12, 12)],
                message="torch.tensor([...]) of tensors"),
        # An item of what `.topk` gives: a 0-d tensor since PyTorch 0.4.
        Example("import torch\nfrom torch.autograd import Variable\ndef decode(out):\n    top, idx = out.data.topk(1)\n"
                "    return Variable(torch.LongTensor([[idx[0][0]]]))\n", [(5, 21)]),
        # A name bound to an instance of one of several of the file's classes: what each
        # class's method returns, attribute holds or call gives, when they agree.
        Example("import torch\nclass Actor:\n    def __init__(self):\n        self.noise = torch.zeros(2)\n"
                "    def act(self, s):\n        return torch.tanh(s)\nclass Critic:\n    def __init__(self):\n"
                "        self.noise = torch.ones(2)\n    def act(self, s):\n        return torch.relu(s)\n"
                "def step(s, fast):\n    if fast:\n        agent = Actor()\n    else:\n        agent = Critic()\n"
                "    action = agent.act(s)\n    return torch.Tensor(action), torch.tensor(agent.act(s)), torch.tensor(agent.noise)\n",
                [(18, 12), (18, 34), (18, 62)]),
        # What a lambda returns for the arguments a call passes it, when its body reads only
        # its parameters and the file's imports.
        Example("import torch\nclass Mixture:\n    def __init__(self):\n        self.dist = lambda x, m: (x - m).T @ (x - m)\n"
                "    def dists(self, X: torch.Tensor, m):\n        d = [self.dist(X[i], m) for i in range(len(X))]\n"
                "        return torch.Tensor(d)\n", [(7, 16)], message="torch.Tensor([...]) of tensors"),
        Example("import torch\nnorm = lambda v: (v * v).sum()\ndef norms(x: torch.Tensor):\n"
                "    return torch.tensor([norm(x[0]), norm(x[1])])\n", [(4, 12)], message="torch.tensor([...]) of tensors"),
    )
    clean = (
        # A torchvision pipeline that ends in a PIL image, and one of v2 (its steps pass
        # through what they do not handle).
        "import torch\nfrom torchvision import transforms\nfrom torchvision.transforms import v2\n"
        "resize = transforms.Compose([transforms.ToTensor(), transforms.ToPILImage()])\n"
        "scale = v2.Compose([v2.ToDtype(torch.float32)])\n"
        "def f(picture):\n    return torch.tensor(resize(picture)), torch.tensor(scale(picture))\n",
        # The nested function's name is bound again: which one runs is unknown.
        "import torch\ndef run(model, batches, fast):\n    def evaluate(batch):\n        return [model(x).sum() for x in batch]\n"
        "    if fast:\n        evaluate = len\n    history = [evaluate(batch) for batch in batches]\n"
        "    return torch.tensor(history[-5:])\n",
        # A slice of a list of numbers.
        "import torch\ndef run(losses):\n    history = []\n    for loss in losses:\n        history.append(loss.item())\n"
        "    return torch.tensor(history[-5:])\n",
        # The call is made before the name is bound to a tensor.
        "import torch\nclass Windows:\n    def __init__(self, raw):\n        labels = raw[-1]\n"
        "        self.labels = self.split(labels)\n        labels = torch.tensor(labels).double()\n"
        "        self.scaled = labels\n    def split(self, labels):\n        rows = []\n"
        "        for i in range(len(labels)):\n            rows.append(labels[i])\n        return torch.Tensor(rows)\n",
        # Code written before PyTorch 0.4 (it reads `loss.data[0]`): there an item of a 1-d
        # tensor was a number.
        "import torch\nfrom torch.autograd import Variable\ndef step(loss):\n    return loss.data[0]\n"
        "def decode(out):\n    top, idx = out.data.topk(1)\n    return Variable(torch.LongTensor([[idx[0][0]]]))\n",
        # Converted on one path only: the other returns what was passed.
        "import torch\ndef maybe(v, flag):\n    if flag:\n        v = torch.FloatTensor(v)\n    return v\n"
        "def returns(r):\n    return torch.FloatTensor(maybe(r, True))\n",
        # What a batch holds under a key may be strings (file names); a display of numbers and
        # unknown values; a name whose type the scope tests before using it as a tensor.
        "import torch\nfrom torch.utils.data import DataLoader\ndef names(dataset):\n"
        "    for batch in DataLoader(dataset):\n        return torch.tensor(batch['name'])\n",
        "import torch\ndef translate2d(tx, ty):\n    mat = [[1, 0, tx], [0, 1, ty], [0, 0, 1]]\n"
        "    return torch.tensor(mat, dtype=torch.float32)\n",
        "import torch\ndef f(step, batch):\n    out = step(batch)\n    if isinstance(out, torch.Tensor):\n"
        "        out.backward()\n    return torch.tensor(out)\n",
        # A list repeated by a tensor's count is a list: [1] * seqlen.
        "import torch\ndef f(lengths: torch.Tensor):\n    for seqlen in lengths:\n        mask = torch.Tensor([1] * seqlen)\n",
        # Attributes set by name at run time (hyper-parameters) may be anything when read in __init__.
        "import numpy as np\nimport torch\nclass Agent:\n    def __init__(self, **kwargs):\n        self.__dict__.update(kwargs)\n"
        "        self.log_alpha = torch.tensor(np.log(self.alpha), requires_grad=True)\n"
        "    def train(self):\n        self.alpha = self.log_alpha.exp()\n",
        "import torch\ndef f():\n    return torch.tensor([1.0, 2.0]), torch.Tensor(3, 4)\n",
        "import torch\ndef f(t: torch.Tensor):\n    return torch.tensor(t.tolist()), torch.tensor(t.item())\n",
        "import torch\ndef f(a):\n    return torch.tensor(a)\n",
        "import torch\ndef f(t: torch.Tensor):\n    return t.detach().clone()\n",
        "import torch\ndef f(a: torch.Tensor, b: torch.Tensor):\n    return torch.stack([a, b])\n",
        "import numpy as np\nimport torch\ndef f(x):\n    if isinstance(x, np.ndarray):\n        return torch.tensor(x)\n    return x.detach()\n",
        # CIFAR's targets are a list of ints.
        "import torch\nfrom torchvision import datasets\ndef labels(root):\n"
        "    return torch.tensor(datasets.CIFAR10(root).targets)\n",
        # numpy's view takes a dtype, not sizes; a size() without a dimension may be anyone's.
        "import torch\ndef f(buffer):\n    n = buffer.size()\n    return torch.tensor(buffer)\n",
        "import numpy as np\nimport torch\ndef f(a):\n"
        "    return torch.tensor(a.view(np.float32)), torch.tensor(a.view(dtype=np.int8))\n",
        # POT with log=True (maybe in **options) gives a tuple; on arrays, POT and einops give arrays.
        "import ot\nimport torch\ndef f(a: torch.Tensor, M: torch.Tensor, options):\n"
        "    T, log = ot.sinkhorn(a, a, M, 0.1, log=True)\n"
        "    return torch.tensor(log['err']), torch.tensor(ot.sinkhorn(a, a, M, 0.1, **options))\n",
        "import numpy as np\nimport ot\nimport torch\nfrom einops import rearrange\ndef f(n, M):\n"
        "    a = np.ones(n) / n\n    return torch.tensor(ot.emd(a, a, M)), torch.tensor(rearrange(M, 'a b -> b a'))\n",
        # With `out=` a ufunc gives back the array written into; on an array, an array.
        "import numpy as np\nimport torch\ndef f(t: torch.Tensor, buf):\n"
        "    return torch.tensor(np.exp(t, out=buf)), torch.tensor(np.exp(t.numpy()))\n",
        "import torch\ndef f(model, xs):\n    vals = []\n    for x in xs:\n        vals.append(model(x).item())\n    return torch.tensor(vals)\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef first(dataset):\n    for batch in DataLoader(dataset):\n        return torch.tensor(batch)\n",
        # A generator that also yields what is not known to be a batch:
        "import torch\nfrom torch.utils.data import DataLoader\ndef mixed(dataset, extra):\n"
        "    for batch in DataLoader(dataset):\n        yield batch\n    yield from extra\n"
        "def first(dataset, extra):\n    for images, labels in mixed(dataset, extra):\n        return torch.tensor(images)\n",
        # A list of numbers repeated; next() of what is not known to give tensors, or of the
        # file's own iter().
        "import torch\ndef f(n, rows):\n    return torch.tensor([0.0] * n), torch.tensor(next(iter(rows)))\n",
        "import torch\nfrom torch.utils.data import DataLoader\ndef iter(loader):\n    return loader.dataset.names\n"
        "def peek(dataset):\n    images, labels = next(iter(DataLoader(dataset)))\n    return torch.tensor(labels)\n",
        # forward() of a class that is no torch module; a list attribute filled from outside:
        "import torch\nclass Net:\n    def forward(self, x):\n        return torch.relu(x)\n"
        "def predict(x):\n    model = Net()\n    return torch.tensor(model.forward(x).tolist()), torch.tensor(model(x))\n",
        "import torch\nclass Agent:\n    def __init__(self):\n        self.rewards = []\n"
        "    def act(self, r):\n        self.rewards.append(r)\n    def finish(self):\n        return torch.tensor(self.rewards)\n",
        "import torch\ndef f(model, loader):\n    accs = []\n    for x, y in loader:\n"
        "        accs.append((model(x).argmax(1) == y).float().mean().item())\n    return torch.tensor(accs)\n",
        "import torch\nfrom torch.distributions import Categorical\ndef act(probs):\n"
        "    action = Categorical(probs).sample().item()\n    return torch.LongTensor([action])\n",
        # A plain value goes in too: the list was meant for numbers.
        "import torch\ndef f(xs):\n    vals = []\n    for x in xs:\n        vals.append(x.item())\n"
        "        vals.append(torch.norm(x))\n    return torch.tensor(vals)\n",
        # A name bound to a number in one branch, or tested for its type: the list was meant
        # for numbers, or the test picks the path.
        "import torch\ndef f(full, n):\n    found = []\n    if full:\n        cur = torch.full((n,), 3)\n"
        "    else:\n        cur = 0\n    found.append(cur)\n    return torch.tensor(found)\n",
        "import numpy as np\nimport torch\ndef f(head, n):\n    found = []\n    cur = head[:n]\n"
        "    if isinstance(cur, np.ndarray):\n        cur = torch.full((n,), 3)\n    found.append(cur[0])\n"
        "    return torch.tensor(found)\n",
        # The name is bound to a tensor only after the list is filled (by the call itself).
        "import torch\ndef f(data, n):\n    vals = []\n    for i in range(n):\n        v = data[i]\n"
        "        vals.append(v)\n    v = torch.tensor(vals)\n    return v\n",
        # Rows converted to numbers first, or nothing says the loop variable is a tensor.
        "import torch\ndef f(pred):\n    for i, det in enumerate(pred):\n        classes = det[:, 5].unique()\n"
        "        for *xyxy, conf, cls in det.tolist():\n            box = torch.tensor(xyxy)\n",
        "import torch\ndef f(pred):\n    for i, det in enumerate(pred):\n        n = det[:, 5].sum()\n"
        "        for *xyxy, conf, cls in det:\n            box = torch.tensor(xyxy)\n",
        "import torch\ndef f(t: torch.Tensor, n):\n"
        "    return torch.tensor([t[i].item() for i in range(n)]), torch.tensor([i * 2 for i in range(n)])\n",
        # Code written before PyTorch 0.4 (``value.data[0]`` was a number): iterating a 1-d
        # tensor gave numbers.
        "import torch\ndef finish(values, rewards):\n    rewards = torch.Tensor(rewards)\n"
        "    for value, reward in zip(values, rewards):\n        diff = reward - value.data[0]\n"
        "        yield torch.Tensor([reward])\n",
        # A conversion of the attribute's own value (set by unpacking, which says nothing) says
        # nothing of what it held before; a type test says the attribute is no tensor here.
        "import torch\nclass Sampler:\n    def __init__(self, load):\n        (self.adj, self.features) = load()\n"
        "        self.features = torch.FloatTensor(self.features)\n",
        "import torch\nclass Region:\n    def __init__(self, anchors):\n        self.anchors = torch.FloatTensor(anchors)\n"
        "    def forward(self, x):\n        if not isinstance(self.anchors, torch.Tensor):\n"
        "            self.anchors = torch.FloatTensor(self.anchors)\n        return x\n",
        # Used as a tensor in one arm of an `if` only: the test tells what the parameter holds.
        "import torch\nclass Prior:\n    def record(self, usage, index=None):\n        if index is None:\n"
        "            self.counts = usage.log()\n        else:\n            self.counts[index] = torch.tensor(usage).log()\n",
        # One of the classes the name may hold gives no tensor, or one binding is no instance
        # of the file's classes: the classes do not agree.
        "import torch\nclass Actor:\n    def act(self, s):\n        return torch.tanh(s)\nclass Random:\n"
        "    def act(self, s):\n        return 0\ndef step(s, fast, load):\n    if fast:\n        agent = Actor()\n"
        "    else:\n        agent = Random()\n    other = Actor() if fast else load()\n"
        "    return torch.Tensor(agent.act(s)), torch.tensor(other.act(s))\n",
        # A lambda given what is not known to be a tensor, one that reads a name of the scope
        # it is defined in (``table`` there is not the caller's), and a comprehension's
        # variable that hides a lambda's name.
        "import torch\nnorm = lambda v: (v * v).sum()\nclass Table:\n    def __init__(self, table):\n"
        "        self.pick = lambda i: table[i]\n    def f(self, table: torch.Tensor, xs, fns):\n"
        "        return torch.tensor([norm(xs[0])]), torch.tensor([self.pick(0)]), "
        "torch.tensor([norm(table[0]) for norm in fns])\n",
    )

    def visit_Call(self, node: ast.Call) -> None:
        qualified = self.inference.qualify(node.func)
        data = first_argument(node, keyword="data")
        if data is None:
            return
        if qualified == "torch.tensor":
            if self.inference.is_tensor(data):
                self.report(node, fix=_copy_plan(node))
            elif _holds_tensor(self, data):
                self.report(node, "torch.tensor([...]) of tensors calls .item() per element and drops "
                            "autograd; use torch.stack([...])", fix=_stack_plan(self, node, data))
        elif qualified == "torch.Tensor" and self.inference.is_tensor(data):
            self.report(node, "torch.Tensor(t) does not copy: it aliases t (writes change t); "
                        "use t.detach().clone()", fix=_alias_plan(node))
        elif qualified in _LEGACY_CONSTRUCTORS and self.inference.is_tensor(data):
            short = qualified.partition(".")[2]
            self.report(node, f"torch.{short}(t) does not copy (it aliases t, or raises on a dtype "
                        "mismatch); use t.detach().clone().to(dtype)", fix=_alias_plan(node))
        elif (qualified == "torch.Tensor" or qualified in _LEGACY_CONSTRUCTORS) and _holds_tensor(self, data):
            short = qualified.partition(".")[2]
            self.report(node, f"torch.{short}([...]) of tensors calls .item() per element and drops autograd "
                        "(an integer type raises on float tensors); use torch.stack([...])")
        elif qualified is None and _is_new_tensor(node) and self.inference.is_tensor(data):
            self.report(node, "x.new_tensor(t) on a tensor warns and copies via a slow path; "
                        "use t.detach().clone().to(x)")


def _holds_tensor(rule: Rule, node: ast.expr, seen: frozenset[str] = frozenset()) -> bool:
    """A list or tuple display with a tensor in it (also nested: ``[[t]]``), a name bound
    to one (``mat = [[c, -s], [s, c]]``), or a list the file fills with tensors."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(
            rule.inference.is_tensor(value) or _holds_tensor(rule, value, seen)
            for value in map(unstarred, node.elts)
        )
    if isinstance(node, ast.Name) and node.id not in seen and (bound := rule.inference.binding(node.id)) is not None \
            and isinstance(bound.value, (ast.List, ast.Tuple)) and _holds_tensor(rule, bound.value, seen | {node.id}):
        return True
    return rule.inference.holds_tensors(node)


def _is_new_tensor(node: ast.Call) -> bool:
    called = method_call(node)
    return called is not None and called[1] == "new_tensor"


# The keywords of torch.tensor a fix maps; any other (pin_memory, **kwargs) means no fix.
_CONVERSIONS = ("dtype", "device")


def _keywords(node: ast.Call) -> dict[str, ast.expr] | None:
    """keyword -> value for ``torch.tensor(data, dtype=..., ...)`` with one data argument
    (positional or ``data=``) and no ``*args``/``**kwargs``; None otherwise."""
    if any(isinstance(arg, ast.Starred) for arg in node.args) or any(k.arg is None for k in node.keywords):
        return None
    if len(node.args) + sum(k.arg == "data" for k in node.keywords) != 1:
        return None
    return {k.arg: k.value for k in node.keywords if k.arg != "data"}


def _copy_plan(node: ast.Call) -> FixPlan | None:
    """``torch.tensor(t, dtype=d, device=v, requires_grad=r)`` ->
    ``t.detach().to(dtype=d, device=v, copy=True).requires_grad_(r)``.

    This is what torch itself does for a tensor argument (``internal_new_from_data``:
    ``t.detach().to(device, dtype, copy=True)``, device and dtype defaulting to t's), so
    without dtype/device it is ``t.detach().clone()``.
    """
    keywords = _keywords(node)
    if keywords is None or set(keywords) - {*_CONVERSIONS, "requires_grad"}:
        return None
    conversions = any(keyword in keywords for keyword in _CONVERSIONS)
    if conversions:
        description = "torch.tensor(t, ...) -> t.detach().to(..., copy=True)"
    else:
        description = "torch.tensor(t) -> t.detach().clone()"
    requires_grad = keywords.get("requires_grad")
    regrad = requires_grad is not None and not (isinstance(requires_grad, ast.Constant) and requires_grad.value is False)
    if regrad:
        description += ".requires_grad_(...)"
    return FixPlan(safe=True, description=description, build=_copy_fix, anchors=(node,),
                   data=(regrad, description))


def _copy_fix(site: FixSite) -> Fix:
    (node,), (regrad, description) = site.nodes, site.data
    data, keywords = _split_arguments(node)
    fixed = call_method(data.value, "detach")
    conversions = [arg for arg in node.args if arg.keyword is not None and arg.keyword.value in _CONVERSIONS]
    if conversions:
        copy = cst.Arg(keyword=cst.Name("copy"), value=cst.Name("True"),
                       equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        fixed = call_method(fixed, "to", [*conversions, copy])
    else:
        fixed = call_method(fixed, "clone")
    if regrad:  # requires_grad=r, unless r is False
        fixed = call_method(fixed, "requires_grad_", [cst.Arg(keywords["requires_grad"].value)])
    return Fix(replacements=((node, fixed.with_changes(lpar=node.lpar, rpar=node.rpar)),), safe=True,
               description=description)


def _split_arguments(node: cst.Call) -> tuple[cst.Arg, dict[str, cst.Arg]]:
    """(the data argument, keyword -> Arg) of a call whose plan saw one data argument and
    no ``*args``/``**kwargs`` (see ``_keywords``)."""
    data = next(arg for arg in node.args if arg.keyword is None or arg.keyword.value == "data")
    return data, {arg.keyword.value: arg for arg in node.args if arg.keyword is not None}


_ALIAS_DESCRIPTION = "torch.Tensor(t) -> t.detach().clone() (a copy instead of an alias)"


def _alias_plan(node: ast.Call) -> FixPlan | None:
    """``torch.Tensor(t)`` (an alias of t) -> ``t.detach().clone()`` (a copy): unsafe."""
    if len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
        return None
    return FixPlan(safe=False, description=_ALIAS_DESCRIPTION, build=_alias_fix, anchors=(node,))


def _alias_fix(site: FixSite) -> Fix:
    (node,) = site.nodes
    fixed = call_method(call_method(node.args[0].value, "detach"), "clone").with_changes(lpar=node.lpar, rpar=node.rpar)
    return Fix(replacements=((node, fixed),), safe=False, description=_ALIAS_DESCRIPTION)


_STACK_DESCRIPTION = "torch.tensor([t0, t1]) -> torch.stack([t0, t1]) (keeps the graph and the elements' device)"


def _stack_plan(rule: Rule, node: ast.Call, data: ast.expr) -> FixPlan | None:
    """``torch.tensor([a, b])`` -> ``torch.stack([a, b])`` when every element is a tensor;
    ``dtype``/``device`` become ``.to(...)``. Unsafe: the result now keeps the graph and
    the elements' device."""
    keywords = _keywords(node)
    if keywords is None or set(keywords) - set(_CONVERSIONS) or not isinstance(data, (ast.List, ast.Tuple)):
        return None  # a list filled elsewhere (``vals.append(t)``) may hold more than tensors
    if not data.elts or not all(
        not isinstance(element, ast.Starred) and rule.inference.is_tensor(element) for element in data.elts
    ):
        return None
    if isinstance(node.func, ast.Attribute):  # torch.tensor / th.tensor: keep the spelling
        name, needs_import = None, None
    else:  # from torch import tensor
        name, needs_import = module_reference(rule.context)
    return FixPlan(safe=False, description=_STACK_DESCRIPTION, build=_stack_fix, anchors=(node,),
                   data=(name, needs_import))


def _stack_fix(site: FixSite) -> Fix:
    (node,), (name, needs_import) = site.nodes, site.data
    if name is None:  # torch.tensor / th.tensor: keep the spelling
        stack = node.func.with_changes(attr=cst.Name("stack"))
    else:  # from torch import tensor
        stack = cst.Attribute(value=cst.Name(name), attr=cst.Name("stack"))
    data, _ = _split_arguments(node)
    elements = data.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT, comma=cst.MaybeSentinel.DEFAULT)
    fixed: cst.BaseExpression = cst.Call(func=stack, args=[elements])
    conversions = [arg for arg in node.args if arg.keyword is not None and arg.keyword.value in _CONVERSIONS]
    if conversions:
        fixed = call_method(fixed, "to", conversions)
    return Fix(replacements=((node, fixed.with_changes(lpar=node.lpar, rpar=node.rpar)),), safe=False,
               description=_STACK_DESCRIPTION, needs_import=needs_import)
