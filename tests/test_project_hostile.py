"""The project analysis on a hostile repository: it never waits on a file, never reads one
outside the root, and a cache it did not write changes no finding.

Every test that could hang runs under a timeout (an alarm in process, ``timeout=`` for a
subprocess), so that a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_project import ENABLED, found, tree, write  # noqa: F401 (tree: a fixture)

from flake8_tensorcopy.analysis import cache, plain_file, project

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and links are POSIX")

CROPS = "import torch\n\n\ndef crop(xyxy):\n    return torch.tensor(xyxy)  # TCP005: its caller passes rows\n"
DETECT = "import torch\n\nfrom crops import crop\n\n\ndef run(det: torch.Tensor):\n    for *xyxy, c in det:\n" \
         "        crop(xyxy)\n"
NUMBERS = "from crops import crop\n\ncrop([0.0, 1.0])\n"


@contextmanager
def deadline(seconds: int):
    """Fail, rather than wait forever, when what runs inside blocks (an ``open`` of a pipe).
    The alarm repeats, and its having rung fails the test, should the code swallow it."""
    rang = []

    def expired(signum, frame):
        rang.append(signum)
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if rang:
        pytest.fail(f"blocked: still running after {seconds} s")


_OPENED: list[list[str]] = []


def _audit(event: str, arguments: tuple) -> None:
    if event == "open" and _OPENED and isinstance(arguments[0], (str, bytes)):
        _OPENED[-1].append(os.fsdecode(arguments[0]))


sys.addaudithook(_audit)  # every way of opening a file says so; it acts only inside ``opened``


@pytest.fixture()
def opened() -> list[str]:
    """The paths of the files opened from here on."""
    seen: list[str] = []
    _OPENED.append(seen)
    yield seen
    _OPENED.remove(seen)


def _crops(root: Path, callers: dict[str, str]) -> Path:
    write(root, {"pyproject.toml": ENABLED, "crops.py": CROPS, **callers})
    project.forget_files()  # files came and went: what this process knew of the project goes
    return root / "crops.py"


def test_a_pipe_named_as_a_module_is_never_opened(tmp_path: Path) -> None:
    """The import graph lists every module under the root, in folders flake8 excludes too,
    and reads their imports: a pipe among them would block the run forever."""
    root = tmp_path / "repo"
    crops = _crops(root, {"detect.py": DETECT})
    (root / "data").mkdir()
    os.mkfifo(root / "data/pipe.py")
    os.mkfifo(root / "data/book.ipynb")
    os.mkfifo(tmp_path / "outside_pipe")
    (root / "linked_pipe.py").symlink_to(tmp_path / "outside_pipe")
    (root / "inner_pipe.py").symlink_to(root / "data/pipe.py")
    with deadline(30):
        assert found(crops) == [(5, "TCP005")]


def test_a_file_is_read_to_its_bound_even_when_it_grows_after_fstat(tmp_path: Path, monkeypatch) -> None:
    """The read is sized by what ``fstat`` said, and what was written since is still read
    up to the bound: a file that grew past it is refused, as one that was too large."""
    module = tmp_path / "grows.py"
    module.write_bytes(b"x" * 100)
    assert plain_file.read_plain_file(str(module), 100) == b"x" * 100
    assert plain_file.read_plain_file(str(module), 99) is None
    real_fstat = os.fstat

    def stale_fstat(handle: int) -> os.stat_result:  # as if measured before 60 bytes were appended
        fields = list(real_fstat(handle))
        fields[6] -= 60
        return os.stat_result(fields)

    monkeypatch.setattr(plain_file.os, "fstat", stale_fstat)
    assert plain_file.read_plain_file(str(module), 100) == b"x" * 100
    assert plain_file.read_plain_file(str(module), 99) is None


def test_a_file_is_read_whole_when_the_system_hands_it_over_in_pieces(tmp_path: Path, monkeypatch) -> None:
    """A read may return fewer bytes than asked (a signal, a network file system): the rest
    is read on, to the end of the file, and the bound still holds."""
    module = tmp_path / "pieces.py"
    module.write_bytes(bytes(range(256)) * 4)
    real_read = os.read
    monkeypatch.setattr(plain_file.os, "read", lambda handle, size: real_read(handle, min(size, 7)))
    assert plain_file.read_plain_file(str(module), 1024) == bytes(range(256)) * 4
    assert plain_file.read_plain_file(str(module), 1023) is None


def test_a_module_linked_from_outside_the_root_is_never_read(tmp_path: Path, opened: list[str]) -> None:
    """A ``.py`` link in the root to a file outside it is not one of the project's modules:
    not read for its imports, not a caller."""
    root, outside = tmp_path / "repo", tmp_path / "outside"
    outside.mkdir()
    (outside / "caller.py").write_text(NUMBERS)  # it would make the parameter unknown
    crops = _crops(root, {"detect.py": DETECT})
    (root / "linked.py").symlink_to(outside / "caller.py")
    opened.clear()  # the test's own writes
    assert found(crops) == [(5, "TCP005")]
    assert [path for path in opened if path.startswith(str(outside))] == []


def test_a_pyproject_that_is_a_pipe_is_not_waited_on(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / "pyproject.toml")
    (tmp_path / "train.py").write_text("import torch\n")
    with deadline(30):
        located = project.locate(str(tmp_path / "train.py"))  # no settings read: the defaults
    assert located is not None and located[0].root == os.path.realpath(tmp_path)


def _poison_the_cache(root: Path, outside: Path) -> None:
    """What a repository could commit (with ``git add -f``) for a CI path it can predict:
    each entry's answers changed (nothing known, or all tensors), depending on and naming
    files that are not the project's (a device, a pipe, a file outside the root)."""
    for entry in (root / cache.FOLDER_NAME).glob("*.json"):
        raw = entry.read_bytes()
        data = json.loads(raw if raw.startswith(b"{") else raw.partition(b"\n")[2])
        for number, row in enumerate(data["answers"]):
            row[1] = {"tensor": [False, True, False]} if number % 2 else None
            row[2].update({"/dev/zero": "0" * 32, str(outside / "pipe.py"): "0" * 32, "/etc/passwd": "0" * 32})
        data["answers"].append([["exported_call", "make_batch"], {"instance": ["X", "/dev/zero"]}, {}])
        entry.write_bytes(json.dumps(data).encode())


def _limited() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _findings(*command: str, cwd: Path) -> list[str]:
    """The findings ``command`` prints, run in a session of its own: should it block, it and
    its worker processes are killed, and the test fails."""
    with subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          preexec_fn=_limited, start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"{' '.join(command[2:])} still running after 120 s")
    assert process.returncode in (0, 1), stdout + stderr
    return sorted(line for line in stdout.splitlines() if "TCP" in line)


@pytest.mark.slow
def test_a_hostile_repository_finds_what_a_run_without_the_cache_finds(
        tree: Path, tmp_path_factory) -> None:  # noqa: F811
    """A pipe (in a folder flake8 excludes, and linked from outside the root), a symbolic
    link loop, a link out of the root and a committed poisoned cache: every front end ends,
    within bounded memory, with exactly the findings of a run without the cache."""
    outside = tmp_path_factory.mktemp("outside")
    os.mkfifo(outside / "pipe.py")
    (outside / "caller.py").write_text("from pkg.boxes import crop\n\ncrop([0.0], None)\n")
    (tree / "data").mkdir()
    os.mkfifo(tree / "data/pipe.py")
    (tree / "pkg/linked_pipe.py").symlink_to(outside / "pipe.py")
    (tree / "pkg/loop").mkdir()
    (tree / "pkg/loop/inner").symlink_to(tree / "pkg/loop")
    (tree / "pkg/itself.py").symlink_to(tree / "pkg/itself.py")
    (tree / "pkg/linked_caller.py").symlink_to(outside / "caller.py")
    python = sys.executable
    excluded = "data,linked_pipe.py,itself.py"  # flake8 itself would wait on a pipe it is to lint
    flake8 = [python, "-m", "flake8", "--select", "TCP", "-j", "2", "--extend-exclude", excluded, "."]
    cli = [python, "-m", "flake8_tensorcopy", "--jobs", "2", "--extend-exclude", excluded, "."]
    single = [python, "-m", "flake8_tensorcopy", "pkg/boxes.py"]
    clean = {
        "flake8": _findings(*flake8, "--tensorcopy-no-cache", cwd=tree),
        "cli": _findings(*cli, "--no-cache", cwd=tree),
        "single": _findings(*single, "--no-cache", cwd=tree),
    }
    assert clean["flake8"] and clean["single"]
    _findings(*cli, cwd=tree)  # fills the cache, which the repository then "commits" poisoned
    _poison_the_cache(tree, outside)
    for name, command in (("flake8", flake8), ("cli", cli), ("single", single)):
        assert _findings(*command, cwd=tree) == clean[name], name
    assert _findings(*flake8, cwd=tree) == clean["flake8"]  # warm, from the entries rewritten


def test_the_cli_neither_waits_on_a_pipe_it_walks_nor_on_one_it_is_given(tmp_path: Path, capsys, monkeypatch) -> None:
    from flake8_tensorcopy import cli

    # --no-cache turns the cache off through the environment (for the CLI's workers): set
    # here, it is undone when the test ends and the next test has its cache.
    monkeypatch.setenv(project.NO_CACHE_VARIABLE, "0")
    crops = _crops(tmp_path, {"detect.py": DETECT})
    os.mkfifo(tmp_path / "pipe.py")
    with deadline(30):
        assert cli.main(["--no-cache", "-q", "-j", "1", "--extend-select", "TCP005", str(tmp_path)]) == 1  # the pipe is not source
        assert "crops.py:5:" in capsys.readouterr().out
        assert cli.main(["--no-cache", "-q", "--extend-select", "TCP005", str(tmp_path / "pipe.py"), str(crops)]) == 2
        assert "pipe.py: error: cannot read it: not a plain file" in capsys.readouterr().err
