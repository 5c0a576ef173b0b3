"""Peer comparison for TCP009: torch-preflight's TG001 against the plugin on the TCP009 labels.

torch-preflight (PyPI, a LibCST-based standalone linter; measured with 0.5.0) has rule TG001
"tensor stored with its autograd graph still attached", which overlaps TCP009
(graph-accumulation). This script runs TG001 over every labelled file of the corpus (the
files score.py runs the plugin on), puts each TG001 finding on the first line of its
innermost statement exactly as score.py does for the plugin's findings, and scores both
tools against the same TCP009 labels with score.py's own matcher:

- found / missed / false / unlabelled / recall / precision, as in score.py, for TCP009 and
  for TG001 (a TG001 finding counts as a TCP009 claim);
- every TG001 finding on a statement that has no TCP009 label (`unlabelled`): judge each. A
  real hazard goes into labels.csv as shape `manual`, code TCP009. A look-alike cannot: a
  `none` label needs a candidate row, and candidates.csv only holds shape rows and the
  plugin's own `finding-only` rows (shapes.py never runs TG001). Keep those judgements in a
  file of labels.csv's format (shape TCP009, code none), peer-lookalikes.csv (or another
  named by --lookalikes): its rows count as judged look-alikes for both tools here, and
  nowhere else;
- with --show, the statements where the two tools disagree.

torch-preflight is not a dependency of this project: install it apart and point --preflight
(or $TORCH_PREFLIGHT) at its executable:

    python3 -m venv /tmp/preflight && /tmp/preflight/bin/pip install torch-preflight==0.5
    python3 bench/accuracy/peer.py                                   # the side-by-side table
    python3 bench/accuracy/peer.py --show                            # plus disagreements, with source lines
    python3 bench/accuracy/peer.py --preflight /path/to/torch-preflight --json peer.json
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import corpus
import labels as labelling
import score
from statements import statement_line, statement_starts

RULE = "TCP009"
PEER_RULE = "TG001"
DEFAULT_PREFLIGHT = "/tmp/preflight/bin/torch-preflight"
LOOKALIKES = Path(__file__).resolve().parent / "peer-lookalikes.csv"  # judged by hand, as labels.csv
PREFLIGHT_ENV = "TORCH_PREFLIGHT"


def preflight_executable(value: str | None) -> str:
    for candidate in (value, os.environ.get(PREFLIGHT_ENV), DEFAULT_PREFLIGHT, shutil.which("torch-preflight")):
        if candidate and Path(candidate).is_file():
            return candidate
    raise SystemExit(
        "torch-preflight not found: install it in a venv of its own "
        "(python3 -m venv /tmp/preflight && /tmp/preflight/bin/pip install torch-preflight==0.5) "
        f"and pass --preflight or set ${PREFLIGHT_ENV}"
    )


def preflight_version(executable: str) -> str:
    run = subprocess.run([executable, "--version"], capture_output=True, text=True)
    return (run.stdout or run.stderr).strip()


def run_preflight(
    executable: str, files: list[tuple[str, str, bytes, str]], jobs: int
) -> tuple[dict[tuple[str, str], list[tuple[int, str]]], list[str]]:
    """TG001 findings per (repo, path), each at its statement's first line, as code TCP009.

    Also returns the files torch-preflight could not analyse (its `failures`) and those
    that the stdlib `ast` cannot parse (skipped by score.py's plugin run as well)."""
    sources = {(repo, path): corpus.decode_source(data) for repo, path, data, _ in files}
    found: dict[tuple[str, str], list[tuple[int, str]]] = {key: [] for key in sources}
    with tempfile.TemporaryDirectory(prefix="peer-") as folder:
        root = Path(folder)
        where: dict[str, tuple[str, str]] = {}
        for repo, path, data, _ in files:
            target = root / repo.replace("/", "+") / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            where[str(target.resolve())] = (repo, path)
        run = subprocess.run(
            [executable, "check", "-f", "json", "--select", PEER_RULE, "--fail-on", "error",
             "-j", str(jobs), "--no-color", str(root)],
            capture_output=True, text=True, cwd=root,
        )
        try:
            report = json.loads(run.stdout)
        except json.JSONDecodeError:
            raise SystemExit(f"torch-preflight gave no JSON (exit {run.returncode}):\n{run.stderr[-2000:]}")
        failures = [str(failure) for failure in report.get("failures", [])]
        starts_cache: dict[tuple[str, str], dict[int, int] | None] = {}
        for diagnostic in report.get("diagnostics", []):
            if diagnostic.get("code") != PEER_RULE:
                continue
            key = where.get(str(Path(diagnostic["path"]).resolve()))
            if key is None:
                continue
            if key not in starts_cache:
                try:
                    starts_cache[key] = statement_starts(ast.parse(sources[key]))
                except SyntaxError:
                    starts_cache[key] = None
            starts = starts_cache[key]
            if starts is None:
                continue
            found[key].append((statement_line(starts, int(diagnostic["line"])), RULE))
    unparsable = []
    for key, text in sources.items():
        try:
            ast.parse(text)
        except SyntaxError:
            unparsable.append(f"{key[0]} {key[1]}")
    return {key: sorted(set(value)) for key, value in found.items()}, failures + unparsable


def only_rule(findings_by_file: score.FindingsByFile, code: str) -> dict[tuple[str, str], list[tuple[int, str]]]:
    return {key: [item for item in found if item[1] == code] for key, found in findings_by_file.items()}


def rule_row(table: score.Table) -> score.RuleScore:
    return next(rule for rule in table.rules if rule.code == RULE)


def print_side_by_side(ours: score.RuleScore, theirs: score.RuleScore, version: str) -> None:
    r = score._ratio
    print(f"TCP009 labels: {ours.hazards} hazards")
    print(f"{'tool':30} {'hazards':>8} {'found':>6} {'missed':>7} {'false':>6} {'unlabelled':>11} "
          f"{'recall':>8} {'precision':>10}")
    for name, row in ((f"flake8-tensorcopy {RULE}", ours), (f"{version} {PEER_RULE}", theirs)):
        print(f"{name:30} {row.hazards:8} {row.found:6} {row.missed:7} {row.false:6} {row.unlabelled:11} "
              f"{r(row.recall):>8} {r(row.precision):>10}")


def disagreements(ours: score.Table, theirs: score.Table) -> dict[str, list[score.Outcome]]:
    def keyed(table: score.Table, kind: str) -> dict[tuple[str, str, int], score.Outcome]:
        return {(o.repo, o.path, o.line): o for o in table.outcomes if o.code == RULE and o.kind == kind}

    our_tp, their_tp = keyed(ours, "TP"), keyed(theirs, "TP")
    our_fp, their_fp = keyed(ours, "FP"), keyed(theirs, "FP")
    return {
        f"hazards only {RULE} finds": [o for k, o in our_tp.items() if k not in their_tp],
        f"hazards only {PEER_RULE} finds": [o for k, o in their_tp.items() if k not in our_tp],
        f"look-alikes only {RULE} reports": [o for k, o in our_fp.items() if k not in their_fp],
        f"look-alikes only {PEER_RULE} reports": [o for k, o in their_fp.items() if k not in our_fp],
        "look-alikes both report": [o for k, o in our_fp.items() if k in their_fp],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", help="mirrors root (default $TENSORCOPY_MIRRORS or /work/.mirror)")
    parser.add_argument("--labels", default=str(labelling.LABELS_CSV), help="labels file (default: labels.csv)")
    parser.add_argument("--preflight", help=f"torch-preflight executable (default ${PREFLIGHT_ENV} or {DEFAULT_PREFLIGHT})")
    parser.add_argument("--lookalikes", metavar="FILE", default=str(LOOKALIKES),
                        help="labels-format file of TCP009 `none` judgements for statements only TG001 "
                        "reports (default: peer-lookalikes.csv; '' for none)")
    parser.add_argument("--show", action="store_true", help="also list the disagreements with their source lines")
    parser.add_argument("--json", metavar="FILE", help="also write both rows and every outcome as JSON")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for both tools (default 2)")
    args = parser.parse_args(argv)
    corpus.quiet_broken_pipe()
    started = time.perf_counter()
    executable = preflight_executable(args.preflight)
    version = preflight_version(executable)
    labels = labelling.without_overruled(labelling.read_labels(Path(args.labels)))
    if not labels:
        raise SystemExit(f"no labels in {args.labels}")
    extra = labelling.read_labels(Path(args.lookalikes)) if args.lookalikes else []
    wrong = [f"{x.repo} {x.path}:{x.line}" for x in extra if (x.shape, x.code) != (RULE, labelling.NONE)]
    if wrong:
        raise SystemExit(f"--lookalikes rows must be shape {RULE}, code none: {'; '.join(wrong)}")
    root = corpus.mirrors_root(args.mirrors)
    mirrors = score.open_mirrors(labels, root)
    files = list(score.labelled_files(labels, mirrors, score.corpus_files.app_corpus_dir(score.corpus_files.BENCH_CACHE)))

    ours_by_file = only_rule(score.collect_findings(labels, root, args.jobs), RULE)
    theirs_by_file, skipped = run_preflight(executable, files, args.jobs)
    judged = labels + [x for x in extra if x.key not in {label.key for label in labels}]
    ours, theirs = score.score(judged, ours_by_file), score.score(judged, theirs_by_file)

    print(f"{len(labels)} labels in {len(files)} files; {version} on the same files"
          + (f"; {len(judged) - len(labels)} TG001-only look-alikes from {args.lookalikes}" if extra else ""))
    print_side_by_side(rule_row(ours), rule_row(theirs), version)

    unlabelled = [o for o in theirs.outcomes if o.code == RULE and o.kind == "unlabelled"]
    print(f"\n{PEER_RULE} findings on statements with no {RULE} label: {len(unlabelled)}")
    score.show(unlabelled, mirrors)
    if args.show:
        for title, outcomes in disagreements(ours, theirs).items():
            print(f"\n{title}: {len(outcomes)}")
            score.show(outcomes, mirrors)
    if skipped:
        print(f"\n{len(skipped)} files not analysed by torch-preflight or not parsable by ast "
              f"(no findings from either tool there): {'; '.join(skipped[:5])}{' ...' if len(skipped) > 5 else ''}",
              file=sys.stderr)
    if args.json:
        document = {
            "preflight": version,
            "labels": len(labels),
            "files": len(files),
            RULE: rule_row(ours).as_dict(),
            PEER_RULE: rule_row(theirs).as_dict(),
            "outcomes": {
                RULE: [asdict(o) for o in ours.outcomes if o.code == RULE],
                PEER_RULE: [asdict(o) for o in theirs.outcomes if o.code == RULE],
            },
        }
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1)
            handle.write("\n")
    print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
