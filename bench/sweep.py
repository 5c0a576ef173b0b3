#!/usr/bin/env python3
"""Real-code sweep of issue 6: lint, then fix a copy of, real PyTorch code; nothing may crash.

    python3 bench/sweep.py                                # torch + the default projects
    python3 bench/sweep.py --projects timm --limit 300    # quick
    python3 bench/sweep.py --projects '' --json out.json  # torch's own sources only

Corpus: the installed torch package's own .py files, plus a few PyTorch projects
downloaded from PyPI with `pip download --no-deps` (wheels, else sdists) into
~/.cache/flake8-tensorcopy-sweep/ (kept for later runs) and unpacked there.

1. lint: every file through the flake8 plugin class exactly as flake8 feeds it
   (flake8's own FileProcessor decodes the file and builds the ast). A finding is
   counted per code; a file the plugin skips (a limit, see docs/limitations.md, "When a file cannot
   be analysed") is counted with its reason; a "crash" is anything the plugin logs as
   a bug of its own, an exception out of run(), a worker that dies, or a file that
   takes more than --timeout seconds. Must be 0.
2. fix: the corpus is copied to a temporary folder and each file goes through the
   CLI's own per-file step (`flake8-tensorcopy --fix --unsafe-fixes`). Every file it
   rewrote must parse with `ast` and LibCST ("re-parse failures", must be 0), and a
   second `--fix --unsafe-fixes` must change nothing ("not idempotent", must be 0).
   Files the fixer refused to touch (it says why) are counted as "fix refused".

Files are processed by worker subprocesses (one per CPU, at most 4) that report one
JSON line per file, so a hang or a hard crash is pinned on its file and the sweep
goes on. Prints a table; --json writes every figure and every problem file.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from collections import Counter
from pathlib import Path

from corpus_files import torch_package

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "flake8-tensorcopy-sweep")
DEFAULT_PROJECTS = "timm,torchmetrics,pytorch-lightning,accelerate,peft,torch-geometric"
SLOW_SECONDS = 5.0  # a file slower than this is listed (the goal: "a few seconds")


# -- corpus ----------------------------------------------------------------------------
def fetch_project(name: str) -> Path:
    """The unpacked sources of the newest ``name`` on the index (downloaded once)."""
    downloads = CACHE / "downloads" / name
    if not any(downloads.glob("*")):
        downloads.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(downloads), name],
            check=True, timeout=600,
        )
    archive = sorted(downloads.iterdir())[0]
    target = CACHE / "unpacked" / archive.name
    if not target.exists():
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        if archive.suffix in (".whl", ".zip"):
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(partial)
        else:
            with tarfile.open(archive) as tarred:
                tarred.extractall(partial, filter="data")
        partial.rename(target)
    return target


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file() and not p.is_symlink())


# -- workers ---------------------------------------------------------------------------
def lint_one(path: str) -> dict:
    """The plugin on one file, fed as flake8 feeds it."""
    import argparse as _argparse
    import logging

    from flake8.processor import FileProcessor

    from flake8_tensorcopy.plugin import LOG, TensorCopyChecker

    options = _argparse.Namespace(
        hang_closing=False, indent_size=4, max_line_length=79, max_doc_length=None, verbose=0
    )
    record: dict = {"path": path}
    try:
        processor = FileProcessor(path, options)
        tree = processor.build_ast()
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError, LookupError) as error:
        # flake8 reports E902/E999 itself and never calls a tree plugin for this file.
        record["flake8_cannot_parse"] = f"{type(error).__name__}: {error}"[:200]
        return record

    class Capture(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.INFO)
            self.records: list[logging.LogRecord] = []

        def emit(self, log_record: logging.LogRecord) -> None:
            self.records.append(log_record)

    capture = Capture()
    LOG.addHandler(capture)
    LOG.setLevel(logging.INFO)
    started = time.perf_counter()
    try:
        checker = TensorCopyChecker(tree, processor.lines, path)
        results = list(checker.run())
        record["plugin_seconds"] = round(time.perf_counter() - started, 3)
    except BaseException as error:  # the very thing that must never happen
        import traceback

        record["crash"] = "exception out of run(): " + "".join(traceback.format_exception(error))[-2000:]
        return record
    finally:
        LOG.removeHandler(capture)
    record["findings"] = dict(Counter(message.split(" ", 1)[0] for _, _, message, _ in results))
    for log_record in capture.records:
        if log_record.levelno >= logging.WARNING:
            import traceback

            trace = "".join(traceback.format_exception(*log_record.exc_info)) if log_record.exc_info else ""
            record["crash"] = (log_record.getMessage() + "\n" + trace)[-2000:]
        else:
            record["skipped"] = log_record.getMessage()[:300]
    return record


def fix_one(path: str) -> dict:
    """The CLI's per-file step with --fix --unsafe-fixes, then the checks on what it wrote."""
    import ast

    import libcst

    from flake8_tensorcopy import cli, selection

    options = cli.Options(list(selection.resolve(())), fix=True, unsafe=True, diff=False, stdin_name="stdin")
    file = Path(path)
    before = file.read_bytes()
    started = time.perf_counter()
    outcome = cli.process(path, file, options)
    record: dict = {"path": path, "fixed": dict(outcome.fixed), "fix_seconds": round(time.perf_counter() - started, 3)}
    if outcome.error is not None:
        message = outcome.error.message
        key = "crash" if "please report it" in message else "refused" if message.startswith("not fixed") else "error"
        record[key] = message[:500]
    after = file.read_bytes()
    if after == before:
        if outcome.fixed:
            record["crash"] = "reported fixes but the file is unchanged"
        return record
    record["changed"] = True
    source, _ = cli.decode(after)
    for name, parse in (("ast", ast.parse), ("LibCST", libcst.parse_module)):
        try:
            parse(source)
        except Exception as error:  # noqa: BLE001 - any failure is the finding
            record["reparse_failed"] = f"{name}: {type(error).__name__}: {error}"[:500]
            return record
    again = cli.process(path, file, options)
    if again.fixed or file.read_bytes() != after:
        record["not_idempotent"] = dict(again.fixed)
    return record


def worker_main(mode: str) -> int:
    """Read paths on stdin, one JSON line per file on stdout (flushed: the parent times it)."""
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing else may write to the JSON channel
    step = lint_one if mode == "lint" else fix_one
    for line in sys.stdin:
        path = line.rstrip("\n")
        if not path:
            continue
        started = time.perf_counter()
        try:
            record = step(path)
        except BaseException as error:  # noqa: BLE001 - report and go on
            import traceback

            record = {"path": path, "crash": "sweep step failed: " + "".join(traceback.format_exception(error))[-2000:]}
        record["seconds"] = round(time.perf_counter() - started, 3)
        out.write(json.dumps(record) + "\n")
        out.flush()
    return 0


def run_stream(mode: str, paths: list[str], timeout: float, results: queue.Queue) -> None:
    """Feed ``paths`` to worker processes; a file that hangs or kills its worker is recorded
    as a crash and a fresh worker takes the rest."""
    pending = list(paths)
    while pending:
        worker = subprocess.Popen(
            [sys.executable, __file__, "--worker", mode],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            cwd=REPO_ROOT,
        )
        feeder = threading.Thread(target=_feed, args=(worker, pending), daemon=True)
        feeder.start()
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_read_lines, args=(worker, lines), daemon=True).start()
        done = 0
        while done < len(pending):
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                worker.kill()
                results.put({"path": pending[done], "crash": f"timeout: still running after {timeout:.0f} s",
                             "seconds": timeout})
                done += 1
                break
            if line is None:  # the worker died
                worker.wait()
                results.put({"path": pending[done], "crash": f"the worker died (exit status {worker.returncode})"})
                done += 1
                break
            results.put(json.loads(line))
            done += 1
        worker.kill()
        worker.wait()
        pending = pending[done:]


def _feed(worker: subprocess.Popen, paths: list[str]) -> None:
    try:
        worker.stdin.write("".join(p + "\n" for p in paths))
        worker.stdin.close()
    except (BrokenPipeError, OSError):
        pass


def _read_lines(worker: subprocess.Popen, lines: queue.Queue) -> None:
    for line in worker.stdout:
        lines.put(line)
    lines.put(None)


def run_all(mode: str, paths: list[str], timeout: float, jobs: int) -> list[dict]:
    results: queue.Queue = queue.Queue()
    # Interleave so that each stream gets a share of the big files.
    streams = [paths[i::jobs] for i in range(jobs)]
    threads = [threading.Thread(target=run_stream, args=(mode, s, timeout, results)) for s in streams if s]
    for thread in threads:
        thread.start()
    collected = []
    total = len(paths)
    while any(t.is_alive() for t in threads) or not results.empty():
        try:
            collected.append(results.get(timeout=0.5))
        except queue.Empty:
            continue
        if len(collected) % 500 == 0:
            print(f"  {mode}: {len(collected)}/{total} files", file=sys.stderr, flush=True)
    for thread in threads:
        thread.join()
    return sorted(collected, key=lambda r: r["path"])


# -- report ----------------------------------------------------------------------------
def summarise(lint: list[dict], fix: list[dict], seconds: dict[str, float]) -> dict:
    findings = Counter()
    for record in lint:
        findings.update(record.get("findings", {}))
    fixes = Counter()
    for record in fix:
        fixes.update(record.get("fixed", {}))
    slowest = sorted(lint, key=lambda r: r.get("plugin_seconds", 0), reverse=True)[:5]
    slowest_fix = sorted(fix, key=lambda r: r.get("fix_seconds", 0), reverse=True)[:5]
    return {
        "files": len(lint),
        "files_flake8_cannot_parse": sum(1 for r in lint if "flake8_cannot_parse" in r),
        "findings": dict(sorted(findings.items())),
        "findings_total": sum(findings.values()),
        "files_with_findings": sum(1 for r in lint if r.get("findings")),
        "files_partly_skipped": sum(1 for r in lint if "skipped" in r),
        "lint_crashes": sum(1 for r in lint if "crash" in r),
        "slowest_lint": [(r["path"], r.get("plugin_seconds")) for r in slowest],
        "files_over_slow_limit": sum(1 for r in lint if r.get("plugin_seconds", 0) > SLOW_SECONDS),
        "slowest_fix": [(r["path"], r.get("fix_seconds")) for r in slowest_fix],
        "fixes_over_slow_limit": sum(1 for r in fix if r.get("fix_seconds", 0) > SLOW_SECONDS),
        "fixes_applied": dict(sorted(fixes.items())),
        "fixes_total": sum(fixes.values()),
        "files_fixed": sum(1 for r in fix if r.get("changed")),
        "fix_refused": sum(1 for r in fix if "refused" in r),
        "fix_errors": sum(1 for r in fix if "error" in r),
        "fix_crashes": sum(1 for r in fix if "crash" in r),
        "reparse_failures": sum(1 for r in fix if "reparse_failed" in r),
        "not_idempotent": sum(1 for r in fix if "not_idempotent" in r),
        "seconds": {k: round(v, 1) for k, v in seconds.items()},
    }


def print_table(summary: dict, corpus: dict[str, int]) -> None:
    rows = [("corpus", ", ".join(f"{name}: {count}" for name, count in corpus.items()))]
    rows += [
        ("files", summary["files"]),
        ("  flake8 itself cannot parse (E902/E999)", summary["files_flake8_cannot_parse"]),
        ("  with findings", summary["files_with_findings"]),
        ("  partly skipped (logged by -v)", summary["files_partly_skipped"]),
        ("findings", f"{summary['findings_total']}  " + ", ".join(f"{c}: {n}" for c, n in summary["findings"].items())),
        ("lint crashes (must be 0)", summary["lint_crashes"]),
        (f"files the plugin spent over {SLOW_SECONDS:.0f} s on", summary["files_over_slow_limit"]),
        ("  slowest", "%s (%.2f s)" % tuple(summary["slowest_lint"][0]) if summary["slowest_lint"] else "-"),
        ("fixes applied", f"{summary['fixes_total']} in {summary['files_fixed']} files  "
         + ", ".join(f"{c}: {n}" for c, n in summary["fixes_applied"].items())),
        ("fix refused (file left untouched)", summary["fix_refused"]),
        ("not analysed, so not fixed (CLI exit 2)", summary["fix_errors"]),
        (f"files --fix spent over {SLOW_SECONDS:.0f} s on", summary["fixes_over_slow_limit"]),
        ("  slowest", "%s (%.2f s)" % tuple(summary["slowest_fix"][0]) if summary["slowest_fix"] else "-"),
        ("fix crashes (must be 0)", summary["fix_crashes"]),
        ("fixed files that fail to re-parse (must be 0)", summary["reparse_failures"]),
        ("second --fix not a no-op (must be 0)", summary["not_idempotent"]),
        ("wall time", ", ".join(f"{k} {v} s" for k, v in summary["seconds"].items())),
    ]
    width = max(len(str(name)) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--projects", default=DEFAULT_PROJECTS,
                        help=f"comma-separated PyPI projects to add (default: {DEFAULT_PROJECTS})")
    parser.add_argument("--no-torch", action="store_true", help="leave the installed torch package out")
    parser.add_argument("--limit", type=int, help="only N files per source, spread evenly (deterministic)")
    parser.add_argument("--timeout", type=float, default=120,
                        help="seconds one file may take before it counts as a crash (default 120)")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1), help="worker processes")
    parser.add_argument("--json", type=Path, help="write every figure and problem file here")
    parser.add_argument("--worker", choices=["lint", "fix"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker)

    started = time.perf_counter()
    sources: dict[str, Path] = {}
    if not args.no_torch:
        sources["torch"] = torch_package()[0]
    for name in filter(None, (p.strip() for p in args.projects.split(","))):
        print(f"fetching {name} ...", file=sys.stderr, flush=True)
        sources[name] = fetch_project(name)
    seconds = {"fetch": time.perf_counter() - started}

    with tempfile.TemporaryDirectory(prefix="tcp-sweep-") as scratch:
        originals, copies, corpus = [], [], {}
        for name, root in sources.items():
            files = python_files(root)
            if args.limit and len(files) > args.limit:
                step = len(files) / args.limit
                files = [files[int(i * step)] for i in range(args.limit)]
            corpus[name] = len(files)
            for file in files:
                copy = Path(scratch, name, file.relative_to(root))
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(file, copy)
                originals.append(str(file))
                copies.append(str(copy))
        print(f"linting {len(originals)} files ...", file=sys.stderr, flush=True)
        clock = time.perf_counter()
        lint = run_all("lint", originals, args.timeout, args.jobs)
        seconds["lint"] = time.perf_counter() - clock
        print(f"fixing a copy of {len(copies)} files ...", file=sys.stderr, flush=True)
        clock = time.perf_counter()
        fix = run_all("fix", copies, args.timeout, args.jobs)
        seconds["fix"] = time.perf_counter() - clock
        for record in fix:
            record["path"] = str(Path(record["path"]).relative_to(scratch))
    seconds["total"] = time.perf_counter() - started

    summary = summarise(lint, fix, seconds)
    summary["corpus"] = {name: {"files": corpus[name], "root": str(root)} for name, root in sources.items()}
    summary["jobs"] = args.jobs
    print_table(summary, corpus)
    problems = {
        "lint_crashes": [r for r in lint if "crash" in r],
        "skipped": [{"path": r["path"], "reason": r["skipped"]} for r in lint if "skipped" in r],
        "fix_crashes": [r for r in fix if "crash" in r],
        "fix_refused": [r for r in fix if "refused" in r or "error" in r],
        "fixed": [r for r in fix if r.get("changed")],
        "reparse_failures": [r for r in fix if "reparse_failed" in r],
        "not_idempotent": [r for r in fix if "not_idempotent" in r],
    }
    for kind in ("lint_crashes", "fix_crashes", "reparse_failures", "not_idempotent"):
        for record in problems[kind][:10]:
            print(f"{kind}: {record['path']}: {str(record)[:400]}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "problems": problems}, indent=2) + "\n")
    failed = summary["lint_crashes"] + summary["fix_crashes"] + summary["reparse_failures"] + summary["not_idempotent"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))
    raise SystemExit(main())
