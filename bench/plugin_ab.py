"""The plugin's own CPU, before and after a change: two trees of the package, alternated.

    python3 bench/plugin_ab.py                      # HEAD against the work tree, project off
    python3 bench/plugin_ab.py --base HEAD~3 --project on --rounds 5 --every 3
    python3 bench/plugin_ab.py --corpus DIR         # any folder of .py files

Each round runs each tree once, in a fresh process, in alternating order, over the same
files: the plugin's checker is handed each file's ``ast`` and lines as flake8 hands them,
and only its ``run()`` is timed (wall and the process's CPU from ``getrusage``), so
flake8's own work and the parse, which do not change, are not in the figures. The
project analysis is forced on or off for every file (``--project``), its disk cache off.
Prints each run, the medians and their ratio, and whether both trees found the same. A
finer instrument than ``run.py`` for a change of a few percent of the plugin's cost: the
median of alternated rounds moves less than one pair of whole flake8 runs on a shared
machine. ``--base`` is a git revision of this repository, exported with ``git archive``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="the git revision to compare against (HEAD)")
    parser.add_argument("--project", choices=("off", "on"), default="off",
                        help="the project analysis for every file (off)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one run of each tree (3)")
    parser.add_argument("--every", type=int, default=1, help="every Nth file of the corpus (1: all)")
    parser.add_argument("--corpus", help="a folder of .py files (default: the application corpus "
                        "that run.py exports)")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # the package's parent folder to time
    return parser.parse_args(argv)


def corpus_files(folder: Path, every: int) -> list[Path]:
    return sorted(folder.rglob("*.py"))[::every]


def time_plugin(files: list[Path], project_on: bool) -> dict:
    """In a child: the checker's ``run()`` over ``files``, timed alone."""
    os.environ["FLAKE8_TENSORCOPY_NO_CACHE"] = "1"
    from flake8_tensorcopy import engine  # noqa: F401 (its import-time work, as flake8's first parse pays it)
    from flake8_tensorcopy.analysis import project
    from flake8_tensorcopy.plugin import TensorCopyChecker

    project.enabled = lambda root: project_on
    findings: list[str] = []
    linted, wall, cpu = 0, 0.0, 0.0
    for path in files:
        try:
            with tokenize.open(path) as file:
                text = file.read()
            tree = ast.parse(text)
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
            continue  # flake8 reports these itself: the plugin never sees them
        lines = text.splitlines(keepends=True)
        linted += 1
        before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        found = list(TensorCopyChecker(tree, lines, str(path)).run())
        ended, after = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        wall += ended - started
        cpu += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        findings += [f"{path}:{line}:{column}: {message.split()[0]}" for line, column, message, _ in found]
    return {"files": linted, "wall": wall, "cpu": cpu, "findings": sorted(findings)}


def run_tree(package_parent: Path, args: argparse.Namespace, corpus: Path) -> dict:
    command = [sys.executable, __file__, "--child", str(package_parent), "--project", args.project,
               "--every", str(args.every), "--corpus", str(corpus)]
    environment = {**os.environ, "PYTHONPATH": str(package_parent), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=tempfile.gettempdir())
    if result.returncode:
        raise SystemExit(f"the run of {package_parent} failed:\n{result.stdout}{result.stderr}")
    return json.loads(result.stdout)


def export_base(revision: str, into: Path) -> None:
    archive = subprocess.run(["git", "-C", str(REPOSITORY), "archive", revision, "flake8_tensorcopy"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def default_corpus() -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from corpus_files import BENCH_CACHE, app_corpus_dir

    return app_corpus_dir(BENCH_CACHE)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    corpus = Path(args.corpus) if args.corpus else None
    if args.child:
        import flake8_tensorcopy

        if not Path(flake8_tensorcopy.__file__).resolve().is_relative_to(Path(args.child).resolve()):
            raise SystemExit(f"timed {flake8_tensorcopy.__file__}, not the tree in {args.child}")
        files = corpus_files(corpus or default_corpus(), args.every)
        print(json.dumps(time_plugin(files, args.project == "on")))
        return 0
    corpus = corpus or default_corpus()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        export_base(args.base, base)
        trees = {f"base ({args.base})": base, "work tree": REPOSITORY}
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        print(f"plugin run() over every {args.every} file(s) of {corpus}, project {args.project}, "
              f"{args.rounds} alternated rounds", flush=True)
        for round_number in range(args.rounds):
            order = list(trees) if round_number % 2 == 0 else list(reversed(trees))
            for name in order:
                run = run_tree(trees[name], args, corpus)
                runs[name].append(run)
                print(f"  round {round_number + 1}: {name:>16}  {run['files']} files, "
                      f"{len(run['findings'])} findings, wall {run['wall']:.2f} s, CPU {run['cpu']:.2f} s",
                      flush=True)
    medians = {name: statistics.median(run["cpu"] for run in done) for name, done in runs.items()}
    base_name, work_name = list(trees)
    print(f"median CPU: {base_name} {medians[base_name]:.2f} s, work tree {medians[work_name]:.2f} s, "
          f"ratio {medians[work_name] / medians[base_name]:.3f}")
    base_found, work_found = set(runs[base_name][0]["findings"]), set(runs[work_name][0]["findings"])
    if base_found == work_found:
        print(f"findings: the same {len(work_found)}")
    else:
        print(f"findings: {len(work_found - base_found)} new, {len(base_found - work_found)} gone")
        for finding in sorted(work_found ^ base_found)[:20]:
            print(f"  {'+' if finding in work_found else '-'} {finding}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
