"""The accuracy corpus's tools (bench/accuracy/): statement lines, shapes, scoring, labels, the corpus.

Everything here runs without the corpus mirrors and without a network, except the corpus
group (marked `corpus`), which checks each repository whose mirror is there (its file counts,
and that the committed candidates.csv is what the current code finds in it); the missing
ones are counted in one skip.

The bench modules are imported once (tests/bench_modules.py) and used under aliases.
"""

from __future__ import annotations

import ast
import csv
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from bench_modules import import_bench_modules

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "accuracy"
BENCH_MODULES = ("statements", "corpus", "labels", "findings", "shapes", "score")


if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # flake8_tensorcopy, for findings.py
_BENCH = import_bench_modules(BENCH, BENCH_MODULES)
acc_statements = _BENCH["statements"]
acc_corpus = _BENCH["corpus"]
acc_labels = _BENCH["labels"]
acc_findings = _BENCH["findings"]
acc_shapes = _BENCH["shapes"]
acc_score = _BENCH["score"]

from flake8_tensorcopy.rules import ALL_RULES  # noqa: E402  (after the path set-up)

Label = acc_labels.Label
Candidate = acc_labels.Candidate
Repo = acc_corpus.Repo

COMMIT_A = "a" * 40
COMMIT_B = "b" * 40


def dedent(source: str) -> str:
    return textwrap.dedent(source).lstrip("\n")


def shape_rows(source: str) -> list[tuple[int, str, str]]:
    return [(found.line, found.shape, found.auto) for found in acc_shapes.occurrences(source)]


# --- 1. statements.statement_starts ------------------------------------------------------


def test_statement_starts_maps_every_line_to_its_innermost_statement():
    source = dedent(
        """
        import functools
        x = foo(
            1,
            2)
        if x: y = 1

        for i in range(3):
            a = i
            b = (a +
                 1)
        # a comment
        @functools.cache
        @functools.wraps(
            print)
        def f():
            return 1


        class C:
            @property
            def p(self):
                return 2
        """
    )
    starts = acc_statements.statement_starts(ast.parse(source))
    assert starts == {
        1: 1,
        2: 2, 3: 2, 4: 2,  # a multi-line call: its first line
        5: 5,  # `if x: y = 1`: the if and its body share the line
        7: 7, 8: 8, 9: 9, 10: 9,  # the for header; its body lines are their own statements
        12: 12, 13: 12, 14: 12, 15: 12,  # decorators and the def: the first decorator's line
        16: 16,
        19: 19, 20: 20, 21: 20, 22: 22,  # a decorated method inside a class
    }
    # Lines outside any statement (blank, comment) are absent, and statement_line keeps them.
    assert acc_statements.statement_line(starts, 6) == 6
    assert acc_statements.statement_line(starts, 11) == 11
    assert acc_statements.statement_line(starts, 14) == 12


def test_plugin_findings_are_moved_to_their_statement_line():
    # The plugin reports TCP003 on line 5 (the deepcopy call); the statement starts on 4.
    source = dedent(
        """
        import copy
        import torch
        w = torch.zeros(3)
        x = list(
            copy.deepcopy(w))
        """
    )
    assert acc_findings.plugin_findings(source) == [(4, "TCP003")]
    assert shape_rows(source) == [(4, "TCP003", "")]
    with pytest.raises(SyntaxError):
        acc_findings.plugin_findings("x = (")


# --- 2. shapes.occurrences ---------------------------------------------------------------

EVERY_SHAPE = dedent(
    """
    import copy as cp
    import numpy as np
    import torch as th
    from copy import deepcopy as dc
    from torch.nn import init


    def step(model, params, x, mask, idx, lr, f, g, d, state):
        for p in params:
            p.data.add_(1)
            p.data -= lr * p.grad
        p.data = th.zeros(3)
        model.data = []
        g.data["feat"] = x
        p.data[0] = 1
        init.normal_(model.weight.data, 0, 0.02)
        th.add(x, x, out=p.data)
        a = x.clone().detach()
        b = th.clone(x).detach()
        c = cp.deepcopy(x)
        e = dc(model.state_dict())
        x.detach().zero_()
        y = x.detach()
        y.clamp_(0, 1)
        z = th.tensor(x)
        z = th.tensor([1.0, 2.0])
        z = th.Tensor(3, 4)
        z = th.tensor(x.item())
        z = th.tensor(np.array(x))
        z = x.new_tensor(
            x)
        x.float().mul_(2)
        u = x.to(d)
        u /= 255
        x[mask].fill_(0)
        x[0, :].zero_()
        v = x[idx]
        v.mul_(2)
        state["exp_avg"].mul_(0.9)
        best = model.state_dict()
        th.save(model.state_dict(), f)
        total = 0
        n = 0
        for batch in x:
            loss = model(batch)
            total = total + loss
            n = n + 1
        return best
    """
)


def test_occurrences_of_every_shape_with_import_aliases():
    assert shape_rows(EVERY_SHAPE) == [
        (10, "TCP001", ""),  # p.data.add_(1)
        (11, "TCP001", ""),  # p.data -= ...
        (12, "TCP001", ""),  # p.data = th.zeros(3)
        (13, "TCP001", "not-tensor"),  # model.data = []
        (14, "TCP001", "not-tensor"),  # g.data["feat"] = x
        (15, "TCP001", ""),  # p.data[0] = 1
        (16, "TCP001", ""),  # init.normal_(...data) with `from torch.nn import init`
        (17, "TCP001", ""),  # out=p.data
        (18, "TCP002", ""),  # x.clone().detach()
        (19, "TCP002", ""),  # th.clone(x).detach() with `import torch as th`
        (20, "TCP003", ""),  # cp.deepcopy(x) with `import copy as cp`
        (21, "TCP003", "state-dict"),  # dc(model.state_dict()) with `deepcopy as dc`
        (22, "TCP004", ""),  # x.detach().zero_()
        (24, "TCP004", ""),  # y = x.detach(); y.clamp_(...)
        (25, "TCP005", ""),  # th.tensor(x)
        (26, "TCP005", "literal"),
        (27, "TCP005", "literal"),  # th.Tensor(3, 4): a size
        (28, "TCP005", "not-tensor"),  # .item()
        (29, "TCP005", "not-tensor"),  # np.array(...)
        (30, "TCP005", ""),  # x.new_tensor(\n x): the statement's first line
        (32, "TCP006", ""),  # x.float().mul_(2)
        (34, "TCP006", ""),  # u = x.to(d); u /= 255
        (35, "TCP007", ""),  # x[mask].fill_(0)
        (36, "TCP007", "basic-index"),  # x[0, :].zero_()
        (38, "TCP007", ""),  # v = x[idx]; v.mul_(2)
        # 39: state["exp_avg"].mul_(0.9), a string key: nothing
        (40, "TCP008", ""),  # best = model.state_dict()
        # 41: th.save(model.state_dict(), f): handed over at once, nothing
        (46, "TCP009", ""),  # total = total + loss
        # 47: n = n + 1: nothing
    ]


NUMPY_AND_REWRAP_SHAPES = textwrap.dedent(
    """\
    import numpy as np
    import torch.nn as nn


    def f(images, t):
        a = images.cpu().float().numpy()
        a *= 255
        b = a.transpose(1, 2, 0)
        b[0] = 1
        np.clip(b, 0, 1, out=b)
        np.random.shuffle(a)
        a.fill(0)
        c = np.transpose(t.numpy(), (1, 0))
        c[0] += 1
        d = t.numpy()
        d = d * 2
        d += 1
        e = t.numpy().copy()
        e += 1


    class M(nn.Module):
        def __init__(self):
            self.out.weight = nn.Parameter(self.emb.weight)
            self.out.weight = nn.Parameter(self.emb.weight.clone())
            self.fc.bias = nn.Parameter(self.fc.bias.data)
            self.w = nn.Parameter(self.w.data)
            w = nn.Parameter(self.emb.weight)
            self.h.register_parameter("bias", nn.Parameter(self.e.bias))
    """
)


def test_occurrences_of_the_numpy_and_rewrap_shapes():
    assert [(line, shape) for line, shape, _ in shape_rows(NUMPY_AND_REWRAP_SHAPES)] == [
        (7, "TCP010"),  # a *= 255
        (9, "TCP010"),  # b[0] = 1, b a view of a
        (10, "TCP010"),  # out=b
        (11, "TCP010"),  # np.random.shuffle(a)
        (12, "TCP010"),  # a.fill(0)
        (14, "TCP010"),  # c[0] += 1, c = np.transpose(t.numpy(), ...)
        # 17: d += 1 after d = d * 2, a new array; 19: e is a copy
        (24, "TCP011"),  # nn.Parameter(self.emb.weight)
        (25, "TCP011"),  # .clone(): a look-alike, still the shape
        (26, "TCP011"),  # the same attribute rewrapped: a look-alike
        # 27: self.w, no weight or bias; 28: bound to a name, no attribute
        (29, "TCP011"),  # register_parameter
    ]


def test_a_numpy_array_of_a_conversion_is_both_shapes():
    # TCP006 judged `dets = x.cpu().numpy().reshape(...)` written in place before TCP010 existed:
    # its candidates stay, TCP010's are added beside them.
    source = "def f(x):\n    dets = x.detach().cpu().numpy().reshape(2, -1)\n    dets[0] *= 2\n"
    assert shape_rows(source) == [(3, "TCP006", ""), (3, "TCP010", "")]


def test_todo_blind_hides_the_plugins_verdict(tiny_mirror, monkeypatch, capsys):
    root, repo, _ = tiny_mirror
    monkeypatch.setattr(acc_corpus, "load_repos", lambda *args: [repo])
    row = acc_labels.Candidate("o/r", repo.commit, "a.py", 2, "TCP005", "found", "")
    acc_labels.print_with_context([row], root, 0)
    assert capsys.readouterr().out.splitlines()[0] == f"=== o/r,{repo.commit},a.py,2,TCP005  (found)"
    acc_labels.print_with_context([row], root, 0, blind=True)
    assert capsys.readouterr().out.splitlines() == [f"=== o/r,{repo.commit},a.py,2,TCP005", ">>     2 x = torch.tensor([1])"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            """
            import torch
            def train(model, data, opt):
                total = 0
                losses = []
                for x in data:
                    loss = model(x)
                    total += loss
                    losses.append(loss)
                    total += loss.item()
                    losses.append(loss.item())
                    n = n + 1
                    count += 1
            """,
            [(7, "TCP009", ""), (8, "TCP009", "")],
            id="TCP009-accumulations",
        ),
        pytest.param(
            """
            import torch
            def train(model, data):
                for x in data:
                    out = model(x)
                    outs.append(out)
                    out.sum().backward()
            """,
            [(5, "TCP009", "")],
            id="TCP009-backward-in-scope",
        ),
        pytest.param(
            """
            import torch
            def f(xs):
                for x in xs:
                    seen.append(x)
                    total = total + x
            """,
            [],
            id="TCP009-no-loss-no-backward",
        ),
        pytest.param(
            """
            import torch
            def f(model, f, loader):
                torch.save(model.state_dict(), f)
                model.load_state_dict(other.state_dict())
                sd = copy.deepcopy(model.state_dict())
                for k, v in model.state_dict().items():
                    pass
                best = model.state_dict()
                self.best = {k: v.cpu() for k, v in model.state_dict().items()}
                snap = dict(model.state_dict())
                state = {"model": model.state_dict()}
                history.append(model.state_dict())
                return model.state_dict()
            """,
            [(5, "TCP003", "state-dict"), (8, "TCP008", ""), (9, "TCP008", ""), (10, "TCP008", ""),
             (11, "TCP008", ""), (12, "TCP008", ""), (13, "TCP008", "")],
            id="TCP008-kept-or-not",
        ),
        pytest.param(
            """
            import torch
            def f(x, d, i, state, batch, out):
                state["exp_avg"].mul_(0.9)
                state["step"] += 1
                batch["img"] = x
                out["hm"].sigmoid_()
                v = x[0]
                v.add_(1)
                w = x[i]
                w[0] = 1
                x[None, ..., -1].zero_()
                x[True].zero_()
                x[i, 0].zero_()
            """,
            [(8, "TCP007", "basic-index"), (11, "TCP007", "basic-index"), (12, "TCP007", ""),
             (13, "TCP007", "")],
            id="TCP007-keys-and-indexes",
        ),
        pytest.param(
            """
            import torch
            def f(x, ys):
                y = x.detach()
                y = y.clone()
                y.mul_(2)
                z = x.detach()
                for z in ys:
                    z.add_(1)
                u = x.cuda()
                u.requires_grad_()
                w = x.detach()
                w[0] = 1
            """,
            [(12, "TCP004", "")],
            id="TCP004-TCP006-rebinding",
        ),
        pytest.param(
            """
            import numpy as np
            import torch
            from torch import tensor
            def f(x, n):
                a = torch.tensor(range(n))
                a = torch.tensor([i for i in range(n)])
                a = torch.tensor([x[i] for i in range(n)])
                a = torch.tensor([0] * n)
                a = torch.FloatTensor(*x.shape)
                a = torch.cuda.FloatTensor(x)
                a = torch.tensor(len(x))
                a = torch.tensor(x.shape)
                a = torch.tensor(x.astype(np.float32))
                a = tensor(np.zeros(3))
                a = torch.tensor(data=x)
                a = torch.tensor([1]) + torch.tensor(x)
                a = torch.tensor([1]) + torch.tensor(2)
            """,
            [(5, "TCP005", "literal"), (6, "TCP005", "literal"), (7, "TCP005", ""), (8, "TCP005", "literal"),
             (9, "TCP005", "literal"), (10, "TCP005", ""), (11, "TCP005", "not-tensor"),
             (12, "TCP005", "not-tensor"), (13, "TCP005", "not-tensor"), (14, "TCP005", "not-tensor"),
             (15, "TCP005", ""), (16, "TCP005", ""), (17, "TCP005", "literal")],
            id="TCP005-auto-reasons",
        ),
        pytest.param(
            """
            import copy
            import torch.nn as nn
            def f(m, g, w, model):
                nn.init.xavier_uniform_(m.weight.data)
                nn.init.xavier_uniform_(m.weight)
                g.data = {"a": 1}
                g.data = (1, 2)
                w.data = w.data.t()
                m.data.requires_grad_(False)
                copy.deepcopy(model)
            """,
            [(4, "TCP001", ""), (6, "TCP001", "not-tensor"), (7, "TCP001", "not-tensor"),
             (8, "TCP001", ""), (10, "TCP003", "")],
            id="TCP001-TCP003-more",
        ),
    ],
)
def test_occurrences(source, expected):
    assert shape_rows(dedent(source)) == expected


def test_one_occurrence_per_statement_and_shape():
    source = "z = torch.tensor([1]) + torch.tensor(x)\nq = torch.tensor([1]) + torch.tensor(2)\n"
    assert acc_shapes.occurrences(source) == [
        acc_shapes.Occurrence(1, "TCP005", ""),  # one of the two needs judgement
        acc_shapes.Occurrence(2, "TCP005", "literal"),  # both auto
    ]
    assert set(acc_shapes.AUTO_REASONS) == {"literal", "not-tensor", "basic-index", "state-dict"}
    with pytest.raises(SyntaxError):
        acc_shapes.occurrences("def (")


# --- 3. the shapes cover the plugin on the rules' own examples ----------------------------

# Findings on a rule's `flagged` example that no shape occurrence covers, by exact example:
# (rule code, example code) -> {(statement line, code)}. A new gap fails the test, and so
# does a listed gap that closed or an example that changed (edit the list then).
KNOWN_GAPS = {
    (
        "TCP009",
        "import torch.nn.functional as F\n"
        "def f(self, data):\n"
        "    for x, y in data:\n"
        "        out = self.model(x)\n"
        "        l = F.mse_loss(out, y) * 2\n"
        "        self.running = self.running + l\n",
    ): {(6, "TCP009")},  # `l` is not named like a loss and the scope calls no .backward()
    (
        "TCP009",
        "import torch\n"
        "def predict_all(model, loader):\n"
        "    model.eval()\n"
        "    outputs = []\n"
        "    for x, _ in loader:\n"
        "        outputs.append(model(x))\n"
        "    return torch.cat(outputs)\n",
    ): {(6, "TCP009")},  # what a module in eval mode returns: no loss named, no .backward()
}

FLAGGED = [(rule.code, index, example) for rule in ALL_RULES for index, example in enumerate(rule.flagged)]


@pytest.mark.parametrize(("code", "index", "example"), FLAGGED,
                         ids=[f"{code}-flagged{index}" for code, index, _ in FLAGGED])
def test_shapes_cover_the_plugin_on_flagged_examples(code, index, example):
    reported = acc_findings.plugin_findings(example.code)
    assert reported, f"the plugin reports nothing on {code}'s flagged example {index}"
    shaped = {(found.line, found.shape) for found in acc_shapes.occurrences(example.code)}
    uncovered = set(reported) - shaped
    assert uncovered == KNOWN_GAPS.get((code, example.code), set())


def test_known_gaps_name_existing_examples():
    examples = {(code, example.code) for code, _, example in FLAGGED}
    assert set(KNOWN_GAPS) <= examples, "a KNOWN_GAPS example is no longer a flagged example: update the list"
    assert {code for code, _, _ in FLAGGED} == {rule.code for rule in ALL_RULES}, "a rule has no flagged example"


def test_shapes_cover_inplace_write_through_an_index_of_a_detached_name():
    source = "import torch\ndef f(x):\n    y = x.detach()\n    y[0].zero_()\n    return x\n"
    assert acc_findings.plugin_findings(source) == [(4, "TCP004")]
    assert (4, "TCP004", "") in shape_rows(source)


# --- 4. score.score ----------------------------------------------------------------------


def label(line: int, shape: str, code: str, note: str = "", path: str = "a.py", repo: str = "o/r") -> Label:
    return Label(repo, COMMIT_A, path, line, shape, code, note)


def test_score_counts_each_outcome():
    labels = [
        label(10, "TCP005", "TCP005", "list of tensors"),  # found -> TP
        label(20, "TCP003", "TCP003", "a parameter"),  # not found -> FN
        label(30, "TCP005", "none", "numpy array"),  # found -> FP
        label(50, "manual", "TCP009", "kept loss"),  # manual, found -> TP
        label(60, "manual", "TCP008", "best weights"),  # manual, not found -> FN
        label(70, "TCP002", "none", "own class"),  # none, not found: no outcome
        label(5, "TCP001", "TCP001", "weight init", path="b.py"),  # a file with no findings at all -> FN
    ]
    findings_by_file = {
        ("o/r", "a.py"): [(10, "TCP005"), (30, "TCP005"), (30, "TCP007"), (40, "TCP001"), (50, "TCP009")],
    }
    table = acc_score.score(labels, findings_by_file)
    by_code = {rule.code: rule for rule in table.rules}
    assert [rule.code for rule in table.rules] == [f"TCP{n:03d}" for n in range(1, 13)]

    def counts(code):
        rule = by_code[code]
        return rule.hazards, rule.found, rule.missed, rule.false, rule.unlabelled, rule.recall, rule.precision

    assert counts("TCP001") == (1, 0, 1, 0, 1, 0.0, None)
    assert counts("TCP002") == (0, 0, 0, 0, 0, None, None)
    assert counts("TCP003") == (1, 0, 1, 0, 0, 0.0, None)
    assert counts("TCP004") == (0, 0, 0, 0, 0, None, None)
    assert counts("TCP005") == (1, 1, 0, 1, 0, 1.0, 0.5)
    assert counts("TCP006") == (0, 0, 0, 0, 0, None, None)
    assert counts("TCP007") == (0, 0, 0, 0, 1, None, None)  # judged for TCP005 only: unlabelled for TCP007
    assert counts("TCP008") == (1, 0, 1, 0, 0, 0.0, None)
    assert counts("TCP009") == (1, 1, 0, 0, 0, 1.0, 1.0)
    total = table.total
    assert (total.hazards, total.found, total.missed, total.false, total.unlabelled) == (5, 2, 3, 1, 2)
    assert total.recall == pytest.approx(2 / 5)
    assert total.precision == pytest.approx(2 / 3)

    Outcome = acc_score.Outcome
    assert table.outcomes == [
        Outcome("FN", "TCP001", "o/r", "b.py", 5, "weight init"),
        Outcome("FN", "TCP003", "o/r", "a.py", 20, "a parameter"),
        Outcome("FN", "TCP008", "o/r", "a.py", 60, "best weights"),
        Outcome("FP", "TCP005", "o/r", "a.py", 30, "numpy array"),
        Outcome("TP", "TCP005", "o/r", "a.py", 10, "list of tensors"),
        Outcome("TP", "TCP009", "o/r", "a.py", 50, "kept loss"),
        Outcome("unlabelled", "TCP001", "o/r", "a.py", 40, ""),
        Outcome("unlabelled", "TCP007", "o/r", "a.py", 30, ""),
    ]
    assert by_code["TCP005"].as_dict() == {
        "code": "TCP005", "hazards": 1, "found": 1, "missed": 0, "false": 1, "unlabelled": 0, "unsure": 0,
        "recall": 1.0, "precision": 0.5,
    }


def test_an_unsure_statement_counts_in_neither_ratio():
    labels = [
        label(10, "TCP005", "TCP005", "list of tensors"),
        label(20, "TCP005", "unsure", "unsure: a tensor only with --dataset mnist"),  # found
        label(30, "TCP005", "unsure", "unsure: a tensor only with --mask false"),  # not found
    ]
    table = acc_score.score(labels, {("o/r", "a.py"): [(10, "TCP005"), (20, "TCP005")]})
    rule = next(rule for rule in table.rules if rule.code == "TCP005")
    assert (rule.hazards, rule.found, rule.missed, rule.false, rule.unlabelled, rule.unsure) == (1, 1, 0, 0, 0, 2)
    assert (rule.recall, rule.precision, table.total.unsure) == (1.0, 1.0, 2)
    assert [o.kind for o in table.outcomes] == ["TP", "unsure"]
    assert "Left out of both ratios: 2 statements labelled `unsure` (TCP005 2)" in acc_score.readme_table(table, 1, 3)


def test_score_of_nothing_is_undefined_not_zero():
    table = acc_score.score([], {})
    assert len(table.rules) == len(acc_labels.CODES) == 12 and table.outcomes == []
    assert all(rule.recall is None and rule.precision is None for rule in [*table.rules, table.total])
    # Only unlabelled findings: still no ratio.
    table = acc_score.score([], {("o/r", "a.py"): [(3, "TCP002")]})
    assert (table.total.unlabelled, table.total.recall, table.total.precision) == (1, None, None)


def test_score_repos_filter_reads_a_name_list_and_refuses_unknown_names(tmp_path):
    listed = tmp_path / "subset.txt"
    listed.write_text("# the new ones\no/r\n\n  o/s  # trailing comment\n", encoding="utf-8")
    names = acc_score.read_repo_names(listed)
    assert names == {"o/r", "o/s"}
    labels = [label(1, "TCP005", "TCP005"), label(2, "TCP003", "none", repo="o/s"),
              label(3, "TCP001", "TCP001", repo="o/t")]
    assert acc_score.only_repos(labels, names, {"o/r", "o/s", "o/t"}) == labels[:2]
    with pytest.raises(SystemExit, match="not in repos.csv: o/s"):
        acc_score.only_repos(labels, names, {"o/r", "o/t"})


# --- 5. labels ---------------------------------------------------------------------------

REPOS = [Repo("o/a", COMMIT_A, "nlp", 1, 10)]


def cand(line: int, shape: str = "TCP005", auto: str = "", path: str = "x.py") -> Candidate:
    return Candidate("o/a", COMMIT_A, path, line, shape, "found", auto)


def lab(line: int, shape: str = "TCP005", code: str = "none", note: str = "n", commit: str = COMMIT_A,
        repo: str = "o/a") -> Label:
    return Label(repo, commit, "x.py", line, shape, code, note)


def test_problems_names_each_kind_of_problem():
    candidates = [cand(line) for line in (1, 2, 3, 4, 5, 6, 10, 11)]
    labels = [
        lab(1, code="TCP005"),  # fine
        lab(10, code="unsure", note="unsure: a tensor only with --dataset mnist"),  # fine
        lab(11, code="unsure", note="a flag"),  # an unsure label says so, and why
        lab(2), lab(2, code="TCP005"),  # the same key twice
        lab(3, code="TCP003"),  # a code that is neither the shape, none nor unsure
        lab(4, commit=COMMIT_B),  # a commit other than repos.csv's
        lab(5, shape="TCP099"),  # no such shape (and no such candidate)
        lab(7),  # no candidate
        lab(8, shape="manual", code="none"),  # a manual label needs a code
        lab(9, shape="manual", code="TCP008"),  # fine: manual rows need no candidate
        lab(6, repo="p/q"),  # a repository repos.csv lacks (and so no candidate)
    ]
    assert acc_labels.problems(labels, REPOS, candidates) == [
        "o/a x.py 2 TCP005: labelled 2 times",
        "o/a x.py:11 TCP005: an unsure label's note starts with 'unsure:' and names the flag or file",
        "o/a x.py:3 TCP005: code must be TCP005, none or unsure, not 'TCP003'",
        f"o/a x.py:4 TCP005: commit {COMMIT_B} is not repos.csv's ({COMMIT_A})",
        "o/a x.py:5 TCP099: unknown shape 'TCP099'",
        "o/a x.py:8 manual: a manual label needs a TCP code, not 'none'",
        f"p/q x.py:6 TCP005: commit {COMMIT_A} is not repos.csv's (None)",
        "o/a x.py:5 TCP099: no such candidate (did the shapes change?)",
        "o/a x.py:7 TCP005: no such candidate (did the shapes change?)",
        "p/q x.py:6 TCP005: no such candidate (did the shapes change?)",
    ]
    # Without candidates (no candidates.csv), the candidate check is left out.
    assert acc_labels.problems([lab(7), lab(1, code="TCP005")], REPOS, None) == []
    assert acc_labels.problems([], REPOS, candidates) == []


def test_without_overruled_keeps_the_person_label():
    auto_1 = lab(1, note="literal (auto)")
    person_1 = lab(1, code="TCP005", note="a tensor after all")
    auto_2 = lab(2, note="not-tensor (auto)")
    person_3 = lab(3, note="numpy array")
    assert acc_labels.without_overruled([auto_1, person_1, auto_2, person_3]) == [person_1, auto_2, person_3]
    assert acc_labels.without_overruled([person_1, auto_1]) == [person_1]
    assert acc_labels.without_overruled([]) == []


def test_conflicts_and_unlabelled():
    assert acc_labels.conflicts([lab(1), lab(1, code="TCP005"), lab(2), lab(2)]) == [
        "o/a x.py 1 TCP005: labelled TCP005 and none"
    ]
    candidates = [cand(1), cand(2), cand(2, shape="TCP007")]
    assert acc_labels.unlabelled(candidates, [lab(2)]) == [cand(1), cand(2, shape="TCP007")]


def test_refresh_auto_labels_is_idempotent_and_keeps_people_rows(tmp_path):
    path = tmp_path / "labels.csv"
    person_overrule = lab(1, code="TCP005", note="a tensor after all")  # overrules candidate 1's auto label
    person_plain = lab(3, note="numpy array")
    stale_auto = lab(9, note="literal (auto)")  # its candidate is gone
    acc_labels.write_labels([stale_auto, person_plain, person_overrule], path)
    candidates = [cand(1, auto="literal"), cand(2, auto="not-tensor"), cand(3), cand(4, shape="TCP007",
                                                                                     auto="basic-index")]
    assert acc_labels.refresh_auto_labels(candidates, path) == 2
    first = path.read_bytes()
    expected = [
        person_overrule,
        lab(2, note="not-tensor (auto)"),
        person_plain,
        lab(4, shape="TCP007", note="basic-index (auto)"),
    ]
    assert acc_labels.read_labels(path) == expected
    assert first.decode().splitlines()[0] == "repo,commit,path,line,shape,code,note"
    assert acc_labels.refresh_auto_labels(candidates, path) == 2
    assert path.read_bytes() == first
    # From no file at all: only the auto rows.
    fresh = tmp_path / "fresh.csv"
    assert acc_labels.read_labels(fresh) == []
    assert acc_labels.refresh_auto_labels(candidates, fresh) == 3
    assert [row.line for row in acc_labels.read_labels(fresh)] == [1, 2, 4]


def test_label_files_with_another_header_are_refused(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("repo,commit,path,line,shape,code\no/a,x,y.py,1,TCP005,none\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="the header must be repo,commit,path,line,shape,code,note"):
        acc_labels.read_labels(path)


# --- 6. corpus.decode_source and line_count ----------------------------------------------


@pytest.mark.parametrize(
    ("data", "text"),
    [
        pytest.param(b"x = 1\n", "x = 1\n", id="ascii"),
        pytest.param("s = 'é'\n".encode(), "s = 'é'\n", id="utf-8"),
        pytest.param(b"\xef\xbb\xbfs = '\xc3\xa9'\n", "s = 'é'\n", id="bom-stripped"),
        pytest.param(b"# -*- coding: latin-1 -*-\ns = '\xe9'\n", "# -*- coding: latin-1 -*-\ns = 'é'\n",
                     id="latin-1-cookie"),
        pytest.param(b"s = '\xe9'\n", "s = 'é'\n", id="invalid-utf-8-first-lines"),
        pytest.param(b"a = 1\nb = 2\ns = '\xe9\xff'\n", "a = 1\nb = 2\ns = 'é\xff'\n", id="invalid-utf-8-later"),
        pytest.param(b"# coding: no-such-codec\nx = '\xe9'\n", "# coding: no-such-codec\nx = 'é'\n",
                     id="unknown-cookie"),
        pytest.param(b"a = 1\r\nb = 2\r\n", "a = 1\r\nb = 2\r\n", id="crlf-kept"),
    ],
)
def test_decode_source(data, text):
    assert acc_corpus.decode_source(data) == text


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", 0),
        ("x = 1", 1),
        ("a\nb", 2),
        ("a\nb\n", 2),
        ("a\r\nb\r\nc", 3),
        ("a\rb\rc\r", 3),
        ("a\r\n\rb\n", 3),  # \r\n, then a lone \r
        ("a\n\x0cb\n\x0b\n", 3),  # form feed and vertical tab are no line breaks to Python
        ("s = '\u2028'\n", 1),
    ],
)
def test_line_count(text, lines):
    assert acc_corpus.line_count(text) == lines


def test_line_count_agrees_with_the_parser():
    text = "x = 1\ry = 2\r\nz = (3 +\r4)\r"
    assert acc_corpus.line_count(text) == 4 == ast.parse(text).body[-1].end_lineno


def test_finding_only_line_after_a_form_feed():
    source = (
        "import torch.nn.functional as F\n"
        "\x0c\n"
        "def f(self, data):\n"
        "    for x, y in data:\n"
        "        out = self.model(x)\n"
        "        l = F.mse_loss(out, y) * 2\n"
        "        self.running = self.running + l\n"
    )
    rows, skipped = acc_shapes.file_rows(("o/r", COMMIT_A, "a.py", source.encode(), None))
    assert skipped == ""
    only = [row for row in rows if row.plugin == "finding-only"]
    assert [(row.line, row.shape) for row in only] == [(7, "TCP009")]


def test_file_rows_marks_found_auto_and_finding_only():
    source = dedent(
        """
        import torch
        import torch.nn.functional as F
        def f(self, data, w):
            a = torch.tensor([1.0])
            b = torch.tensor(w.detach())
            for x, y in data:
                l = F.mse_loss(self.model(x), y)
                self.running = self.running + l
        """
    )
    rows, skipped = acc_shapes.file_rows(("o/r", COMMIT_A, "a.py", source.encode(), None))
    assert skipped == ""
    assert [(row.line, row.shape, row.plugin, row.auto) for row in rows] == [
        (4, "TCP005", "", "literal"),
        (5, "TCP005", "found", ""),
        (8, "TCP009", "finding-only", ""),
    ]
    assert acc_shapes.file_rows(("o/r", COMMIT_A, "bad.py", b"def (:\n", None)) == (
        [], "o/r bad.py: not valid Python 3 (SyntaxError)")


# --- corpus mirrors, on a tiny git repository made here ----------------------------------


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def tiny_mirror(tmp_path, monkeypatch):
    """A mirrors root holding one repository `o/r`, as the fetch tool lays it out (a git dir, no work tree)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("HOME", str(tmp_path))
    work = tmp_path / "work"
    files = {
        "a.py": b"import torch\r\nx = torch.tensor([1])\r\n",
        "pkg/b.py": b"# -*- coding: latin-1 -*-\ns = '\xe9'\n",
        "pkg/ü b.py": b"x = 1\ny = 2\rz = 3\n",
        "ff.py": b"x = 1\n\x0c\ny = 2\n",
        "notes.txt": b"not python\n",
    }
    for name, data in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(data)
    os.symlink("a.py", work / "link.py")  # a symbolic link is no source file
    _git("init", "-q", cwd=work)
    _git("-c", "core.autocrlf=false", "add", "-A", cwd=work)
    _git("-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
         "commit", "-q", "-m", "tiny", cwd=work)
    commit = _git("rev-parse", "HEAD", cwd=work).strip()
    root = tmp_path / "mirrors"
    (root / "o+r").mkdir(parents=True)
    _git("clone", "-q", "--bare", str(work), str(root / "o+r" / "repo"), cwd=tmp_path)
    return root, Repo("o/r", commit, "tutorial", 4, 10), files


def test_mirror_reads_python_files_at_the_commit(tiny_mirror, tmp_path):
    root, repo, files = tiny_mirror
    mirror = acc_corpus.locate(repo, root)
    assert isinstance(mirror, acc_corpus.Mirror)
    assert mirror.git_dir == root / "o+r" / "repo"
    listed = mirror.python_files()
    assert [file.path for file in listed] == ["a.py", "ff.py", "pkg/b.py", "pkg/ü b.py"]
    assert {file.path: data for file, data in mirror.read_all(listed)} == {
        path: files[path] for path in ["a.py", "ff.py", "pkg/b.py", "pkg/ü b.py"]
    }
    assert mirror.read_text("pkg/b.py") == "# -*- coding: latin-1 -*-\ns = 'é'\n"
    assert acc_corpus.count_python(mirror) == (4, 2 + 3 + 2 + 3)
    assert acc_corpus.export([mirror], tmp_path / "out") == (4, 10)
    assert (tmp_path / "out" / "o+r" / "pkg" / "ü b.py").read_bytes() == files["pkg/ü b.py"]
    assert not (tmp_path / "out" / "o+r" / "link.py").exists()

    # The same repository as a work tree's .git is found too.
    other = tmp_path / "other"
    _git("clone", "-q", str(root / "o+r" / "repo"), str(other / "o+r" / "repo"), cwd=tmp_path)
    assert acc_corpus.locate(repo, other).git_dir == other / "o+r" / "repo" / ".git"

    missing = acc_corpus.locate(Repo("o/none", repo.commit, "rl", 1, 1), root)
    assert isinstance(missing, acc_corpus.Missing) and missing.reason.startswith("not fetched: no git directory")
    stale = acc_corpus.locate(Repo("o/r", "0" * 40, "rl", 1, 1), root)
    assert isinstance(stale, acc_corpus.Missing) and "lacks commit " + "0" * 40 in stale.reason
    found, absent = acc_corpus.open_corpus([repo, Repo("o/none", repo.commit, "rl", 1, 1)], root)
    assert [m.repo.name for m in found] == ["o/r"] and [m.repo.name for m in absent] == ["o/none"]


def test_corpus_check_command_compares_counts(tiny_mirror, monkeypatch, capsys):
    root, repo, _ = tiny_mirror
    monkeypatch.setattr(acc_corpus, "quiet_broken_pipe", lambda: None)  # leave pytest's SIGPIPE alone
    monkeypatch.setattr(acc_corpus, "load_repos", lambda *args: [repo])
    assert acc_corpus.main(["--mirrors", str(root), "check"]) == 0
    assert "1 repositories present, 0 with other counts than recorded" in capsys.readouterr().out
    monkeypatch.setattr(acc_corpus, "load_repos", lambda *args: [Repo("o/r", repo.commit, "rl", 4, 99)])
    assert acc_corpus.main(["--mirrors", str(root), "check"]) == 1
    assert "(repos.csv says 4 files, 99 lines)" in capsys.readouterr().out
    monkeypatch.setattr(acc_corpus, "load_repos", lambda *args: [repo, Repo("o/gone", repo.commit, "rl", 1, 1)])
    assert acc_corpus.main(["--mirrors", str(root), "check"]) == 1
    assert "1 corpus repositories are missing" in capsys.readouterr().err


def test_corpus_show_marks_the_line(tiny_mirror, monkeypatch, capsys):
    root, repo, _ = tiny_mirror
    monkeypatch.setattr(acc_corpus, "quiet_broken_pipe", lambda: None)
    monkeypatch.setattr(acc_corpus, "load_repos", lambda *args: [repo])
    assert acc_corpus.main(["--mirrors", str(root), "show", "o/r", "a.py", "2", "-C", "1"]) == 0
    assert capsys.readouterr().out == "       1 import torch\n>>     2 x = torch.tensor([1])\n"


def test_fetch_clones_what_is_missing_and_reports_what_it_cannot(tiny_mirror, monkeypatch, capsys, tmp_path):
    _, repo, files = tiny_mirror
    elsewhere = Repo("o/gone", repo.commit, "tutorial", 4, 10)
    monkeypatch.setattr(acc_corpus, "quiet_broken_pipe", lambda: None)
    monkeypatch.setattr(acc_corpus, "load_repos", lambda *args: [repo, elsewhere])
    root = tmp_path / "fresh"
    source = f"{tmp_path}/{{name}}"  # {name} is o/r: a link to the tiny repository's work tree
    (tmp_path / "o").mkdir()
    os.symlink(tmp_path / "work", tmp_path / "o" / "r")
    assert acc_corpus.main(["--mirrors", str(root), "fetch", "--source", source]) == 1
    out, err = capsys.readouterr()
    assert "o/r: fetched" in out and "o/gone: cannot fetch" in out
    assert "1 corpus repositories are missing" in err and "o/gone" in err
    mirror = acc_corpus.locate(repo, root)
    assert isinstance(mirror, acc_corpus.Mirror) and not (root / "o+r" / "repo.partial").exists()
    assert mirror.read_text("a.py") == files["a.py"].decode()
    # A second run fetches only what is still missing.
    assert acc_corpus.main(["--mirrors", str(root), "fetch", "--source", source]) == 1
    assert "o/r" not in capsys.readouterr().out


def test_all_findings_reads_every_file_of_the_labelled_repositories(tiny_mirror, tmp_path):
    root, repo, _ = tiny_mirror
    mirror = acc_corpus.locate(repo, root)
    labels = [Label("o/r", repo.commit, "a.py", 2, "TCP005", "TCP005", "")]
    only = [path for _, path, _, _ in acc_score.labelled_files(labels, {"o/r": mirror}, tmp_path)]
    every = [path for _, path, _, _ in acc_score.labelled_files(labels, {"o/r": mirror}, tmp_path, every_file=True)]
    assert only == ["a.py"]
    assert sorted(every) == ["a.py", "ff.py", "pkg/b.py", "pkg/ü b.py"]
    # A finding in a file with no label is counted, as unlabelled.
    table = acc_score.score(labels, {("o/r", "a.py"): [(2, "TCP005")], ("o/r", "ff.py"): [(3, "TCP009")]})
    rules = {rule.code: rule for rule in table.rules}
    assert (rules["TCP005"].found, rules["TCP009"].unlabelled) == (1, 1)


def test_corpus_show_after_a_form_feed(tiny_mirror, monkeypatch, capsys):
    root, repo, _ = tiny_mirror
    monkeypatch.setattr(acc_corpus, "quiet_broken_pipe", lambda: None)
    monkeypatch.setattr(acc_corpus, "load_repos", lambda *args: [repo])
    assert ast.parse(acc_corpus.decode_source(b"x = 1\n\x0c\ny = 2\n")).body[1].lineno == 3
    assert acc_corpus.main(["--mirrors", str(root), "show", "o/r", "ff.py", "3", "-C", "0"]) == 0
    assert capsys.readouterr().out == ">>     3 y = 2\n"


def test_todo_blind_hides_the_plugin_verdict(tiny_mirror, monkeypatch, capsys, tmp_path):
    root, repo, _ = tiny_mirror
    rows = [
        Candidate("o/r", repo.commit, "a.py", 2, "TCP005", "found", ""),
        Candidate("o/r", repo.commit, "a.py", 1, "TCP003", "", ""),
        Candidate("o/r", repo.commit, "ff.py", 3, "TCP009", "finding-only", ""),
    ]
    monkeypatch.setattr(acc_labels.corpus, "quiet_broken_pipe", lambda: None)
    monkeypatch.setattr(acc_labels.corpus, "load_repos", lambda *args: [repo])
    monkeypatch.setattr(acc_labels, "read_candidates", lambda *args: rows)
    monkeypatch.setattr(acc_labels, "LABELS_CSV", tmp_path / "labels.csv")  # no labels yet
    command = ["--mirrors", str(root), "todo", "-C", "0"]

    assert acc_labels.main(command) == 0
    seen = capsys.readouterr().out
    assert f"=== o/r,{repo.commit},a.py,2,TCP005  (found)\n>>     2 x = torch.tensor([1])\n" in seen
    assert f"=== o/r,{repo.commit},a.py,1,TCP003  (not found)\n" in seen
    assert f"=== o/r,{repo.commit},ff.py,3,TCP009  (finding-only)\n" in seen

    assert acc_labels.main([*command, "--blind"]) == 0
    blind = capsys.readouterr().out
    assert f"=== o/r,{repo.commit},a.py,2,TCP005\n>>     2 x = torch.tensor([1])\n" in blind
    assert f"=== o/r,{repo.commit},a.py,1,TCP003\n" in blind
    # The row that only the plugin's finding makes is held back, and said to be.
    assert "ff.py" not in blind and "found" not in blind.replace("finding-only rows held back", "")
    assert blind.endswith("left to label: TCP003 1 of 1, TCP005 1 of 1, TCP009 1 of 1\n"
                          "1 finding-only rows held back by --blind; label them last, without it\n")


# --- 7. the committed data ---------------------------------------------------------------

CATEGORIES = {"course", "detection", "gan", "gnn", "helper", "kaggle", "nlp", "research", "rl", "tutorial"}
HEADERS = {
    "repos.csv": "repo,commit,category,py_files,py_lines",
    "candidates.csv": "repo,commit,path,line,shape,plugin,auto",
    "labels.csv": "repo,commit,path,line,shape,code,note",
}


@pytest.mark.parametrize("name", sorted(HEADERS))
def test_committed_csv_headers(name):
    with open(BENCH / name, encoding="utf-8", newline="") as handle:
        assert next(csv.reader(handle)) == HEADERS[name].split(",")


def test_committed_repos():
    repos = acc_corpus.load_repos()
    names = [repo.name for repo in repos]
    assert len(set(names)) == len(names) >= 45
    assert sum(repo.py_lines for repo in repos) >= 500_000
    assert all(re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", name) for name in names), names
    assert [repo.name for repo in repos if not re.fullmatch(r"[0-9a-f]{40}", repo.commit)] == []
    assert {repo.category for repo in repos} <= CATEGORIES
    assert [repo.name for repo in repos if repo.py_files <= 0 or repo.py_lines <= 0] == []


@pytest.mark.slow
def test_committed_labels_have_no_problems():
    # As `labels.py check` reads them: a person's row overrules an auto row of the same key.
    labels = acc_labels.without_overruled(acc_labels.read_labels())
    assert labels, "labels.csv holds no labels"
    assert acc_labels.problems(labels, acc_corpus.load_repos(), acc_labels.read_candidates()) == []


def test_committed_candidates_are_consistent():
    commits = {repo.name: repo.commit for repo in acc_corpus.load_repos()}
    candidates = acc_labels.read_candidates()
    assert candidates
    assert [row.key for row in candidates if commits.get(row.repo) != row.commit] == []
    assert {row.shape for row in candidates} <= set(acc_labels.CODES)
    assert {row.plugin for row in candidates} <= {"", "found", "finding-only"}
    assert {row.auto for row in candidates} <= {"", *acc_shapes.AUTO_REASONS}
    assert [row.key for row in candidates if row.plugin == "finding-only" and row.auto] == []
    keys = [row.key for row in candidates]
    assert len(set(keys)) == len(keys)
    # Every auto candidate has its generated label (or a person's), and every generated label its candidate.
    labels = {label.key: label for label in acc_labels.without_overruled(acc_labels.read_labels())}
    auto = {row.key: row for row in candidates if row.auto}
    assert [key for key in auto if key not in labels] == []
    generated = [label for label in labels.values() if label.note.endswith(acc_labels.AUTO_SUFFIX)]
    assert [label.key for label in generated
            if label.key not in auto or label.code != "none" or label.note != auto[label.key].auto + " (auto)"] == []


# --- 8. the published figures are the committed data's -----------------------------------


def test_committed_findings_come_from_the_plugin_column_of_labelled_files():
    labels = [Label("o/r", COMMIT_A, "a.py", 3, "TCP003", "TCP003", ""),
              Label("o/r", COMMIT_A, "b.py", 5, "TCP005", "none", "")]
    candidates = [Candidate("o/r", COMMIT_A, "a.py", 3, "TCP003", "found", ""),
                  Candidate("o/r", COMMIT_A, "a.py", 9, "TCP001", "finding-only", ""),
                  Candidate("o/r", COMMIT_A, "b.py", 5, "TCP005", "", "literal"),
                  Candidate("o/r", COMMIT_A, "c.py", 1, "TCP002", "found", "")]  # no label in c.py
    by_file = acc_score.committed_findings(labels, candidates)
    assert by_file == {("o/r", "a.py"): [(3, "TCP003"), (9, "TCP001")], ("o/r", "b.py"): []}
    table = acc_score.score(labels, by_file)
    assert [(r.code, r.hazards, r.found, r.false, r.unlabelled) for r in table.rules if r.hazards or r.unlabelled] == [
        ("TCP001", 0, 0, 0, 1), ("TCP003", 1, 1, 0, 0)]
    assert acc_score.look_alikes(labels) == {"TCP005": 1}


def test_the_readme_table_is_replaced_between_its_markers_only():
    block = f"{acc_score.TABLE_START}\nnew\n{acc_score.TABLE_END}"
    readme = f"before\n{acc_score.TABLE_START}\nold | 1\n{acc_score.TABLE_END}\nafter\n"
    assert acc_score.with_readme_table(readme, block) == f"before\n{block}\nafter\n"
    with pytest.raises(SystemExit, match="exactly one pair"):
        acc_score.with_readme_table("no markers", block)


def test_readme_and_rule_pages_state_the_committed_figures():
    """The README's table and `_accuracy.py` (which the rule pages are rendered from, as
    test_docs checks) say what candidates.csv and labels.csv give: no mirrors needed."""
    table, files, labels = acc_score.committed_table()
    readme = acc_score.README.read_text(encoding="utf-8")
    expected = acc_score.readme_table(table, files, len(labels))
    stale = "stale: run `python3 bench/accuracy/score.py --write` (or --regenerate after a change to the analysis)"
    assert acc_score.with_readme_table(readme, expected) == readme, f"README.md's accuracy table is {stale}"
    figures = acc_score.figures_module(table, labels, acc_corpus.load_repos())
    assert acc_score.FIGURES_MODULE.read_text(encoding="utf-8") == figures, f"{acc_score.FIGURES_MODULE} is {stale}"
    repos = acc_corpus.load_repos()
    assert f"{len(repos)} public repositories" in readme
    assert f"({sum(repo.py_lines for repo in repos) / 1000:,.0f} k lines" in readme


# --- 9. the corpus itself, where the mirrors are: each repository present is checked -----
# The repositories whose mirror is missing make no test of their own: one test says how many
# checks did not run and how to fetch them, so a machine without the mirrors shows one skip.

CORPUS = acc_corpus.load_repos()
FETCHED = [repo for repo in CORPUS if acc_corpus.git_dir_of(repo, acc_corpus.mirrors_root()) is not None]
CHECKS_PER_REPOSITORY = 2  # the two parametrised tests below


def corpus_group_skip_reason(total: int, fetched: int, root: Path) -> str | None:
    missing = total - fetched
    if missing == 0:
        return None
    return (f"corpus group: {missing * CHECKS_PER_REPOSITORY} corpus tests not run, {missing} of {total} "
            f"repositories have no mirror at {root}: fetch them with `python3 bench/accuracy/corpus.py fetch` "
            f"(or point ${acc_corpus.MIRRORS_ENV} where they live)")


def test_every_corpus_repository_is_fetched():
    reason = corpus_group_skip_reason(len(CORPUS), len(FETCHED), acc_corpus.mirrors_root())
    if reason is not None:
        pytest.skip(reason)


def test_the_corpus_group_skip_names_the_count_and_the_command():
    assert corpus_group_skip_reason(183, 183, Path("/m")) is None
    reason = corpus_group_skip_reason(183, 0, Path("/m"))
    assert reason.startswith("corpus group: 366 corpus tests not run, 183 of 183 repositories have no mirror at /m")
    assert "python3 bench/accuracy/corpus.py fetch" in reason


def _mirror(repo):
    if shutil.which("git") is None:
        pytest.fail("git is not installed, yet the corpus mirrors are there to read")
    mirror = acc_corpus.locate(repo, acc_corpus.mirrors_root())
    assert isinstance(mirror, acc_corpus.Mirror), f"{repo.name}: {mirror.reason}"
    return mirror


@pytest.mark.slow
@pytest.mark.corpus
@pytest.mark.parametrize("repo", FETCHED, ids=[repo.name for repo in FETCHED])
def test_corpus_mirror_has_the_recorded_counts(repo):
    mirror = _mirror(repo)
    assert acc_corpus.count_python(mirror) == (repo.py_files, repo.py_lines)


@pytest.mark.slow
@pytest.mark.corpus
@pytest.mark.filterwarnings("ignore:invalid escape sequence")  # the corpus's own code, parsed here
@pytest.mark.parametrize("repo", FETCHED, ids=[repo.name for repo in FETCHED])
def test_committed_candidates_are_what_the_current_code_finds(repo, tmp_path):
    """candidates.csv's rows of this repository (its `plugin` column above all: the
    published figures are scored from it) are what shapes.py and the plugin give now,
    on the repository exported as `shapes.py candidates` exports it (a project of its own)."""
    mirror = _mirror(repo)
    acc_corpus.export([mirror], tmp_path)
    current = set()
    for file, data in mirror.read_all(mirror.python_files()):
        job = (repo.name, repo.commit, file.path, data, str(tmp_path / repo.slug / file.path))
        current.update(acc_shapes.file_rows(job)[0])
    committed = {row for row in acc_labels.read_candidates() if row.repo == repo.name}
    changed = sorted(f"{'now' if row in current else 'was'}: {row.path}:{row.line} {row.shape} "
                     f"plugin={row.plugin or '-'} auto={row.auto or '-'}" for row in current ^ committed)
    assert changed == [], (f"candidates.csv is stale for {repo.name}: run `python3 bench/accuracy/score.py "
                           "--regenerate` (then label what `labels.py todo` lists)")


# --- 8. the blind set (issue 45): the same tools on repos-, candidates-, labels-blind.csv ---


@pytest.fixture
def restore_paths(monkeypatch):
    """The module paths that ``use_repos``/``use_blind_set`` change, put back after the test."""
    monkeypatch.setattr(acc_corpus, "REPOS_CSV", acc_corpus.REPOS_CSV)
    monkeypatch.setattr(acc_labels, "CANDIDATES_CSV", acc_labels.CANDIDATES_CSV)
    monkeypatch.setattr(acc_labels, "LABELS_CSV", acc_labels.LABELS_CSV)


def test_use_blind_set_switches_the_files_and_the_defaults_that_read_them(restore_paths, tmp_path, monkeypatch):
    pins, candidates, labels = tmp_path / "pins.csv", tmp_path / "cands.csv", tmp_path / "labs.csv"
    monkeypatch.setattr(acc_corpus, "BLIND_REPOS_CSV", pins)
    monkeypatch.setattr(acc_labels, "BLIND_CANDIDATES_CSV", candidates)
    monkeypatch.setattr(acc_labels, "BLIND_LABELS_CSV", labels)
    acc_labels.use_blind_set()
    assert (acc_corpus.REPOS_CSV, acc_labels.CANDIDATES_CSV, acc_labels.LABELS_CSV) == (pins, candidates, labels)
    acc_corpus.write_repos([Repo("o/r", COMMIT_A, "rl", 1, 2)])
    acc_labels.write_candidates([Candidate("o/r", COMMIT_A, "a.py", 3, "TCP005", "", "literal")])
    assert acc_labels.refresh_auto_labels(acc_labels.read_candidates()) == 1
    assert acc_corpus.load_repos() == [Repo("o/r", COMMIT_A, "rl", 1, 2)]
    assert acc_labels.read_labels() == [Label("o/r", COMMIT_A, "a.py", 3, "TCP005", "none", "literal (auto)")]
    assert pins.is_file() and candidates.is_file() and labels.is_file()


def test_the_blind_files_live_beside_the_development_corpus():
    assert acc_corpus.BLIND_REPOS_CSV == BENCH / "repos-blind.csv"
    assert acc_labels.BLIND_CANDIDATES_CSV == BENCH / "candidates-blind.csv"
    assert acc_labels.BLIND_LABELS_CSV == BENCH / "labels-blind.csv"


def test_corpus_repos_csv_and_blind_choose_the_pin_list(tiny_mirror, restore_paths, monkeypatch, capsys, tmp_path):
    root, repo, _ = tiny_mirror
    monkeypatch.setattr(acc_corpus, "quiet_broken_pipe", lambda: None)
    pins = tmp_path / "pins.csv"
    before = (BENCH / "repos.csv").read_bytes()
    assert acc_corpus.main(["--mirrors", str(root), "--repos-csv", str(pins), "add", "o/r", "rl"]) == 0
    assert acc_corpus.REPOS_CSV == pins
    assert acc_corpus.load_repos() == [Repo("o/r", repo.commit, "rl", 4, 10)]
    assert (BENCH / "repos.csv").read_bytes() == before  # repos.csv itself untouched
    # --blind reads repos-blind.csv, which does not pin the tiny repository.
    monkeypatch.setattr(acc_corpus, "BLIND_REPOS_CSV", pins.with_name("blind.csv"))
    pins.rename(pins.with_name("blind.csv"))
    capsys.readouterr()
    assert acc_corpus.main(["--mirrors", str(root), "--blind", "show", "o/r", "a.py", "2", "-C", "0"]) == 0
    assert capsys.readouterr().out == ">>     2 x = torch.tensor([1])\n"
    with pytest.raises(SystemExit):
        acc_corpus.main(["--blind", "--repos-csv", str(pins), "check"])  # one pin list or the other


def test_labels_blind_set_reads_the_blind_files(tiny_mirror, restore_paths, monkeypatch, capsys, tmp_path):
    root, repo, _ = tiny_mirror
    monkeypatch.setattr(acc_corpus, "quiet_broken_pipe", lambda: None)
    pins, candidates, labels = tmp_path / "pins.csv", tmp_path / "cands.csv", tmp_path / "labs.csv"
    monkeypatch.setattr(acc_corpus, "BLIND_REPOS_CSV", pins)
    monkeypatch.setattr(acc_labels, "BLIND_CANDIDATES_CSV", candidates)
    monkeypatch.setattr(acc_labels, "BLIND_LABELS_CSV", labels)
    acc_corpus.write_repos([repo], pins)
    acc_labels.write_candidates([Candidate("o/r", repo.commit, "a.py", 2, "TCP005", "", ""),
                                 Candidate("o/r", repo.commit, "a.py", 1, "TCP003", "", "")], candidates)
    acc_labels.write_labels([Label("o/r", repo.commit, "a.py", 1, "TCP003", "none", "module")], labels)
    assert acc_labels.main(["--mirrors", str(root), "--blind-set", "todo", "--blind", "-C", "0"]) == 0
    out = capsys.readouterr().out
    assert out == (f"=== o/r,{repo.commit},a.py,2,TCP005\n>>     2 x = torch.tensor([1])\n"
                   "left to label: TCP003 0 of 1, TCP005 1 of 1\n")
    assert acc_labels.main(["--mirrors", str(root), "--blind-set", "check", "--sources"]) == 0
    assert capsys.readouterr().out == "1 labels, 0 problems\n"


def test_file_rows_without_the_plugin_has_no_verdict():
    source = dedent(
        """
        import torch
        def f(self, data, w):
            b = torch.tensor(w.detach())
            for x, y in data:
                self.running = self.running + self.model(x)
        """
    )
    rows, skipped = acc_shapes.file_rows(("o/r", COMMIT_A, "a.py", source.encode(), None), plugin=False)
    assert skipped == ""
    assert [(row.line, row.shape, row.plugin) for row in rows] == [(3, "TCP005", "")]  # no finding-only row


@pytest.mark.slow
def test_shapes_blind_candidates_no_plugin_writes_the_blind_files_only(
        tiny_mirror, restore_paths, monkeypatch, tmp_path):
    root, repo, _ = tiny_mirror
    pins, candidates, labels = tmp_path / "pins.csv", tmp_path / "cands.csv", tmp_path / "labs.csv"
    monkeypatch.setattr(acc_corpus, "BLIND_REPOS_CSV", pins)
    monkeypatch.setattr(acc_labels, "BLIND_CANDIDATES_CSV", candidates)
    monkeypatch.setattr(acc_labels, "BLIND_LABELS_CSV", labels)
    monkeypatch.setattr(acc_shapes.corpus_files, "BENCH_CACHE", tmp_path / "cache")
    monkeypatch.setenv("TENSORCOPY_MIRRORS", str(root))  # the export runs corpus.py in a subprocess
    acc_corpus.write_repos([repo], pins)
    committed = (BENCH / "candidates.csv").read_bytes(), (BENCH / "labels.csv").read_bytes()
    assert acc_shapes.main(["--mirrors", str(root), "--jobs", "1", "--blind", "candidates", "--no-plugin"]) == 0
    assert acc_labels.read_candidates(candidates) == [Candidate("o/r", repo.commit, "a.py", 2, "TCP005", "", "literal")]
    assert [label.note for label in acc_labels.read_labels(labels)] == ["literal (auto)"]
    assert ((BENCH / "candidates.csv").read_bytes(), (BENCH / "labels.csv").read_bytes()) == committed
    # The export was made from the blind pin list, under its own name.
    assert [path.name for path in (tmp_path / "cache").iterdir()] == [
        acc_shapes.corpus_files.app_corpus_path(tmp_path / "cache", pins).name]


def test_shapes_candidates_repos_and_rules_rescan_only_those(tiny_mirror, restore_paths, monkeypatch, tmp_path):
    root, repo, _ = tiny_mirror
    pins, candidates, labels = tmp_path / "pins.csv", tmp_path / "cands.csv", tmp_path / "labs.csv"
    monkeypatch.setattr(acc_corpus, "BLIND_REPOS_CSV", pins)
    monkeypatch.setattr(acc_labels, "BLIND_CANDIDATES_CSV", candidates)
    monkeypatch.setattr(acc_labels, "BLIND_LABELS_CSV", labels)
    monkeypatch.setattr(acc_shapes.corpus_files, "app_corpus_dir", lambda cache, pins: tmp_path / "export")
    acc_corpus.write_repos([repo], pins)
    other = Candidate("p/q", COMMIT_A, "b.py", 7, "TCP001", "found", "")  # another repository's row: kept
    stale = Candidate("o/r", repo.commit, "gone.py", 1, "TCP009", "", "")  # a rescanned repository's: replaced
    acc_labels.write_candidates([other, stale], candidates)
    listed = tmp_path / "new.txt"
    listed.write_text("# the new ones\no/r\n")
    scan = ["--mirrors", str(root), "--jobs", "1", "--blind", "candidates", "--no-plugin", "--repos", str(listed)]
    assert acc_shapes.main([*scan, "--rules", "TCP003,TCP009"]) == 0
    assert acc_labels.read_candidates(candidates) == [other]  # a.py's TCP005 row is not among the rules
    assert acc_shapes.main([*scan, "--rules", "TCP005"]) == 0
    assert acc_labels.read_candidates(candidates) == [
        Candidate("o/r", repo.commit, "a.py", 2, "TCP005", "", "literal"), other]
    assert acc_shapes.main(scan) == 0  # without --rules: every shape of the listed repositories
    assert len(acc_labels.read_candidates(candidates)) == 2
    with pytest.raises(SystemExit):
        acc_shapes.main(["--blind", "candidates", "--rules", "TCP005"])  # --rules alone would drop rows elsewhere
    with pytest.raises(SystemExit):
        acc_shapes.main([*scan, "--rules", "TCP099"])


def test_score_blind_scores_the_blind_labels(restore_paths, monkeypatch, capsys, tmp_path):
    labels = tmp_path / "labs.csv"
    monkeypatch.setattr(acc_labels, "BLIND_LABELS_CSV", labels)
    acc_labels.write_labels([Label("o/r", COMMIT_A, "a.py", 2, "TCP005", "TCP005", "a tensor"),
                             Label("o/r", COMMIT_A, "a.py", 4, "TCP003", "none", "module")], labels)
    seen = {}

    def findings(chosen, root, jobs, every_file=False):
        seen.update(labels=chosen, every_file=every_file)
        return {("o/r", "a.py"): [(2, "TCP005"), (4, "TCP003")]}

    monkeypatch.setattr(acc_score, "collect_findings", findings)
    assert acc_score.main(["--blind", "--all-findings"]) == 0
    out = capsys.readouterr().out
    assert seen == {"labels": acc_labels.read_labels(labels), "every_file": True}
    assert out.startswith("2 labels in 1 files\n")
    rows = {line.split()[0]: line.split()[1:5] for line in out.splitlines()[2:]}  # hazards, found, missed, false
    assert rows["TCP003"] == ["0", "0", "0", "1"] and rows["TCP005"] == ["1", "1", "0", "0"]


@pytest.mark.parametrize("published", ["--committed", "--write", "--regenerate"])
def test_score_blind_refuses_to_write_the_published_figures(published, restore_paths, capsys):
    with pytest.raises(SystemExit):
        acc_score.main(["--blind", published])
    assert "the published figures are the development corpus's" in capsys.readouterr().err


def test_committed_blind_set_is_consistent_and_apart_from_the_development_corpus():
    blind = acc_corpus.load_repos(acc_corpus.BLIND_REPOS_CSV)
    labels = acc_labels.read_labels(acc_labels.BLIND_LABELS_CSV)
    candidates = acc_labels.read_candidates(acc_labels.BLIND_CANDIDATES_CSV)
    assert acc_labels.problems(labels, blind, candidates) == []
    development = {repo.name for repo in acc_corpus.load_repos()}
    development |= acc_score.read_repo_names(BENCH / "repos-crossmodule.txt")
    development |= {label.repo for label in acc_labels.read_labels(BENCH / "labels-tcp010-tcp011.csv")}
    assert {repo.name for repo in blind}.isdisjoint(development)
    # Every statement the plugin reported for a measured rule was labelled.
    judged = {label.key for label in labels}
    assert all(row.key in judged for row in candidates if row.plugin and row.shape not in ("TCP006", "TCP010"))


