"""bench/plugin_ab.py: the plugin's CPU in two trees of the package, alternated, and
whether they find the same; run for real on a small folder of training code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

TRAIN = """\
import copy

import torch

def train(model, loader, optimizer):
    best = None
    for x, y in loader:
        loss = torch.mean((model(x) - y) ** 2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.fc.weight.data.mul_(0.5)
        best = copy.deepcopy(model.state_dict())
    return best, torch.tensor(loss)
"""


def test_both_trees_run_and_agree(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "train.py").write_text(TRAIN)
    (corpus / "broken.py").write_text("def f(:\n")  # flake8 reports it; the plugin never sees it
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench/plugin_ab.py"), "--corpus", str(corpus), "--rounds", "1",
         "--project", "on"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    runs = [line for line in result.stdout.splitlines() if line.startswith("  round 1:")]
    assert len(runs) == 2 and all("1 files" in run for run in runs), result.stdout
    assert "median CPU: base (HEAD)" in result.stdout and "ratio" in result.stdout
    # the same code finds the same: TCP001 (.data.mul_) at least (TCP005 is opt-in)
    same = [line for line in result.stdout.splitlines() if line.startswith("findings:")]
    assert same and same[0].startswith("findings: the same"), result.stdout
    assert int(same[0].split()[-1]) >= 1
