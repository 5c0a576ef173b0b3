"""What some rules add to the flake8 plugin's cost, against the other rules, in one run.

    python3 bench/rule_cost.py --files-from LIST --rules TCP010,TCP011 [--repeat 3]

Each configuration runs in a child process of its own (the plugin as flake8 calls it:
summary, trigger plan, parse of what the plan names, the batched walk), on the same files
read and parsed by ``ast`` beforehand (flake8 does that for every plugin; it is not ours to
count). Printed per configuration, best of ``--repeat``: the plugin's CPU time inside the
child and its ratio to the baseline (every rule on by default except ``--rules``), its wall
time, the whole child's CPU time (``getrusage``: reading and parsing included), findings.
Compare ratios, not seconds: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys

CHILD = r"""
import ast, json, sys, time, tokenize
from flake8_tensorcopy import plugin
from flake8_tensorcopy._triggers import RULE_TRIGGERS
codes = set(sys.argv[2].split(","))
triggers = tuple(spec for spec in RULE_TRIGGERS if spec.code in codes)
checker_class = type("Measured", (plugin.TensorCopyChecker,), {"triggers": triggers})
files = []
for path in open(sys.argv[1]).read().split():
    try:
        with tokenize.open(path) as handle:
            lines = handle.readlines()
        files.append((ast.parse("".join(lines)), lines, path))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        pass
import flake8_tensorcopy.engine  # imported by the first file that needs a parse: not per configuration
started, cpu = time.perf_counter(), time.process_time()
findings = sum(len(list(checker_class(tree, lines, path).run())) for tree, lines, path in files)
print(json.dumps({"files": len(files), "seconds": time.perf_counter() - started,
                  "plugin_cpu": time.process_time() - cpu, "findings": findings}))
"""


def run_child(files_from: str, codes: list[str]) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = subprocess.run(
        [sys.executable, "-c", CHILD, files_from, ",".join(codes)], capture_output=True, text=True, check=True
    ).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(output.strip().splitlines()[-1])
    result["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files-from", required=True, help="a text file with one path per line")
    parser.add_argument("--rules", required=True, help="the rules to measure, comma-separated (TCP010,TCP011)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from flake8_tensorcopy.rules import ALL_RULES

    measured = args.rules.split(",")
    baseline = [rule.code for rule in ALL_RULES if rule.enabled_by_default and rule.code not in measured]
    configurations = {"baseline": baseline}
    for code in measured:
        configurations[f"baseline+{code}"] = baseline + [code]
    if len(measured) > 1:
        configurations["baseline+all"] = baseline + measured
    best: dict[str, dict] = {}
    for _ in range(args.repeat):  # interleaved, so that a busy moment hits every configuration alike
        for name, codes in configurations.items():
            result = run_child(args.files_from, codes)
            if name not in best or result["plugin_cpu"] < best[name]["plugin_cpu"]:
                best[name] = result
    base = best["baseline"]
    print(f"{base['files']} files; best of {args.repeat}")
    print(f"{'':18} {'plugin cpu':>10} {'ratio':>7} {'plugin wall':>11} {'child cpu':>9} {'findings':>8}")
    for name, result in best.items():
        print(f"{name:18} {result['plugin_cpu']:9.2f}s {result['plugin_cpu'] / base['plugin_cpu']:7.3f} "
              f"{result['seconds']:10.2f}s {result['cpu']:8.2f}s {result['findings']:8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
