"""Worker processes die with their parent: a `flake8-tensorcopy -j N` killed by SIGKILL
(a CI timeout, an editor) leaves no worker behind, waiting for work forever.

Linux only: the processes are found through /proc.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc (Linux)"),
]

GRACE_S = 5.0


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state) of every process visible in /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        state, parent = stat[stat.rindex(")") + 2:].split()[:2]
        table[int(entry.name)] = (int(parent), state)
    return table


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for child, (parent, _) in _processes().items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    table = _processes()
    return {pid for pid in pids if pid in table and table[pid][1] not in "ZX"}  # a zombie has exited


def _kill_and_expect_no_survivor(process: subprocess.Popen, workers: int) -> None:
    deadline = time.monotonic() + 60
    while len(children := _descendants(process.pid)) < workers:
        assert process.poll() is None, "the run ended before its workers were seen: nothing was tested"
        assert time.monotonic() < deadline, f"only {len(children)} of {workers} workers started in 60 s"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    deadline = time.monotonic() + GRACE_S
    while (left := _alive(children)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:  # do not leave them to the next test either
        os.kill(pid, signal.SIGKILL)
    assert left == set(), f"{len(left)} of {len(children)} workers outlived their killed parent by {GRACE_S} s"


@pytest.mark.slow
def test_no_worker_outlives_a_killed_cli(tmp_path):
    """The real command, linting a tree big enough to keep three workers busy."""
    body = "".join(
        f"\n\ndef f{k}(w: torch.Tensor, t: torch.Tensor):\n    w.data.mul_({k})\n    return copy.deepcopy(t)\n"
        for k in range(40)
    )
    for number in range(300):
        (tmp_path / f"m{number:03}.py").write_text("import copy\n\nimport torch\n" + body)
    process = subprocess.Popen([sys.executable, "-m", "flake8_tensorcopy", "-j", "3", "."], cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _kill_and_expect_no_survivor(process, workers=3)
    finally:
        process.kill()
        process.wait()


# Each mechanism alone: the parent-death signal (Linux), and the pipe each worker watches
# (the portable one, all that spawned workers on macOS and Windows have, in its spawn form).
WITHOUT = {
    "parent-death signal alone": "parallel._exit_when_ready = lambda watched: None",
    "watched pipe alone": "parallel._set_parent_death_signal = lambda: None",
}


@pytest.mark.parametrize("disabled", sorted(WITHOUT))
def test_each_mechanism_alone_ends_the_workers(disabled):
    script = textwrap.dedent(f"""
        import time
        from flake8_tensorcopy import parallel
        {WITHOUT[disabled]}

        def work(item):
            time.sleep(120)
            return item

        for _ in parallel.run(work, list(range(6)), jobs=3):
            pass
    """)
    process = subprocess.Popen([sys.executable, "-c", script])
    try:
        _kill_and_expect_no_survivor(process, workers=3)
    finally:
        process.kill()
        process.wait()


def test_a_finished_run_closes_its_pipe():
    from flake8_tensorcopy import parallel

    before = set(os.listdir("/proc/self/fd"))
    assert sorted(result for _, result in parallel.run(abs, [-1, -2, -3], jobs=2)) == [1, 2, 3]
    assert set(os.listdir("/proc/self/fd")) <= before
