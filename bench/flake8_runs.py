"""One measured flake8 invocation, with its findings counted."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from process_stats import ProcessStats, run_measured
from venvs import Venv

# flake8 with the plugin's own seconds counted (the 'with' runs of -j 1).
SHARE_SCRIPT = Path(__file__).resolve().with_name("flake8_share.py")

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
    # CPU seconds spent inside the plugin's checks, when counted (``share``).
    plugin_cpu_s: float | None = None

    def count(self, prefix: str) -> int:
        return self.findings_by_prefix.get(prefix, 0)


class Flake8Failed(RuntimeError):
    """flake8 crashed instead of reporting findings."""


def run_flake8(venv: Venv, arguments: list[str], workdir: Path,
               stdin: Path | None = None, share: bool = False) -> Flake8Run:
    """Run venv's flake8 in workdir (an empty directory, so no project
    config file is picked up) and count what it printed. With ``share``
    (a serial run of a venv holding the plugin), also count the CPU time
    spent inside the plugin (flake8_share.py)."""
    stdout, stderr = workdir / "flake8.out", workdir / "flake8.err"
    shares = workdir / "share.json"
    command = ([str(venv.python), "-I", str(SHARE_SCRIPT), str(shares)]
               if share else [str(venv.flake8)])
    shares.unlink(missing_ok=True)
    stats = run_measured([*command, *arguments], cwd=workdir,
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
                     load_after=os.getloadavg()[0],
                     plugin_cpu_s=(json.loads(shares.read_text())["plugin_cpu_s"]
                                   if share else None))


def _count_findings(path: Path) -> Counter:
    counts: Counter = Counter()
    with open(path, "rb") as report:
        for line in report:
            match = FINDING.search(line)
            if match:
                counts[match.group(1).decode()] += 1
    return counts
