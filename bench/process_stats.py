"""Run commands, one or several side by side, and measure each one's wall time,
CPU time and peak RSS."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessStats:
    wall_s: float
    cpu_s: float
    peak_rss_kib: int
    returncode: int


def run_measured(argv: list[str], *, cwd: Path, stdout: Path,
                 stderr: Path, stdin: Path | None = None) -> ProcessStats:
    """Run argv to completion with stdout/stderr sent to files.

    The child is reaped with os.wait4, whose rusage belongs to that one
    child (and anything it waited for).  getrusage(RUSAGE_CHILDREN) would
    instead give the maximum over every child this benchmark has ever
    waited for, so peak RSS would only ever go up from run to run.
    ru_maxrss is in KiB on Linux.
    """
    return finish_all([start_measured(argv, cwd=cwd, stdout=stdout,
                                      stderr=stderr, stdin=stdin)])[0]


@dataclass
class Started:
    """A child started by start_measured, not yet reaped."""
    child: subprocess.Popen
    started: float
    files: tuple


def start_measured(argv: list[str], *, cwd: Path, stdout: Path, stderr: Path,
                   stdin: Path | None = None, cpu: int | None = None
                   ) -> Started:
    """Start argv with stdout/stderr sent to files; with ``cpu``, the child
    runs on that core alone (two children side by side then never share
    one, nor trade places)."""
    files = (open(stdin or os.devnull, "rb"), open(stdout, "wb"),
             open(stderr, "wb"))
    pin = None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu}))
    try:
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, env=clean_environment(),
                                 stdin=files[0], stdout=files[1],
                                 stderr=files[2], preexec_fn=pin)
    except BaseException:
        for opened in files:
            opened.close()
        raise
    return Started(child, started, files)


def finish_all(children: list[Started]) -> list[ProcessStats]:
    """Wait for every child; each one's wall time ends when it exits, not
    when the one before it in the list does (hence the polling)."""
    stats: dict[int, ProcessStats] = {}
    try:
        while len(stats) < len(children):
            for started in children:
                pid = started.child.pid
                if pid in stats:
                    continue
                reaped, status, usage = os.wait4(
                    pid, 0 if len(children) == 1 else os.WNOHANG)
                if reaped == 0:
                    continue
                # Tell Popen the child is gone so it neither waits again nor warns.
                started.child.returncode = os.waitstatus_to_exitcode(status)
                stats[pid] = ProcessStats(
                    wall_s=time.perf_counter() - started.started,
                    cpu_s=usage.ru_utime + usage.ru_stime,
                    peak_rss_kib=usage.ru_maxrss,
                    returncode=started.child.returncode)
            if len(stats) < len(children):
                time.sleep(0.01)
    finally:
        for started in children:
            for opened in started.files:
                opened.close()
    return [stats[started.child.pid] for started in children]


def clean_environment() -> dict[str, str]:
    """The caller's environment minus what could leak packages into the
    isolated venvs (a PYTHONPATH holding the plugin would fake "with")."""
    leaky = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV",
             "PYTHONUSERBASE"}
    environment = {key: value for key, value in os.environ.items()
                   if key not in leaky}
    environment["PYTHONNOUSERSITE"] = "1"
    return environment
