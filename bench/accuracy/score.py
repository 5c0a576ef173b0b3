"""Per-rule precision and recall of the plugin on the labelled corpus.

Runs the plugin (every rule, opt-in ones included) on every file that has a label,
puts each finding on the first line of its statement, and matches it to labels.csv:

- found (TP): a finding on a statement labelled with the finding's code;
- missed (FN): a statement labelled with a code and no finding of that code;
- false (FP): a finding where that rule's shape was labelled `none`;
- unlabelled: a finding on a statement nobody judged for that rule; label it (its
  candidate row has plugin=finding-only or found). Counted apart, in no ratio.

    python3 bench/accuracy/score.py                        # the table
    python3 bench/accuracy/score.py --json score.json      # the same, as JSON (with every FN/FP/unlabelled)
    python3 bench/accuracy/score.py --show FN --rule TCP003   # the misses, with their source lines
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from multiprocessing import Pool
from pathlib import Path

import corpus
import findings
import labels as labelling

KINDS = ("FN", "FP", "unlabelled")
FindingsByFile = Mapping[tuple[str, str], Iterable[tuple[int, str]]]  # (repo, path) -> (line, code)


@dataclass(frozen=True, order=True)
class Outcome:
    kind: str  # "TP", "FN", "FP" or "unlabelled"
    code: str
    repo: str
    path: str
    line: int
    note: str = ""  # the label's note, if any


@dataclass
class RuleScore:
    code: str
    hazards: int = 0
    found: int = 0
    missed: int = 0
    false: int = 0
    unlabelled: int = 0

    @property
    def recall(self) -> float | None:
        return self.found / self.hazards if self.hazards else None

    @property
    def precision(self) -> float | None:
        judged = self.found + self.false
        return self.found / judged if judged else None

    def as_dict(self) -> dict:
        return {**asdict(self), "recall": self.recall, "precision": self.precision}


@dataclass
class Table:
    rules: list[RuleScore]
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def total(self) -> RuleScore:
        total = RuleScore("total")
        for rule in self.rules:
            for name in ("hazards", "found", "missed", "false", "unlabelled"):
                setattr(total, name, getattr(total, name) + getattr(rule, name))
        return total


def score(labels: Iterable[labelling.Label], findings_by_file: FindingsByFile) -> Table:
    """Match findings (already at statement lines) to labels; deterministic, no I/O."""
    hazards: dict[tuple[str, str, int, str], labelling.Label] = {}
    judged: dict[tuple[str, str, int, str], labelling.Label] = {}  # (repo, path, line, rule) -> its label
    for label in labels:
        rule = label.code if label.shape == labelling.MANUAL else label.shape
        judged[(label.repo, label.path, label.line, rule)] = label
        if label.code in labelling.CODES:
            hazards[(label.repo, label.path, label.line, label.code)] = label
    outcomes = []
    reported = set()
    for (repo, path), found in findings_by_file.items():
        for line, code in found:
            key = (repo, path, line, code)
            reported.add(key)
            if key in hazards:
                outcomes.append(Outcome("TP", code, repo, path, line, hazards[key].note))
            elif key in judged:
                outcomes.append(Outcome("FP", code, repo, path, line, judged[key].note))
            else:
                outcomes.append(Outcome("unlabelled", code, repo, path, line))
    outcomes += [
        Outcome("FN", code, repo, path, line, label.note)
        for (repo, path, line, code), label in hazards.items()
        if (repo, path, line, code) not in reported
    ]
    rules = {code: RuleScore(code) for code in labelling.CODES}
    counters = {"TP": "found", "FN": "missed", "FP": "false", "unlabelled": "unlabelled"}
    for outcome in outcomes:
        rule = rules[outcome.code]
        setattr(rule, counters[outcome.kind], getattr(rule, counters[outcome.kind]) + 1)
    for _, _, _, code in hazards:
        rules[code].hazards += 1
    return Table(list(rules.values()), sorted(outcomes, key=lambda o: (o.kind, o.code, o.repo.lower(), o.path, o.line)))


# --- reading the labelled files -----------------------------------------------------------


def _file_findings(job: tuple[str, str, bytes]) -> tuple[tuple[str, str], list[tuple[int, str]]]:
    repo, path, data = job
    return (repo, path), findings.plugin_findings(corpus.decode_source(data), f"{repo} {path}")


def labelled_files(
    labels: list[labelling.Label], mirrors: dict[str, corpus.Mirror]
) -> Iterator[tuple[str, str, bytes]]:
    """(repo, path, bytes) of every labelled file, read at repos.csv's commit."""
    wanted: dict[str, set[str]] = {}
    for label in labels:
        wanted.setdefault(label.repo, set()).add(label.path)
    for name in sorted(wanted, key=str.lower):
        mirror = mirrors[name]
        files = [file for file in mirror.python_files() if file.path in wanted[name]]
        absent = wanted[name] - {file.path for file in files}
        if absent:
            raise SystemExit(f"{name} has no {', '.join(sorted(absent))} at {mirror.repo.commit}")
        for file, data in mirror.read_all(files):
            yield name, file.path, data


def open_mirrors(labels: list[labelling.Label], root) -> dict[str, corpus.Mirror]:
    """The mirrors of the labelled repositories; exits saying what is missing or inconsistent."""
    repos = {repo.name: repo for repo in corpus.load_repos()}
    recorded = {(repo.name, repo.commit) for repo in repos.values()}
    stale = sorted({f"{label.repo} {label.commit}" for label in labels if (label.repo, label.commit) not in recorded})
    if stale:
        raise SystemExit(f"labels name repositories or commits that repos.csv does not: {'; '.join(stale)}\n"
                         "(run `python3 bench/accuracy/labels.py check`)")
    mirrors, missing = corpus.open_corpus([repos[name] for name in sorted({label.repo for label in labels})], root)
    if missing:
        raise SystemExit(corpus.missing_message(missing, root))
    return {mirror.repo.name: mirror for mirror in mirrors}


def collect_findings(labels: list[labelling.Label], root, jobs: int) -> dict[tuple[str, str], list[tuple[int, str]]]:
    mirrors = open_mirrors(labels, root)
    with Pool(jobs) as pool:
        return dict(pool.imap(_file_findings, labelled_files(labels, mirrors), chunksize=4))


# --- output -------------------------------------------------------------------------------


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def print_table(table: Table, files: int, labels: int) -> None:
    print(f"{labels} labels in {files} files")
    print(f"{'rule':8} {'hazards':>8} {'found':>6} {'missed':>7} {'false':>6} {'unlabelled':>11} "
          f"{'recall':>8} {'precision':>10}")
    for rule in [*table.rules, table.total]:
        print(f"{rule.code:8} {rule.hazards:8} {rule.found:6} {rule.missed:7} {rule.false:6} "
              f"{rule.unlabelled:11} {_ratio(rule.recall):>8} {_ratio(rule.precision):>10}")


def show(outcomes: list[Outcome], mirrors: dict[str, corpus.Mirror]) -> None:
    """Each outcome as path:line, its code and note, and the source line."""
    texts: dict[tuple[str, str], list[str]] = {}
    for outcome in outcomes:
        where = (outcome.repo, outcome.path)
        if where not in texts:
            texts[where] = corpus.source_lines(mirrors[outcome.repo].read_text(outcome.path))
        lines = texts[where]
        source = lines[outcome.line - 1].strip() if outcome.line <= len(lines) else ""
        note = f"  [{outcome.note}]" if outcome.note else ""
        print(f"{outcome.repo} {outcome.path}:{outcome.line}: {outcome.kind} {outcome.code}{note}\n    {source}")


def write_json(path: str, table: Table, files: int, labels: int) -> None:
    document = {
        "labels": labels,
        "files": files,
        "rules": [rule.as_dict() for rule in table.rules],
        "total": table.total.as_dict(),
        "outcomes": {kind: [asdict(o) for o in table.outcomes if o.kind == kind] for kind in KINDS},
    }
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
        handle.write("\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", help="mirrors root (default $TENSORCOPY_MIRRORS or /work/.mirror)")
    parser.add_argument("--labels", default=str(labelling.LABELS_CSV), help="labels file (default: labels.csv)")
    parser.add_argument("--json", metavar="FILE", help="also write the table and every FN/FP/unlabelled as JSON")
    parser.add_argument("--show", choices=KINDS, help="print those findings or misses with their source lines")
    parser.add_argument("--rule", choices=labelling.CODES, help="with --show: only this rule")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args(argv)
    corpus.quiet_broken_pipe()
    started = time.perf_counter()
    labels = labelling.without_overruled(labelling.read_labels(Path(args.labels)))
    if not labels:
        raise SystemExit(f"no labels in {args.labels}")
    root = corpus.mirrors_root(args.mirrors)
    findings_by_file = collect_findings(labels, root, args.jobs)
    table = score(labels, findings_by_file)
    files = len(findings_by_file)
    print_table(table, files, len(labels))
    if args.json:
        write_json(args.json, table, files, len(labels))
    if args.show:
        chosen = [o for o in table.outcomes if o.kind == args.show and args.rule in (None, o.code)]
        show(chosen, open_mirrors(labels, root))
    print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
