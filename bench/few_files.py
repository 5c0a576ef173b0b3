"""flake8 on a few files, as a pre-commit hook or an editor runs it: without and with the plugin.

    python3 bench/few_files.py --without VENV --with VENV FILE... [--pairs 7] [--stdin]

Runs ``VENV/bin/flake8`` on the files (or, with ``--stdin``, ``flake8 -`` fed the first file
under its name, as an editor does) in alternating pairs, each in a fresh process, and prints
the median wall time and the median child CPU time of each side and their ratio. The venvs
are bench/run.py's (``~/.cache/flake8-tensorcopy-bench/venvs/without`` and ``with``).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(command: list[str], stdin: bytes | None) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, input=stdin, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--without", required=True, type=Path, help="venv with flake8 alone")
    parser.add_argument("--with", dest="with_", required=True, type=Path, help="venv with flake8 and the plugin")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--stdin", action="store_true", help="flake8 - on the first file, as an editor runs it")
    parser.add_argument("--args", default="", help="extra flake8 arguments, space-separated")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    extra = args.args.split()
    if args.stdin:
        stdin = args.files[0].read_bytes()
        tail = ["-", "--stdin-display-name", str(args.files[0])]
    else:
        stdin, tail = None, [str(f) for f in args.files]
    runs: dict[str, list[tuple[float, float]]] = {"without": [], "with": []}
    sides = [("without", args.without), ("with", args.with_)]
    for side, venv in sides:  # one untimed run each: the file cache and .pyc files are warm
        timed([str(venv / "bin" / "flake8"), *extra, *tail], stdin)
    for pair in range(args.pairs):
        for side, venv in (sides if pair % 2 == 0 else sides[::-1]):
            runs[side].append(timed([str(venv / "bin" / "flake8"), *extra, *tail], stdin))
    what = f"flake8 - on {args.files[0].name}" if args.stdin else f"flake8 on {len(args.files)} file(s)"
    print(f"{what}, {args.pairs} alternating pairs (medians)")
    medians = {side: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for side, r in runs.items()}
    for side, (wall, cpu) in medians.items():
        print(f"  {side:8s} wall {wall:.3f} s   CPU {cpu:.3f} s")
    print(f"  ratio    wall {medians['with'][0] / medians['without'][0]:.3f}     "
          f"CPU {medians['with'][1] / medians['without'][1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
