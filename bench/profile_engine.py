"""cProfile flake8_tensorcopy.engine.lint_source over a list of files.

Started by `bench/run.py --profile` with the 'with' venv's python, so the
installed package is profiled.  Reading files is kept outside the
profile: only the per-file analysis is measured.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
import tokenize


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files-from", required=True,
                        help="text file with one path per line")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    try:
        from flake8_tensorcopy.engine import lint_source
    except Exception as failure:  # the engine may not exist yet
        print(f"profile skipped: cannot import "
              f"flake8_tensorcopy.engine.lint_source: {failure!r}")
        return 2
    sources = read_sources(args.files_from)
    profiler = cProfile.Profile()
    findings, failures, elapsed = lint_all(lint_source, sources, profiler)
    lines = sum(text.count("\n") for _, text in sources)
    print(f"\nlint_source over {len(sources)} files ({lines:,} lines): "
          f"{elapsed:.2f} s under cProfile "
          f"({len(sources) / elapsed:.1f} files/s), {findings} findings, "
          f"{len(failures)} files raised")
    for path, failure in failures[:10]:
        print(f"  raised on {path}: {failure}")
    print(f"\ntop {args.top} by cumulative time:")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(args.top)
    return 0


def read_sources(file_list: str) -> list[tuple[str, str]]:
    with open(file_list) as listing:
        paths = [line.strip() for line in listing if line.strip()]
    sources = []
    for path in paths:
        # tokenize.open honours PEP 263 coding cookies, like flake8 does.
        with tokenize.open(path) as source_file:
            sources.append((path, source_file.read()))
    return sources


def lint_all(lint_source, sources, profiler: cProfile.Profile):
    findings, failures = 0, []
    started = time.perf_counter()
    for path, text in sources:
        profiler.enable()
        try:
            findings += len(list(lint_source(text)))
        except Exception as failure:  # keep profiling the other files
            failures.append((path, repr(failure)))
        finally:
            profiler.disable()
    return findings, failures, time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
