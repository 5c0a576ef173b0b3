"""Run one command and measure its wall time, CPU time and peak RSS."""

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
    with open(stdin or os.devnull, "rb") as stdin_file, \
            open(stdout, "wb") as stdout_file, \
            open(stderr, "wb") as stderr_file:
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, env=clean_environment(),
                                 stdin=stdin_file, stdout=stdout_file,
                                 stderr=stderr_file)
        _, status, usage = os.wait4(child.pid, 0)
        wall_s = time.perf_counter() - started
    # Tell Popen the child is gone so it neither waits again nor warns.
    child.returncode = os.waitstatus_to_exitcode(status)
    return ProcessStats(wall_s=wall_s,
                        cpu_s=usage.ru_utime + usage.ru_stime,
                        peak_rss_kib=usage.ru_maxrss,
                        returncode=child.returncode)


def clean_environment() -> dict[str, str]:
    """The caller's environment minus what could leak packages into the
    isolated venvs (a PYTHONPATH holding the plugin would fake "with")."""
    leaky = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV",
             "PYTHONUSERBASE"}
    environment = {key: value for key, value in os.environ.items()
                   if key not in leaky}
    environment["PYTHONNOUSERSITE"] = "1"
    return environment
