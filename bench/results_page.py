"""bench/run.py's section of bench/RESULTS.md: the latest run's table, its date and machine.

The other sections of that file belong to the other benchmarks; only the text between
this section's markers is replaced, so a run leaves them as they are.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

RESULTS_PAGE = Path(__file__).resolve().parent / "RESULTS.md"
SECTION_START = "<!-- bench/run.py writes this section: do not edit -->"
SECTION_END = "<!-- end of bench/run.py's section -->"


def section(results: dict) -> str:
    """The markdown of one run, between the section's markers."""
    machine, plugin = results["machine"], results["environments"]["with"]
    lines = [
        SECTION_START,
        "## `bench/run.py`: flake8 without and with the plugin",
        "",
        f"Run {results['started_at']}: `{results['command']}`.",
        f"Machine: {machine['cpu_count']} cores ({machine['usable_cores']} usable), {machine['cpu_model']}, "
        f"{machine['memory_gib']:.1f} GiB, load {machine['load_average']['start']:.2f} at the start and "
        f"{machine['load_average']['end']:.2f} at the end; Python {machine['python'].split()[0]}, "
        f"flake8 {plugin['flake8']}, LibCST {plugin['libcst']}, "
        f"{plugin['plugin_distribution']} {plugin['plugin_version']}; the project analysis "
        f"{results.get('project', 'on')}, {_CACHE_STATES[results.get('project_cache', 'cold')]}.",
        "",
    ]
    for measured in results["corpora"].values():
        corpus = measured["corpus"]
        lines.append(f"- {measured['title']}: {corpus['files']:,} files, {corpus['lines']:,} lines ({corpus['label']})")
    lines += ["", "| measure | without | with | ratio | target |", "|---|---|---|---|---|"]
    for measured in results["corpora"].values():
        tree, memory = measured["whole_tree"], measured["memory"]
        lines.append(_row(f"{measured['title']}: whole tree, median of {tree['pairs']} pairs{_method(tree)}",
                          tree["wall_s"], "s", tree["ratio"], tree))
        if "cpu_ratio" in tree:  # absent from runs saved before it was kept
            lines.append(_row(f"{measured['title']}: the same pairs in CPU time, median of their ratios",
                              tree["cpu_s"], "s", tree["cpu_ratio"], None))
        if tree.get("control"):
            control = tree["control"]
            lines.append(_row(f"{measured['title']}: control, 'without' against itself, {control['pairs']} "
                              f"pair(s) timed alike, CPU", control["cpu_s"], "s",
                              statistics.median(control["cpu_pair_ratios"]), None))
        if tree.get("in_run"):
            in_run = tree["in_run"]
            lines.append(_row(f"{measured['title']}: CPU inside 'with', without and with the plugin's",
                              in_run["cpu_s"], "s", in_run["ratio"], None))
        lines.append(_row(f"{measured['title']}: peak RSS", memory["peak_rss_mib"], "MiB", memory["ratio"], memory))
    latency = results["editor_latency"]
    lines.append(_row(f"editor: `flake8 -` on a {latency['lines']:,}-line file, median of {latency['pairs']} pairs",
                      latency["wall_s"], "s", latency["ratio"], latency))
    lines.append(f"| the same, floor: importing LibCST | | | {latency['floor_ratio']:.3f} | (info) |")
    lines += ["", *(f"Note: {note}" for note in results.get("notes", [])), SECTION_END]
    return "\n".join(line for i, line in enumerate(lines) if line or lines[i - 1])


_CACHE_STATES = {"cold": "its disk cache empty at each 'with' run", "warm": "its disk cache filled first"}


def _method(tree: dict) -> str:
    return f" ({tree['method']})" if tree.get("method") else ""


def write(results: dict, page: Path = RESULTS_PAGE) -> None:
    """Replace the section in ``page`` (which must hold its markers once)."""
    text = page.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(SECTION_START) + ".*?" + re.escape(SECTION_END), re.S)
    if len(pattern.findall(text)) != 1:
        raise SystemExit(f"{page} needs exactly one pair of markers:\n{SECTION_START}\n{SECTION_END}")
    page.write_text(pattern.sub(lambda _: section(results), text), encoding="utf-8")
    print(f"results written into {page}")


def _row(label: str, values: dict, unit: str, ratio: float, target: dict | None) -> str:
    verdict = "(info)" if target is None else f"<= {target['target']:.2f}: {'met' if target['pass'] else 'not met'}"
    without, with_ = _amount(values["without"], unit), _amount(values["with"], unit)
    return f"| {label} | {without} | {with_} | {ratio:.3f} | {verdict} |"


def _amount(value: float, unit: str) -> str:
    return f"{value:.1f} MiB" if unit == "MiB" else f"{value:.{3 if value < 10 else 1}f} s"
