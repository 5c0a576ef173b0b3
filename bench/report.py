"""Print the benchmark summary as a table.

Also usable on its own to re-print a saved run:
    python3 bench/report.py bench/results.json
"""

from __future__ import annotations

import json
import statistics
import sys

MIB = 1024.0


def print_report(results: dict) -> None:
    print()
    print("== flake8-tensorcopy benchmark (issue 3) ==")
    for label, text in _context_lines(results):
        print(f"{label:<8}: {text}")
    print()
    print(f"{'measure':<32}{'without':>11}{'with':>11}{'added':>11}"
          f"{'ratio':>8}{'target':>10}  verdict")
    for row in _measure_rows(results):
        print(row)
    peer = results.get("peer")
    if peer:
        print()
        print(_peer_line(peer))
    for note in results.get("notes", []):
        print(f"note: {note}")
    print()
    print("verdict : " + _overall(results))


def failed_targets(results: dict) -> list[str]:
    """Each missed target, as the verdict line names it; the run's
    targets_passed is this being empty."""
    failed = [f"{name} {measure.replace('_', ' ')}"
              for name, corpus in results["corpora"].items()
              for measure in ("whole_tree", "memory")
              if not corpus[measure]["pass"]]
    if not results["editor_latency"]["pass"]:
        failed.append("editor latency")
    return failed


def _context_lines(results: dict):
    machine = results["machine"]
    envs = results["environments"]
    yield "machine", (f"{machine['cpu_count']} cores "
                      f"({machine['usable_cores']} usable), "
                      f"{machine['cpu_model']}, "
                      f"{machine['memory_gib']:.1f} GiB RAM, "
                      f"{machine['platform']}")
    yield "python", machine["python"]
    yield "flake8", ", ".join(f"{name} {env['flake8']}"
                              for name, env in envs.items())
    yield "libcst", ", ".join(f"{name} {env['libcst']}"
                              for name, env in envs.items()
                              if env.get("libcst"))
    plugin = envs["with"]
    yield "plugin", (f"{plugin['plugin_distribution']} "
                     f"{plugin['plugin_version']} (flake8.extension TCP)")
    for measured in results["corpora"].values():
        corpus = measured["corpus"]
        yield "corpus", (f"{measured['title']}: {corpus['root']} "
                         f"({corpus['label']}): {corpus['files']:,} of "
                         f"{corpus['files_in_tree']:,} files, "
                         f"{corpus['lines']:,} lines")
    load = machine["load_average"]
    yield "load", (f"{load['start']:.2f} at start, {load['end']:.2f} at end "
                   f"(1-min average; above the core count means other "
                   f"work competed for the CPU)")


def _measure_rows(results: dict):
    for measured in results["corpora"].values():
        yield from _corpus_rows(measured)
    latency = results["editor_latency"]
    yield _row(f"editor latency, median of {latency['pairs']}",
               latency["wall_s"], "s", latency)
    yield _row("  CPU user+sys, median", latency["cpu_s"], "s", None)
    floor = {"without": latency["wall_s"]["without"],
             "with": latency["wall_s"]["without"] + latency["libcst_import_s"]}
    yield _row("  floor: + importing LibCST", floor, "s", None)


def _corpus_rows(measured: dict):
    """One corpus's rows, under its title."""
    tree, memory = measured["whole_tree"], measured["memory"]
    yield measured["title"]
    yield _row(f"  whole tree, median of {tree['pairs']} pairs",
               tree["wall_s"], "s", tree)
    yield (f"{'    throughput (files/s)':<32}"
           f"{tree['files_per_s']['without']:>11.1f}"
           f"{tree['files_per_s']['with']:>11.1f}")
    # absent from runs saved before they were kept
    yield _row("    CPU user+sys, median", tree["cpu_s"], "s", None, tree.get("cpu_ratio"))
    control = tree.get("control")
    if control:
        yield _row(f"    control: 'without' vs itself, {control['pairs']}", control["cpu_s"], "s", None,
                   statistics.median(control["cpu_pair_ratios"]))
    in_run = tree.get("in_run")  # absent from runs saved before it was counted
    if in_run:
        yield _row("    CPU inside 'with': plugin's", in_run["cpu_s"], "s", None,
                   in_run["ratio"])
    yield _row("  peak RSS (whole tree), median", memory["peak_rss_mib"],
               "MiB", memory)


def _row(label: str, values: dict, unit: str, target: dict | None,
         ratio: float | None = None) -> str:
    without, with_ = values["without"], values["with"]
    # A target's verdict is on its own ratio (for timings: the median of the
    # per-pair ratios, which the ratio of the medians can differ from).
    if ratio is None:
        ratio = target["ratio"] if target else with_ / without
    cells = (f"{label:<32}{_fmt(without, unit):>11}{_fmt(with_, unit):>11}"
             f"{_fmt(with_ - without, unit, sign='+'):>11}{ratio:>8.3f}")
    if target is None:
        return cells + f"{'(info)':>10}"
    verdict = "PASS" if target["pass"] else "FAIL"
    return cells + f"{'<= ' + format(target['target'], '.2f'):>10}  {verdict}"


def _fmt(value: float, unit: str, sign: str = "") -> str:
    if unit == "MiB":
        return f"{value:{sign}.1f} MiB"
    digits = 3 if abs(value) < 10 else 2
    return f"{value:{sign}.{digits}f} s"


def _peer_line(peer: dict) -> str:
    if "skipped" in peer:
        return f"peer    : TorchFix 0.7.0 skipped: {peer['skipped']}"
    return (f"peer    : TorchFix {peer['torchfix_version']} "
            f"(libcst {peer['libcst']}), {peer['files']} files of the "
            f"{peer['corpus']} corpus, "
            f"{peer['runs']} run(s): {peer['torchfix_s']:.2f} s "
            f"({peer['torchfix_files_per_s']:.1f} files/s) vs without "
            f"{peer['without_s']:.2f} s -> ratio {peer['ratio']:.2f} "
            f"(flake8-tensorcopy on the same files: "
            f"{peer['ours_ratio']:.3f}; TorchFix takes "
            f"{peer['torchfix_vs_ours']:.2f}x our time; CPU-time ratios: "
            f"TorchFix {peer['cpu_ratio']:.2f}, ours "
            f"{peer['ours_cpu_ratio']:.3f})")


def _overall(results: dict) -> str:
    failed = failed_targets(results)
    if not failed:
        return "all targets PASS"
    return "FAIL: " + ", ".join(failed)


if __name__ == "__main__":
    with open(sys.argv[1] if len(sys.argv) > 1 else "bench/results.json") \
            as saved:
        print_report(json.load(saved))
