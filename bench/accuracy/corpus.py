"""The accuracy corpus: public repositories of PyTorch training code, read from `fetch` mirrors.

`repos.csv` pins each repository to one commit. The code itself is never committed: it is
read from the git directories that the `fetch` tool leaves under the mirrors root
(`/work/.mirror/owner+name/repo`, or `.../repo/.git`), which have no work tree.

    python3 bench/accuracy/corpus.py check              # which repos are there, counts as recorded?
    python3 bench/accuracy/corpus.py fetch              # git clone the missing ones (network needed)
    python3 bench/accuracy/corpus.py export DIR         # DIR/owner+name/path for every .py file
    python3 bench/accuracy/corpus.py show REPO PATH LINE [-C 12]
    python3 bench/accuracy/corpus.py add OWNER/NAME CATEGORY   # record a fetched repo at its HEAD
    python3 bench/accuracy/corpus.py --blind add OWNER/NAME CATEGORY   # ... in repos-blind.csv

Every command takes `--mirrors DIR` (default: $TENSORCOPY_MIRRORS, else /work/.mirror) and
`--repos-csv FILE` (default repos.csv; `--blind` is repos-blind.csv, the blind set's).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPOS_CSV = HERE / "repos.csv"  # the pin list every command reads; `use_repos` changes it
BLIND_REPOS_CSV = HERE / "repos-blind.csv"  # the blind set: repositories no rule was developed on
DEFAULT_MIRRORS = Path("/work/.mirror")
MIRRORS_ENV = "TENSORCOPY_MIRRORS"
GITHUB_URL = "https://github.com/{name}.git"


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name
    commit: str
    category: str
    py_files: int
    py_lines: int

    @property
    def slug(self) -> str:
        """The mirror's folder name (and the export's): owner+name."""
        return self.name.replace("/", "+")


@dataclass(frozen=True)
class SourceFile:
    path: str
    blob: str  # the blob's object id, so that reading never has to quote the path


@dataclass(frozen=True)
class Missing:
    repo: Repo
    reason: str


def use_repos(path: Path) -> None:
    """Make ``path`` the pin list that every command (and every default below) reads."""
    global REPOS_CSV
    REPOS_CSV = Path(path)


def load_repos(path: Path | None = None) -> list[Repo]:
    with open(path or REPOS_CSV, newline="", encoding="utf-8") as handle:
        return [
            Repo(row["repo"], row["commit"], row["category"], int(row["py_files"]), int(row["py_lines"]))
            for row in csv.DictReader(handle)
        ]


def write_repos(repos: Iterable[Repo], path: Path | None = None) -> None:
    with open(path or REPOS_CSV, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["repo", "commit", "category", "py_files", "py_lines"])
        writer.writerows(astuple(repo) for repo in sorted(repos, key=lambda repo: repo.name.lower()))


def mirrors_root(value: str | None = None) -> Path:
    return Path(value or os.environ.get(MIRRORS_ENV) or DEFAULT_MIRRORS)


class Mirror:
    """One repository's fetched git directory, read at the recorded commit."""

    def __init__(self, repo: Repo, git_dir: Path) -> None:
        self.repo = repo
        self.git_dir = git_dir

    def git(self, *args: str, stdin: bytes | None = None) -> bytes:
        return subprocess.run(
            ["git", "--git-dir", str(self.git_dir), *args], input=stdin, capture_output=True, check=True
        ).stdout

    def python_files(self) -> list[SourceFile]:
        """Every regular .py file at the commit (no symbolic links, no submodules), sorted."""
        listing = self.git("ls-tree", "-r", "-z", "--full-tree", self.repo.commit)
        files = []
        for entry in listing.split(b"\0"):
            if not entry:
                continue
            meta, _, path = entry.partition(b"\t")
            mode, kind, blob = meta.split()
            name = path.decode("utf-8", "surrogateescape")
            if kind == b"blob" and mode in (b"100644", b"100755") and name.endswith(".py"):
                files.append(SourceFile(name, blob.decode()))
        return sorted(files, key=lambda file: file.path)

    def read_bytes(self, path: str) -> bytes:
        return self.git("cat-file", "blob", f"{self.repo.commit}:{path}")

    def read_text(self, path: str) -> str:
        return decode_source(self.read_bytes(path))

    def read_all(self, files: list[SourceFile]) -> Iterator[tuple[SourceFile, bytes]]:
        """The files' contents through one `git cat-file --batch` (one process, not one per file)."""
        request = "".join(f"{file.blob}\n" for file in files).encode()
        output = self.git("cat-file", "--batch", stdin=request)
        offset = 0
        for file in files:
            header_end = output.index(b"\n", offset)
            size = int(output[offset:header_end].split()[2])
            start = header_end + 1
            yield file, output[start : start + size]
            offset = start + size + 1  # the batch ends each object with a newline


def git_dir_of(repo: Repo, root: Path) -> Path | None:
    """The repository's git directory under ``root`` if there is one (no git command run)."""
    folder = root / repo.slug / "repo"
    for git_dir in (folder / ".git", folder):
        if (git_dir / "HEAD").is_file() and (git_dir / "objects").is_dir():
            return git_dir
    return None


def locate(repo: Repo, root: Path) -> Mirror | Missing:
    """The repository's mirror under ``root``, holding the recorded commit, or why not."""
    git_dir = git_dir_of(repo, root)
    if git_dir is None:
        return Missing(repo, f"not fetched: no git directory at {root / repo.slug / 'repo'}")
    mirror = Mirror(repo, git_dir)
    try:
        mirror.git("cat-file", "-e", f"{repo.commit}^{{commit}}")
    except subprocess.CalledProcessError:
        return Missing(repo, f"{git_dir} lacks commit {repo.commit} (a newer snapshot?)")
    return mirror


def fetch(repo: Repo, root: Path, url: str) -> Mirror | Missing:
    """Clone ``url`` bare into the repository's mirror folder, as the fetch tool lays it out,
    and make sure it holds the recorded commit. The clone lands under a staging name first,
    so an interrupted fetch never looks like a mirror."""
    folder = root / repo.slug / "repo"
    staging = folder.with_name("repo.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.parent.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(["git", "clone", "--quiet", "--bare", url, str(staging)], check=True, capture_output=True)
        has_commit = subprocess.run(["git", "--git-dir", str(staging), "cat-file", "-e", f"{repo.commit}^{{commit}}"],
                                    capture_output=True).returncode == 0
        if not has_commit:  # a commit no branch reaches any more: ask for it by name
            subprocess.run(["git", "--git-dir", str(staging), "fetch", "--quiet", "origin", repo.commit],
                           check=True, capture_output=True)
    except subprocess.CalledProcessError as error:
        shutil.rmtree(staging, ignore_errors=True)
        return Missing(repo, f"cannot fetch {url}: {error.stderr.decode(errors='replace').strip() or error}")
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)
    return locate(repo, root)


def open_corpus(repos: Iterable[Repo], root: Path) -> tuple[list[Mirror], list[Missing]]:
    found, missing = [], []
    for repo in repos:
        outcome = locate(repo, root)
        (found if isinstance(outcome, Mirror) else missing).append(outcome)
    return found, missing


def missing_message(missing: list[Missing], root: Path) -> str:
    lines = [f"{len(missing)} corpus repositories are missing from {root}:"]
    lines += [f"  {item.repo.name}: {item.reason}" for item in missing]
    lines.append(
        f"Fetch them with `python3 bench/accuracy/corpus.py fetch` (git clones into {root}/OWNER+NAME/repo), "
        f"or point --mirrors or ${MIRRORS_ENV} where they live."
    )
    return "\n".join(lines)


def quiet_broken_pipe() -> None:
    """Let ``... | head`` cut a long listing short without a traceback."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def decode_source(data: bytes) -> str:
    """Decode as Python (and flake8) do: a BOM or PEP 263 cookie, else UTF-8; latin-1 if that fails."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("latin-1")


def source_lines(text: str) -> list[str]:
    """The lines as Python numbers them: only LF, CRLF and CR end one (``str.splitlines``
    also splits at form feeds and other separators)."""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines[-1] == "" else lines  # no line after the last line break


def line_count(text: str) -> int:
    """Physical lines as Python's tokenizer splits them (\\n, \\r\\n or \\r)."""
    return len(io.StringIO(text, newline=None).readlines())


def count_python(mirror: Mirror) -> tuple[int, int]:
    files = mirror.python_files()
    return len(files), sum(line_count(decode_source(data)) for _, data in mirror.read_all(files))


def export(mirrors: Iterable[Mirror], destination: Path) -> tuple[int, int]:
    """Write DEST/owner+name/path for every .py file, byte for byte; returns (files, lines).

    Each repository's folder also gets an empty ``.git`` folder, as a clone has: the plugin
    takes the nearest such marker for the root of the file's project (the modules its
    imports are read from), so each repository is a project of its own, as in a checkout."""
    total_files = total_lines = 0
    for mirror in mirrors:
        (destination / mirror.repo.slug / ".git").mkdir(parents=True, exist_ok=True)
        files = mirror.python_files()
        for file, data in mirror.read_all(files):
            target = destination / mirror.repo.slug / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            total_lines += line_count(decode_source(data))
        total_files += len(files)
    return total_files, total_lines


def _check(args: argparse.Namespace) -> int:
    root = mirrors_root(args.mirrors)
    mirrors, missing = open_corpus(load_repos(), root)
    mismatched = 0
    for mirror in mirrors:
        counted = count_python(mirror)
        recorded = (mirror.repo.py_files, mirror.repo.py_lines)
        flag = "" if counted == recorded else f"  (repos.csv says {recorded[0]} files, {recorded[1]} lines)"
        mismatched += bool(flag)
        print(f"{mirror.repo.name:70} {counted[0]:5} files {counted[1]:8,} lines{flag}")
    print(f"{len(mirrors)} repositories present, {mismatched} with other counts than recorded")
    if missing:
        print(missing_message(missing, root), file=sys.stderr)
    return 1 if missing or mismatched else 0


def _export(args: argparse.Namespace) -> int:
    root = mirrors_root(args.mirrors)
    mirrors, missing = open_corpus(load_repos(), root)
    if missing:
        print(missing_message(missing, root), file=sys.stderr)
        if not args.partial:
            print("nothing exported; --partial exports the repositories that are there", file=sys.stderr)
            return 1
    files, lines = export(mirrors, Path(args.directory))
    print(f"exported {files:,} files, {lines:,} lines of {len(mirrors)} repositories to {args.directory}")
    return 1 if missing else 0


def _show(args: argparse.Namespace) -> int:
    root = mirrors_root(args.mirrors)
    repo = next((repo for repo in load_repos() if repo.name == args.repo), None)
    if repo is None:
        print(f"{args.repo} is not in {REPOS_CSV}", file=sys.stderr)
        return 2
    outcome = locate(repo, root)
    if isinstance(outcome, Missing):
        print(missing_message([outcome], root), file=sys.stderr)
        return 1
    lines = source_lines(outcome.read_text(args.path))
    first, last = max(1, args.line - args.context), min(len(lines), args.line + args.context)
    for number in range(first, last + 1):
        marker = ">>" if number == args.line else "  "
        print(f"{marker}{number:6} {lines[number - 1]}")
    return 0


def _add(args: argparse.Namespace) -> int:
    root = mirrors_root(args.mirrors)
    repos = {repo.name: repo for repo in load_repos()} if REPOS_CSV.exists() else {}
    probe = Repo(args.repo, "HEAD", args.category, 0, 0)
    outcome = locate(probe, root)
    if isinstance(outcome, Missing):
        print(missing_message([outcome], root), file=sys.stderr)
        return 1
    commit = outcome.git("rev-parse", "HEAD").decode().strip()
    files, lines = count_python(Mirror(Repo(args.repo, commit, args.category, 0, 0), outcome.git_dir))
    repos[args.repo] = Repo(args.repo, commit, args.category, files, lines)
    write_repos(repos.values())
    print(f"{args.repo} {commit} {args.category}: {files} files, {lines:,} lines")
    return 0


def _fetch(args: argparse.Namespace) -> int:
    root = mirrors_root(args.mirrors)
    failed = []
    for repo in load_repos():
        if isinstance(locate(repo, root), Mirror):
            continue
        outcome = fetch(repo, root, args.source.format(name=repo.name))
        print(f"{repo.name}: {'fetched' if isinstance(outcome, Mirror) else outcome.reason}", flush=True)
        if isinstance(outcome, Missing):
            failed.append(outcome)
    if failed:
        print(missing_message(failed, root), file=sys.stderr)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", help=f"mirrors root (default ${MIRRORS_ENV} or {DEFAULT_MIRRORS})")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--repos-csv", metavar="FILE", help=f"the pin list (default {REPOS_CSV.name})")
    chosen.add_argument("--blind", action="store_const", dest="repos_csv", const=str(BLIND_REPOS_CSV),
                        help=f"the blind set's pin list, {BLIND_REPOS_CSV.name}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="list the repositories, their counts, and any missing").set_defaults(run=_check)
    exporting = commands.add_parser("export", help="write every .py file of the corpus under DIRECTORY")
    exporting.add_argument("directory")
    exporting.add_argument("--partial", action="store_true", help="export what is there even if repos are missing")
    exporting.set_defaults(run=_export)
    showing = commands.add_parser("show", help="print a file's lines around LINE")
    showing.add_argument("repo")
    showing.add_argument("path")
    showing.add_argument("line", type=int)
    showing.add_argument("-C", "--context", type=int, default=12)
    showing.set_defaults(run=_show)
    fetching = commands.add_parser("fetch", help="git clone every repository that is missing, at its recorded commit")
    fetching.add_argument("--source", default=GITHUB_URL,
                          help="clone URL, {name} standing for OWNER/NAME (default: %(default)s)")
    fetching.set_defaults(run=_fetch)
    adding = commands.add_parser("add", help="record a fetched repository at its snapshot's HEAD")
    adding.add_argument("repo", help="owner/name")
    adding.add_argument("category")
    adding.set_defaults(run=_add)
    args = parser.parse_args(argv)
    if args.repos_csv:
        use_repos(Path(args.repos_csv))
    quiet_broken_pipe()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
