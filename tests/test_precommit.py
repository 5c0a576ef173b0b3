"""The pre-commit hooks, run for real: ``pre-commit try-repo`` and ``pre-commit run``.

pre-commit builds its own virtualenv and ``pip install``s this package into it, so
these tests need git and the package index (PyPI), nothing else. ``try-repo`` takes
the repository's HEAD plus changes to *tracked* files only; the tests therefore hand it
a snapshot of this checkout's working tree (tracked and untracked, minus ignored
files), so that what is tested is what is about to be committed.

``try-repo`` copies the repository anew on every call, and so builds a fresh
virtualenv each time: one test proves it; the others run the hooks with
``pre-commit run --config`` on the snapshot at its commit, which builds one environment
for the whole module (a shared ``PRE_COMMIT_HOME``) and reuses it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
HOOK_ID = "flake8-tensorcopy"
CLI_HOOK_ID = "flake8-tensorcopy-cli"
# pre-commit creates a virtualenv and installs the package and its dependencies.
TIMEOUT_S = 600
FINDING = re.compile(r"^[^\s:]+:\d+:\d+: [A-Z]+[0-9]+ ", re.MULTILINE)

RISKY = """\
import os
import torch


def step(w: torch.Tensor, lr: float) -> torch.Tensor:
    w.data.add_(-lr * w.grad)
    return w.clone().detach()  # this comment makes the line longer than 79 chars


LEGACY = torch.zeros(2).clone().detach()  # noqa: TCP002
"""
# 1-based columns, as flake8 prints them.
RISKY_FINDINGS = ["risky.py:6:5: TCP001 ", "risky.py:7:12: TCP002 "]

FIXED = """\
import torch


def step(w: torch.Tensor, lr: float) -> torch.Tensor:
    with torch.no_grad():
        w.add_(-lr * w.grad)
    return w.detach().clone()
"""

STUB = """\
import torch

def f(t: torch.Tensor) -> torch.Tensor: ...
X = torch.tensor(1.0).clone().detach()
"""
STUB_FINDING = "stub.pyi:4:5: TCP002 "

# RISKY and STUB after `flake8-tensorcopy --fix`: only the findings' spans change.
RISKY_FIXED = """\
import os
import torch


def step(w: torch.Tensor, lr: float) -> torch.Tensor:
    with torch.no_grad():
        w.add_(-lr * w.grad)
    return w.detach().clone()  # this comment makes the line longer than 79 chars


LEGACY = torch.zeros(2).clone().detach()  # noqa: TCP002
"""
STUB_FIXED = STUB.replace(".clone().detach()", ".detach().clone()")

NOTEBOOK_CELLS = [
    {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["A copy, the slow way: `.clone().detach()`"]},
    {
        "cell_type": "code",
        "execution_count": None,
        "id": "copy",
        "metadata": {},
        "outputs": [],
        "source": ["import torch\n", "\n", "snapshot = torch.zeros(2).clone().detach()\n"],
    },
]
NOTEBOOK = json.dumps({"cells": NOTEBOOK_CELLS, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _git(*args: str, cwd: Path) -> str:
    command = ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"]
    done = subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"git {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.fail("these tests need git on PATH")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    environ.pop("SKIP", None)
    environ["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    environ["PRE_COMMIT_COLOR"] = "never"
    return environ


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """A git repository holding this checkout's working tree; returns (path, commit)."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is skipped
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    assert (snapshot / ".pre-commit-hooks.yaml").is_file()
    _git("init", "-q", cwd=snapshot)
    _git("add", "-A", cwd=snapshot)
    _git("commit", "-q", "-m", "snapshot", cwd=snapshot)
    return snapshot, _git("rev-parse", "HEAD", cwd=snapshot).strip()


def _project(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    _git("init", "-q", cwd=path)
    _write(path, files)
    return path


def _write(project: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    _git("add", "-A", cwd=project)


def _pre_commit(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"pre-commit {' '.join(args)} hung for {TIMEOUT_S} s:\n{error.stdout}\n{error.stderr}")


def _findings(output: str) -> list[str]:
    """The flake8 lines of a hook's output, each cut after its code."""
    return [match.group(0) for match in FINDING.finditer(output)]


def _hook_config(path: Path, repo: Path, commit: str, hook_id: str, args: tuple[str, ...] = ()) -> Path:
    hook_args = f"\n        args: [{', '.join(args)}]" if args else ""
    path.write_text(
        f"""\
repos:
  - repo: {repo}
    rev: {commit}
    hooks:
      - id: {hook_id}{hook_args}
""",
        encoding="utf-8",
    )
    return path


def _run_hook(project: Path, config: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` of ``config``'s hooks on every file: reuses the module's environment."""
    return _pre_commit("run", "--config", str(config), "--all-files", cwd=project, env=env)


def test_try_repo_fails_on_risky_code_and_passes_once_fixed(tmp_path, hook_repo, env):
    repo, commit = hook_repo
    project = _project(tmp_path / "project", {"risky.py": RISKY, "README.txt": "not python\n"})

    failed = _pre_commit("try-repo", str(repo), HOOK_ID, "--all-files", cwd=project, env=env)
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert f"- hook id: {HOOK_ID}" in output and "Failed" in output, output
    # TCP only: no F401 for `import os`, no E501 for the long line, and the noqa holds.
    assert _findings(output) == RISKY_FINDINGS, output

    _write(project, {"risky.py": FIXED})
    passed = _run_hook(project, _hook_config(tmp_path / "config.yaml", repo, commit, HOOK_ID), env)
    output = passed.stdout + passed.stderr
    assert passed.returncode == 0, output
    assert "Passed" in output and _findings(output) == [], output


def test_user_args_and_config_cannot_widen_or_drop_the_selection(tmp_path, hook_repo, env):
    repo, commit = hook_repo
    project = _project(
        tmp_path / "project",
        {
            "risky.py": RISKY,
            "stub.pyi": STUB,
            # A project config that selects everything for its own flake8 runs.
            ".flake8": "[flake8]\nselect = E,F,W,C90\nextend-select = E,F\nmax-line-length = 60\n",
        },
    )
    config = tmp_path / "pre-commit-config.yaml"
    config.write_text(
        f"""\
repos:
  - repo: {repo}
    rev: {commit}
    hooks:
      - id: {HOOK_ID}
        alias: plain
      - id: {HOOK_ID}
        alias: line-length
        args: [--max-line-length=100]
      - id: {HOOK_ID}
        alias: select-e
        args: [--select=E]
      - id: {HOOK_ID}
        alias: drop-one
        args: [--extend-ignore=TCP002]
""",
        encoding="utf-8",
    )

    def run(alias: str) -> tuple[int, list[str], str]:
        done = _pre_commit("run", "--config", str(config), "--all-files", alias, cwd=project, env=env)
        output = done.stdout + done.stderr
        return done.returncode, sorted(_findings(output)), output

    # The project's own select/extend-select do not widen the hook; `.pyi` is linted.
    rc, found, output = run("plain")
    assert rc == 1 and found == sorted([*RISKY_FINDINGS, STUB_FINDING]), output

    # An option in `args:` keeps the selection (it sits in `entry`, not in `args`).
    rc, found, output = run("line-length")
    assert rc == 1 and found == sorted([*RISKY_FINDINGS, STUB_FINDING]), output

    # A `--select` in `args:` adds to our codes, it does not replace them: TCP stays,
    # pycodestyle's E codes join, and pyflakes (F401 for `import os`) stays out.
    rc, found, output = run("select-e")
    codes = {line.split()[1] for line in found}
    assert rc == 1 and set(RISKY_FINDINGS + [STUB_FINDING]) <= set(found), output
    assert "E501" in codes and not any(code.startswith(("F", "W", "C")) for code in codes), output

    # One of our codes can still be dropped.
    rc, found, output = run("drop-one")
    assert rc == 1 and found == [RISKY_FINDINGS[0]], output


def test_cli_hook_fails_on_findings_in_python_and_stubs_and_passes_clean_code(tmp_path, hook_repo, env):
    repo, commit = hook_repo
    project = _project(tmp_path / "project", {"risky.py": RISKY, "stub.pyi": STUB, "README.txt": "not python\n"})
    config = _hook_config(tmp_path / "config.yaml", repo, commit, CLI_HOOK_ID)

    failed = _run_hook(project, config, env)
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert f"- hook id: {CLI_HOOK_ID}" in output and "Failed" in output, output
    # The command, not flake8: no F401 for `import os`, no E501; the noqa holds, and
    # README.txt is never handed to it (it would fail to parse, exit status 2).
    assert sorted(_findings(output)) == sorted([*RISKY_FINDINGS, STUB_FINDING]), output
    assert "3 finding(s) fixable with --fix." in output, output

    _write(project, {"risky.py": FIXED, "stub.pyi": STUB_FIXED})
    passed = _run_hook(project, config, env)
    output = passed.stdout + passed.stderr
    assert passed.returncode == 0, output
    assert "Passed" in output and _findings(output) == [], output


def test_cli_hook_with_fix_writes_the_safe_fixes(tmp_path, hook_repo, env):
    repo, commit = hook_repo
    project = _project(tmp_path / "project", {"risky.py": RISKY, "stub.pyi": STUB})
    config = _hook_config(tmp_path / "config.yaml", repo, commit, CLI_HOOK_ID, ("--fix",))

    fixed = _run_hook(project, config, env)
    output = fixed.stdout + fixed.stderr
    # Every finding was fixed, yet the hook fails: pre-commit fails a hook that changes files.
    assert fixed.returncode == 1, output
    assert "files were modified by this hook" in output and _findings(output) == [], output
    assert "Fixed 3 finding(s)" in output, output
    assert (project / "risky.py").read_text(encoding="utf-8") == RISKY_FIXED
    assert (project / "stub.pyi").read_text(encoding="utf-8") == STUB_FIXED

    _git("add", "-A", cwd=project)
    again = _run_hook(project, config, env)
    output = again.stdout + again.stderr
    assert again.returncode == 0 and "Passed" in output, output


def test_cli_hook_is_handed_notebooks(tmp_path, hook_repo, env):
    repo, commit = hook_repo
    project = _project(tmp_path / "project", {"nb.ipynb": NOTEBOOK})
    done = _run_hook(project, _hook_config(tmp_path / "config.yaml", repo, commit, CLI_HOOK_ID), env)
    output = done.stdout + done.stderr
    assert "flake8-tensorcopy CLI" in output and "(no files to check)" not in output, output


def test_cli_hook_lints_and_fixes_notebooks(tmp_path, hook_repo, env):
    repo, commit = hook_repo
    project = _project(tmp_path / "project", {"nb.ipynb": NOTEBOOK})

    failed = _run_hook(project, _hook_config(tmp_path / "config.yaml", repo, commit, CLI_HOOK_ID), env)
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert any(line.startswith("nb.ipynb:") and " TCP002 " in line for line in output.splitlines()), output

    config = _hook_config(tmp_path / "fix-config.yaml", repo, commit, CLI_HOOK_ID, ("--fix",))
    fixed = _run_hook(project, config, env)
    output = fixed.stdout + fixed.stderr
    assert fixed.returncode == 1 and "files were modified by this hook" in output, output
    notebook = json.loads((project / "nb.ipynb").read_text(encoding="utf-8"))
    markdown, code = notebook.pop("cells")
    assert markdown == NOTEBOOK_CELLS[0]  # the markdown cell's `.clone().detach()` is prose
    assert "".join(code.pop("source")) == "import torch\n\nsnapshot = torch.zeros(2).detach().clone()\n"
    assert code == {k: v for k, v in NOTEBOOK_CELLS[1].items() if k != "source"}
    assert notebook == {"metadata": {}, "nbformat": 4, "nbformat_minor": 5}
