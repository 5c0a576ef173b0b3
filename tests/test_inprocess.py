"""flake8 run in-process, again and again, as VS Code's flake8 extension runs it.

The extension's server (``lsp_utils.run_module``) swaps ``sys.argv``, ``sys.stdout``
and the working directory, then calls ``runpy.run_module("flake8", run_name="__main__")``
in its own long-lived process, once per lint, with the path of the saved file. Nothing
the plugin keeps at module or class level may leak from one run into the next.
"""

from __future__ import annotations

import contextlib
import io
import re
import runpy
import sys

import pytest
from flake8.main.application import Application

pytestmark = pytest.mark.compat

# What the extension always passes (the quotes are part of the format string: no shell).
VSCODE_FORMAT = "--format='%(row)d,%(col)d,%(code).1s,%(code)s:%(text)s'"
VSCODE_LINE = re.compile(r"(?P<line>\d+),(?P<column>-?\d+),(?P<type>\w+),(?P<code>\w+\d+):(?P<message>[^\r\n]*)")

TRAIN = """\
import torch


def step(w: torch.Tensor, lr: float) -> torch.Tensor:
    w.data.add_(-lr * w.grad)
    kept = w.clone().detach()  # noqa: TCP002
    return w.clone().detach() + kept
"""
TRAIN_FINDINGS = [(5, 5, "TCP001"), (7, 12, "TCP002")]

TRAIN_FIXED = TRAIN.replace("    w.data.add_(-lr * w.grad)\n", "    with torch.no_grad():\n        w.add_(-lr * w.grad)\n")
TRAIN_FIXED_FINDINGS = [(8, 12, "TCP002")]

SNAPSHOT = """\
import copy

import torch


def snapshot(t: torch.Tensor) -> torch.Tensor:
    return copy.deepcopy(t)
"""
SNAPSHOT_FINDINGS = [(7, 12, "TCP003")]


def _run_like_vscode(path, *args: str) -> list[tuple[int, int, str]]:
    """One lint as the extension does it in-process; (row, 1-based col, code) found."""
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    argv = ["flake8", VSCODE_FORMAT, "--select=TCP", *args, str(path)]
    saved = sys.argv, sys.stdout, sys.stderr
    sys.argv, sys.stdout, sys.stderr = argv, stdout, stderr
    try:
        with contextlib.suppress(SystemExit):
            runpy.run_module("flake8", run_name="__main__")
    finally:
        sys.argv, sys.stdout, sys.stderr = saved
    stdout.seek(0)
    stderr.seek(0)
    errors = stderr.read()
    assert errors == "", errors
    found = []
    for line in stdout.read().splitlines():
        match = VSCODE_LINE.match(line.strip("'"))
        assert match, line
        found.append((int(match["line"]), int(match["column"]), match["code"]))
        # `type` is what the extension falls back on for severity: "T" is unknown to it,
        # hence the README's `"flake8.severity": {"TCP": "Warning"}`.
        assert match["type"] == "T" and match["message"].strip(), line
    return found


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the extension runs flake8 in the workspace folder
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "snapshot.py").write_text(SNAPSHOT, encoding="utf-8")
    return tmp_path


def test_repeated_runpy_runs_like_vscode(files):
    train, snapshot = files / "train.py", files / "snapshot.py"
    assert _run_like_vscode(train) == TRAIN_FINDINGS
    assert _run_like_vscode(train) == TRAIN_FINDINGS  # the same file again
    assert _run_like_vscode(snapshot) == SNAPSHOT_FINDINGS  # another file
    assert _run_like_vscode(train, "--select=TCP002") == [(7, 12, "TCP002")]  # other options
    assert _run_like_vscode(train, "--extend-ignore=TCP001") == [(7, 12, "TCP002")]
    train.write_text(TRAIN_FIXED, encoding="utf-8")  # the user edits and saves
    assert _run_like_vscode(train) == TRAIN_FIXED_FINDINGS
    assert _run_like_vscode(snapshot) == SNAPSHOT_FINDINGS


def test_repeated_application_runs(files, tmp_path):
    results = []
    for name in ["train.py", "snapshot.py", "train.py", "snapshot.py"]:
        output = tmp_path / f"out-{len(results)}.txt"
        app = Application()
        app.run(["--select=TCP", f"--output-file={output}", name])
        results.append((name, app.result_count, output.read_text(encoding="utf-8").splitlines()))
    assert [(name, count) for name, count, _ in results] == [
        ("train.py", 2),
        ("snapshot.py", 1),
        ("train.py", 2),
        ("snapshot.py", 1),
    ]
    assert results[0][2] == results[2][2] and results[1][2] == results[3][2]
    assert [line.split(" ")[:2] for line in results[0][2]] == [["train.py:5:5:", "TCP001"], ["train.py:7:12:", "TCP002"]]
    assert [line.split(" ")[:2] for line in results[1][2]] == [["snapshot.py:7:12:", "TCP003"]]


@pytest.mark.slow
def test_libcst_is_frozen_when_first_used_and_importing_the_engine_does_nothing():
    """Importing the engine does no work: it freezes nothing. The first LibCST parse (a fix
    is built) freezes the long-lived objects (LibCST's and ours) for the cycle collector,
    after collecting what is already garbage: a cycle dropped before is freed, not kept."""
    import subprocess

    probe = (
        "import gc, weakref\n"
        "import flake8_tensorcopy.engine as engine\n"
        "print(gc.get_freeze_count())\n"
        "class Node: pass\n"
        "a, b = Node(), Node(); a.other, b.other = b, a\n"
        "dropped = weakref.ref(a); del a, b\n"
        "engine.parse('x = 1\\n')\n"
        "print(gc.get_freeze_count(), dropped() is None)\n"
    )
    before, after = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert before == "0"
    frozen, freed = after.split()
    assert int(frozen) > 10_000  # LibCST's classes and functions among them
    assert freed == "True"
