"""flake8 without and with the plugin, counted in instructions: a pair no host's drift moves.

    python3 bench/instructions.py --without VENV --with VENV [--every 6] [--corpus DIR]

Runs ``flake8 -j 1`` over every Nth repository (top-level folder) of the application corpus
(or ``--corpus DIR``) from each venv under ``valgrind --tool=callgrind``, both at once, and
prints the instructions each run executed, their ratio, and how many of them the cycle
collector (CPython's ``gc_collect_main``) and the parser took. The same files, venvs and
cache state give counts within about 0.1% of each other whatever else the machine does (one
hash seed for every run; objects' addresses still differ), where two timed runs on a shared
host differ by a few percent. Instructions are not seconds: a
collection over objects scattered in memory waits on it, which no count shows, so the
timed pairs of ``bench/run.py`` stay the measure of cost, and this one tells whether a
change moved it. Under callgrind a run takes some 50 times as long, hence a sample of whole
repositories (every sixth by default) rather than the whole corpus.

Each venv first runs once outside callgrind, uncounted, so that both count a run with their
modules' bytecode already written; the counted 'with' run then starts with an empty project
cache (``FLAKE8_TENSORCOPY_CACHE_DIR``), as a first run finds it. The venvs are
bench/run.py's (``--venv-dir``, default ``~/.cache/flake8-tensorcopy-bench/venvs``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from corpus_files import BENCH_CACHE, app_corpus_dir
from flake8_runs import CRASH_MARKERS
from process_stats import clean_environment

# "==1234== Collected : 45935795389", callgrind's total in its log
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")
# callgrind_annotate --inclusive=yes: "1,380,459,324 ( 3.01%)  .../gcmodule.c:gc_collect_main [...]"
_INCLUSIVE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+\S*:(\w+)\b")
PARTS = {"collector": "gc_collect_main", "parser": "_PyParser_ASTFromString"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--without", required=True, type=Path, help="venv with flake8 alone")
    parser.add_argument("--with", dest="with_", required=True, type=Path,
                        help="venv with flake8 and the plugin")
    parser.add_argument("--every", type=int, default=6,
                        help="every Nth repository of the corpus, whole (default 6)")
    parser.add_argument("--corpus", type=Path, help="a folder whose top-level folders are "
                        "the repositories (default: the application corpus run.py exports)")
    args = parser.parse_args(argv)
    if args.every < 1:
        parser.error("--every must be >= 1")
    return args


def repositories(corpus: Path, every: int) -> list[Path]:
    """Every ``every``-th top-level folder, whole: a project's own modules are read
    together, as a run over the whole tree reads them."""
    return sorted(path for path in corpus.iterdir() if path.is_dir())[::every]


def counted_runs(venvs: dict[str, Path], targets: list[Path], scratch: Path) -> dict[str, dict]:
    """Both venvs' flake8 under callgrind at once; {name: {"instructions": N, part: N}}.
    Each runs once uncounted first: a venv whose modules have no bytecode yet would count
    their compilation too."""
    _run_all(venvs, targets, scratch, "warm-up", lambda name: [])
    _run_all(venvs, targets, scratch, "count", lambda name: [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch / name}.out",
        f"--log-file={scratch / name}.log"])
    return {name: {"instructions": _collected(scratch / f"{name}.log"), **_parts(scratch / f"{name}.out")}
            for name in venvs}


def _run_all(venvs: dict[str, Path], targets: list[Path], scratch: Path, stage: str,
             prefix: Callable[[str], list[str]]) -> None:
    """Each venv's ``flake8 -j 1`` on ``targets``, all at once, behind ``prefix(name)``,
    each with an empty project cache of its own."""
    running = {}
    for name, venv in venvs.items():
        environment = clean_environment()
        environment["FLAKE8_TENSORCOPY_CACHE_DIR"] = str(scratch / f"cache-{stage}-{name}")
        # one order of every set and dict of strings, run after run
        environment["PYTHONHASHSEED"] = "0"
        command = [*prefix(name), str(venv / "bin" / "python"), "-I", "-m", "flake8", "-j", "1",
                   *map(str, targets)]
        running[name] = subprocess.Popen(command, cwd=scratch, env=environment,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for name, child in running.items():
        error = child.communicate()[1].decode(errors="replace")
        # flake8 exits 1 when it reports findings, and when a plugin crashes: its stderr tells
        if child.returncode not in (0, 1) or any(marker in error for marker in CRASH_MARKERS):
            raise SystemExit(f"{name}: flake8 ({stage}) exited {child.returncode}:\n{error[-2000:]}")


def _collected(log: Path) -> int:
    found = _COLLECTED.findall(log.read_text(errors="replace"))
    if not found:
        raise SystemExit(f"callgrind reported no total in {log}")
    return int(found[-1])


def _parts(profile: Path) -> dict[str, int | None]:
    """The inclusive instructions of each of PARTS (None where the interpreter's symbols
    do not name it)."""
    listing = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(profile)],
                             capture_output=True, text=True).stdout
    found: dict[str, int] = {}
    for line in listing.splitlines():
        match = _INCLUSIVE.match(line)
        if match and match.group(2) not in found:
            found[match.group(2)] = int(match.group(1).replace(",", ""))
    return {part: found.get(function) for part, function in PARTS.items()}


def report(counts: dict[str, dict], files: int, repositories_counted: int) -> str:
    without, with_ = counts["without"], counts["with"]
    lines = [f"flake8 -j 1 on {repositories_counted} repositories ({files} files), "
             f"under callgrind, project cache empty"]
    for name, counted in (("without", without), ("with", with_)):
        shares = "".join(f", {part} {counted[part] / counted['instructions']:.2%}"
                         for part in PARTS if counted[part] is not None)
        lines.append(f"  {name:8s} {counted['instructions']:,} instructions{shares}")
    lines.append(f"  ratio    {with_['instructions'] / without['instructions']:.4f}")
    for part in PARTS:
        if without[part] is not None and with_[part] is not None:
            added = (with_[part] - without[part]) / without["instructions"]
            lines.append(f"    of which the {part}: {added:+.2%} of flake8 alone")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = [tool for tool in ("valgrind", "callgrind_annotate") if shutil.which(tool) is None]
    if missing:
        print(f"needs {' and '.join(missing)} (Debian: apt install valgrind)", file=sys.stderr)
        return 2
    for venv in (args.without, args.with_):
        if not (venv / "bin" / "python").exists():
            print(f"no venv at {venv} (bench/run.py makes them)", file=sys.stderr)
            return 2
    corpus = args.corpus or app_corpus_dir(BENCH_CACHE)
    targets = repositories(corpus, args.every)
    if not targets:
        print(f"no repository folder in {corpus}", file=sys.stderr)
        return 2
    files = sum(1 for target in targets for _ in target.rglob("*.py"))
    with tempfile.TemporaryDirectory(prefix="tcp-instructions-") as scratch:
        counts = counted_runs({"without": args.without, "with": args.with_}, targets, Path(scratch))
    print(report(counts, files, len(targets)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
