"""The files a run lints: the paths given, folders walked in sorted order.

Walking skips what the settings exclude, by default what git ignores (:mod:`gitignore`),
and what is not a plain file (a named pipe called ``*.py`` would block the run); a file named
on the command line is linted whatever they say.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from . import gitignore, notebook
from .config import Settings

SOURCE_SUFFIXES = (".py", notebook.SUFFIX)


def discover(paths: Sequence[str], settings: Settings, stdin_name: str) -> Iterator[tuple[str, Path | None]]:
    """(name to show, path to read; None for stdin), each file once."""
    seen: set[str] = set()
    for display, path in _candidates(paths, settings, stdin_name):
        key = "-" if path is None else os.path.abspath(path)
        if key not in seen:  # given twice: linted (and fixed) once
            seen.add(key)
            yield display, path


def _candidates(paths: Sequence[str], settings: Settings, stdin_name: str) -> Iterator[tuple[str, Path | None]]:
    for given in paths:
        if given == "-":
            yield stdin_name, None
        elif not os.path.isdir(given):
            yield given, Path(given)  # a missing file is reported when read
        else:
            yield from _walk(given, settings)


def _walk(top: str, settings: Settings) -> Iterator[tuple[str, Path]]:
    visible = gitignore.visible_files(Path(top)) if settings.respect_gitignore else None
    folders_to_walk = gitignore.folders_of(visible) if visible is not None else None
    for root, folders, files in os.walk(top):
        relative_root = os.path.relpath(root, top)

        def kept(name: str, among: set[str] | None) -> bool:
            full = os.path.join(root, name)
            relative = os.path.normpath(os.path.join(relative_root, name))
            return not settings.excluded(full) and (among is None or relative in among)

        folders[:] = sorted(name for name in folders if kept(name, folders_to_walk))
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES) and kept(name, visible) and not _special(os.path.join(root, name)):
                yield os.path.join(root, name), Path(root, name)


def _special(path: str) -> bool:
    """Whether ``path`` is a pipe, a device or a socket (maybe through a link): not source,
    and a pipe would block its reader. A broken link is not: reading it reports it."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
