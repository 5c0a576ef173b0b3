"""The command line on many files: --jobs, sorted output, the progress bar, .gitignore,
--statistics. Each test runs the real command in a subprocess on real files."""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import every_rule
import pytest

pytestmark = pytest.mark.slow

RISKY_FUNCTION = (
    "def f{n}(w: torch.Tensor, t: torch.Tensor):\n"
    "    w.data.add_(1)\n"
    "    x = copy.deepcopy(t)\n"
    "    y = t.detach()\n"
    "    y.zero_()\n"
    "    return x, w.clone().detach()\n"
)


def risky(functions: int = 1) -> str:
    """TCP001, TCP003, TCP004 and TCP002 in each function."""
    return "import copy\nimport torch\n" + "".join("\n\n" + RISKY_FUNCTION.format(n=n) for n in range(functions))


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "flake8_tensorcopy", *args]


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


def paths(result: subprocess.CompletedProcess) -> list[str]:
    """The files named in the findings, in output order, each once."""
    return list(dict.fromkeys(line.split(":", 1)[0] for line in result.stdout.splitlines()))


@pytest.fixture
def tree(tmp_path):
    """Nested folders of risky files, a clean one, and one that cannot be parsed."""
    for index in range(12):
        folder = tmp_path / f"pkg{index % 3}" / ("sub" if index % 2 else "")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{index:02d}.py").write_text(risky(1 + index % 4))
    (tmp_path / "clean.py").write_text("import torch\n\n\ndef f(x: torch.Tensor):\n    return x.detach().clone()\n")
    (tmp_path / "pkg1" / "broken.py").write_text("def f(:\n")
    (tmp_path / "pyproject.toml").write_text(every_rule.TABLE)  # TCP004 is opt-in
    return tmp_path


def test_jobs_give_the_same_output_and_status_as_one_job(tree):
    one = run("--jobs", "1", ".", cwd=tree)
    assert one.returncode == 2 and "./pkg1/broken.py: error: cannot analyse it" in one.stderr
    assert len(one.stdout.splitlines()) == 4 * sum(1 + index % 4 for index in range(12))
    for jobs in ("2", "3"):
        many = run("-j", jobs, ".", cwd=tree)
        assert (many.returncode, many.stdout, many.stderr) == (one.returncode, one.stdout, one.stderr)
    for output_format in ("json", "sarif", "github"):
        assert run("-j1", "--format", output_format, ".", cwd=tree).stdout == run(
            "-j3", "--format", output_format, ".", cwd=tree).stdout
    diff_one, diff_many = run("-j1", "--diff", ".", cwd=tree), run("-j3", "--diff", ".", cwd=tree)
    assert diff_one.stdout.count("\n--- ./") + 1 == 12 and (diff_one.stdout, diff_one.stderr) == (
        diff_many.stdout, diff_many.stderr)


def test_fixes_with_jobs_are_the_fixes_of_one_job(tree, tmp_path_factory):
    copy = tmp_path_factory.mktemp("copy") / "tree"
    shutil.copytree(tree, copy)
    one, many = run("--fix", "-j1", ".", cwd=tree), run("--fix", "-j3", ".", cwd=copy)
    assert (one.returncode, one.stdout, one.stderr) == (many.returncode, many.stdout, many.stderr)
    assert "Fixed 60 finding(s) in 12 file(s) (TCP001: 30, TCP002: 30); 60 left." in many.stderr
    written = sorted(p.relative_to(copy) for p in copy.rglob("*") if p.is_file())
    assert written == sorted(p.relative_to(tree) for p in tree.rglob("*") if p.is_file()), "no stray file"
    for relative in written:
        assert (copy / relative).read_bytes() == (tree / relative).read_bytes()
    assert "with torch.no_grad():" in (copy / "pkg0" / "m00.py").read_text()


def test_output_is_sorted_by_path_then_position(tree):
    result = run("-j1", "pkg2/m02.py", "clean.py", "pkg0/m00.py", "pkg1/sub/m01.py", cwd=tree)
    assert paths(result) == ["pkg0/m00.py", "pkg1/sub/m01.py", "pkg2/m02.py"]
    rows = [line.split(":")[:3] for line in result.stdout.splitlines()]
    assert rows == sorted(rows, key=lambda row: (row[0], int(row[1]), int(row[2])))


def test_a_file_named_twice_is_linted_once(tree):
    result = run("pkg0/m00.py", "./pkg0/m00.py", "pkg0", cwd=tree)
    assert paths(result) == ["pkg0/m00.py", "pkg0/m06.py", "pkg0/sub/m03.py", "pkg0/sub/m09.py"]


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_must_be_a_positive_number(tree, jobs):
    result = run("--jobs", jobs, ".", cwd=tree)
    assert result.returncode == 2 and "--jobs: " in result.stderr and result.stdout == ""


def test_statistics_count_each_code_like_flake8(tree):
    result = run("--statistics", "pkg0", cwd=tree)
    findings, statistics = result.stdout.splitlines()[:-4], result.stdout.splitlines()[-4:]
    assert len(findings) == 4 * 10  # pkg0 holds 10 functions, each with the four codes
    first: dict[str, str] = {}
    for line in findings:
        code, message = line.split(": ", 1)[1].split(" ", 1)
        first.setdefault(code, message)
    assert statistics == [f"10    {code} {first[code]}" for code in ("TCP001", "TCP002", "TCP003", "TCP004")]
    theirs = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "TCP", "--statistics", "pkg0"],
        cwd=tree, capture_output=True, text=True, timeout=300,
    )
    assert sorted(theirs.stdout.splitlines()) == sorted(result.stdout.splitlines())
    refused = run("--statistics", "--format", "json", "pkg0", cwd=tree)
    assert refused.returncode == 2 and "--statistics prints text" in refused.stderr


# -- the progress bar ------------------------------------------------------------------
def on_a_terminal(*args: str, cwd: Path) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (stdout a pipe): (status, stdout, what the terminal got)."""
    controller, terminal = pty.openpty()
    stdout = tempfile.TemporaryFile()  # a pipe nobody reads while the terminal is read would fill up
    process = subprocess.Popen(command(*args), cwd=cwd, stdout=stdout, stderr=terminal)
    os.close(terminal)
    shown = b""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 1)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        elif process.poll() is not None:
            break
    os.close(controller)
    status = process.wait(timeout=60)
    stdout.seek(0)
    return status, stdout.read().decode(), shown.decode()


@pytest.fixture
def many_files(tmp_path):
    for index in range(800):  # some 2 s of linting: long enough for the bar to appear
        (tmp_path / f"m{index:03d}.py").write_text(risky(3))
    (tmp_path / "pyproject.toml").write_text(every_rule.TABLE)
    return tmp_path


def test_a_long_run_on_a_terminal_shows_progress_then_clears_it(many_files):
    status, stdout, shown = on_a_terminal("-j1", ".", cwd=many_files)
    assert status == 1 and len(stdout.splitlines()) == 800 * 12
    drawn, after = shown.rsplit("\r\x1b[K", 1)  # erased at the end: back to the line's start, wiped
    frames = drawn.split("\r")[1:]
    assert frames and drawn.startswith("\r"), shown
    counts = [int(frame.split("] ")[1].split("/")[0]) for frame in frames]
    assert counts == sorted(counts) and all(frame.endswith(f"] {count}/800 files") for frame, count in
                                            zip(frames, counts))
    # The summary then starts on a clean line (the terminal turns \n into \r\n).
    assert after == "4800 finding(s) fixable with --fix.\r\n2400 more fixable with --fix --unsafe-fixes.\r\n"


def test_no_progress_bar_off_a_terminal_or_when_quiet(many_files):
    piped = run("-j1", ".", cwd=many_files)
    assert "\r" not in piped.stderr and "files" not in piped.stderr
    assert piped.stderr == "4800 finding(s) fixable with --fix.\n2400 more fixable with --fix --unsafe-fixes.\n"
    status, stdout, shown = on_a_terminal("-j1", "--quiet", ".", cwd=many_files)
    assert (status, len(stdout.splitlines()), shown) == (1, 800 * 12, "")


# -- .gitignore --------------------------------------------------------------------------
def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={
        **os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": os.devnull,
    })


@pytest.fixture
def repo(tmp_path):
    """A git work tree whose .gitignore ignores build/ and gen_*.py; one ignored file is tracked."""
    for name in ("src/model.py", "src/gen_ops.py", "src/gen_kept.py", "build/lib/model.py", "scratch.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(risky())
    (tmp_path / ".gitignore").write_text("build/\ngen_*.py\n")
    git("init", "-q", cwd=tmp_path)
    git("add", ".gitignore", "src/model.py", cwd=tmp_path)
    git("add", "-f", "src/gen_kept.py", cwd=tmp_path)  # tracked: git no longer ignores it
    (tmp_path / ".git" / "info" / "exclude").write_text("scratch.py\n")
    return tmp_path


def test_walking_skips_what_git_ignores(repo):
    assert paths(run(".", cwd=repo)) == ["./src/gen_kept.py", "./src/model.py"]
    assert paths(run(".", cwd=repo / "src")) == ["./gen_kept.py", "./model.py"]  # the root's .gitignore too
    # Named on the command line: linted even if ignored.
    assert paths(run("src/gen_ops.py", "build/lib/model.py", cwd=repo)) == ["build/lib/model.py", "src/gen_ops.py"]
    everything = ["./build/lib/model.py", "./scratch.py", "./src/gen_kept.py", "./src/gen_ops.py", "./src/model.py"]
    assert paths(run("--no-respect-gitignore", ".", cwd=repo)) == everything
    (repo / "pyproject.toml").write_text("[tool.flake8-tensorcopy]\nrespect-gitignore = false\n")
    assert paths(run(".", cwd=repo)) == everything
    assert paths(run("--respect-gitignore", ".", cwd=repo)) == ["./src/gen_kept.py", "./src/model.py"]


def test_a_nested_repository_follows_its_own_gitignore(repo):
    inner = repo / "vendor"
    (inner / "lib").mkdir(parents=True)
    (inner / "lib" / "model.py").write_text(risky())
    (inner / "lib" / "skip.py").write_text(risky())
    (inner / ".gitignore").write_text("skip.py\n")
    git("init", "-q", cwd=inner)
    assert paths(run(".", cwd=repo)) == ["./src/gen_kept.py", "./src/model.py", "./vendor/lib/model.py"]


def test_outside_git_or_without_git_nothing_is_ignored(repo, tmp_path_factory):
    plain = tmp_path_factory.mktemp("plain")
    shutil.copytree(repo, plain, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
    everything = ["./build/lib/model.py", "./scratch.py", "./src/gen_kept.py", "./src/gen_ops.py", "./src/model.py"]
    assert paths(run(".", cwd=plain)) == everything  # a .gitignore, but no work tree
    no_git = {**os.environ, "PATH": str(tmp_path_factory.mktemp("empty"))}
    assert shutil.which("git", path=no_git["PATH"]) is None
    assert paths(run(".", cwd=repo, env=no_git)) == everything
