"""One project, three front ends, one answer: flake8, the `flake8-tensorcopy` command and
the language server read the same `[tool.flake8-tensorcopy]` table and report the same
findings, or the same error, for each way of setting it (docs/configuration.md).

Each case is a folder with its own pyproject.toml; flake8 and the command run in it, and
one language server (pulled diagnostics, as an editor asks) lints every case's file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lsp_wire import WireClient, frame, notification

pytest.importorskip("pygls")

RISKY = """\
import torch


def step(w: torch.Tensor, t: torch.Tensor, img: torch.Tensor, device: str):
    w.data.add_(1)
    y = t.detach()
    y.zero_()
    img = img.to(device)
    img /= 255
    return w.clone().detach(), img
"""
# Each case: the table, the file linted (a path in the case's folder), and what all three
# report: the findings as (line, column, code), or a piece of the error they all give.
CASES = {
    "defaults": ("", "train.py", [(5, 5, "TCP001"), (10, 12, "TCP002")]),  # TCP004 is opt-in
    "ignore": ('ignore = ["TCP004"]\n', "train.py", [(5, 5, "TCP001"), (10, 12, "TCP002")]),
    "select": ('select = ["TCP001"]\n', "train.py", [(5, 5, "TCP001")]),
    "per-file-ignores": ('[tool.flake8-tensorcopy]\nextend-select = ["TCP004"]\n\n'
                         '[tool.flake8-tensorcopy.per-file-ignores]\n"legacy/*" = ["TCP001", "TCP002"]\n',
                         "legacy/old.py", [(7, 5, "TCP004")]),
    "misspelt key": ('ignor = ["TCP004"]\n', "train.py", "ignor: unknown key; did you mean 'ignore'?"),
    "opt-in rule": ('extend-select = ["TCP006", "TCP004"]\n', "train.py",
                    [(5, 5, "TCP001"), (7, 5, "TCP004"), (9, 5, "TCP006"), (10, 12, "TCP002")]),
}
PARAMS = [pytest.param(name, id=name) for name in CASES]


@pytest.fixture(scope="module")
def projects(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("front-ends")
    made = {}
    for number, (name, (table, linted, _)) in enumerate(CASES.items()):
        folder = root / f"case{number}"
        (folder / linted).parent.mkdir(parents=True, exist_ok=True)
        (folder / linted).write_text(RISKY, encoding="utf-8")
        header = "" if table.startswith("[tool.") else "[tool.flake8-tensorcopy]\n"
        (folder / "pyproject.toml").write_text(f'[project]\nname = "case"\n\n{header}{table}', encoding="utf-8")
        made[name] = folder
    return made


@pytest.fixture(scope="module")
def server_answers(projects) -> dict[str, list | str]:
    """Every case through one language server: its diagnostics, or the error it showed."""
    client = WireClient()
    answers = {}
    try:
        client.initialize()
        for number, (name, folder) in enumerate(projects.items(), 1):
            uri = (folder / CASES[name][1]).as_uri()
            client.send(frame(notification("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": RISKY}})))
            items = client.call(number, "textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]["items"]
            errors = [m for m in client.shown_messages() if str(folder) in m]
            answers[name] = errors[0] if errors else sorted(
                (d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"]) for d in items)
    finally:
        client.close()
    return answers


def _findings(stdout: str) -> list[tuple[int, int, str]]:
    rows = []
    for line in stdout.splitlines():
        _, row, column, rest = line.split(":", 3)
        rows.append((int(row), int(column), rest.split()[0]))
    return sorted(rows)


def _run(command: list[str], folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("name", PARAMS)
def test_flake8_the_command_and_the_server_agree(name, projects, server_answers):
    _, linted, expected = CASES[name]
    folder = projects[name]
    # --select TCP: our codes only (flake8's own checks would report the unused imports).
    flake8 = _run([sys.executable, "-m", "flake8", "--select", "TCP", linted], folder)
    command = _run([sys.executable, "-m", "flake8_tensorcopy", linted], folder)
    server = server_answers[name]
    if isinstance(expected, str):
        assert flake8.returncode != 0 and expected in flake8.stderr and not flake8.stdout, flake8
        assert command.returncode == 2 and expected in command.stderr and not command.stdout, command
        assert isinstance(server, str) and expected in server, server
        return
    assert (flake8.returncode, _findings(flake8.stdout)) == (1, expected), flake8.stderr
    assert (command.returncode, _findings(command.stdout)) == (1, expected), command.stderr
    assert server == expected


@pytest.mark.slow
def test_a_full_code_in_flake8s_select_turns_a_rule_on_as_the_commands_does(projects):
    """flake8's own options win where both are given: naming TCP004 brings it back over the
    table's ignore, as `flake8-tensorcopy --extend-select TCP004` does."""
    folder = projects["ignore"]
    flake8 = _run([sys.executable, "-m", "flake8", "--select", "TCP", "--extend-select", "TCP004", "train.py"], folder)
    command = _run([sys.executable, "-m", "flake8_tensorcopy", "--extend-select", "TCP004", "train.py"], folder)
    assert _findings(flake8.stdout) == _findings(command.stdout) == [(5, 5, "TCP001"), (7, 5, "TCP004"), (10, 12, "TCP002")]


@pytest.mark.slow
def test_the_size_limit_cuts_at_the_same_place(tmp_path):
    """Past the analysis budget (limits.MAX_ANALYSED_TOKENS) flake8, which parses single
    statements where it can, stops where the command, which parses whole functions, stops:
    the same findings, and the same parts named as not analysed."""
    function = ("def f{}(w: torch.Tensor, t: torch.Tensor):\n    a = 1\n    w.data.add_(a)\n"
                "    c = t.clone().detach()\n    return c * 2\n\n\n")
    (tmp_path / "gen.py").write_text("import torch\n\n\n" + "".join(function.format(n) for n in range(2_000)))
    flake8 = _run([sys.executable, "-m", "flake8", "-v", "--select", "TCP", "gen.py"], tmp_path)
    command = _run([sys.executable, "-m", "flake8_tensorcopy", "gen.py"], tmp_path)
    assert command.returncode == 2 and flake8.returncode == 1
    assert _findings(flake8.stdout) == _findings(command.stdout) != []
    cut = command.stderr.split("not analysed: ", 1)[1].splitlines()[0]
    assert "over the analysis budget" in cut and f"skipped part of gen.py: {cut}" in flake8.stderr
