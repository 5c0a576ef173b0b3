"""What some rules add to the flake8 plugin's cost, against the other rules, in one run.

    python3 bench/rule_cost.py --files-from LIST --rules TCP010,TCP011 [--repeat 3]

Each configuration runs in a child process of its own (the plugin as flake8 calls it:
summary, trigger plan, parse of what the plan names, the batched walk), on the same files
read and parsed by ``ast`` beforehand (flake8 does that for every plugin; it is not ours to
count). Printed per configuration: the plugin's wall time inside the child (best of
``--repeat``), the child's CPU time (``getrusage``), findings, and the ratio to the baseline
(every rule on by default except ``--rules``). Compare ratios, not seconds: the machine is
shared.
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
started = time.perf_counter()
findings = sum(len(list(checker_class(tree, lines, path).run())) for tree, lines, path in files)
print(json.dumps({"files": len(files), "seconds": time.perf_counter() - started, "findings": findings}))
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
            if name not in best or result["seconds"] < best[name]["seconds"]:
                best[name] = result
    base = best["baseline"]
    print(f"{base['files']} files; best of {args.repeat}; plugin time inside the child, child CPU time")
    for name, result in best.items():
        print(f"{name:18} {result['seconds']:7.2f} s  x{result['seconds'] / base['seconds']:.3f}   "
              f"cpu {result['cpu']:6.2f} s  {result['findings']:5} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
