#!/usr/bin/env python3
"""Benchmark of issue 3: what flake8-tensorcopy adds to a flake8 run.

    python3 bench/run.py                      # both corpora (10-15 min)
    python3 bench/run.py --limit 200 --pairs 3   # quick
    python3 bench/run.py --app-corpus DIR     # an existing corpus.py export
    python3 bench/run.py --only torch --torch-corpus SITE-PACKAGES/torch
                                              # all of torch (1 h+)
    python3 bench/run.py --corpus DIR         # one other tree instead
    python3 bench/run.py --profile --limit 200   # cProfile of the engine

Measures two corpora, each in its own rows and against its own targets:
  * application code: the accuracy corpus, public training repositories
    pinned by bench/accuracy/repos.csv; built on first use from their git
    mirrors by `bench/accuracy/corpus.py export` into
    ~/.cache/flake8-tensorcopy-bench/app-corpus-<hash of repos.csv>/;
  * torch: the installed torch package's nn, optim, autograd and
    utils/data, the harder part of torch, as in the performance issue.
On each:
  * whole tree: `flake8 -j 1 <corpus>` without vs with the plugin,
    median of alternating pairs (target: ratio <= 1.10); with
    --side-by-side each pair's two runs start together, each on a core of
    its own (swapped every pair), so that a shared machine's drift slows
    both alike; --control N first measures N pairs of 'without' against
    itself the same way: how far two identical runs differ on this host;
  * inside each 'with' run (bench/flake8_share.py): the CPU time of the
    plugin's checks against the rest of the same process, a ratio that
    a shared machine's drift between runs does not move (info);
  * memory: peak RSS of those same flake8 processes (target <= 1.2).
  With --cache cold (the default) every "with" run starts without the
  project analysis's disk cache, as CI and a first pre-commit run do; with
  --cache warm an untimed run fills it first, as every later run finds it.
  The cache lives in the scratch folder, never in the corpus.
Once:
  * editor latency: `flake8 - --stdin-display-name PATH` fed
    torch/nn/modules/module.py, as pylsp runs it (target <= 1.15);
  * peer: TorchFix 0.7.0's flake8 plugin on the torch corpus.
A run of the default corpora, whole (no --limit, no --corpus), also rewrites
its section of bench/RESULTS.md (bench/results_page.py).
Each flavour has its own venv under ~/.cache/flake8-tensorcopy-bench/venvs/,
all with this python's flake8 version; "with" is rebuilt on every run.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus_files import (BENCH_CACHE, Corpus, app_corpus_dir, load_corpus,
                          torch_subset, warm_page_cache)
from flake8_runs import (Flake8Failed, Flake8Run, Flake8Start, run_flake8,
                         run_side_by_side)
from process_stats import clean_environment, run_measured
import results_page
from report import failed_targets, print_report
from venvs import Venv, VenvError, fresh_venv_with_package, reusable_venv

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
VENV_CACHE = BENCH_CACHE / "venvs"
TORCHFIX_PIN = "torchfix==0.7.0"
TARGETS = {"whole_tree": 1.10, "memory": 1.2, "editor_latency": 1.15}
PLUGIN_CODE = "TCP"
# Each corpus's name (its key in the JSON) and its title in the table.
CORPUS_TITLES = {"application": "application code", "torch": "torch",
                 "custom": "custom"}
# TorchFix's rules are about torch's own APIs: it is compared on torch.
PEER_CORPORA = ("torch", "custom")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--only", choices=("application", "torch"),
                        help="measure one of the two corpora")
    parser.add_argument("--app-corpus", metavar="DIR", help="the "
                        "application corpus, an existing `corpus.py export`"
                        " (default: built once into "
                        f"{BENCH_CACHE}/app-corpus-<hash>)")
    parser.add_argument("--torch-corpus", metavar="DIR", help="the torch "
                        "corpus (default: the installed torch package's "
                        "nn, optim, autograd, utils/data)")
    parser.add_argument("--corpus", metavar="DIR", help="one directory of "
                        ".py files measured instead of both corpora")
    parser.add_argument("--limit", type=int, help="only N files of each "
                        "corpus, spread evenly over it (deterministic)")
    parser.add_argument("--pairs", type=int, default=3, help="alternating "
                        "without/with whole-tree pairs (default 3)")
    parser.add_argument("--side-by-side", action="store_true",
                        help="each whole-tree pair's two runs at once, each "
                        "on its own core, the cores swapped every pair "
                        "(needs two usable cores)")
    parser.add_argument("--control", type=int, default=0, metavar="N",
                        help="first, N whole-tree pairs of 'without' against "
                        "itself, measured as the pairs are: the noise floor "
                        "of a pair's ratio on this host (default 0)")
    parser.add_argument("--cache", choices=("cold", "warm"), default="cold",
                        help="the project analysis's disk cache before each "
                        "'with' run: emptied (default) or filled once, untimed")
    parser.add_argument("--project", choices=("default", "off"),
                        default="default", help="the project analysis in the "
                        "'with' runs: as the plugin's default (on), or off "
                        "(FLAKE8_TENSORCOPY_NO_PROJECT=1: each file alone)")
    parser.add_argument("--latency-pairs", type=int, default=7,
                        help="alternating editor-latency pairs (default 7)")
    parser.add_argument("--latency-file", help="file fed on stdin (default:"
                        " torch's nn/modules/module.py, else the first "
                        "corpus's largest file)")
    parser.add_argument("--skip-peer", action="store_true",
                        help="do not run TorchFix")
    parser.add_argument("--peer-limit", type=int, help="TorchFix on only N "
                        "files (same selection rule as --limit)")
    parser.add_argument("--peer-runs", type=int, default=1,
                        help="TorchFix whole-tree runs (default 1)")
    parser.add_argument("--profile", action="store_true", help="instead of "
                        "timing flake8, cProfile flake8_tensorcopy.engine."
                        "lint_source over the first corpus and print the "
                        "top 25")
    parser.add_argument("--json", default=str(BENCH_DIR / "results.json"),
                        help="where to write the results (default "
                        "bench/results.json)")
    parser.add_argument("--venv-dir", default=str(VENV_CACHE),
                        help=f"venv cache (default {VENV_CACHE})")
    parser.add_argument("--package", default=str(REPO_ROOT),
                        help="source tree installed as 'with' (default: "
                        "this checkout)")
    parser.add_argument("--flake8-version", help="flake8 pin for all venvs "
                        "(default: the version this python has)")
    args = parser.parse_args(argv)
    for name in ("limit", "peer_limit", "pairs", "latency_pairs",
                 "peer_runs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.control < 0:
        parser.error("--control must be >= 0")
    if args.side_by_side and len(os.sched_getaffinity(0)) < 2:
        parser.error("--side-by-side needs two usable cores; this process "
                     f"may use {len(os.sched_getaffinity(0))}")
    if args.corpus and (args.only or args.app_corpus or args.torch_corpus):
        parser.error("--corpus replaces both corpora: it takes no --only, "
                     "--app-corpus or --torch-corpus")
    return args


def corpus_names(args: argparse.Namespace) -> list[str]:
    """The corpora to measure, in the table's order."""
    if args.corpus:
        return ["custom"]
    return [args.only] if args.only else ["application", "torch"]


def load_corpora(args: argparse.Namespace,
                 cache_root: Path = BENCH_CACHE) -> dict[str, Corpus]:
    """{name: Corpus}; builds the application corpus if it is not cached."""
    return {name: _load_named(name, args, cache_root)
            for name in corpus_names(args)}


def _load_named(name: str, args: argparse.Namespace,
                cache_root: Path) -> Corpus:
    if name == "custom":
        return load_corpus(Path(args.corpus), "custom", args.limit)
    if name == "torch":
        if args.torch_corpus:
            return load_corpus(Path(args.torch_corpus), "--torch-corpus",
                               args.limit)
        return torch_subset(args.limit)
    if args.app_corpus:
        return load_corpus(Path(args.app_corpus), "--app-corpus", args.limit)
    return load_corpus(app_corpus_dir(cache_root),
                       "accuracy corpus of bench/accuracy/repos.csv",
                       args.limit)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    corpora = load_corpora(args)
    flake8_pin = f"flake8=={args.flake8_version or system_flake8_version()}"
    venv_root = Path(args.venv_dir)
    for name, corpus in corpora.items():
        print(f"corpus {CORPUS_TITLES[name]}: {corpus.describe()}",
              flush=True)
    try:
        if args.profile:
            first = next(iter(corpora.values()))
            return profile_engine(args, first, venv_root, flake8_pin)
        return benchmark(args, corpora, venv_root, flake8_pin)
    except (VenvError, Flake8Failed) as failure:
        print(f"\nbenchmark aborted: {failure}", file=sys.stderr)
        return 2


def benchmark(args, corpora: dict[str, Corpus], venv_root: Path,
              flake8_pin: str) -> int:
    started_at = time.time()
    load_at_start = os.getloadavg()[0]
    peer_name = next((name for name in corpora if name in PEER_CORPORA),
                     None)
    venvs, peer_problem = prepare_venvs(args, venv_root, flake8_pin,
                                        peer_name)
    environments = verify_plugins(venvs)
    latency_file = pick_latency_file(args, list(corpora.values()))
    peer_corpus = (corpora[peer_name].subset(args.peer_limit or args.limit)
                   if peer_name else None)
    notes: list[str] = []
    if args.project == "off":  # the runs' environment is this process's (clean_environment)
        os.environ["FLAKE8_TENSORCOPY_NO_PROJECT"] = "1"
    else:
        os.environ.pop("FLAKE8_TENSORCOPY_NO_PROJECT", None)
    with tempfile.TemporaryDirectory(prefix="tcp-bench-") as scratch:
        workdir = Path(scratch)
        cache = ProjectCache(workdir / "tensorcopy-cache", args.cache)
        warm_up(venvs, [*corpora.values(), *filter(None, [peer_corpus])],
                latency_file, workdir)
        pairing = Pairing(args.side_by_side, workdir)
        control_runs = {name: pairing.control(venvs["without"], corpus,
                                              args.control)
                        for name, corpus in corpora.items()}
        tree_runs = {name: measure_whole_tree(venvs, corpus,
                                              CORPUS_TITLES[name],
                                              args.pairs, pairing, cache)
                     for name, corpus in corpora.items()}
        latency_runs = measure_latency(venvs, latency_file,
                                       args.latency_pairs, workdir)
        import_floor = measure_import_floor(venvs["with"], args.latency_pairs,
                                            workdir)
        peer = ({"corpus": peer_name,
                 **measure_peer(venvs, corpora[peer_name], peer_corpus,
                                tree_runs[peer_name], args.peer_runs,
                                workdir)}
                if "torchfix" in venvs else {"skipped": peer_problem})
    results = {
        "command": " ".join([sys.executable, *sys.argv]),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z",
                                    time.localtime(started_at)),
        "duration_s": round(time.time() - started_at, 1),
        "machine": describe_machine(load_at_start),
        "project_cache": args.cache,
        "project": "off" if args.project == "off" else "on",
        "environments": environments,
        "corpora": {name: summarise_corpus(name, corpus, tree_runs[name],
                                           notes, pairing,
                                           control_runs[name])
                    for name, corpus in corpora.items()},
        "editor_latency": summarise_latency(latency_runs, latency_file,
                                            import_floor, notes),
        "peer": peer,
        "notes": notes,
    }
    note_busy_machine([run for runs in tree_runs.values() for run in runs]
                      + latency_runs, notes)
    results["targets_passed"] = not failed_targets(results)
    print_report(results)
    write_json(Path(args.json), results)
    if args.limit is None and args.corpus is None:  # a sample is not the benchmark's figure
        results_page.write(results)
    return 0


# --- environments ---------------------------------------------------------

def system_flake8_version() -> str:
    """The flake8 version of the python running this script, else of the
    flake8 on PATH: every venv is pinned to it."""
    try:
        return importlib.metadata.version("flake8")
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        output = subprocess.run(["flake8", "--version"], capture_output=True,
                                text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit("no flake8 found; pass --flake8-version X.Y.Z")
    return output.split()[0]


def prepare_venvs(args, venv_root: Path, flake8_pin: str,
                  peer_name: str | None):
    """Returns ({name: Venv}, why the peer is missing or None)."""
    print(f"\npreparing venvs in {venv_root} ({flake8_pin})", flush=True)
    venvs = {
        "without": reusable_venv(venv_root, "without", [flake8_pin]),
        "with": fresh_venv_with_package(venv_root, "with",
                                        Path(args.package), flake8_pin),
    }
    if args.skip_peer:
        return venvs, "--skip-peer given"
    if peer_name is None:
        return venvs, ("TorchFix is compared on the torch corpus, which "
                       "this run leaves out")
    try:
        venvs["torchfix"] = reusable_venv(venv_root, "torchfix",
                                          [flake8_pin, TORCHFIX_PIN])
    except VenvError as failure:
        print(f"  TorchFix could not be installed, peer skipped:\n"
              f"{failure}", flush=True)
        return venvs, f"{TORCHFIX_PIN} could not be installed"
    return venvs, None


def verify_plugins(venvs: dict[str, Venv]) -> dict[str, dict]:
    """Abort unless 'with' has the TCP plugin and the others do not, and
    all run the same flake8; returns what each venv contains."""
    environments = {}
    for name, venv in venvs.items():
        plugins = venv.flake8_plugins()
        ours = [dist for code, dist in plugins
                if code.startswith(PLUGIN_CODE)]
        version_text = venv.flake8_version_text()
        if name == "with" and not ours:
            raise VenvError(f"the 'with' venv has no flake8.extension entry "
                            f"point named {PLUGIN_CODE}: {plugins}")
        if name != "with" and ours:
            raise VenvError(f"the '{name}' venv unexpectedly has the "
                            f"{PLUGIN_CODE} plugin: {plugins}")
        if name == "with" and not _mentions(version_text, ours[0]):
            raise VenvError(f"flake8 --version in 'with' does not list "
                            f"{ours[0]}: {version_text}")
        environments[name] = describe_venv(venv, plugins, version_text,
                                           ours[0] if ours else None)
    flake8_versions = {env["flake8"] for env in environments.values()}
    if len(flake8_versions) != 1:
        raise VenvError(f"venvs run different flake8 versions: "
                        f"{flake8_versions}")
    print(f"  verified: TCP plugin only in 'with'; flake8 "
          f"{flake8_versions.pop()} everywhere", flush=True)
    return environments


def describe_venv(venv: Venv, plugins, version_text: str,
                  plugin_dist: str | None) -> dict:
    names = ["flake8", "libcst", "torchfix"] + ([plugin_dist]
                                                if plugin_dist else [])
    versions = venv.versions(*names)
    description = {
        "path": str(venv.path),
        "flake8": versions["flake8"],
        "libcst": versions["libcst"],
        "flake8_plugins": [f"{code} ({dist})" for code, dist in plugins],
        "flake8_version_text": version_text,
    }
    if versions["torchfix"]:
        description["torchfix"] = versions["torchfix"]
    if plugin_dist:
        description["plugin_distribution"] = plugin_dist
        description["plugin_version"] = versions[plugin_dist]
    return description


def _mentions(version_text: str, distribution: str) -> bool:
    def normal(text: str) -> str:
        return text.lower().replace("_", "-")
    return normal(distribution) in normal(version_text)


# --- measurements -----------------------------------------------------------

def warm_up(venvs: dict[str, Venv], corpora, latency_file: Path,
            workdir: Path) -> None:
    """One untimed pass: corpus files into the page cache, each venv's
    imports and plugins loaded once, so the first timed run is not the
    only cold one (that would always be a 'without' run)."""
    print("\nwarming up (untimed)", flush=True)
    for corpus in corpora:
        warm_page_cache(corpus.files)
    for venv in venvs.values():
        run_flake8(venv, [str(latency_file)], workdir)


class ProjectCache:
    """The project analysis's disk cache for the "with" runs: a folder of the
    scratch space (FLAKE8_TENSORCOPY_CACHE_DIR), emptied before each run when
    cold, filled once by an untimed run when warm."""

    def __init__(self, folder: Path, mode: str) -> None:
        self.folder = folder
        self.mode = mode
        os.environ["FLAKE8_TENSORCOPY_CACHE_DIR"] = str(folder)

    def prepare(self, venv: Venv, arguments: list[str], workdir: Path) -> None:
        if self.mode == "warm":
            print("  filling the project cache (untimed)", flush=True)
            run_flake8(venv, arguments, workdir)

    def before(self, name: str) -> None:
        if name == "with" and self.mode == "cold":
            shutil.rmtree(self.folder, ignore_errors=True)


class Pairing:
    """How a whole-tree pair's two runs are timed: one after the other,
    alternating which goes first, or side by side, each on a core of its
    own, swapping the cores every pair (a core slower than the other, or a
    machine that slows down, then weighs on both sides alike)."""

    def __init__(self, side_by_side: bool, workdir: Path) -> None:
        self.side_by_side = side_by_side
        self.workdir = workdir
        self.cores = sorted(os.sched_getaffinity(0))[:2]

    @property
    def method(self) -> str:
        return ("side by side, one core each, the cores swapped every pair"
                if self.side_by_side else "one after the other, alternating "
                "which runs first")

    def pair(self, number: int, venvs: dict[str, Venv], arguments: list[str],
             share: bool = True) -> list[Flake8Run]:
        """Pair ``number``'s runs, labelled 'without' and 'with' by their
        place in the pair (``venvs`` may give both places one venv)."""
        order = _pair_order(number)
        starts = [Flake8Start(venvs[name], arguments,
                              share=share and name == "with")
                  for name in order]
        if self.side_by_side:
            starts = [dataclasses.replace(start, cpu=core)
                      for start, core in zip(starts, self.cores)]
            runs = run_side_by_side(starts, self.workdir)
        else:
            runs = [run_side_by_side([start], self.workdir)[0]
                    for start in starts]
        return [dataclasses.replace(run, env=name)
                for name, run in zip(order, runs)]

    def control(self, venv: Venv, corpus: Corpus, pairs: int
                ) -> list[Flake8Run]:
        """``pairs`` pairs of ``venv`` against itself, timed as the pairs."""
        if not pairs:
            return []
        count = len(corpus.files)
        print(f"\ncontrol: flake8 -j 1 <{count} files>, {venv.name} against"
              f" itself, {pairs} pair(s), {self.method}", flush=True)
        runs = []
        for number in range(1, pairs + 1):
            for run in self.pair(number, {"without": venv, "with": venv},
                                 ["-j", "1", *corpus.flake8_targets()],
                                 share=False):
                runs.append(run)
                copy = dataclasses.replace(  # both are 'without': say which place
                    run, env="1st" if run.env == "without" else "2nd")
                print(f"  pair {number}/{pairs} {_progress(copy, count)}",
                      flush=True)
        return runs


def measure_whole_tree(venvs, corpus: Corpus, title: str, pairs: int,
                       pairing: Pairing, cache: ProjectCache
                       ) -> list[Flake8Run]:
    count = len(corpus.files)
    print(f"\nwhole tree, {title}: flake8 -j 1 <{count} files>, {pairs} "
          f"pairs {pairing.method}, project cache {cache.mode}", flush=True)
    arguments = ["-j", "1", *corpus.flake8_targets()]
    cache.prepare(venvs["with"], arguments, pairing.workdir)
    runs = []
    for pair in range(1, pairs + 1):
        cache.before("with")
        for run in pairing.pair(pair, venvs, arguments):
            runs.append(run)
            print(f"  pair {pair}/{pairs} {_progress(run, count)}",
                  flush=True)
    return runs


def measure_latency(venvs, latency_file: Path, pairs: int,
                    workdir: Path) -> list[Flake8Run]:
    print(f"\neditor latency: flake8 - --stdin-display-name {latency_file}, "
          f"{pairs} alternating pairs", flush=True)
    arguments = ["-", "--stdin-display-name", str(latency_file)]
    runs = []
    for pair in range(1, pairs + 1):
        for name in _pair_order(pair):
            run = run_flake8(venvs[name], arguments, workdir,
                             stdin=latency_file)
            runs.append(run)
            print(f"  pair {pair}/{pairs} {_progress(run)}", flush=True)
    return runs


def measure_import_floor(venv: Venv, pairs: int, workdir: Path) -> float:
    """Seconds that importing LibCST alone adds to a Python process: the part
    of the editor latency that no lint path parsing with LibCST can avoid."""
    print(f"\nimport floor: python -c 'import libcst' vs 'pass', {pairs} "
          f"alternating pairs", flush=True)
    codes = {"bare": "pass", "libcst": "import libcst"}
    walls: dict[str, list[float]] = {"bare": [], "libcst": []}
    for pair in range(1, pairs + 1):
        for name in _pair_order(pair, ("bare", "libcst")):
            stats = run_measured([str(venv.python), "-I", "-c", codes[name]],
                                 cwd=workdir, stdout=workdir / "floor.out",
                                 stderr=workdir / "floor.err")
            if stats.returncode:
                raise VenvError(f"{venv.python} -c {codes[name]!r} failed")
            walls[name].append(stats.wall_s)
    floor = statistics.median(walls["libcst"]) - statistics.median(walls["bare"])
    print(f"  importing LibCST adds {floor:.3f} s", flush=True)
    return floor


def measure_peer(venvs, corpus: Corpus, peer_corpus: Corpus,
                 tree_runs: list[Flake8Run], peer_runs: int,
                 workdir: Path) -> dict:
    """TorchFix on the same command; compared with 'without' (and ours)
    on the very same files, re-measured once if the peer set differs."""
    count = len(peer_corpus.files)
    arguments = ["-j", "1", *peer_corpus.flake8_targets()]
    print(f"\npeer: TorchFix, flake8 -j 1 <{count} files>, {peer_runs} "
          f"run(s)", flush=True)
    baseline = tree_runs
    if peer_corpus.files != corpus.files:
        baseline = []
        for name in ("without", "with"):
            baseline.append(run_flake8(venvs[name], arguments, workdir))
            print(f"  baseline {_progress(baseline[-1], count)}", flush=True)
    torchfix_runs = []
    for number in range(1, peer_runs + 1):
        torchfix_runs.append(run_flake8(venvs["torchfix"], arguments,
                                        workdir))
        print(f"  run {number}/{peer_runs} "
              f"{_progress(torchfix_runs[-1], count)}", flush=True)
    without = _median(baseline, "without", _wall)
    ours = _median(baseline, "with", _wall)
    torchfix = _median(torchfix_runs, "torchfix", _wall)
    without_cpu = _median(baseline, "without", _cpu)
    environment = venvs["torchfix"].versions("torchfix", "libcst")
    return {
        "files": count,
        "runs": peer_runs,
        "torchfix_version": environment["torchfix"],
        "libcst": environment["libcst"],
        "without_s": without,
        "torchfix_s": torchfix,
        "torchfix_files_per_s": count / torchfix,
        "added_s": torchfix - without,
        "ratio": torchfix / without,
        "ours_ratio": ours / without,
        "torchfix_vs_ours": torchfix / ours,
        "cpu_ratio": _median(torchfix_runs, "torchfix", _cpu) / without_cpu,
        "ours_cpu_ratio": _median(baseline, "with", _cpu) / without_cpu,
        "torchfix_findings": torchfix_runs[0].count("TOR"),
        "baseline_runs": [_run_record(run) for run in
                          (baseline if baseline is not tree_runs else [])],
        "torchfix_runs": [_run_record(run) for run in torchfix_runs],
    }


# --- summaries --------------------------------------------------------------

def summarise_corpus(name: str, corpus: Corpus, runs: list[Flake8Run],
                     notes: list[str], pairing: Pairing | None = None,
                     control: list[Flake8Run] = ()) -> dict:
    title = CORPUS_TITLES[name]
    whole_tree = summarise_whole_tree(runs, corpus, title, notes)
    if pairing is not None:
        whole_tree["method"] = pairing.method
    if control:
        whole_tree["control"] = summarise_control(control)
    return {"title": title,
            "corpus": describe_corpus(corpus),
            "whole_tree": whole_tree,
            "memory": summarise_memory(runs)}


def summarise_whole_tree(runs: list[Flake8Run], corpus: Corpus, title: str,
                         notes: list[str]) -> dict:
    wall = _pair_values(runs, _wall)
    _check_same_findings(runs, f"{title} whole tree", notes)
    # Each pair ran under the same conditions: the median of their ratios is robust to
    # the machine speeding up or slowing down between pairs.
    ratio = statistics.median(_pair_ratios(runs, _wall))
    return {
        "command": "flake8 -j 1 " + (" ".join(corpus.flake8_targets())
                                     if corpus.is_whole_tree
                                     else f"<{len(corpus.files)} files>"),
        "pairs": len(runs) // 2,
        "wall_s": wall,
        "cpu_s": _pair_values(runs, _cpu),
        "files_per_s": {name: len(corpus.files) / wall[name]
                        for name in ("without", "with")},
        "added_s": wall["with"] - wall["without"],
        "ratio": ratio,
        "pair_ratios": _pair_ratios(runs, _wall),
        "cpu_ratio": statistics.median(_pair_ratios(runs, _cpu)),
        "cpu_pair_ratios": _pair_ratios(runs, _cpu),
        "tcp_findings": _first(runs, "with").count(PLUGIN_CODE),
        "target": TARGETS["whole_tree"],
        "pass": ratio <= TARGETS["whole_tree"],
        "in_run": summarise_in_run(runs),
        "runs": [_run_record(run) for run in runs],
    }


def summarise_in_run(runs: list[Flake8Run]) -> dict | None:
    """The plugin's cost within each 'with' run: its CPU time against the
    rest of the same process's (flake8_share.py). Steadier than the pairs'
    ratio on a shared machine, whose speed drifts between two runs but not
    between two parts of one; the target stays on the pairs' wall time."""
    counted = [run for run in runs
               if run.env == "with" and run.plugin_cpu_s is not None]
    if not counted:
        return None
    return {
        "measured_on": "the 'with' runs: CPU user+sys of the process, and "
                       "of the plugin's checks in it",
        "cpu_s": {"without": statistics.median(_cpu(run) - run.plugin_cpu_s
                                               for run in counted),
                  "with": statistics.median(_cpu(run) for run in counted)},
        "plugin_cpu_s": statistics.median(run.plugin_cpu_s
                                          for run in counted),
        "ratio": statistics.median(_cpu(run) / (_cpu(run) - run.plugin_cpu_s)
                                   for run in counted),
        "runs": len(counted),
    }


def summarise_control(runs: list[Flake8Run]) -> dict:
    """The same venv in both places of each pair: what a pair's ratio
    reads when the two runs do the very same work."""
    return {"measured_on": "'without' against itself, timed as the pairs",
            "pairs": len(runs) // 2,
            "cpu_s": _pair_values(runs, _cpu),
            "cpu_pair_ratios": _pair_ratios(runs, _cpu),
            "wall_pair_ratios": _pair_ratios(runs, _wall)}


def summarise_memory(runs: list[Flake8Run]) -> dict:
    peak = _pair_values(runs, lambda run: run.stats.peak_rss_kib / 1024)
    ratio = peak["with"] / peak["without"]
    return {
        "measured_on": "the whole-tree flake8 processes (os.wait4 rusage)",
        "peak_rss_mib": peak,
        "added_mib": peak["with"] - peak["without"],
        "ratio": ratio,
        "target": TARGETS["memory"],
        "pass": ratio <= TARGETS["memory"],
    }


def summarise_latency(runs: list[Flake8Run], latency_file: Path,
                      import_floor: float, notes: list[str]) -> dict:
    wall = _pair_values(runs, _wall)
    _check_same_findings(runs, "editor latency", notes)
    ratio = statistics.median(_pair_ratios(runs, _wall))
    return {
        "command": f"flake8 - --stdin-display-name {latency_file} "
                   f"< {latency_file}",
        "lines": latency_file.read_bytes().count(b"\n"),
        "pairs": len(runs) // 2,
        "wall_s": wall,
        "cpu_s": _pair_values(runs, _cpu),
        "added_ms": (wall["with"] - wall["without"]) * 1000,
        "ratio": ratio,
        "pair_ratios": _pair_ratios(runs, _wall),
        # The least any LibCST-parsing plugin can add on this file, which holds
        # a real finding and so must be parsed.
        "libcst_import_s": import_floor,
        "floor_ratio": (wall["without"] + import_floor) / wall["without"],
        "peak_rss_mib": _pair_values(
            runs, lambda run: run.stats.peak_rss_kib / 1024),
        "tcp_findings": _first(runs, "with").count(PLUGIN_CODE),
        "target": TARGETS["editor_latency"],
        "pass": ratio <= TARGETS["editor_latency"],
        "runs": [_run_record(run) for run in runs],
    }


def note_busy_machine(runs: list[Flake8Run], notes: list[str]) -> None:
    cores = len(os.sched_getaffinity(0))
    busiest = max(run.load_after for run in runs)
    # Runs side by side fill every core themselves (a load of 2.0 on 2): the short commands
    # of the shell that started them nudge the average above that without taking a core.
    if busiest > cores + 0.25:
        notes.append(f"machine busy: 1-min load up to {busiest:.1f} on "
                     f"{cores} cores during the timed runs, so wall times "
                     f"include waiting for a CPU; the CPU-time ratios are "
                     f"the steadier figure, re-run on an idle machine")


def _check_same_findings(runs: list[Flake8Run], measure: str,
                         notes: list[str]) -> None:
    """The plugin must only add TCP findings; anything else is odd."""
    without, with_ = _first(runs, "without"), _first(runs, "with")
    others = with_.findings - with_.count(PLUGIN_CODE)
    if others != without.findings:
        notes.append(f"{measure}: 'with' reported {others} non-TCP findings,"
                     f" 'without' {without.findings}")
    for run in runs:
        if run.stderr_first_line:
            notes.append(f"{measure}: {run.env} wrote to stderr: "
                         f"{run.stderr_first_line}")
            break


def _pair_order(pair: int, names: tuple[str, str] = ("without", "with")
                ) -> tuple[str, str]:
    """without/with, then with/without: a machine whose speed drifts during the
    run favours neither side (the first run of each pair went to 'without')."""
    return names if pair % 2 else names[::-1]


def _first(runs: list[Flake8Run], env: str) -> Flake8Run:
    return next(run for run in runs if run.env == env)


def _pair_values(runs: list[Flake8Run], metric) -> dict[str, float]:
    return {name: _median(runs, name, metric) for name in ("without", "with")}


def _pair_ratios(runs: list[Flake8Run], metric) -> list[float]:
    without = [metric(run) for run in runs if run.env == "without"]
    with_ = [metric(run) for run in runs if run.env == "with"]
    return [after / before for before, after in zip(without, with_)]


def _median(runs: list[Flake8Run], env: str, metric) -> float:
    return statistics.median(metric(run) for run in runs if run.env == env)


def _wall(run: Flake8Run) -> float:
    return run.stats.wall_s


def _cpu(run: Flake8Run) -> float:
    return run.stats.cpu_s


def _progress(run: Flake8Run, files: int | None = None) -> str:
    stats = run.stats
    plugin = {"with": PLUGIN_CODE, "torchfix": "TOR"}.get(run.env)
    extra = f", {plugin} {run.count(plugin)}" if plugin else ""
    rate = f"{files / stats.wall_s:7.1f} files/s  " if files else ""
    share = ("" if run.plugin_cpu_s is None
             else f" (plugin {run.plugin_cpu_s:.2f})")
    return (f"{run.env:<8} {stats.wall_s:8.3f} s  {rate}"
            f"cpu {stats.cpu_s:8.2f} s{share}"
            f"  peak {stats.peak_rss_kib / 1024:7.1f} MiB  "
            f"findings {run.findings}{extra}")


def _run_record(run: Flake8Run) -> dict:
    return {"env": run.env, "wall_s": run.stats.wall_s,
            "load_after": run.load_after,
            "cpu_s": run.stats.cpu_s,
            "plugin_cpu_s": run.plugin_cpu_s,
            "peak_rss_mib": run.stats.peak_rss_kib / 1024,
            "findings": run.findings,
            "findings_by_prefix": run.findings_by_prefix}


# --- context ----------------------------------------------------------------

def pick_latency_file(args, corpora: list[Corpus]) -> Path:
    if args.latency_file:
        return Path(args.latency_file).resolve()
    for corpus in corpora:
        default = corpus.root / "nn" / "modules" / "module.py"
        if default.is_file():
            return default
    # No torch tree: the first corpus's largest file stands in for module.py.
    return max(corpora[0].all_files, key=lambda path: path.stat().st_size)


def describe_corpus(corpus: Corpus) -> dict:
    return {"root": str(corpus.root), "label": corpus.label,
            "subdirs": list(corpus.subdirs),
            "files": len(corpus.files),
            "files_in_tree": len(corpus.all_files),
            "whole_tree": corpus.is_whole_tree,
            "lines": corpus.line_count()}


def describe_machine(load_at_start: float) -> dict:
    return {
        "cpu_count": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "cpu_model": _proc_field("/proc/cpuinfo", "model name") or
        platform.processor() or "unknown",
        "memory_gib": _memory_gib(),
        "platform": platform.platform(),
        "python": f"{platform.python_version()} ({sys.executable})",
        "load_average": {"start": load_at_start,
                         "end": os.getloadavg()[0]},
    }


def _proc_field(path: str, key: str) -> str | None:
    try:
        with open(path) as proc_file:
            for line in proc_file:
                name, _, value = line.partition(":")
                if name.strip() == key:
                    return value.strip()
    except OSError:
        pass
    return None


def _memory_gib() -> float:
    total = _proc_field("/proc/meminfo", "MemTotal")  # "24567890 kB"
    return int(total.split()[0]) / 2**20 if total else 0.0


def write_json(path: Path, results: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results written to {path}")


# --- profile mode -----------------------------------------------------------

def profile_engine(args, corpus: Corpus, venv_root: Path,
                   flake8_pin: str) -> int:
    """cProfile the engine inside the 'with' venv, so it is the installed
    package (and its libcst) that is profiled, not this checkout."""
    print(f"\npreparing venv in {venv_root} ({flake8_pin})", flush=True)
    venv = fresh_venv_with_package(venv_root, "with", Path(args.package),
                                   flake8_pin)
    with tempfile.TemporaryDirectory(prefix="tcp-bench-") as scratch:
        file_list = Path(scratch) / "files.txt"
        file_list.write_text("".join(f"{path}\n" for path in corpus.files))
        command = [str(venv.python), str(BENCH_DIR / "profile_engine.py"),
                   "--files-from", str(file_list), "--top", "25"]
        # cwd is the scratch dir so the checkout cannot shadow the install.
        return subprocess.run(command, cwd=scratch,
                              env=clean_environment()).returncode


if __name__ == "__main__":
    sys.exit(main())
