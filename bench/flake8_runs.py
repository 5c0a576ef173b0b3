"""One measured flake8 invocation, with its findings counted."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from process_stats import ProcessStats, finish_all, start_measured
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
    return run_side_by_side([Flake8Start(venv, arguments, stdin, share)],
                            workdir)[0]


@dataclass(frozen=True)
class Flake8Start:
    """One flake8 invocation of run_side_by_side; ``cpu``: the core it runs on."""
    venv: Venv
    arguments: list[str]
    stdin: Path | None = None
    share: bool = False
    cpu: int | None = None


def run_side_by_side(starts: list[Flake8Start], workdir: Path
                     ) -> list[Flake8Run]:
    """Run every invocation at once (one alone: just that one), each
    writing its own files in workdir, and count what each printed."""
    outputs = [_Outputs(workdir, number) for number in range(len(starts))]
    children = []
    for start, output in zip(starts, outputs):
        command = ([str(start.venv.python), "-I", str(SHARE_SCRIPT),
                    str(output.shares)] if start.share
                   else [str(start.venv.flake8)])
        output.shares.unlink(missing_ok=True)
        children.append(start_measured(
            [*command, *start.arguments], cwd=workdir, stdout=output.stdout,
            stderr=output.stderr, stdin=start.stdin, cpu=start.cpu))
    stats = finish_all(children)
    return [output.run(start, measured)
            for start, output, measured in zip(starts, outputs, stats)]


class _Outputs:
    """Where one invocation writes: its own files, so that runs side by
    side never share one."""

    def __init__(self, workdir: Path, number: int) -> None:
        suffix = f".{number}" if number else ""
        self.stdout = workdir / f"flake8.out{suffix}"
        self.stderr = workdir / f"flake8.err{suffix}"
        self.shares = workdir / f"share.json{suffix}"

    def run(self, start: Flake8Start, stats: ProcessStats) -> Flake8Run:
        error_text = self.stderr.read_text(errors="replace")
        if stats.returncode not in (0, 1) or any(
                marker in error_text for marker in CRASH_MARKERS):
            raise Flake8Failed(
                f"{start.venv.name}: flake8 exited {stats.returncode}\n"
                f"{error_text[-4000:]}")
        by_prefix = _count_findings(self.stdout)
        self.stdout.unlink()
        plugin_cpu = (json.loads(self.shares.read_text())["plugin_cpu_s"]
                      if start.share else None)
        return Flake8Run(env=start.venv.name, stats=stats,
                         findings=sum(by_prefix.values()),
                         findings_by_prefix=dict(sorted(by_prefix.items())),
                         stderr_first_line=error_text.strip().split("\n")[0],
                         load_after=os.getloadavg()[0],
                         plugin_cpu_s=plugin_cpu)


def _count_findings(path: Path) -> Counter:
    counts: Counter = Counter()
    with open(path, "rb") as report:
        for line in report:
            match = FINDING.search(line)
            if match:
                counts[match.group(1).decode()] += 1
    return counts
