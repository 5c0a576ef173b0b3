"""The two tables of the accuracy corpus: candidates (generated) and labels (the committed truth).

candidates.csv, written by `shapes.py candidates`: one row per (statement, shape) where a
rule's syntactic shape occurs, plus `finding-only` rows where the plugin reports something
no shape row covers. Columns: repo, commit, path, line, shape, plugin (`found` when the
plugin reports that code there, `finding-only`), auto (why no judgement is needed, one of
shapes.AUTO_REASONS; such rows get a generated `none` label). No code: the source is read
from the mirrors when a row is shown.

labels.csv: one row per labelled candidate. Columns: repo, commit, path, line, shape, code,
note. `code` is the rule the statement deserves (the shape's own code) or `none` (a
look-alike). `shape` is the candidate's shape, or `manual` for a hazard found by reading
that no candidate row names (then `code` is its rule).

    python3 bench/accuracy/labels.py todo [--rule TCP005] [--repo OWNER/NAME] [-C 10]  # what is left
    python3 bench/accuracy/labels.py todo --blind -C 10         # the same without the plugin's verdict
    python3 bench/accuracy/labels.py check [--sources]           # validate (--sources: lines against the code)
    python3 bench/accuracy/labels.py --labels mine.csv todo      # work in your own file, then:
    python3 bench/accuracy/labels.py merge mine.csv              # fold it into labels.csv
    python3 bench/accuracy/labels.py sort                        # canonical order after hand edits
    python3 bench/accuracy/labels.py --blind-set todo --blind -C 12  # the blind set's *-blind.csv files
"""

from __future__ import annotations

import argparse
import ast
import csv
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields
from pathlib import Path

import corpus
from statements import statement_starts

HERE = Path(__file__).resolve().parent
CANDIDATES_CSV = HERE / "candidates.csv"
LABELS_CSV = HERE / "labels.csv"
# The blind set: repositories no rule was developed on, labelled before the plugin ran on them
# (issue 45: a rule is on by default only when measured there). `use_blind_set` reads them.
BLIND_CANDIDATES_CSV = HERE / "candidates-blind.csv"
BLIND_LABELS_CSV = HERE / "labels-blind.csv"
CODES = tuple(f"TCP{number:03d}" for number in range(1, 13))
NONE = "none"
# A hazard whose evidence no static reading can reach (it depends on a command-line flag or
# on a file loaded at run time): counted in neither ratio. The note says which flag or file.
UNSURE = "unsure"
MANUAL = "manual"
AUTO_SUFFIX = " (auto)"  # the note of a generated label


@dataclass(frozen=True, order=True)
class Candidate:
    repo: str
    commit: str
    path: str
    line: int
    shape: str
    plugin: str  # "found", "finding-only" or ""
    auto: str  # why no judgement is needed (shapes.AUTO_REASONS) or ""

    @property
    def key(self) -> tuple[str, str, int, str]:
        return self.repo, self.path, self.line, self.shape


@dataclass(frozen=True, order=True)
class Label:
    repo: str
    commit: str
    path: str
    line: int
    shape: str
    code: str  # a TCP code, "none" or "unsure"
    note: str

    @property
    def key(self) -> tuple[str, str, int, str]:
        return self.repo, self.path, self.line, self.shape


def _read(path: Path, row_type: type) -> list:
    names = [item.name for item in fields(row_type)]
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != names:
            raise SystemExit(f"{path}: the header must be {','.join(names)}, not {','.join(reader.fieldnames or [])}")
        return [row_type(**{**row, "line": int(row["line"])}) for row in reader]


def _write(path: Path, row_type: type, rows: Iterable) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(item.name for item in fields(row_type))
        writer.writerows(astuple(row) for row in sorted(rows, key=_order))


def _order(row: Candidate | Label) -> tuple:
    return row.repo.lower(), row.path, row.line, row.shape


def use_blind_set() -> None:
    """Make the blind set's files (repos-blind.csv, candidates-blind.csv, labels-blind.csv) the
    ones every command and every default below reads and writes."""
    global CANDIDATES_CSV, LABELS_CSV
    corpus.use_repos(corpus.BLIND_REPOS_CSV)
    CANDIDATES_CSV, LABELS_CSV = BLIND_CANDIDATES_CSV, BLIND_LABELS_CSV


def read_candidates(path: Path | None = None) -> list[Candidate]:
    return _read(path or CANDIDATES_CSV, Candidate)


def write_candidates(rows: Iterable[Candidate], path: Path | None = None) -> None:
    _write(path or CANDIDATES_CSV, Candidate, rows)


def read_labels(path: Path | None = None) -> list[Label]:
    path = path or LABELS_CSV
    return _read(path, Label) if path.exists() else []


def write_labels(rows: Iterable[Label], path: Path | None = None) -> None:
    _write(path or LABELS_CSV, Label, rows)


def refresh_auto_labels(candidates: Iterable[Candidate], path: Path | None = None) -> int:
    """Regenerate the `none` labels of auto candidates; labels written by people stay as they are."""
    path = path or LABELS_CSV
    kept = [label for label in read_labels(path) if not label.note.endswith(AUTO_SUFFIX)]
    known = {label.key for label in kept}
    auto = [
        Label(row.repo, row.commit, row.path, row.line, row.shape, NONE, row.auto + AUTO_SUFFIX)
        for row in candidates
        if row.auto and row.key not in known
    ]
    write_labels(kept + auto, path)
    return len(auto)


def without_overruled(labels: Iterable[Label]) -> list[Label]:
    """Drop the auto labels that a person labelled too: the person's label wins."""
    labels = list(labels)
    by_people = {label.key for label in labels if not label.note.endswith(AUTO_SUFFIX)}
    return [label for label in labels if not label.note.endswith(AUTO_SUFFIX) or label.key not in by_people]


def unlabelled(candidates: Iterable[Candidate], labels: Iterable[Label]) -> list[Candidate]:
    known = {label.key for label in labels}
    return [row for row in candidates if row.key not in known]


def problems(labels: list[Label], repos: list[corpus.Repo], candidates: list[Candidate] | None) -> list[str]:
    """Everything that makes labels.csv unusable or suspicious, one line each."""
    commits = {repo.name: repo.commit for repo in repos}
    found = []
    for key, count in Counter(label.key for label in labels).items():
        if count > 1:
            found.append(f"{' '.join(map(str, key))}: labelled {count} times")
    for label in labels:
        where = f"{label.repo} {label.path}:{label.line} {label.shape}"
        if commits.get(label.repo) != label.commit:
            found.append(f"{where}: commit {label.commit} is not repos.csv's ({commits.get(label.repo)})")
        if label.shape == MANUAL:
            if label.code not in CODES:
                found.append(f"{where}: a manual label needs a TCP code, not {label.code!r}")
        elif label.shape not in CODES:
            found.append(f"{where}: unknown shape {label.shape!r}")
        elif label.code not in (label.shape, NONE, UNSURE):
            found.append(f"{where}: code must be {label.shape}, none or unsure, not {label.code!r}")
        elif label.code == UNSURE and not label.note.startswith("unsure:"):
            found.append(f"{where}: an unsure label's note starts with 'unsure:' and names the flag or file")
    if candidates is not None:
        listed = {row.key for row in candidates}
        found += [
            f"{label.repo} {label.path}:{label.line} {label.shape}: no such candidate (did the shapes change?)"
            for label in labels
            if label.shape != MANUAL and label.key not in listed
        ]
    return found


def misplaced_lines(labels: list[Label], root: Path) -> list[str]:
    """Labels whose line is not the first line of a statement in the file at its commit."""
    by_file: dict[tuple[str, str], list[Label]] = {}
    for label in labels:
        by_file.setdefault((label.repo, label.path), []).append(label)
    repos = {repo.name: repo for repo in corpus.load_repos()}
    found = []
    for (repo_name, path), file_labels in sorted(by_file.items()):
        mirror = corpus.locate(repos[repo_name], root) if repo_name in repos else None
        if not isinstance(mirror, corpus.Mirror):
            found.append(f"{repo_name} {path}: cannot read it (not in repos.csv, or not fetched)")
            continue
        starts = set(statement_starts(ast.parse(mirror.read_text(path))).values())
        found += [f"{repo_name} {path}:{label.line}: not a statement's first line"
                  for label in file_labels if label.line not in starts]
    return found


def conflicts(labels: list[Label]) -> list[str]:
    """Keys labelled twice with different codes."""
    codes: dict[tuple[str, str, int, str], set[str]] = {}
    for label in labels:
        codes.setdefault(label.key, set()).add(label.code)
    return [f"{' '.join(map(str, key))}: labelled {' and '.join(sorted(found))}"
            for key, found in sorted(codes.items()) if len(found) > 1]


def _all_labels(args: argparse.Namespace) -> list[Label]:
    """labels.csv and the --labels files, a person's label winning over an auto one."""
    return without_overruled(label for path in [LABELS_CSV, *(args.labels or [])] for label in read_labels(Path(path)))


def print_with_context(rows: list[Candidate], root: Path, context: int, blind: bool = False) -> None:
    """Each row with ``context`` source lines either side, read from the mirrors once per file.

    ``blind`` leaves out the plugin's verdict, so that a label cannot lean on it.
    """
    repos = {repo.name: repo for repo in corpus.load_repos()}
    texts: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        if (row.repo, row.path) not in texts:
            mirror = corpus.locate(repos[row.repo], root)
            if isinstance(mirror, corpus.Missing):
                raise SystemExit(corpus.missing_message([mirror], root))
            texts[(row.repo, row.path)] = corpus.source_lines(mirror.read_text(row.path))
        lines = texts[(row.repo, row.path)]
        verdict = "" if blind else f"  ({row.plugin or 'not found'})"
        print(f"=== {row.repo},{row.commit},{row.path},{row.line},{row.shape}{verdict}")
        for number in range(max(1, row.line - context), min(len(lines), row.line + context) + 1):
            print(f"{'>>' if number == row.line else '  '}{number:6} {lines[number - 1]}")


def _todo(args: argparse.Namespace) -> int:
    candidates = read_candidates()
    left = unlabelled(candidates, _all_labels(args))
    chosen = [row for row in left if args.rule in (None, row.shape) and args.repo in (None, row.repo)]
    # A finding-only row exists only because the plugin reported it: listing it would tell.
    held_back = [row for row in chosen if args.blind and row.plugin == "finding-only"]
    chosen = [row for row in chosen if row not in held_back]
    print_with_context(chosen, corpus.mirrors_root(args.mirrors), args.context, args.blind)
    total = Counter(row.shape for row in candidates)
    todo = Counter(row.shape for row in left)
    print("left to label:", ", ".join(f"{shape} {todo[shape]} of {total[shape]}" for shape in sorted(total)))
    if held_back:
        print(f"{len(held_back)} finding-only rows held back by --blind; label them last, without it")
    return 0


def _check(args: argparse.Namespace) -> int:
    labels = _all_labels(args)
    candidates = read_candidates() if CANDIDATES_CSV.exists() else None
    found = problems(labels, corpus.load_repos(), candidates)
    if args.sources:
        found += misplaced_lines(labels, corpus.mirrors_root(args.mirrors))
    for problem in found:
        print(problem)
    print(f"{len(labels)} labels, {len(found)} problems")
    return 1 if found else 0


def _merge(args: argparse.Namespace) -> int:
    """Fold other label files (one per labeller, say) into labels.csv, refusing conflicting codes."""
    merged = without_overruled(read_labels() + [label for path in args.files for label in read_labels(Path(path))])
    clashes = conflicts(merged)
    if clashes:
        print("\n".join(clashes))
        print(f"{len(clashes)} conflicts; nothing written")
        return 1
    unique = {label.key: label for label in merged}
    write_labels(unique.values())
    print(f"{LABELS_CSV.name}: {len(unique)} labels")
    return 0


def _sort(args: argparse.Namespace) -> int:
    for path in [LABELS_CSV, *(args.labels or [])]:
        write_labels(read_labels(Path(path)), Path(path))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", help="mirrors root (default $TENSORCOPY_MIRRORS or /work/.mirror)")
    parser.add_argument("--labels", action="append", metavar="FILE",
                        help="a label file of your own, read with labels.csv (repeatable)")
    parser.add_argument("--blind-set", action="store_true",
                        help="work on the blind set: repos-blind.csv, candidates-blind.csv, labels-blind.csv")
    commands = parser.add_subparsers(dest="command", required=True)
    todo = commands.add_parser("todo", help="list candidate rows that have no label yet")
    todo.add_argument("--rule", choices=CODES)
    todo.add_argument("--repo", help="owner/name")
    todo.add_argument("-C", "--context", type=int, default=0, help="print this many source lines around each row")
    todo.add_argument("--blind", action="store_true",
                      help="hide the plugin's verdict (and the rows only the plugin's findings make): label with it")
    todo.set_defaults(run=_todo)
    check = commands.add_parser("check", help="validate the labels")
    check.add_argument("--sources", action="store_true", help="also check each line against the mirrors")
    check.set_defaults(run=_check)
    merge = commands.add_parser("merge", help="fold label files into labels.csv")
    merge.add_argument("files", nargs="+")
    merge.set_defaults(run=_merge)
    commands.add_parser("sort", help="rewrite the label file(s) in canonical order").set_defaults(run=_sort)
    args = parser.parse_args(argv)
    if args.blind_set:
        use_blind_set()
    corpus.quiet_broken_pipe()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
