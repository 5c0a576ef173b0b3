"""The language server's reuse of unchanged chunks' findings between edits (``server/reuse.py``)
never changes what is found: a real-size training file is edited step by step, edits that
change what the file says about its values included (a helper's return, a module-level
name, an attribute, the imports, a snapshot loaded back elsewhere), and at every step the
findings with reuse are those of a fresh lint, to the position, message and fix."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import libcst as cst
import pytest

from flake8_tensorcopy import engine
from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy.server.reuse import ChunkReuse

pytestmark = pytest.mark.slow

HEAD = '''"""Training loops for the experiments: models, steps, snapshots and evaluation."""
import copy
from collections import namedtuple

import torch
import torch.nn as nn

BASE = [0.0, 1.0]


def make_batch(n):
    return [0.0] * n


def prepare(n):
    batch = make_batch(n)
    return torch.tensor(batch)


def from_base():
    return torch.tensor(BASE)


def shrink(p, lr):
    p.data.mul_(1 - lr)


def init_weight(w):
    nn.init.orthogonal_(w)


def reset(m):
    init_weight(m.weight.data)


def norms(t: torch.Tensor):
    out = []
    for row in t:
        out.append(row.norm())
    return torch.tensor(out)
'''

BLOCK = '''

class Trainer{i}(nn.Module):
    """Trainer number {i}."""

    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.buffer = [0.0]
        self.best = None
        self.history = []

    def forward(self, x):
        return (self.weight * x).sum()

    def step(self, x, lr):
        loss = self.forward(x)
        loss.backward()
        self.weight.data.add_(-lr * self.weight.grad)
        return loss

    def snapshot(self):
        frozen = self.weight.clone().detach()
        self.best = self.state_dict()
        return frozen

    def read(self):
        return torch.tensor(self.buffer)

    def fit(self, loader, epochs, optimizer):
        total = 0
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                loss = ((self.forward(x) - y) ** 2).mean()
                loss.backward()
                optimizer.step()
                total += loss
                self.history.append(loss)
        return total


def evaluate{i}(model, batches):
    best_loss, best_state = float("inf"), None
    for x in batches:
        val = model(x)
        if val < best_loss:
            best_loss, best_state = val, model.state_dict()
    model.load_state_dict(best_state)
    return best_loss


def copies{i}(t: torch.Tensor):
    d = t.detach()
    d.zero_()
    t[t > 0].zero_()
    kept = copy.deepcopy(t)
    return kept, torch.Tensor(t)


def plain{i}(values):
    out = []
    for v in values:
        out.append(v * 2)
    return sum(out) / len(out)
'''

TRAINING = HEAD + "".join(BLOCK.format(i=i) for i in range(12))  # 820 lines, 111 findings of all 8 rules


def replace(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text
        return text.replace(old, new, 1)

    return edit


def delete(start: str, end: str) -> Callable[[str], str]:
    return lambda text: text[: text.index(start)] + text[text.index(end):]


# (what the edit does, the edit, how the findings' codes change, whether chunks are reused)
EDITS = [
    ("a statement typed into a method: every function below moves down",
     replace("        frozen = self.weight.clone().detach()\n", "        frozen = self.weight.clone().detach()\n        n = 1\n"),
     {}, True),
    ("the helper returns a tensor: a TCP005 in prepare(), unchanged",
     replace("    return [0.0] * n\n", "    return torch.zeros(n)\n"), {"TCP005": +1}, True),
    ("a module-level name becomes a tensor: a TCP005 in from_base(), unchanged",
     replace("BASE = [0.0, 1.0]", "BASE = torch.zeros(2)"), {"TCP005": +1}, True),
    ("an attribute becomes a tensor: a TCP005 in read(), unchanged",
     replace("        self.buffer = [0.0]\n", "        self.buffer = torch.zeros(3)\n"), {"TCP005": +1}, True),
    ("a snapshot is loaded back: each class's snapshot() keeps one of the live weights",
     replace("        return frozen\n", "        return frozen\n\n    def restore(self):\n        self.load_state_dict(self.best)\n"),
     {"TCP008": +12}, True),
    ("a named tuple with a data field: p.data in shrink() is most likely one",
     replace("BASE = ", 'Binding = namedtuple("Binding", ("name", "data"))\nBASE = '), {"TCP001": -1}, True),
    ("the helper defined twice: what it returns is unknown",
     replace("def prepare(n):", "def make_batch(n):\n    return None\n\n\ndef prepare(n):"), {"TCP005": -1}, True),
    ("a function deleted: every function below moves up",
     delete("def from_base", "def shrink"), {"TCP005": -1}, True),
    ("a syntax error: nothing is analysed", replace("def prepare(n):", "def prepare(n)"), None, False),
    ("the syntax error fixed", replace("def prepare(n)", "def prepare(n):"), None, True),
    ("a comment only", replace("import copy\n", "import copy  # snapshots\n"), {}, True),
    ("torch imported under another name: every chunk asks the imports again, and torch.* is unknown",
     replace("import torch\n", "import torch as th\n"), {"TCP005": -14}, False),
]


def _code(node: object) -> str:
    if isinstance(node, cst.CSTNode):
        return cst.Module([]).code_for_node(node)
    if isinstance(node, cst.FlattenSentinel):
        return "\n".join(map(_code, node.nodes))
    return type(node).__name__  # cst.RemoveFromParent()


def _seen(findings: list[engine.Finding]) -> list[tuple]:
    """Everything a finding says, its fix's edits as code."""
    return [
        (f.line, f.col, f.end_line, f.end_col, f.code, f.message, f.fix and (
            f.fix.safe, f.fix.description, f.fix.needs_import, f.fix.wrap_with,
            [(_code(old), _code(new)) for old, new in f.fix.replacements], [_code(line) for line in f.fix.wrap]))
        for f in findings
    ]


def _lint(text: str, reuse: ChunkReuse | None = None) -> tuple[list[tuple], str | None]:
    try:
        return _seen(engine.lint_source(text, rules=ALL_RULES, ends=True, chunk_linter=reuse)), None
    except engine.AnalysisError as error:
        return _seen(error.findings), str(error)


def test_reused_findings_are_those_of_a_fresh_lint_at_every_edit():
    reuse = ChunkReuse()
    text = TRAINING
    before, failure = _lint(text, reuse)
    assert failure is None and len(set(finding[4] for finding in before)) == 9 and reuse.reused == 0
    for what, edit, change, reused in EDITS:
        text = edit(text)
        counted = reuse.reused
        fresh = _lint(text)
        assert _lint(text, reuse) == fresh, what
        assert (reuse.reused > counted) is reused, what
        if change is not None:  # the edit matters: the findings change as it says
            codes = Counter(finding[4] for finding in fresh[0])
            assert {code: codes[code] - count for code, count in Counter(f[4] for f in before).items()
                    if codes[code] != count} == change, what
        if fresh[1] is None:
            before = fresh[0]


def test_every_chunk_is_reused_when_nothing_it_asked_changed(monkeypatch):
    """Every question the analysis asks is one the recorder knows (a parameter's value, the
    parameters a function writes, whether the code predates PyTorch 0.4 when it loops over a
    tensor, ...): one it does not know leaves the chunk's record
    incomplete, and the chunk is analysed again after every edit, wherever the edit is."""
    analysed = []
    lint_chunk = engine.lint_chunk
    monkeypatch.setattr(engine, "lint_chunk", lambda chunk, *rest: analysed.append(chunk) or lint_chunk(chunk, *rest))
    reuse = ChunkReuse()
    first = _lint(TRAINING, reuse)
    chunks = len(analysed)
    assert chunks > 12 and len(reuse) == chunks  # every chunk's record complete, and kept
    assert _lint(TRAINING, reuse) == first and len(analysed) == chunks and reuse.reused == chunks


def test_only_the_chunks_used_last_are_kept():
    reuse = ChunkReuse(size=4)
    assert _lint(TRAINING, reuse) == _lint(TRAINING)
    assert len(reuse) == 4
    edited = EDITS[0][1](TRAINING)
    assert _lint(edited, reuse) == _lint(edited)


@pytest.mark.asyncio
async def test_an_edit_of_a_helper_changes_the_diagnostics_of_an_unchanged_function():
    pytest.importorskip("pytest_lsp")
    from lsprotocol import types
    from test_server import _open, _pull, _replace_all, session

    async with session() as client:
        uri = _open(client, TRAINING)
        first = [d.code for d in (await _pull(client, uri)).items]
        _replace_all(client, uri, EDITS[1][1](TRAINING), 2)
        report = await _pull(client, uri)
        prepare = TRAINING.splitlines().index("    return torch.tensor(batch)")
        assert Counter(d.code for d in report.items) - Counter(first) == {"TCP005": 1}
        (added,) = [d for d in report.items if d.code == "TCP005" and d.range.start.line == prepare]
        assert added.range == types.Range(types.Position(prepare, 11), types.Position(prepare, 30))
