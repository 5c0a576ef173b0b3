"""Which modules of a project import which: where the callers of a module's functions are.

A function's parameter is known when every call the project makes to it passes the same
kind (issue "Evidence across the project"); the calls of other modules can only be in the
modules that import the function's own. Finding them must not cost a parse of the whole
project, so the import statements are read from each module's text with a pattern, once a
process (and again for a file that changes): a handful of regular-expression matches a file,
against the ``ast`` parse of every module a whole-project walk would need.

The pattern may see more than Python does (an ``import`` inside a string): an importer too
many is only read for nothing, since what its calls reach is judged on its summary. It
misses only an import that follows a ``;`` on its line (``x = 1; import m``), which is rare.

Notebooks are read too (their code cells): they import modules and call them.

What each module imports is also kept on disk, with the ``stat`` stamp of its file (the
project's cache folder, ``cache.py``): a later run, or another of flake8's workers, reads
only the modules that changed since, and looks at the others' stamps alone.

Bounded: at most :data:`MAX_MODULES` modules and :data:`MAX_ENTRIES` names of any kind (a data
folder of a million images) walked, else the project's callers are unknown; each module read
up to the project's ``MAX_SCANNED_BYTES`` (16 MiB: a notebook with its outputs; a module over
the 1 MiB a summary reads is then an importer whose calls are unknown, and one larger still
is not read); folders whose names start with a dot, ``__pycache__``, ``node_modules``,
``site-packages`` and virtual environments (a ``pyvenv.cfg``) are not walked, nor links to
folders (no loops). A link to a module outside the root is not one of the project's modules
(nothing outside the root is read). The editor's open buffers are modules too, saved or not.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator

MAX_MODULES = 10_000
MAX_ENTRIES = 200_000
_MODULES = (".py", ".ipynb")  # a notebook imports the project's modules, and calls them
_SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages"})
_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]*))", re.MULTILINE
)
_NAME = re.compile(r"[.\w]+")

# (importer, dotted module name) -> that module's file, or None (``Project.find_module``)
FindModule = Callable[[str, str], "str | None"]
# what a module imports, as ``imported_names`` gives it: tuples of strings, which the cycle
# collector stops tracking (a run keeps the graphs of its last projects: scanned by every
# collection of flake8's, lists would slow all of them)
Names = tuple[tuple[str, tuple[str, ...]], ...]
# module -> (its file's stamp: modification time in ns, size, inode; what it imports)
Index = dict[str, tuple[tuple[int, int, int], Names]]


def stamp_of(path: str) -> tuple[int, int, int] | None:
    """What tells a file changed, without reading it (None: not a plain file now)."""
    try:
        status = os.lstat(path)
    except (OSError, ValueError):
        return None
    return (status.st_mtime_ns, status.st_size, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def imported_names(text: bytes) -> Names:
    """The dotted names the text imports, each with the names imported from it that may be
    modules of a package, as ``find_module`` reads them: ``from a.b import c, d as e`` gives
    (``a.b``, (``a.b.c``, ``a.b.d``)), ``from . import m`` gives (``.``, (``.m``,)), and
    ``import a.b as c, d`` gives (``a.b``, ()) and (``d``, ())."""
    names: list[tuple[str, tuple[str, ...]]] = []
    for match in _import_statements(text):
        package, members, modules = match.groups()
        if package is not None:
            base = sys.intern(package.decode("ascii", "replace"))  # many modules import the same
            joint = "" if base.endswith(".") else "."
            listed = _members(members.decode("utf-8", "replace"))
            names.append((base, tuple(base + joint + member for member in listed if member != "*")))
        else:
            names += [(sys.intern(module), ()) for module in _members(modules.decode("utf-8", "replace"))]
    return tuple(names)


def _import_statements(text: bytes) -> Iterator[re.Match[bytes]]:
    """``_IMPORT.finditer(text)``, found faster: every statement it matches spells
    ``import`` on the line it starts, so only the lines where ``bytes.find`` sees the word
    are tried, rather than every line by the pattern, which has no literal prefix to skip by."""
    end = 0  # where the last statement ended: finditer's matches do not overlap
    tried = -1
    hit = text.find(b"import")
    while hit >= 0:
        start = text.rfind(b"\n", 0, hit) + 1
        if start >= end and start != tried:
            tried = start
            match = _IMPORT.match(text, start)
            if match is not None:
                end = match.end()
                yield match
        hit = text.find(b"import", hit + len(b"import"))


def _members(listed: str) -> list[str]:
    """``a as b, (c, d)`` -> ``a``, ``c``, ``d``; ``*`` stays."""
    found = []
    for part in listed.strip().strip("()\\").split(","):
        words = part.split()
        if words and (_NAME.fullmatch(words[0]) or words[0] == "*"):
            found.append(words[0])
    return found


class ImportGraph:
    """The project's modules and the project modules each imports."""

    def __init__(self, root: str, find_module: FindModule, read: Callable[[str], bytes | None],
                 buffers: Iterable[str] = (), known: Index | None = None) -> None:
        self.root = root
        self._find_module = find_module
        self._read = read
        self._buffers = tuple(buffers)  # open in an editor: modules, even where not on disk
        self._known = known or {}  # what an earlier run found, by stamp (``index``)
        self.index: Index = {}  # what this walk found of the files on disk, by stamp
        self.unsaved = False  # whether ``index`` holds what ``known`` did not
        # module -> what it imports, as written: resolved only for a module whose callers are
        # looked for, and only where the last part of a name is that module's own
        self._imports: dict[str, Names] | None = None
        # the last part of each name imported -> the modules importing it ("": ``from . import``)
        self._naming: dict[str, tuple[str, ...]] | None = None
        self._importers: dict[str, frozenset[str]] = {}
        self._modules: frozenset[str] | None = None  # the keys of ``_imports`` (``modules``)

    def importers(self, module: str) -> frozenset[str] | None:
        """The modules that import ``module`` (None: the project is too large to know)."""
        if self._imports is None:
            self._imports = self._walk()
        if self._imports is None:
            return None
        found = self._importers.get(module)
        if found is None:
            stem, package = _stem(module)
            naming = self._naming_index()
            # only a module naming the stem can import it (or a package's ``from . import``)
            candidates = {*naming.get(stem, ()), *(naming.get("", ()) if package else ())}
            found = self._importers[module] = frozenset(
                importer for importer in candidates
                if importer != module and self._imports_module(importer, self._imports[importer], module)
            )
        return found

    def modules(self) -> frozenset[str] | None:
        """Every module of the project (None: the project is too large to know)."""
        if self._imports is None:
            self._imports = self._walk()
        if self._modules is None and self._imports is not None:
            self._modules = frozenset(self._imports)
        return self._modules

    def reread(self, module: str) -> None:
        """``module``'s text changed (an editor's buffer): read its imports again."""
        if self._imports is not None and module.endswith(_MODULES):
            self._imports[module] = self._names_in(module)
            self._importers.clear()
            self._modules = None
            self._naming = None

    def _naming_index(self) -> dict[str, tuple[str, ...]]:
        if self._naming is None:
            naming: dict[str, set[str]] = {}
            for importer, names in (self._imports or {}).items():
                for name, members in names:
                    for last in {_last(name), *map(_last, members)}:
                        naming.setdefault(last, set()).add(importer)
            self._naming = {last: tuple(importers) for last, importers in naming.items()}
        return self._naming

    def _imports_module(self, importer: str, names: Names, module: str) -> bool:
        stem, package = _stem(module)
        for name, members in names:
            if (_last(name) == stem or (package and not name.strip("."))) and self._find_module(importer, name) == module:
                return True
            for member in members:
                if _last(member) == stem:
                    base = self._find_module(importer, name)
                    # only a package has modules among its names (``from pkg import plots``)
                    if (base is None or base.endswith("__init__.py")) and self._find_module(importer, member) == module:
                        return True
        return False

    def _walk(self) -> dict[str, Names] | None:
        """What each module under the root imports, folder by folder in ``os.walk``'s order
        (top down), read from the folders' listings: a link is told by its entry, not by a
        ``stat`` of every module."""
        imports: dict[str, Names] = {}
        entries = 0
        folders = [self.root]
        while folders:
            try:
                with os.scandir(folders.pop()) as listing:
                    found = list(listing)
            except OSError:  # gone, or not to be read: as os.walk, passed over
                continue
            entries += len(found)
            if entries > MAX_ENTRIES:
                return None
            inner = []
            for entry in found:
                name = entry.name
                if _is_folder(entry):
                    if not name.startswith(".") and name not in _SKIPPED_FOLDERS and not entry.is_symlink() \
                            and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                        inner.append(entry.path)  # links to folders are not followed
                elif name.endswith(_MODULES):
                    if len(imports) >= MAX_MODULES:
                        return None
                    path = entry.path
                    if entry.is_symlink():  # a linked module is known by where it lies
                        path = os.path.realpath(path)
                        if not path.startswith(self.root + os.sep):
                            continue
                    imports[path] = self._indexed(path)
            folders += reversed(inner)
        for path in self._buffers:  # open in the editor, saved or not
            if path not in imports and path.endswith(_MODULES) and path.startswith(self.root + os.sep):
                imports[path] = self._names_in(path)
        self._known = {}
        return imports

    def _indexed(self, path: str) -> Names:
        """What the module imports: from the index while its file's stamp is unchanged."""
        stamp = stamp_of(path)
        if stamp is None or path in self._buffers:
            return self._names_in(path)
        known = self._known.get(path)
        if known is not None and known[0] == stamp:
            names = known[1]
        else:
            names = self._names_in(path)
            self.unsaved = True
        self.index[path] = (stamp, names)
        return names

    def _names_in(self, module: str) -> Names:
        text = self._read(module)
        return imported_names(text) if text is not None else ()


def _is_folder(entry: os.DirEntry) -> bool:
    """Whether the entry is a folder, or a link to one (as ``os.walk`` lists it)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _stem(module: str) -> tuple[str, bool]:
    """The name an import spells ``module`` by (a package's folder for its ``__init__.py``),
    and whether it is a package."""
    folder, file = os.path.split(module)
    package = file == "__init__.py"
    return (os.path.basename(folder) if package else file[: -len(".py")]), package


def _last(dotted: str) -> str:
    return dotted.rpartition(".")[2]
