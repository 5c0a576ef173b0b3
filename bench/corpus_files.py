"""Locate the benchmark corpora, build the application-code one, and pick
deterministic subsets of them."""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# flake8's default --exclude, so our file count matches what flake8 checks.
FLAKE8_DEFAULT_EXCLUDE = (
    ".svn", "CVS", ".bzr", ".hg", ".git", "__pycache__", ".tox", ".nox",
    ".eggs", "*.egg",
)
# The torch corpus: the harder part of torch for the plugin, the one that
# issue 3's performance report measured.
TORCH_SUBPACKAGES = ("nn", "optim", "autograd", "utils/data")
ACCURACY_CORPUS = Path(__file__).resolve().parent / "accuracy" / "corpus.py"
ACCURACY_REPOS = ACCURACY_CORPUS.with_name("repos.csv")
# Outside the checkout: flake8 does not read .gitignore, so venvs and corpora
# under the repo would be linted by any `flake8 .` run there.
BENCH_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache",
                   "flake8-tensorcopy-bench")


@dataclass(frozen=True)
class Corpus:
    root: Path
    label: str
    all_files: tuple[Path, ...]
    files: tuple[Path, ...]
    # The directories under root that the corpus covers; () is all of root.
    subdirs: tuple[str, ...] = ()

    @property
    def is_whole_tree(self) -> bool:
        return len(self.files) == len(self.all_files)

    def flake8_targets(self) -> list[str]:
        """Arguments for flake8: the directories themselves when nothing is
        cut."""
        if self.is_whole_tree:
            return [str(top) for top in self.tops()]
        return [str(path) for path in self.files]

    def tops(self) -> list[Path]:
        return [self.root / subdir for subdir in self.subdirs] or [self.root]

    def line_count(self) -> int:
        return sum(_count_lines(path) for path in self.files)

    def subset(self, limit: int | None) -> Corpus:
        chosen = evenly_spaced(self.all_files, limit)
        return dataclasses.replace(self, files=chosen)

    def describe(self) -> str:
        return (f"{self.root} ({self.label}): {len(self.files)} of "
                f"{len(self.all_files)} files")


def load_corpus(root: Path, label: str, limit: int | None,
                subdirs: tuple[str, ...] = ()) -> Corpus:
    root = root.resolve()
    corpus = Corpus(root, label, (), (), subdirs)
    for top in corpus.tops():
        if not top.is_dir():
            raise SystemExit(f"corpus directory not found: {top}")
    all_files = tuple(sorted(path for top in corpus.tops()
                             for path in _python_files(top)))
    if not all_files:
        raise SystemExit(f"no .py files under {root}")
    return dataclasses.replace(corpus, all_files=all_files).subset(limit)


def torch_subset(limit: int | None) -> Corpus:
    """The installed torch package's TORCH_SUBPACKAGES."""
    root, label = torch_package()
    return load_corpus(root, f"{label}: {', '.join(TORCH_SUBPACKAGES)}",
                       limit, TORCH_SUBPACKAGES)


def export_accuracy_corpus(destination: Path, repos_csv: Path = ACCURACY_REPOS) -> None:
    """`corpus.py export`, which reads the repositories ``repos_csv`` pins
    from their git mirrors; stops the benchmark with corpus.py's own list of
    missing repositories and the ways round it."""
    result = subprocess.run(
        [sys.executable, str(ACCURACY_CORPUS), "--repos-csv", str(repos_csv), "export", str(destination)],
        capture_output=True, text=True)
    if result.returncode:
        raise SystemExit(
            f"the application-code corpus could not be built: "
            f"`{ACCURACY_CORPUS.name} export` exited {result.returncode}:\n"
            f"{result.stdout}{result.stderr.rstrip()}\n"
            f"Fetch the missing repositories (and set $TENSORCOPY_MIRRORS if "
            f"they live elsewhere), or pass --app-corpus DIR naming an "
            f"existing export (`python3 bench/accuracy/corpus.py export DIR`,"
            f" --partial for the repositories there are), or --only torch.")
    print(f"  {result.stdout.strip()}", flush=True)


# Bumped when corpus.py's export writes something more: v2 marks each repository's root.
EXPORT_FORMAT = "v2"


def app_corpus_path(cache_root: Path, repos_csv: Path = ACCURACY_REPOS) -> Path:
    """Where the accuracy corpus pinned by ``repos_csv`` is (or will be) exported."""
    digest = hashlib.sha256(repos_csv.read_bytes()).hexdigest()[:12]
    return cache_root / f"app-corpus-{EXPORT_FORMAT}-{digest}"


def project_cache_outside(cache_root: Path) -> None:
    """Keep the project analysis's disk cache out of the corpus (it is on by default, and
    would write a ``.tensorcopy_cache`` into each repository it lints): in a folder of the
    bench's own, for this process and the workers it starts, unless one is chosen already."""
    os.environ.setdefault("FLAKE8_TENSORCOPY_CACHE_DIR", str(cache_root / "project-cache"))


def app_corpus_dir(cache_root: Path, repos_csv: Path = ACCURACY_REPOS,
                   export: Callable[[Path], None] | None = None
                   ) -> Path:
    """The accuracy corpus exported under cache_root, built on first use
    (by default with `export_accuracy_corpus` of ``repos_csv``).

    Named after repos.csv's hash, so a changed pin list gets a new export
    and an unchanged one is reused. The export goes to a scratch sibling
    that is renamed into place, so an interrupted build leaves no
    half-filled directory that a later run would take for the corpus.
    """
    final = app_corpus_path(cache_root, repos_csv)
    if final.is_dir():
        print(f"  reusing application corpus {final}", flush=True)
        return final
    print(f"  building application corpus {final} (once; a minute or two)",
          flush=True)
    cache_root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f"{final.name}.partial-",
                                    dir=cache_root))
    try:
        if export is None:
            export_accuracy_corpus(scratch, repos_csv)
        else:
            export(scratch)
        try:
            scratch.rename(final)
        except OSError:
            if not final.is_dir():
                raise
            # A concurrent run renamed its identical export first.
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return final


def evenly_spaced(files: tuple[Path, ...], limit: int | None):
    """Every k-th file of the sorted list: spread over all subpackages,
    unlike the first N files, which would all come from torch/_*."""
    if limit is None or limit >= len(files):
        return files
    step = len(files) / limit
    return tuple(files[int(index * step)] for index in range(limit))


def warm_page_cache(files) -> None:
    """Read every file once so the first timed run is not the only one
    paying for cold disk reads."""
    for path in files:
        path.read_bytes()


def torch_package() -> tuple[Path, str]:
    # find_spec on a top-level package locates it without importing it.
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed for this python: "
                         "`pip install torch==2.13.0`, or name another tree "
                         "(bench/run.py: --torch-corpus DIR, --corpus DIR, "
                         "or --only application)")
    try:
        label = "torch " + importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        label = "torch (version unknown)"
    return Path(spec.submodule_search_locations[0]), label


def _python_files(root: Path):
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = [name for name in subdirs if not _excluded(name)]
        for name in names:
            if name.endswith(".py") and not _excluded(name):
                yield Path(directory, name)


def _excluded(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern)
               for pattern in FLAKE8_DEFAULT_EXCLUDE)


def _count_lines(path: Path) -> int:
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
