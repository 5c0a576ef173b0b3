"""Issue 6: `--fix` never loses data.

A write is a temporary file, synced, then renamed over the original: killing the
process at any moment leaves each file wholly old or wholly new. Files that must not
be rewritten (read-only, symbolic links, changed on disk since they were read) are
reported and left alone; the mode and owner of a rewritten file are kept.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from flake8_tensorcopy import cli, fixer

RISKY = "import torch\n\n\ndef f(w: torch.Tensor):\n    w.data.add_(1)\n    return w.clone().detach()\n"
FIXED = fixer.fix_source(RISKY).source
TEMPORARY = cli.TEMPORARY_SUFFIX


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_the_risky_file_has_a_fix():
    assert FIXED != RISKY and "w.detach().clone()" in FIXED


@pytest.mark.slow
def test_read_only_file_is_reported_and_left_alone(tmp_path):
    locked, other = tmp_path / "locked.py", tmp_path / "other.py"
    locked.write_text(RISKY)
    other.write_text(RISKY)
    locked.chmod(0o444)
    before = locked.stat()
    result = run_cli("--fix", "locked.py", "other.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "locked.py: error: not fixed, left untouched: it is read-only" in result.stderr
    assert locked.read_text() == RISKY
    after = locked.stat()
    assert (after.st_ino, after.st_mtime_ns, stat.S_IMODE(after.st_mode)) == (
        before.st_ino, before.st_mtime_ns, 0o444)
    assert other.read_text() == FIXED, "the other files are still fixed"
    # Its findings are still reported.
    assert "locked.py:5:5: TCP001" in result.stdout


@pytest.mark.slow
def test_symbolic_link_is_reported_and_left_alone(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "real.py"
    target.write_text(RISKY)
    project = tmp_path / "project"
    project.mkdir()
    (project / "link.py").symlink_to(target)
    result = run_cli("--fix", ".", cwd=project)
    assert result.returncode == 2
    assert f"./link.py: error: not fixed, left untouched: it is a symbolic link (to {target})" in result.stderr
    assert (project / "link.py").is_symlink() and os.readlink(project / "link.py") == str(target)
    assert target.read_text() == RISKY
    assert sorted(p.name for p in project.iterdir()) == ["link.py"]


def test_file_changed_on_disk_while_being_fixed_is_left_alone(tmp_path, monkeypatch, capsys):
    """An editor saves the file after the CLI read it: the user's save wins."""
    path, other = tmp_path / "m.py", tmp_path / "n.py"
    path.write_text(RISKY)
    other.write_text(RISKY)
    saved_by_editor = RISKY + "\n# edited meanwhile\n"
    real = fixer.fix_source

    def fix_source(source, *args, **kwargs):
        result = real(source, *args, **kwargs)
        if path.read_text() == RISKY:  # only the first file; after the fix was computed
            path.write_text(saved_by_editor)
        return result

    monkeypatch.setattr(fixer, "fix_source", fix_source)
    assert cli.main(["--fix", str(path), str(other)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: error: not fixed, left untouched: it changed on disk while it was being fixed" in err
    assert path.read_text() == saved_by_editor
    assert other.read_text() == FIXED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py", "n.py"], "no temporary file left"


def test_changed_just_before_the_rename_is_caught(tmp_path, monkeypatch):
    """The check runs after the temporary file is written, right before the rename."""
    path = tmp_path / "m.py"
    path.write_bytes(b"old")
    real_fsync = os.fsync

    def fsync_then_edit(fd):
        real_fsync(fd)
        path.write_bytes(b"new from an editor")

    monkeypatch.setattr(os, "fsync", fsync_then_edit)
    with pytest.raises(cli.Refused, match="changed on disk"):
        cli.write_atomic(path, b"fixed", expected=b"old")
    assert path.read_bytes() == b"new from an editor"
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o2775])
def test_mode_is_kept(tmp_path, mode):
    path = tmp_path / "m.py"
    path.write_text(RISKY)
    path.chmod(mode)
    inode = path.stat().st_ino
    result = run_cli("--fix", "m.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.stat().st_ino != inode, "written by a rename, not in place"


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_owner_is_kept(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(RISKY)
    os.chown(path, 4321, 8765)
    result = run_cli("--fix", "m.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_text() == FIXED
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 8765)


# -- killed mid-fix ----------------------------------------------------------------------------
# The CLI, with one hook: os.fsync announces the temporary file and waits to be killed.
SLOW_FSYNC = textwrap.dedent(
    """
    import os, sys, time
    def fsync(fd):
        print("SYNCING", os.readlink(f"/proc/self/fd/{fd}"), file=sys.stderr, flush=True)
        time.sleep(60)
    os.fsync = fsync
    from flake8_tensorcopy.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
def test_killed_while_writing_leaves_the_old_file_and_a_named_stray(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(RISKY)
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_FSYNC, "--fix", "m.py"], cwd=tmp_path, stderr=subprocess.PIPE, text=True
    )
    try:
        line = process.stderr.readline()
        assert line.startswith("SYNCING "), line
        stray = Path(line.split(" ", 1)[1].strip())
        assert stray.exists() and stray.read_text() == FIXED, "the new code is in the temporary file"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=60)
    assert path.read_text() == RISKY, "the original is whole"
    assert stray.parent == tmp_path and stray.name.startswith(".m.py.") and stray.name.endswith(TEMPORARY)
    # The stray is recognisable, not linted, and in nobody's way: the next run fixes the file.
    result = run_cli("--fix", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_text() == FIXED
    assert stray.name not in result.stdout + result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["m.py", stray.name])


def _corpus(folder: Path, files: int) -> dict[str, str]:
    """Files with 30 fixes each (so that a run lasts a few seconds)."""
    folder.mkdir()
    contents = {}
    for number in range(files):
        functions = "".join(
            f"\n\ndef f{number}_{k}(w: torch.Tensor, t: torch.Tensor):\n"
            f"    w.data.mul_({k})\n    x = copy.deepcopy(t)\n    return x, t.clone().detach()\n"
            for k in range(10)
        )
        text = "import copy\n\nimport torch\n" + functions
        (folder / f"m{number:02}.py").write_text(text)
        contents[f"m{number:02}.py"] = text
    return contents


@pytest.mark.slow
def test_sigkill_at_random_moments_leaves_every_file_old_or_new(tmp_path):
    old = _corpus(tmp_path / "reference", 12)
    started = time.monotonic()
    reference = run_cli("--fix", "--unsafe-fixes", ".", cwd=tmp_path / "reference")
    duration = time.monotonic() - started
    assert reference.returncode == 0, reference.stderr
    new = {name: (tmp_path / "reference" / name).read_text() for name in old}
    assert all(new[name] != old[name] for name in old)

    rng = random.Random(6)
    partial_states = 0
    for attempt in range(6):
        folder = tmp_path / f"run{attempt}"
        _corpus(folder, 12)
        process = subprocess.Popen(
            [sys.executable, "-m", "flake8_tensorcopy", "--fix", "--unsafe-fixes", "."],
            cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        # Spread over the run (interpreter start-up included), with some jitter.
        time.sleep(duration * (attempt + 1) / 7 * rng.uniform(0.85, 1.15))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        states = []
        for name in old:
            text = (folder / name).read_text()
            assert text in (old[name], new[name]), f"{name} is neither the old nor the new file"
            states.append(text == new[name])
        partial_states += 0 < sum(states) < len(states)
        strays = [p.name for p in folder.iterdir() if p.name not in old]
        assert all(s.startswith(".m") and s.endswith(TEMPORARY) for s in strays), strays
        # Running again finishes the job, whatever was left behind.
        rerun = run_cli("--fix", "--unsafe-fixes", ".", cwd=folder)
        assert rerun.returncode == 0, rerun.stderr
        assert {name: (folder / name).read_text() for name in old} == new
    assert partial_states, "no kill landed while files were being written: the test proved nothing"


@pytest.mark.slow
def test_a_file_too_big_to_fix_quickly_is_refused_at_once(tmp_path):
    """Fixing works on the whole file (several LibCST passes): past the fix budget it would
    take minutes, so the file is reported, linted, and left untouched."""
    functions = "".join(f"\n\ndef f{i}(w: torch.Tensor):\n    return w.clone().detach()\n" for i in range(2_000))
    source = "import torch\n" + functions
    path = tmp_path / "big.py"
    path.write_text(source)
    started = time.monotonic()
    result = run_cli("--fix", "big.py", cwd=tmp_path)
    assert time.monotonic() - started < 60
    assert result.returncode == 2
    assert "big.py: error: not fixed, left untouched: over the fix budget of 25,000 tokens a file" in result.stderr
    assert path.read_text() == source
    assert result.stdout.count("TCP002") == 2_000, "its findings are still reported"
