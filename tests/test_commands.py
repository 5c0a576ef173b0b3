"""Every command in the README and under docs/ runs as written in a fresh copy of the
repository: each `bash` block line by line, each `console` block's commands with their
output compared, and the README's `repo: local` pre-commit hook through pre-commit.

The copy is this checkout's files (tracked and untracked, not ignored) in a new git
repository, as a clone would have them; its own code is what runs (PYTHONPATH), and
`python3` is a venv's, so an install command installs there and nowhere else. A block
that cannot run here says why just above it (tests/doc_blocks.py).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doc_blocks import ROOT, all_blocks


def _bash_commands():
    for block in all_blocks("bash"):
        if block.not_run is None:
            lines = [line for line in block.body.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            for index, line in enumerate(lines, 1):
                yield pytest.param(block, line, id=f"{block.where}.{index}")


COMMANDS = list(_bash_commands())


def _console_commands():
    for block in all_blocks("console"):
        if block.not_run is not None:
            continue
        command, expected = None, []
        for line in block.body.splitlines(keepends=True):
            if line.startswith("$ "):
                if command:
                    yield pytest.param(command, "".join(expected), id=block.where)
                command, expected = line[2:].strip(), []
            else:
                expected.append(line)
        if command:
            yield pytest.param(command, "".join(expected), id=block.where)


CONSOLE = list(_console_commands())
LOCAL_HOOKS = [block for block in all_blocks("yaml") if "repo: local" in block.body]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory) -> Path:
    """A venv that sees this Python's packages: installs land in it, and cost little."""
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(folder)], check=True)
    return folder / "bin"


@pytest.fixture
def clone(tmp_path) -> Path:
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    copy = tmp_path / "flake8-tensorcopy"
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    _git("init", "-q", cwd=copy)
    _git("add", "-A", cwd=copy)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "clone", cwd=copy)
    return copy


@pytest.fixture
def env(clone, venv_bin, tmp_path) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "VIRTUAL_ENV"))}
    environ.update(PATH=f"{venv_bin}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{environ.get('PATH', '')}",
                   PYTHONPATH=str(clone), PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
                   PRE_COMMIT_COLOR="never", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return environ


def _run(command: str, clone: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize(("block", "command"), COMMANDS)
def test_command_runs_as_written(block, command, clone, env):
    """0, or 1 where it reports findings (the fixtures and the example notebook hold
    the hazards they demonstrate); never a traceback or an error of ours."""
    result = _run(command, clone, env)
    output = result.stdout + result.stderr
    said = f"{block.where}: {command}\n{output}"
    assert result.returncode == 0 or (result.returncode == 1 and "TCP0" in output), said
    assert "Traceback" not in output and ": error:" not in output, said


@pytest.mark.slow
@pytest.mark.parametrize(("command", "expected"), CONSOLE)
def test_console_block_shows_what_the_command_prints(command, expected, clone, env):
    assert _run(command, clone, env).stdout == expected


@pytest.mark.slow
@pytest.mark.parametrize("block", [pytest.param(b, id=b.where) for b in LOCAL_HOOKS])
def test_local_pre_commit_hook_runs_the_installed_command(block, clone, env):
    (clone / ".pre-commit-config.yaml").write_text(block.body, encoding="utf-8")
    _git("add", ".pre-commit-config.yaml", cwd=clone)
    risky = "fixtures/tcp002_clone_detach.py"
    result = _run(f"pre-commit run --files {shlex.quote(risky)}", clone, env)
    output = result.stdout + result.stderr
    assert result.returncode == 1 and f"{risky}:16:12: TCP002" in output, output


def test_every_page_has_commands_that_run():
    """The collection above is not empty by accident (a fence the pattern missed)."""
    assert len(COMMANDS) >= 10 and CONSOLE and len(LOCAL_HOOKS) >= 2
