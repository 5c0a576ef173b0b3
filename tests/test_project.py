"""Evidence across the project: imported modules and the file's own callers.

Each kind of evidence has a flagged and a clean case, on real files on disk; the front
ends (flake8 on one file, on the tree with ``-j 1`` and ``-j 2``, the CLI with ``--jobs``)
agree on every file; cycles, unparsable, huge, symlinked and out-of-root modules are unknown,
never a crash.
"""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import every_rule
import pytest

from flake8_tensorcopy import engine
from flake8_tensorcopy.analysis import project
from flake8_tensorcopy.analysis.summary import ModuleSummary
from flake8_tensorcopy.analysis.lazy_bodies import UnparsedBody, parse_lazily, unread
from flake8_tensorcopy.rules import ALL_RULES

MODELS_NET = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.memory = torch.zeros(4)
        self.names = ["a", "b"]

    def forward(self, x):
        return self.fc(x).relu()

    def losses(self, x):
        return torch.mean(x), len(self.names)

    def describe(self):
        return "net"
"""

HELPERS = """\
import numpy as np
import torch

MEAN = torch.tensor([0.5, 0.5])
SIZES = [1, 2]


def make_batch(n):
    return torch.randn(n, 4)


def make_array(n):
    return np.zeros(n)
"""

# What the linted file does: each line's comment says what it must (not) be flagged as.
TRAIN = """\
import copy

import torch

import pkg.utils.helpers as h
from pkg.models import Net
from pkg.utils.helpers import MEAN, SIZES, make_array, make_batch
from .utils import helpers


def train():
    model = Net()
    batch = make_batch(8)
    a = torch.tensor(batch)  # TCP005: an imported function returns a tensor
    b = copy.deepcopy(model.memory)  # TCP003: an imported class keeps a tensor
    c = torch.tensor(MEAN)  # TCP005: a module-level tensor of another module
    d = torch.tensor(helpers.make_batch(3))  # TCP005: a relative import of the module
    loss, count = model.losses(batch)
    e = torch.tensor(loss)  # TCP005: a method's tuple, first position
    f = torch.tensor(count)  # clean: its second position is an int
    g = torch.tensor(model(batch))  # TCP005: calling an imported module runs its forward
    k = torch.tensor(h.make_batch(2))  # TCP005: import a.b as c
    clean = [
        torch.tensor(make_array(3)),  # clean: numpy
        torch.tensor(SIZES),  # clean: a list of ints
        copy.deepcopy(model.names),  # clean: a list of strings
        torch.tensor(model.describe()),  # clean: a string
    ]
    return a, b, c, d, e, f, g, k, clean
"""

SCRIPT_SIBLINGS = {  # a script run as `python scripts/run.py` imports its siblings
    "scripts/common.py": "import torch\n\n\ndef weights():\n    return torch.ones(3)\n",
    "scripts/run.py": "import copy\n\nfrom common import weights\n\nsaved = copy.deepcopy(weights())\n",
}
SRC_LAYOUT = {
    "src/lib/__init__.py": "",
    "src/lib/ops.py": "import torch\n\n\ndef scale(x):\n    return x * torch.ones(1)\n",
    "tools/use.py": "import torch\n\nfrom lib.ops import scale\n\nv = torch.tensor(scale(torch.zeros(2)))\n",
}

CALLERS = """\
import copy

import torch


def snapshot(t):
    return copy.deepcopy(t)  # TCP003: every call passes a tensor


def convert(x):
    return torch.tensor(x)  # TCP005: every call passes a tensor


def mixed(v):
    return torch.tensor(v)  # clean: one call passes a list of ints


def defaulted(v=None):
    return torch.tensor(v)  # clean: one call relies on the default


def escapes(v):
    return torch.tensor(v)  # clean: also passed as a callback


def starred(v):
    return torch.tensor(v)  # clean: called with *args


def decorated_call(v):
    return v


@decorated_call
def decorated(v):
    return torch.tensor(v)  # clean: decorated


class Stopper:
    def __init__(self, weights):
        self.kept = torch.tensor(weights)  # TCP005: the class is built with a tensor

    def step(self, model, value):
        self.best = copy.deepcopy(value)  # TCP003: self.step and stopper.step pass tensors

    def check(self, value):
        self.step(None, value * torch.ones(1))

    def update(self, value):
        return torch.tensor(value)  # clean: a receiver the file cannot tell calls update


def main(unknown):
    w = torch.randn(3)
    snapshot(w)
    convert(w)
    convert(torch.ones(2))
    mixed(w)
    mixed([1, 2])
    defaulted(w)
    defaulted()
    escapes(w)
    list(map(escapes, [w]))
    starred(w)
    starred(*[w])
    decorated(w)
    stopper = Stopper(w)
    stopper.step(None, w.sum())
    stopper.update(w)
    unknown.update(3)
    optimizer = torch.optim.SGD([w], lr=0.1)
    optimizer.step()  # not a call of Stopper.step: it cannot bind to (model, value)
"""


# A project's pyproject.toml with the opt-in rules on and nothing said of the project
# analysis: it is on by default.
ENABLED = "[project]\nname = 'demo'\n\n[tool.flake8-tensorcopy]\n" + every_rule.TABLE_KEYS


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def expected(text: str) -> list[tuple[int, str]]:
    """(line, code) of each line whose comment names a code."""
    return [
        (number, comment.split()[0].rstrip(":"))
        for number, line in enumerate(text.splitlines(), 1)
        if "# TCP" in line
        for comment in [line.split("# ", 1)[1]]
    ]


def found(path: Path) -> list[tuple[int, str]]:
    source = path.read_text()
    return sorted((f.line, f.code) for f in engine.lint_source(source, path=str(path), rules=ALL_RULES))


# Functions whose only callers are in other modules (the modules that import this one).
BOXES = """\
import torch


def crop(xyxy, im):
    return torch.tensor(xyxy)  # TCP005: every module's call passes a list of 0-d tensors


def first_images(images):
    return torch.FloatTensor(images)  # TCP005: a DataLoader's first batch, next(iter(loader))


def scale(x):
    return torch.tensor(x)  # clean: one module passes a list of numbers


def callback(x):
    return torch.tensor(x)  # clean: a module passes it as a value


def shadowed(x):
    return torch.tensor(x)  # clean: the call abroad goes to another module's function of that name


def unused(x):
    return torch.tensor(x)  # clean: no call anywhere


class Tracker:
    def __init__(self, boxes):
        self.boxes = torch.tensor(boxes)  # TCP005: every module builds it with rows of a tensor

    def update(self, det):
        return torch.tensor(det)  # clean: more than one class defines update (and libraries call it)
"""
DETECT = """\
import torch
from torch.utils.data import DataLoader

from pkg import boxes
from pkg.boxes import Tracker, callback, crop, scale


def shadowed(x):
    return x


def run(det: torch.Tensor, im, dataset):
    for *xyxy, conf, cls in det:
        crop(xyxy, im)
        boxes.crop(xyxy, im=None)
    scale(det)
    shadowed(det)
    images, labels = next(iter(DataLoader(dataset)))
    boxes.first_images(images)
    tracker = Tracker(list(det))
    tracker.update(det)
    return list(map(callback, [det]))
"""
OTHER_CALLERS = {
    "pkg/plain.py": "import torch\n\nfrom .boxes import *\nfrom .elsewhere import shadowed\n\n\n"
                    "def g(t):\n    scale([1.0, 2.0])\n    shadowed(torch.ones(2))\n    return callback(t.sum())\n",
    "pkg/elsewhere.py": "def shadowed(x):\n    return x\n",
    "pkg/stars.py": "import torch\nfrom pkg.boxes import *\n\n\ndef h(t: torch.Tensor):\n    return crop(list(t), None)\n",
}


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/models/__init__.py": "from .net import Net\n",
        "pkg/models/net.py": MODELS_NET,
        "pkg/utils/__init__.py": "",
        "pkg/utils/helpers.py": HELPERS,
        "pkg/train.py": TRAIN,
        "pkg/callers.py": CALLERS,
        "pkg/boxes.py": BOXES,
        "pkg/detect.py": DETECT,
        **OTHER_CALLERS,
        **SCRIPT_SIBLINGS,
        **SRC_LAYOUT,
    })
    return tmp_path


def test_imported_modules_are_evidence(tree: Path) -> None:
    assert found(tree / "pkg/train.py") == expected(TRAIN)


def test_the_file_alone_knows_none_of_it(tree: Path) -> None:
    """Without its path (stdin), the file is read alone: nothing imported is known."""
    assert engine.lint_source(TRAIN, rules=ALL_RULES) == []


@pytest.mark.slow
def test_project_false_reads_the_file_alone(tree: Path) -> None:
    """On by default; with ``project = false`` the file is read alone, in flake8 and the
    CLI alike; the CLI's configuration accepts the key."""
    (tree / "pyproject.toml").write_text("[tool.flake8-tensorcopy]\nproject = false\n")
    elsewhere = tree.parent / f"{tree.name}-off"
    tree.rename(elsewhere)  # a new root: what was found of the old one is not reused
    assert found(elsewhere / "pkg/train.py") == []
    # A method's callers are the file's own either way (an instance reaches modules that
    # never import its class): the file alone knows what ``Stopper.step`` is handed.
    method = [(n, code) for n, code in expected(CALLERS) if "self.best" in CALLERS.splitlines()[n - 1]]
    assert found(elsewhere / "pkg/callers.py") == method
    result = subprocess.run([sys.executable, "-m", "flake8_tensorcopy", "pkg/train.py"], cwd=elsewhere,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_scripts_import_their_siblings_and_src_layouts_resolve(tree: Path) -> None:
    assert found(tree / "scripts/run.py") == [(5, "TCP003")]
    assert found(tree / "tools/use.py") == [(5, "TCP005")]


def test_callers_in_the_file_are_evidence(tree: Path) -> None:
    assert found(tree / "pkg/callers.py") == expected(CALLERS)


def test_callers_in_other_modules_are_evidence(tree: Path) -> None:
    assert found(tree / "pkg/boxes.py") == expected(BOXES)


CROPS = "import torch\n\n\ndef crop(xyxy):\n    return torch.tensor(xyxy)\n"


def _crop_found(root: Path, callers: dict[str, str]) -> list[tuple[int, str]]:
    """The findings of ``lib/crops.py`` (CROPS) once ``callers`` are written beside it."""
    (root / "pyproject.toml").write_text(ENABLED)
    write(root, {"lib/__init__.py": "from .crops import crop\n", "lib/crops.py": CROPS, **callers})
    project.forget_files()  # files came and went: what this process knew of the project goes
    return found(root / "lib/crops.py")


QUIET_LEARNER = """\
import torch


class Learner:
    def __init__(self, net):
        self.net = net

    def __call__(self, x):
        self.net.eval()
        with torch.no_grad():
            return self.net(x)

    def predict(self, x):
        return self.net(x)
"""
EVALUATION = """\
import torch

from pkg.learner import Learner


def test(net, loader, loss_function):
    net.eval()
    model = Learner(net)
    losses = []
    for x, y in loader:
        prediction = model(x)
        losses.append(loss_function(prediction, y.to("cuda")))  # clean: Learner runs net under no_grad
    return torch.mean(torch.stack(losses))


def test_predict(net, loader, loss_function):
    net.eval()
    model = Learner(net)
    losses = []
    for x, y in loader:
        losses.append(loss_function(model.predict(x), y))  # TCP009: predict keeps the graph
    return torch.mean(torch.stack(losses))
"""


def test_an_evaluation_wrapper_of_another_module_makes_no_graph(tmp_path: Path) -> None:
    """A class of the project whose ``__call__`` runs the network under ``torch.no_grad()``:
    the losses of its outputs against the batch's labels hold no graph; its other method does."""
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    write(tmp_path, {"pkg/__init__.py": "", "pkg/learner.py": QUIET_LEARNER, "pkg/evaluation.py": EVALUATION})
    assert found(tmp_path / "pkg/evaluation.py") == expected(EVALUATION)


def test_a_caller_through_a_package_that_re_exports_is_seen(tmp_path: Path) -> None:
    direct = {"a.py": "import torch\nfrom lib.crops import crop\n\ncrop(torch.ones(2))\n"}
    # b.py's call may be of lib/crops.py's function: unknown
    assert _crop_found(tmp_path, {**direct, "b.py": "from lib import crop\n\ncrop([1, 2])\n"}) == []
    (tmp_path / "b.py").unlink()
    assert _crop_found(tmp_path, direct) == [(5, "TCP005")]


def test_a_subclass_or_a_function_read_as_an_attribute_elsewhere_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    lib = ("import torch\n\n\nclass Box:\n    def __init__(self, x):\n        self.x = torch.tensor(x)  # TCP005\n\n\n"
           "def crop(x):\n    return torch.tensor(x)  # TCP005\n")
    write(tmp_path, {"lib.py": lib, "a.py": "import torch\nimport lib\n\nlib.Box(torch.ones(2))\nlib.crop(torch.ones(2))\n"})
    assert found(tmp_path / "lib.py") == expected(lib)
    write(tmp_path, {"b.py": "import lib\n\n\nclass Wide(lib.Box):\n    pass\n\n\nWide([1, 2])\nHOOKS = [lib.crop]\n"})
    project.forget_files()
    assert found(tmp_path / "lib.py") == []


# A method called only from modules that never import its class: the model is handed to
# the trainer, which calls it. Its callers are found by the method's name.
LEARNER = """\
import torch
from torch import nn


class Learner(nn.Module):
    def run_iter(self, batch, epoch):
        images, labels = batch
        return torch.Tensor(images), torch.LongTensor(labels)  # TCP005: every caller passes a DataLoader's batch

    def eval_iter(self, batch):
        images, labels = batch
        return torch.Tensor(images)  # clean: another module also passes pairs of lists

    def hooked_iter(self, x):
        return torch.tensor(x)  # clean: a module reads it as a value (a callback)

    def shared_iter(self, x):
        return torch.tensor(x)  # clean: another class defines a method of that name too
"""
PROVIDER = """\
from torch.utils.data import DataLoader


class Provider:
    def __init__(self, dataset):
        self.dataset = dataset

    def batches(self):
        for batch in DataLoader(self.dataset, batch_size=8):
            yield batch
"""
BUILDER = """\
import torch


class Builder:
    def __init__(self, model, data, dataset):
        self.model = model
        self.data = data(dataset)  # the class is handed in, and built here

    def train(self, rows: torch.Tensor):
        for epoch, batch in enumerate(self.data.batches()):
            self.model.run_iter(batch=batch, epoch=epoch)
            self.model.eval_iter(batch)
            self.model.shared_iter(rows)
        self.model.hooked_iter(rows)
        return [self.model.hooked_iter]
"""
RUN = """\
from pkg.builder import Builder
from pkg.learner import Learner
from pkg.provider import Provider

data = Provider
Builder(Learner(), data, dataset=None).train(None)
"""
REPORT = """\
class Report:
    def shared_iter(self, x):
        return x


def check(model):
    return model.eval_iter(([0.5], [1]))
"""


def test_a_method_called_from_modules_that_never_import_its_class(tmp_path: Path) -> None:
    """The only method of its name in the project: each ``x.name(...)`` of the other modules
    is a call of it; a name two classes define, a call that passes something else, or a
    read of the method as a value leaves what it is passed unknown."""
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    files = {"pkg/__init__.py": "", "pkg/learner.py": LEARNER, "pkg/provider.py": PROVIDER,
             "pkg/builder.py": BUILDER, "pkg/report.py": REPORT, "run.py": RUN}
    write(tmp_path, files)
    project.forget_files()
    assert sorted(set(found(tmp_path / "pkg/learner.py"))) == expected(LEARNER)
    # the only other caller goes: what the first passes is all there is, and it is a batch too
    write(tmp_path, {"pkg/report.py": REPORT.replace("model.eval_iter", "model.describe")})
    project.forget_files()
    assert sorted(set(found(tmp_path / "pkg/learner.py"))) == sorted([*expected(LEARNER), (12, "TCP005")])
    # the method's name in a string (``getattr(model, "run_iter")``): a call may go unseen
    write(tmp_path, {"pkg/report.py": REPORT + '\n\ndef step(model, batch):\n    return getattr(model, "run_iter")(batch, 0)\n'})
    project.forget_files()
    assert (8, "TCP005") not in found(tmp_path / "pkg/learner.py")


def test_a_method_that_libraries_call_keeps_the_file_s_own_callers(tmp_path: Path) -> None:
    """``forward`` (and ``step``, ``update``...) are called by libraries on the objects they
    are handed: the calls spelled in the project are not all of them."""
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    model = ("import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
             "        return torch.tensor(x)\n")
    write(tmp_path, {"model.py": model, "use.py": "import torch\n\n\ndef go(net):\n    return net.forward(torch.ones(2))\n"})
    project.forget_files()
    assert found(tmp_path / "model.py") == []


def _notebook(*sources: str) -> str:
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{n}", "metadata": {}, "outputs": [],
              "source": source.splitlines(keepends=True)} for n, source in enumerate(sources)]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1)


def test_a_notebook_that_calls_the_function_is_a_caller(tmp_path: Path) -> None:
    numbers = _notebook("import torch\nfrom lib.crops import crop", "%matplotlib inline\ncrop([0, 0, 2, 2])")
    assert _crop_found(tmp_path, {"explore.ipynb": numbers}) == []
    rows = _notebook("import torch\nfrom lib.crops import crop", "det = torch.rand(3, 6)\nfor *xyxy, conf, cls in det:\n    crop(xyxy)")
    assert _crop_found(tmp_path, {"explore.ipynb": rows}) == [(5, "TCP005")]


@pytest.mark.slow
def test_a_new_caller_elsewhere_is_read(tree: Path) -> None:
    """A module that starts to import and call the function changes what it is passed, in
    a new flake8 run that finds the disk cache of the last one."""
    def crop_flagged() -> bool:
        output = _run(sys.executable, "-m", "flake8", "--select", "TCP", "pkg/boxes.py", cwd=tree)
        return "pkg/boxes.py:5:" in output

    assert crop_flagged()
    (tree / "pkg/late.py").write_text("from pkg.boxes import crop\n\ncrop([0, 0, 4, 4], None)\n")
    assert not crop_flagged()
    (tree / "pkg/late.py").write_text("from pkg.boxes import crop\n\nHANDLERS = [crop]\n")
    assert not crop_flagged()  # passed around as a value: its calls are unknown
    (tree / "pkg/late.py").unlink()
    assert crop_flagged()


def test_a_module_that_changes_is_read_again(tree: Path) -> None:
    helpers = tree / "pkg/utils/helpers.py"
    assert (14, "TCP005") in found(tree / "pkg/train.py")
    helpers.write_text(HELPERS.replace("return torch.randn(n, 4)", "return [0.0] * n  # now a list"))
    stat = helpers.stat()
    os.utime(helpers, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a coarse clock still sees it
    assert (14, "TCP005") not in found(tree / "pkg/train.py")


def test_root_is_the_nearest_marker(tmp_path: Path) -> None:
    (tmp_path / "repo/.git").mkdir(parents=True)
    (tmp_path / "repo/a/b").mkdir(parents=True)
    assert project.find_root(str(tmp_path / "repo/a/b/c.py")) == str(tmp_path / "repo")
    assert project.find_root(str(tmp_path / "loose.py")) in (str(tmp_path), project.find_root(str(tmp_path)))


HOSTILE_USER = """\
import torch

from cyc_a import from_a
from broken import nothing
from huge import big
from loop.mod import looped
from deep0 import chain

x = torch.tensor(from_a())
y = torch.tensor(nothing())
z = torch.tensor(big())
w = torch.tensor(looped())
v = torch.tensor(chain())
"""


def test_hostile_projects_are_unknown_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    write(tmp_path, {
        "cyc_a.py": "from cyc_b import from_b\n\n\ndef from_a():\n    return from_b()\n",
        "cyc_b.py": "from cyc_a import from_a\n\n\ndef from_b():\n    return from_a()\n",
        "broken.py": "def nothing(:\n",
        "huge.py": "import torch\n\n\ndef big():\n    return torch.ones(1)\n" + "#" * project.MAX_MODULE_BYTES,
        "user.py": HOSTILE_USER,
    })
    # A chain of modules deeper than a question may follow: unknown, not a stack overflow.
    depth = project.MAX_HOPS + 3
    for level in range(depth):
        body = (f"from deep{level + 1} import chain\n" if level + 1 < depth else "import torch\n\n\n")
        body += "def chain():\n    return " + ("chain()\n" if level + 1 < depth else "torch.ones(1)\n")
        (tmp_path / f"deep{level}.py").write_text(body)
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop/inner").symlink_to(tmp_path / "loop")  # a symlink loop under the root
    (tmp_path / "loop/mod.py").symlink_to(tmp_path.parent / "outside.py")  # a module outside the root
    (tmp_path.parent / "outside.py").write_text("import torch\n\n\ndef looped():\n    return torch.ones(1)\n")
    assert found(tmp_path / "user.py") == []


def _chain_of_three(tmp_path: Path) -> Path:
    """use.py's tensor comes through m0 -> m1 -> m2: three answers worked out elsewhere."""
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    for level in range(3):
        body = f"from m{level + 1} import chain\n" if level < 2 else "import torch\n\n\n"
        body += "def chain():\n    return " + ("chain()\n" if level < 2 else "torch.ones(1)\n")
        (tmp_path / f"m{level}.py").write_text(body)
    (tmp_path / "use.py").write_text("import torch\n\nfrom m0 import chain\n\nv = torch.tensor(chain())\n")
    return tmp_path / "use.py"


def test_a_short_chain_is_followed(tmp_path: Path) -> None:
    use = _chain_of_three(tmp_path)
    assert found(use) == [(5, "TCP005")]


def test_a_file_whose_questions_outgrow_the_budget_gets_unknown(tmp_path: Path, monkeypatch) -> None:
    """Within the hops, answers that each ask more can grow past any wait (modules that pass
    values round in a circle): past a file's budget of questions worked out, the rest are
    unknown, never flagged, and not kept, so that a file with budget left still knows."""
    use = _chain_of_three(tmp_path)
    monkeypatch.setattr(project, "MAX_WORK_PER_FILE", 2)  # the chain needs three
    assert found(use) == []
    monkeypatch.setattr(project, "MAX_WORK_PER_FILE", 3)
    assert found(use) == [(5, "TCP005")]


@pytest.mark.slow
def test_what_the_cache_lets_go_is_freed(tmp_path: Path) -> None:
    """Modules that each import the next, more of them than the cache keeps: once the lint
    is over, no more summaries are alive than the cache holds (an importer once kept every
    module it had read alive, past the cache's bounds)."""
    import gc

    (tmp_path / "pyproject.toml").write_text(ENABLED)
    length = project.CACHED_MODULES * 2
    for level in range(length):
        body = f"from m{level + 1} import chain\n" if level < length - 1 else "import torch\n"
        body += "\n\ndef chain():\n    return " + ("chain()\n" if level < length - 1 else "torch.ones(1)\n")
        (tmp_path / f"m{level}.py").write_text(body)
    # Every module read, a hop chain at a time, from the far end: the newest summaries
    # import the older ones, which the cache lets go.
    for level in reversed(range(0, length, project.MAX_HOPS - 1)):
        (tmp_path / f"use{level}.py").write_text(f"import torch\n\nfrom m{level} import chain\n\nv = torch.tensor(chain())\n")
        found(tmp_path / f"use{level}.py")
    gc.collect()
    # type(), not isinstance(): that would ask every object its __class__ (torch warns for some)
    alive = [o for o in gc.get_objects() if type(o) is ModuleSummary and o.path.startswith(str(tmp_path.resolve()))]
    assert 0 < len(alive) <= project.CACHED_MODULES


def test_a_summary_let_go_while_it_answers_is_freed_with_its_question(tmp_path: Path) -> None:
    """A module's answer reads another module, which lets the first go from the summaries'
    cache while it is still answering; the facts it makes after that point back at it.
    Once its question is answered it forgets them, so that reference counting frees it.
    Left to the cycle collector (paused while a file is analysed) such trees piled up:
    100 MiB more peak memory on one file of StudioGAN, whose module is asked of its callers."""
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    padding = "".join(f"def helper{i}(x):\n    return x + {i}\n\n\n" for i in range(project.CACHED_CHARACTERS // 30))
    (tmp_path / "first.py").write_text("import torch\n\n\n" + padding)
    (tmp_path / "second.py").write_text("import torch\n\n\n" + padding)
    asker = tmp_path / "use.py"
    asker.write_text("import first\n")
    located = project.locate(str(asker))
    assert located is not None
    work, _ = located
    summary = ModuleSummary.of(ast.parse(asker.read_text()), asker.read_text(), str(asker.resolve()))
    first, second = (str((tmp_path / name).resolve()) for name in ("first.py", "second.py"))
    answered = []

    def answer(home: ModuleSummary) -> None:
        work.summary(second, summarise=ModuleSummary.of)  # the cache lets ``home`` go
        assert project._SUMMARIES.peek((work.root, first)) is None
        home.scope("")  # facts made after: they refer back to it
        answered.append(home)

    work.ask(summary, first, ("a question",), answer)
    assert answered and not answered[0]._facts  # forgotten: nothing refers back to it


@pytest.mark.slow
def test_a_module_larger_than_the_cache_is_freed_once_answered(tmp_path: Path) -> None:
    """A module whose top level alone is more text than the summaries' cache holds serves
    its question and goes with its tree at once, by reference counting: not kept as the
    cache's newest entry, and not left to the cycle collector (its facts point back at it),
    which runs rarely and would leave the tree under the next files' peak."""
    import gc

    (tmp_path / "pyproject.toml").write_text(ENABLED)
    padding = "".join(f"setting{i} = {i}\n" for i in range(project.CACHED_CHARACTERS // 12))
    (tmp_path / "big.py").write_text("import torch\n\n\n" + padding + "\n\ndef make():\n    return torch.ones(1)\n")
    assert (tmp_path / "big.py").stat().st_size > project.CACHED_CHARACTERS
    user = tmp_path / "use.py"
    user.write_text("import torch\n\nfrom big import make\n\nv = torch.tensor(make())  # TCP005\n")
    gc.collect()
    gc.disable()  # what is still tracked now was not freed by reference counting
    try:
        assert found(user) == expected(user.read_text())
        big = str((tmp_path / "big.py").resolve())
        assert not [o for o in gc.get_objects() if type(o) is ModuleSummary and o.path == big]
    finally:
        gc.enable()


def test_an_imported_module_is_parsed_only_where_its_answers_read(tmp_path: Path) -> None:
    """Of an imported module, the top level is parsed, and the body of each function only
    when an answer reads it: the callers of ``make`` read ``make``, not the other helpers; a
    body that does not parse (Python 2) makes unknown what reads it, and nothing else."""
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    helpers = "".join(f"def helper{i}(x):\n    return x + {i}\n\n\n" for i in range(50))
    old = "def legacy(x):\n    print 'tensor', x\n    return torch.ones(1)\n\n\n"
    (tmp_path / "tools.py").write_text(
        "import torch\n\n\n" + helpers + old + "def make():\n    return torch.ones(1)\n"
    )
    user = tmp_path / "use.py"
    user.write_text(
        "import torch\n\nfrom tools import legacy, make\n\n"
        "v = torch.tensor(make())  # TCP005\nw = torch.tensor(legacy(1))\n"
    )
    assert found(user) == expected(user.read_text())
    located = project.locate(str(user))
    assert located is not None
    work, _ = located
    tools = str((tmp_path / "tools.py").resolve())
    held = project._SUMMARIES.peek((work.root, tools))
    assert held is not None
    bodies = {statement.name: statement.body for statement in held[1].tree.body if isinstance(statement, ast.FunctionDef)}
    assert [name for name, body in bodies.items() if not unread(body)] == ["make"]
    with pytest.raises(UnparsedBody):  # read, and found not to parse
        list(bodies["legacy"])
    assert held[2].characters < len((tmp_path / "tools.py").read_text())


def test_flake8_and_the_cli_let_go_of_other_modules_summaries_after_each_file(tmp_path: Path, capsys) -> None:
    """A run over many files keeps no other module's summary from one file to the next: its
    tree would sit in the collector's oldest generation, walked by each of flake8's full
    collections, for a later file that seldom asks again. The engine alone (the language
    server's) keeps them for the next lint."""
    from flake8_tensorcopy import cli
    from flake8_tensorcopy._triggers import RULE_TRIGGERS
    from flake8_tensorcopy.plugin import TensorCopyChecker

    (tmp_path / "pyproject.toml").write_text(ENABLED)
    (tmp_path / "tools.py").write_text("import torch\n\n\ndef make():\n    return torch.ones(1)\n")
    user = tmp_path / "use.py"
    user.write_text("import torch\n\nfrom tools import make\n\nv = torch.tensor(make())  # TCP005\n")
    located = project.locate(str(user))
    assert located is not None
    key = (located[0].root, str((tmp_path / "tools.py").resolve()))

    assert found(user) == expected(user.read_text())
    assert project._SUMMARIES.peek(key) is not None  # kept by the engine alone

    checker = TensorCopyChecker(ast.parse(user.read_text()), user.read_text().splitlines(True), str(user))
    checker.settings = None  # TCP005 (opt-in) alone, whatever an earlier test's options left on the class
    checker.triggers = tuple(spec for spec in RULE_TRIGGERS if spec.code == "TCP005")
    assert [(line, message.split()[0]) for line, _, message, _ in checker.run()] == expected(user.read_text())
    assert project._SUMMARIES.peek(key) is None

    assert found(user) == expected(user.read_text())  # made again when asked again
    assert cli.main(["--select", "TCP005", str(user)]) == 1
    assert "use.py:5:" in capsys.readouterr().out
    assert project._SUMMARIES.peek(key) is None


# -- one answer from every front end ------------------------------------------------
def _reported(output: str, root: Path) -> list[str]:
    lines = []
    for line in output.splitlines():
        path, row, column, rest = line.split(":", 3)
        relative = os.path.relpath(os.path.join(root, path), root) if not os.path.isabs(path) else os.path.relpath(path, root)
        lines.append(f"{relative}:{row}:{column}:{rest.split()[0]}")
    return sorted(lines)


@pytest.mark.slow
def test_a_run_can_read_each_file_alone(tree: Path) -> None:
    """The project analysis is on by default; one run of flake8 or of the command can read
    each file alone, as ``project = false`` does, workers included."""
    python = sys.executable
    assert _reported(_run(python, "-m", "flake8", "--select", "TCP", "pkg/train.py", cwd=tree), tree)
    for command in (
        [python, "-m", "flake8", "--select", "TCP", "--tensorcopy-no-project", "pkg/train.py"],
        [python, "-m", "flake8", "--select", "TCP", "--tensorcopy-no-project", "-j", "2", "pkg"],
        [python, "-m", "flake8_tensorcopy", "--no-project", "pkg/train.py"],
    ):
        reported = _reported(_run(*command, cwd=tree), tree)
        assert not [line for line in reported if line.startswith("pkg/train.py")], command


def _run(*command: str, cwd: Path) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


@pytest.mark.slow
def test_every_front_end_gives_the_same_findings(tree: Path) -> None:
    python = sys.executable
    files = ["pkg/train.py", "pkg/callers.py", "pkg/boxes.py", "scripts/run.py", "tools/use.py"]
    one_by_one = sorted(
        line
        for name in files
        for line in _reported(_run(python, "-m", "flake8", "--select", "TCP", name, cwd=tree), tree)
    )
    assert len(one_by_one) == sum(len(expected(t)) for t in (TRAIN, CALLERS, BOXES)) + 2
    for command in (
        [python, "-m", "flake8", "--select", "TCP", "-j", "1", "."],
        [python, "-m", "flake8", "--select", "TCP", "-j", "2", "."],
        [python, "-m", "flake8_tensorcopy", "--jobs", "2", "."],
        [python, "-m", "flake8_tensorcopy", "--jobs", "1", str(tree)],
    ):
        assert _reported(_run(*command, cwd=tree), tree) == one_by_one, command
    # From another folder, the file's project is still found from the file itself.
    elsewhere = _reported(_run(python, "-m", "flake8", "--select", "TCP", str(tree / "pkg/train.py"), cwd=tree.parent), tree)
    assert elsewhere == [line for line in one_by_one if line.startswith("pkg/train.py")]


@pytest.mark.slow
def test_with_no_configuration_every_front_end_follows_values_across_modules(tmp_path: Path) -> None:
    """No ``[tool.flake8-tensorcopy]`` anywhere: the default rules still know what another
    module returns and stores, and flake8 on one file, on the tree with ``-j 2``, on stdin
    with the file's name, and the command all say the same."""
    write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'demo'\n",
        "data/__init__.py": "",
        "data/batches.py": "import torch\n\n\ndef make_batch(n):\n    return torch.randn(n, 3)\n",
        "models/__init__.py": "from .net import Net\n",
        "models/net.py": "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n"
                         "        super().__init__()\n        self.anchors = torch.zeros(4)\n",
        "train.py": "import copy\n\nfrom data.batches import make_batch\nfrom models import Net\n\n\n"
                    "def train():\n    batch = make_batch(8)\n    kept = copy.deepcopy(batch)\n"
                    "    net = Net()\n    anchors = copy.deepcopy(net.anchors)\n    model = copy.deepcopy(net)\n"
                    "    return kept, anchors, model\n",
    })
    python = sys.executable
    alone = _reported(_run(python, "-m", "flake8", "--select", "TCP", "train.py", cwd=tmp_path), tmp_path)
    assert alone == ["train.py:11:15:TCP003", "train.py:9:12:TCP003"]  # not the model: a module is no tensor
    for command in (
        [python, "-m", "flake8", "--select", "TCP", "-j", "2", "."],
        [python, "-m", "flake8_tensorcopy", "--jobs", "2", "."],
        [python, "-m", "flake8_tensorcopy", "train.py"],
    ):
        assert _reported(_run(*command, cwd=tmp_path), tmp_path) == alone, command
    text = (tmp_path / "train.py").read_text()
    piped = subprocess.run([python, "-m", "flake8", "--select", "TCP", "--stdin-display-name", "train.py", "-"],
                           cwd=tmp_path, input=text, capture_output=True, text=True, timeout=300)
    assert _reported(piped.stdout, tmp_path) == alone


@pytest.mark.slow
def test_stdin_with_a_display_name_reads_the_project(tree: Path) -> None:
    """pre-commit and editors lint through stdin with the file's name: the same findings."""
    text = (tree / "pkg/train.py").read_text()
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "TCP", "--stdin-display-name", "pkg/train.py", "-"],
        cwd=tree, input=text, capture_output=True, text=True, timeout=300,
    )
    assert len(result.stdout.splitlines()) == len(expected(TRAIN))


STAR_LOADERS = """\
import torch
from torch.utils.data import DataLoader

__all__ = ["get_loader", "torch", "CONSTANT"]
CONSTANT = torch.ones(2)
_PRIVATE = torch.ones(2)
HIDDEN = torch.ones(2)


def get_loader(dataset):
    return DataLoader(dataset, batch_size=4)
"""
STAR_USER = """\
from data.loaders import *
from .cycle_a import *


def run(dataset):
    for images, labels in get_loader(dataset):
        kept = torch.LongTensor(labels)  # TCP005: torch and get_loader both come from the star import
    a = torch.tensor(CONSTANT)  # TCP005: named in __all__
    return kept, a, torch.tensor(HIDDEN), from_cycle()  # clean: HIDDEN is not in __all__
"""


def test_star_imports_bring_the_module_names(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    write(tmp_path, {
        "data/__init__.py": "",
        "data/loaders.py": STAR_LOADERS,
        "app/__init__.py": "",
        "app/cycle_a.py": "from .cycle_b import *\n\n\ndef from_cycle():\n    return 1\n",
        "app/cycle_b.py": "from .cycle_a import *\n",  # a cycle of star imports: read once each
        "app/user.py": STAR_USER,
    })
    assert found(tmp_path / "app/user.py") == expected(STAR_USER)


STAR_HELPERS = '''\
import torch as th


def make():
    import numpy as np  # the function's own: not a name of the module
    return th.zeros(1), np


ROWS = th.ones(2)
'''
# An f-string's field at column 0 hides where a body ends: the module is read whole.
STAR_ODD = '''\
import torch as tt


def text(name):
    return f"""
{name}
"""


COLUMNS = tt.ones(2)
'''


def test_star_imports_read_the_top_level_only(tmp_path: Path) -> None:
    """``from m import *`` binds m's top-level names and imports, not those of its functions,
    read from m's top level alone (or all of m where its text hides a body's end)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    user = "from helpers import *\nfrom odd import *\n\nmade = th.tensor(ROWS)  # TCP005\nt = tt.tensor(COLUMNS)  # TCP005\n"
    write(tmp_path, {"helpers.py": STAR_HELPERS, "odd.py": STAR_ODD, "user.py": user})
    with pytest.raises(SyntaxError):
        parse_lazily(STAR_ODD)
    summary = ModuleSummary.of(ast.parse(user), user, str(tmp_path / "user.py"))
    assert {name: summary.imports.aliases.get(name) for name in ("th", "tt", "np", "ROWS", "make")} == {
        "th": "torch", "tt": "torch", "np": None, "ROWS": "helpers.ROWS", "make": "helpers.make",
    }
    assert found(tmp_path / "user.py") == expected(user)


@pytest.mark.slow
def test_the_cli_fixes_what_project_evidence_finds(tree: Path) -> None:
    """A finding made with another module's evidence gets its fix, applied on disk."""
    train = tree / "pkg/train.py"
    result = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "--fix", "--unsafe-fixes", str(train)],
        cwd=tree, capture_output=True, text=True, timeout=300,
    )
    fixed = train.read_text()
    assert "b = model.memory.detach().clone()" in fixed, result.stdout + result.stderr
    assert "a = batch.detach().clone()" in fixed
    assert found(train) == []


LEGACY_AND_NARROWED = """\
import torch


def plot(loc):
    return torch.Tensor([loc, 2 * loc])  # clean: loss.data[0] was a number before PyTorch 0.4


def labels_of(y):
    return torch.LongTensor([y]) if type(y) == int else y  # clean: only an int gets here


def rows_of(y):
    return torch.tensor(y)  # TCP005: every call passes a tensor


def run(loss, x: torch.Tensor):
    plot(loss.data[0])
    labels_of(x)
    rows_of(x)
"""


def test_callers_old_api_scalars_and_type_tests(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    (tmp_path / "legacy.py").write_text(LEGACY_AND_NARROWED)
    assert found(tmp_path / "legacy.py") == expected(LEGACY_AND_NARROWED)


MODULE_MOVES = """\
import copy

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.memory = torch.zeros(3)


class Plain:
    def __init__(self):
        self.memory = torch.zeros(3)

    def to(self, device):
        return device


def run(device):
    net = Net().to(device).train()
    plain = Plain().to(device)
    return copy.deepcopy(net.memory), copy.deepcopy(plain.memory)  # TCP003: net's (Plain.to returns its argument)
"""


def test_module_methods_return_the_module(tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    (tmp_path / "moves.py").write_text(MODULE_MOVES)
    assert found(tmp_path / "moves.py") == expected(MODULE_MOVES)


def test_in_place_collectives_are_torch_functions() -> None:
    torch = pytest.importorskip(
        "torch", reason="needs the pinned torch (the test extra installs no torch on Python 3.12+)")
    from flake8_tensorcopy.analysis.vocabulary import IN_PLACE_COLLECTIVES

    for qualified in IN_PLACE_COLLECTIVES:
        assert callable(getattr(torch.distributed, qualified.rpartition(".")[2])), qualified


CALLER_DROPS = """\
class Agent:
    def act(self, obs):
        pi = self.actor(obs)
        return self.noisy(pi)

    def noisy(self, pi):
        action = pi.cpu().numpy()
        action += 0.1
        return action

    def kept(self, obs):
        q = self.critic(obs)
        self.shift(q)
        return q

    def shift(self, q):
        values = q.cpu().numpy()
        values -= 1  # TCP010: the caller returns q

    def flat(self):
        self.scale(self.buffer.view(-1))

    def scale(self, t):
        a = t.numpy()
        a *= 2  # TCP010: a view of the caller's buffer
"""


def test_a_write_into_what_every_caller_drops_changes_no_one_s_tensor(tmp_path: Path) -> None:
    """TCP010: ``noisy`` writes through its parameter's array, but its only caller passes a
    model's output that it never reads again; ``shift``'s caller returns the tensor, and
    ``scale``'s passes a view of its own."""
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    (tmp_path / "agent.py").write_text(CALLER_DROPS)
    (rule,) = [rule for rule in ALL_RULES if rule.code == "TCP010"]
    findings = engine.lint_source(CALLER_DROPS, path=str(tmp_path / "agent.py"), rules=[rule])
    assert sorted((f.line, f.code) for f in findings) == expected(CALLER_DROPS)


def test_a_trigger_named_only_through_a_star_import_is_found(tmp_path: Path) -> None:
    """A file whose text never spells ``deepcopy`` may still call it, by a name that
    ``from m import *`` brings from the project: the text alone cannot rule such a file
    out, in flake8 or in the engine."""
    (tmp_path / "pyproject.toml").write_text(ENABLED)
    use = "import torch\n\nfrom pkg.tools import *\n\nweights = torch.ones(2)\nkept = dup(weights)  # TCP003\n"
    write(tmp_path, {"pkg/__init__.py": "", "pkg/tools.py": "from copy import deepcopy as dup\n", "pkg/use.py": use})
    project.forget_files()
    assert found(tmp_path / "pkg/use.py") == expected(use)
    output = _run(sys.executable, "-m", "flake8", "--select", "TCP003", "pkg/use.py", cwd=tmp_path)
    assert "pkg/use.py:6:8: TCP003" in output
