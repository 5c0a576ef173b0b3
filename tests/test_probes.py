"""Probes of each new rule's shapes, flagged and clean, through every front end: flake8, the
`flake8-tensorcopy` command and the language server give exactly the expected findings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lsp_wire import WireClient, frame, notification

PROBES = {
    # TCP012: one module instance repeated in what a ModuleList/Sequential/ModuleDict registers.
    "TCP012": ("""\
import copy

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)


class Act(nn.Module):
    def forward(self, x):
        return x.relu()


class Model(nn.Module):
    def __init__(self, dim, depth, keys):
        super().__init__()
        self.a = nn.ModuleList([nn.Linear(dim, dim)] * depth)  # flagged
        self.b = nn.Sequential(*[Block(dim)] * depth)  # flagged
        layer = nn.TransformerEncoderLayer(dim, 2)
        self.c = nn.ModuleList(depth * [layer])  # flagged
        self.d = nn.ModuleList([layer for _ in range(depth)])  # flagged
        blocks = [nn.BatchNorm1d(dim), nn.Linear(dim, dim)] * depth  # flagged
        self.e = nn.Sequential(*blocks)
        head = nn.Linear(dim, 2)
        self.f = nn.ModuleDict({k: head for k in keys})  # flagged
        self.g = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
        self.h = nn.ModuleList([copy.deepcopy(layer) for _ in range(depth)])
        self.i = nn.Sequential(*[nn.ReLU()] * depth, *[nn.Dropout(0.1)] * depth, *[Act()] * depth)
        self.j = [torch.zeros(3)] * depth
        shared_block = nn.Linear(dim, dim)
        self.k = nn.ModuleList([shared_block] * depth)
        self.l = nn.ModuleList([nn.Linear(dim, dim)] * 1)


def tied(dim, depth, share_weights):
    layer = nn.Linear(dim, dim)
    if share_weights:
        return nn.ModuleList([layer] * depth)
    return nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])


def given(layer, depth):
    return nn.ModuleList([layer] * depth)
""", [(21, 32, "TCP012"), (22, 33, "TCP012"), (24, 32, "TCP012"), (25, 32, "TCP012"), (26, 18, "TCP012"),
      (29, 32, "TCP012")]),
}
# TCP008's optimizer state: a kept optimizer.state_dict() that a later step() changes.
PROBES["TCP008"] = ("""\
import copy

import torch


def best_optimizer(model, optimizer, batches, evaluate):
    best_loss, best_opt = float("inf"), None
    for x, y in batches:
        model(x).sum().backward()
        optimizer.step()
        val = evaluate(model)
        if val < best_loss:
            best_loss, best_opt = val, optimizer.state_dict()  # flagged
    optimizer.load_state_dict(best_opt)


def both(model, optimizer, batches, evaluate):
    best = None
    for x, y in batches:
        model(x).sum().backward()
        optimizer.step()
        if evaluate(model) > 0.9:
            best = (model.state_dict(), optimizer.state_dict())  # flagged
    return best


def saved_at_once(model, optimizer, batches, path):
    for x, y in batches:
        model(x).sum().backward()
        optimizer.step()
        state = optimizer.state_dict()
        torch.save(state, path)


def deep_copied(model, optimizer, batches, evaluate):
    best = None
    for x, y in batches:
        model(x).sum().backward()
        optimizer.step()
        if evaluate(model) > 0.9:
            best = copy.deepcopy(optimizer.state_dict())
    return best


def used_before_the_next_step(model, optimizer, batches, log):
    for x, y in batches:
        model(x).sum().backward()
        optimizer.step()
        state = optimizer.state_dict()
        log(len(state["state"]))
""", [(13, 40, "TCP008"), (23, 21, "TCP008")])
PARAMS = [pytest.param(code, id=code) for code in PROBES]


def _findings(stdout: str) -> list[tuple[int, int, str]]:
    rows = []
    for line in stdout.splitlines():
        _, row, column, rest = line.split(":", 3)
        rows.append((int(row), int(column), rest.split()[0]))
    return sorted(rows)


@pytest.fixture(scope="module")
def probes(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("probes")
    made = {}
    for code, (source, _) in PROBES.items():
        folder = root / code
        folder.mkdir()
        (folder / "probe.py").write_text(source, encoding="utf-8")
        (folder / "pyproject.toml").write_text(
            f'[project]\nname = "probe"\n\n[tool.flake8-tensorcopy]\nextend-select = ["{code}"]\n', encoding="utf-8")
        made[code] = folder
    return made


def test_the_probes_mark_what_they_expect():
    """Each line the expected findings name says `# flagged` (or its statement starts one
    line above), and no other line does: the probe reads as its own answer."""
    for code, (source, expected) in PROBES.items():
        marked = {number for number, line in enumerate(source.splitlines(), 1) if line.endswith("# flagged")}
        assert {line for line, _, _ in expected} <= marked | {line + 1 for line in marked}, code
        assert len(marked) == len(expected), code


@pytest.mark.slow
@pytest.mark.parametrize("code", PARAMS)
def test_flake8_the_command_and_the_server_find_exactly_the_probes_findings(code, probes):
    pytest.importorskip("pygls")
    source, expected = PROBES[code]
    folder = probes[code]
    run = {"cwd": folder, "capture_output": True, "text": True, "timeout": 300}
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "TCP", "probe.py"], **run)
    command = subprocess.run([sys.executable, "-m", "flake8_tensorcopy", "probe.py"], **run)
    assert (flake8.returncode, _findings(flake8.stdout)) == (1, expected), flake8.stderr
    assert (command.returncode, _findings(command.stdout)) == (1, expected), command.stderr
    client = WireClient()
    try:
        client.initialize()
        uri = (folder / "probe.py").as_uri()
        client.send(frame(notification("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": source}})))
        items = client.call(1, "textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]["items"]
    finally:
        client.close()
    server = sorted((d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"]) for d in items)
    assert server == expected
