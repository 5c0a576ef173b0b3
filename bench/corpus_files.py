"""Locate the benchmark corpus and pick deterministic subsets of it."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

# flake8's default --exclude, so our file count matches what flake8 checks.
FLAKE8_DEFAULT_EXCLUDE = (
    ".svn", "CVS", ".bzr", ".hg", ".git", "__pycache__", ".tox", ".nox",
    ".eggs", "*.egg",
)


@dataclass(frozen=True)
class Corpus:
    root: Path
    label: str
    all_files: tuple[Path, ...]
    files: tuple[Path, ...]

    @property
    def is_whole_tree(self) -> bool:
        return len(self.files) == len(self.all_files)

    def flake8_targets(self) -> list[str]:
        """Arguments for flake8: the directory itself when nothing is cut."""
        if self.is_whole_tree:
            return [str(self.root)]
        return [str(path) for path in self.files]

    def line_count(self) -> int:
        return sum(_count_lines(path) for path in self.files)

    def subset(self, limit: int | None) -> Corpus:
        chosen = evenly_spaced(self.all_files, limit)
        return Corpus(self.root, self.label, self.all_files, chosen)

    def describe(self) -> str:
        return (f"{self.root} ({self.label}): {len(self.files)} of "
                f"{len(self.all_files)} files")


def load_corpus(path: str | None, limit: int | None) -> Corpus:
    root, label = (Path(path), "custom") if path else torch_package()
    root = root.resolve()
    if not root.is_dir():
        raise SystemExit(f"corpus directory not found: {root}")
    all_files = tuple(sorted(_python_files(root)))
    if not all_files:
        raise SystemExit(f"no .py files under {root}")
    return Corpus(root, label, all_files, all_files).subset(limit)


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
        raise SystemExit("torch is not installed for this python; "
                         "pass --corpus PATH or `pip install torch==2.13.0`")
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
