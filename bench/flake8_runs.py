"""One measured flake8 invocation, with its findings counted."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from process_stats import ProcessStats, run_measured
from venvs import Venv

# "path:row:col: CODE message" -> the letters of CODE (E, W, F, C, TCP...).
FINDING = re.compile(rb":\d+:\d+: ([A-Z]+)\d")

# flake8 exits 1 when it reports findings; these in stderr mean it crashed
# (a plugin exception also exits 1, so the exit code alone cannot tell).
CRASH_MARKERS = ("Traceback", "critical error", "PluginExecutionFailed",
                 "flake8: error")


@dataclass
class Flake8Run:
    env: str
    stats: ProcessStats
    findings: int
    findings_by_prefix: dict[str, int] = field(default_factory=dict)
    stderr_first_line: str = ""
    # 1-min load average right after the run: above the core count, the
    # wall time includes waiting for a CPU held by other work.
    load_after: float = 0.0

    def count(self, prefix: str) -> int:
        return self.findings_by_prefix.get(prefix, 0)


class Flake8Failed(RuntimeError):
    """flake8 crashed instead of reporting findings."""


def run_flake8(venv: Venv, arguments: list[str], workdir: Path,
               stdin: Path | None = None) -> Flake8Run:
    """Run venv's flake8 in workdir (an empty directory, so no project
    config file is picked up) and count what it printed."""
    stdout, stderr = workdir / "flake8.out", workdir / "flake8.err"
    stats = run_measured([str(venv.flake8), *arguments], cwd=workdir,
                         stdout=stdout, stderr=stderr, stdin=stdin)
    error_text = stderr.read_text(errors="replace")
    if stats.returncode not in (0, 1) or any(
            marker in error_text for marker in CRASH_MARKERS):
        raise Flake8Failed(
            f"{venv.name}: flake8 exited {stats.returncode}\n"
            f"{error_text[-4000:]}")
    by_prefix = _count_findings(stdout)
    stdout.unlink()
    return Flake8Run(env=venv.name, stats=stats,
                     findings=sum(by_prefix.values()),
                     findings_by_prefix=dict(sorted(by_prefix.items())),
                     stderr_first_line=error_text.strip().split("\n")[0],
                     load_after=os.getloadavg()[0])


def _count_findings(path: Path) -> Counter:
    counts: Counter = Counter()
    with open(path, "rb") as report:
        for line in report:
            match = FINDING.search(line)
            if match:
                counts[match.group(1).decode()] += 1
    return counts
