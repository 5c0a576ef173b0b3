"""flake8, with the time it spends in flake8-tensorcopy counted: bench/run.py's 'with' runs.

    python -I bench/flake8_share.py REPORT.json FLAKE8-ARGUMENTS...

Runs flake8 in this process as its command does (same arguments, output and exit code)
and writes to REPORT.json the CPU and wall seconds spent in the plugin: importing it,
and constructing the checker and all of its ``run()`` (summary, prefilter, LibCST, rules)
for every file. The run's CPU time then splits into flake8's part and the plugin's, and
``cpu / (cpu - plugin)`` is what the plugin costs measured within one process: a shared
machine that slows down or speeds up between a pair's two runs moves both parts alike.
Meant for ``-j 1``: with workers, each would count its own share and none would report it.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    report, arguments = Path(argv[0]), argv[1:]
    from flake8.main import cli

    spent = {"plugin_cpu_s": 0.0, "plugin_wall_s": 0.0, "checks": 0}

    def counted(work):
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return work()
        finally:
            spent["plugin_cpu_s"] += time.process_time() - cpu
            spent["plugin_wall_s"] += time.perf_counter() - wall

    def plugin_class():  # its import counts too: flake8 would pay it when loading plugins
        from flake8_tensorcopy.plugin import TensorCopyChecker

        return TensorCopyChecker

    TensorCopyChecker = counted(plugin_class)
    construct, run = TensorCopyChecker.__init__, TensorCopyChecker.run

    @functools.wraps(construct)  # flake8 reads the parameters it passes from the signature
    def timed_init(self, *args, **kwargs) -> None:
        counted(lambda: construct(self, *args, **kwargs))

    @functools.wraps(run)
    def timed_run(self):
        spent["checks"] += 1
        return iter(counted(lambda: list(run(self))))  # flake8 only iterates it

    TensorCopyChecker.__init__, TensorCopyChecker.run = timed_init, timed_run
    try:
        return cli.main(arguments)
    finally:
        report.write_text(json.dumps(spent))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
