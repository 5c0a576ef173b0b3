"""The project a file belongs to: its other modules, found from imports and read on demand.

Training code is a project, not a file: ``train.py`` imports ``models/``, ``data/`` and
``utils/``, and the evidence that a value is a tensor often sits there (what an imported
helper returns, what an imported class keeps on ``self``). The module summary asks this
module for another module's summary when a question reaches an import; nothing is read
before that, so a file whose questions stay inside it costs nothing more.

Off by default, for its cost: ``project = true`` in the ``[tool.flake8-tensorcopy]`` table
of the root's ``pyproject.toml`` turns it on (:func:`enabled`). Every front end (flake8 with
one file or a tree, ``-j N``, the CLI, the fixer, the language server) asks :func:`locate`
and reads the other modules from the project on disk, so a file gets the same answer in
each; the server lays the editor's unsaved buffers over the disk (:meth:`Project.overlay`).

Bounded: only modules under the project's root, at most :data:`MAX_MODULE_BYTES` each, a
module that does not parse is unknown, at most :data:`MAX_HOPS` modules deep in one
question, and the summaries of the modules used last are kept (:data:`CACHED_MODULES`, and
:data:`CACHED_CHARACTERS` of their source) with their ``stat`` stamp, so that a file that
changes is read again.
"""

from __future__ import annotations

import ast
import os
import sys
import tokenize
import tomllib
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..bounded import BoundedCache

if TYPE_CHECKING:
    from .summary import ModuleSummary

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
MAX_MODULE_BYTES = 1 << 20  # larger modules are generated code: never read
MAX_HOPS = 6  # modules one question may pass through (a -> b -> c ...)
# Summaries hold their ``ast`` trees, some 40 bytes a character of source: memory, not time,
# bounds how many are kept (a flake8 run holds this beside flake8's own).
CACHED_MODULES = 32
CACHED_CHARACTERS = 200_000
_MAX_RESOLVED = 20_000  # remembered (folder, dotted name) look-ups per project
# Packages that are never a project's own, looked up on every import otherwise.
_LIBRARIES = sys.stdlib_module_names | {
    "torch", "torchvision", "torchaudio", "numpy", "scipy", "pandas", "sklearn", "matplotlib", "PIL", "cv2",
}


def find_root(path: str) -> str:
    """The nearest folder above ``path`` holding a project marker, else ``path``'s folder."""
    start = folder = os.path.dirname(os.path.abspath(path))
    while True:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in ROOT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


class Project:
    """The modules under one root folder, their summaries made on first use and kept."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self._files: dict[tuple[str, tuple[str, ...]], str | None] = {}
        self._buffers: dict[str, str] = {}  # path -> unsaved text (the language server's)
        self._loading: set[str] = set()
        self._hops = 0

    # -- which file an import names ------------------------------------------------
    def resolve(self, importer: str, dotted: str) -> tuple[str, str] | None:
        """(the module file, the name inside it) that ``dotted`` names in ``importer``: a
        relative name (``.utils.f``) from the importer's package, an absolute one from the
        importer's folder (a script imports its siblings), the root, or ``root/src``."""
        return self._find(importer, dotted, whole=False)

    def find_module(self, importer: str, dotted: str) -> str | None:
        """The file of the module ``dotted`` (``from dotted import *``) in ``importer``."""
        found = self._find(importer, dotted, whole=True)
        return found[0] if found is not None else None

    def _find(self, importer: str, dotted: str, whole: bool) -> tuple[str, str] | None:
        level = len(dotted) - len(dotted.lstrip("."))
        parts = dotted[level:].split(".") if dotted[level:] else []
        folder = os.path.dirname(importer)
        if level:
            for _ in range(level - 1):
                folder = os.path.dirname(folder)
            bases, shortest = [folder], 0  # `from . import f`: f of the package's __init__
        else:
            if not parts or parts[0] in _LIBRARIES:
                return None
            bases = list(dict.fromkeys([folder, self.root, os.path.join(self.root, "src")]))
            shortest = 1
        longest = len(parts) if whole else len(parts) - 1
        for base in bases:
            if not self.contains(base):
                continue
            for cut in range(longest, shortest - 1, -1):
                module = self._module_file(base, tuple(parts[:cut]))
                if module is not None:
                    return module, ".".join(parts[cut:])
                if whole:
                    break
        return None

    def dotted(self, path: str) -> str | None:
        """The absolute dotted name of the module file ``path`` from the root (which
        :meth:`resolve` reads back): ``pkg/utils.py`` -> ``pkg.utils``."""
        relative = os.path.relpath(path, self.root)
        if relative.startswith(".."):
            return None
        stem = relative[: -len(".py")] if relative.endswith(".py") else relative
        parts = stem.split(os.sep)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts) if parts and all(part.isidentifier() for part in parts) else None

    def contains(self, path: str) -> bool:
        return path == self.root or path.startswith(self.root + os.sep)

    def _module_file(self, base: str, parts: tuple[str, ...]) -> str | None:
        key = (base, parts)
        if key in self._files:
            return self._files[key]
        stem = os.path.join(base, *parts)
        found = None
        # No parts: the package itself (``from . import f``), only its __init__.py.
        candidates = (stem + ".py",) if parts else ()
        for candidate in (*candidates, os.path.join(stem, "__init__.py")):
            if os.path.isfile(candidate):
                real = os.path.realpath(candidate)  # symlinks: one module, one summary
                found = real if self.contains(real) else None
                break
        if len(self._files) >= _MAX_RESOLVED:
            self._files.clear()
        self._files[key] = found
        return found

    # -- a module's summary ----------------------------------------------------------
    def summary(self, path: str) -> ModuleSummary | None:
        """The summary of the module at ``path`` (None: unreadable, too large, not Python)."""
        stamp = self._stamp(path)
        cached = _SUMMARIES.get((self.root, path))
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if path in self._loading:  # ``from a import *`` in b, and the other way round
            return None
        self._loading.add(path)
        try:
            summary = self._load(path) if stamp is not None else None
        finally:
            self._loading.discard(path)
        size = 0 if stamp is None else len(stamp[1]) if stamp[0] == "buffer" else stamp[1]
        _SUMMARIES.put((self.root, path), (stamp, summary), size)
        return summary

    def _stamp(self, path: str) -> object:
        if path in self._buffers:
            return ("buffer", self._buffers[path])
        try:
            status = os.stat(path)
        except OSError:
            return None
        return (status.st_mtime_ns, status.st_size) if status.st_size <= MAX_MODULE_BYTES else None

    def _load(self, path: str) -> ModuleSummary | None:
        from .summary import ModuleSummary

        source = self._buffers.get(path)
        try:
            if source is None:
                with tokenize.open(path) as file:  # honours a coding cookie and a BOM
                    source = file.read()
            tree = ast.parse(source)
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
            return None
        return ModuleSummary.of(tree, source, path, project=self)

    @contextmanager
    def hop(self) -> Iterator[bool]:
        """One step of a question into another module; False when it went too deep."""
        self._hops += 1
        try:
            yield self._hops <= MAX_HOPS
        finally:
            self._hops -= 1

    def forget_files(self) -> None:
        """Files were added, removed or changed on disk: look the imports up again."""
        self._files.clear()
        _changed()

    # -- the language server's open documents ---------------------------------------
    def overlay(self, path: str, text: str | None) -> None:
        """Read ``path`` as ``text`` (an editor's unsaved buffer); None: from disk again."""
        path = os.path.realpath(path)
        if self._buffers.get(path) == text:
            return
        if text is None:
            self._buffers.pop(path, None)
        else:
            self._buffers[path] = text
        _changed()


_PROJECTS: OrderedDict[str, Project] = OrderedDict()
# (root, path) -> (the module's stamp, its summary), for every project together: the
# bounds are those of the process, whichever projects it lints (flake8 . over several)
_SUMMARIES: BoundedCache[tuple[object, ModuleSummary | None]] = BoundedCache(CACHED_MODULES, CACHED_CHARACTERS)
_CACHED_PROJECTS = 4
_GENERATION = [0]  # counts what may have changed another module's answers (see ``generation``)


def enabled(root: str) -> bool:
    """Whether the project at ``root`` reads its other modules and its files' callers:
    ``project = true`` in the ``[tool.flake8-tensorcopy]`` table of its ``pyproject.toml``.
    Off by default: on the application corpus it costs more than the plugin may (see the
    README). Every front end asks here, so a file gets the same answer from each."""
    try:
        with open(os.path.join(root, "pyproject.toml"), "rb") as file:
            table = tomllib.load(file).get("tool", {}).get("flake8-tensorcopy", {})
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        return False
    return isinstance(table, dict) and table.get("project") is True


def generation() -> int:
    """A number that changes whenever an editor's buffer or the files of a project may have
    changed what a file's analysis reads of its project: a long-lived process (the language
    server) keys what it keeps of a lint on it."""
    return _GENERATION[0]


def _changed() -> None:
    _GENERATION[0] += 1


def forget_files() -> None:
    """Files were added, removed or changed on disk (the language server is told so): find
    the roots, their settings and every import again."""
    _ROOTS.clear()
    for known in _PROJECTS.values():
        known.forget_files()
    _changed()


# a file's folder -> (its real path, its project's root when that reads the project)
_ROOTS: dict[str, tuple[str, str | None]] = {}
_MAX_ROOTS = 10_000


def locate(filename: str | None) -> tuple[Project, str] | None:
    """The project of the file ``filename`` and its real path; None for stdin without a name,
    and for a project that has not turned the project analysis on (see :func:`enabled`).
    Every file asks (flake8 calls it once a file): the real path of its folder is looked up
    once, and the file's own path only when it is a link."""
    if not filename or filename in ("-", "stdin") or not filename.endswith((".py", ".pyi", ".ipynb")):
        return None
    given = os.path.abspath(filename)
    if os.path.islink(given):
        given = os.path.realpath(given)  # a linked file belongs where it lies
    folder, name = os.path.split(given)
    known = _ROOTS.get(folder)
    if known is None:
        if len(_ROOTS) >= _MAX_ROOTS:
            _ROOTS.clear()
        real = os.path.realpath(folder)
        root = os.path.realpath(find_root(os.path.join(real, name)))
        known = _ROOTS[folder] = (real, root if enabled(root) else None)
    real, root = known
    if root is None:
        return None
    path = os.path.join(real, name)
    project = _PROJECTS.get(root)
    if project is None:
        project = _PROJECTS[root] = Project(root)
        if len(_PROJECTS) > _CACHED_PROJECTS:
            _PROJECTS.popitem(last=False)
    else:
        _PROJECTS.move_to_end(root)
    return project, path

