"""The project a file belongs to: its other modules, found from imports and read on demand.

Training code is a project, not a file: ``train.py`` imports ``models/``, ``data/`` and
``utils/``, and the evidence that a value is a tensor often sits there (what an imported
helper returns, what an imported class keeps on ``self``). The module summary asks this
module what another module answers when a question reaches an import; nothing is read
before that, so a file whose questions stay inside it costs nothing more.

Off by default, for its cost: ``project = true`` in the ``[tool.flake8-tensorcopy]`` table
of the root's ``pyproject.toml`` turns it on (:func:`enabled`). Every front end (flake8 with
one file or a tree, ``-j N``, the CLI, the fixer, the language server) asks :func:`locate`
and reads the other modules from the project on disk, so a file gets the same answer in
each; the server lays the editor's unsaved buffers over the disk (:meth:`Project.overlay`).

What another module answers (what ``make_batch`` returns, what ``Net`` keeps on ``self``)
is asked through :meth:`Project.ask` and kept with the hashes of what it was worked out
from: in memory for the rest of the run, and on disk for the next one (``cache.py``), so
that a module asked by many files, or again tomorrow, is parsed once, or not at all.

The callers of a module's functions are in the modules that import it: :meth:`Project.importers`
reads that from the import statements of every module's text (``import_graph.py``), once a
run, kept on disk by each file's stamp so that the next run reads only what changed, and
an answer worked out from them is kept with a hash of the importers it read.

Bounded: only modules under the project's root, and of those only plain files, opened
without blocking (``plain_file.py``: a pipe called ``*.py`` must not hang the run), at most
:data:`MAX_MODULE_BYTES` each; a module that does not parse is unknown, at most
:data:`MAX_HOPS` modules deep in one question, and the summaries of the modules used last
are kept (:data:`CACHED_MODULES`, and :data:`CACHED_CHARACTERS` of their source) with the
hash of their text, so that a file that changes is read again (a run over many files lets
them go after each: :func:`let_go_of_summaries`). An answer cut short by those bounds is not
kept: it would depend on which question came first.
"""

from __future__ import annotations

import ast
import io
import os
import re
import sys
import tokenize
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..runtime.bounded import BoundedCache
from .cache import FOLDER_NAME, Answers, DiskCache, Unstorable, digest, encode
from .import_graph import ImportGraph, stamp_of
from .notices import warn_once
from .plain_file import read_plain_file
from .lazy_bodies import ParsedText, UnparsedBody, parse_lazily
from .values import ClassObject, Instance

if TYPE_CHECKING:
    from .summary import ModuleSummary

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
MAX_MODULE_BYTES = 1 << 20  # larger modules are generated code: never read
MAX_SCANNED_BYTES = 16 << 20  # read for imports only (a notebook with its outputs)
MAX_HOPS = 6  # modules one question may pass through (a -> b -> c ...)
# Questions one file may have worked out in the other modules (answers already known are
# free): within the hops, each answer may ask several more, and the tree of questions of a
# few modules that pass values round in a circle grows past any wait.
MAX_WORK_PER_FILE = 256
MAX_CONFIG_BYTES = 1 << 20  # a pyproject.toml larger than this is not read
NOTEBOOK_SUFFIX = ".ipynb"  # notebook.SUFFIX: the notebook reader is imported only to read one
MODULE_SUFFIXES = (".py", ".pyi", NOTEBOOK_SUFFIX)
# Summaries hold their ``ast`` trees, some 40 bytes a character of the source parsed (the
# top level and the bodies read so far): memory, not time, bounds how many are kept (a
# flake8 run holds this beside flake8's own). What a module answered is kept apart
# (``_ANSWERS``, small), so a summary is needed again only for a question not asked before.
CACHED_MODULES = 8
CACHED_CHARACTERS = 120_000
_MAX_RESOLVED = 20_000  # remembered (folder, dotted name) look-ups per project
# A project of more modules than these is not read through for who calls a method: each
# name looked for reads the text of every module.
MAX_SPELLING_MODULES = 2_000
# Names looked for by reading every module's text, before the modules' words are indexed
# instead: a scan reads each module once and searches it for one word, the index reads each
# twice and splits it into words, which pays only when many names are asked.
SCANS_BEFORE_INDEX = 4
_DEFINED_NAME = re.compile(rb"\bdef\s+(\w+)")
_WORD = re.compile(rb"\w+")
# Packages that are never a project's own, looked up on every import otherwise.
_LIBRARIES = sys.stdlib_module_names | {
    "torch", "torchvision", "torchaudio", "numpy", "scipy", "pandas", "sklearn", "matplotlib", "PIL", "cv2",
}


def _spelled(found: tuple[str, str] | None) -> str:
    return f"{found[0]}\0{found[1]}" if found is not None else ""


def _spelt(found: tuple[frozenset[str], frozenset[str]] | None) -> str:
    return _listed(frozenset(f"{kind}\0{path}" for kind, paths in enumerate(found) for path in paths)) \
        if found is not None else "?"


def _listed(modules: frozenset[str] | None) -> str:
    return digest("\0".join(sorted(modules)).encode("utf-8", "surrogatepass")) if modules is not None else "?"


_DOTTED = re.compile(r"\.*(?:\w+(?:\.\w+)*)?")  # what an import look-up may name: no path


def _notebook_code(text: str) -> str | None:
    """A notebook's code cells as one module (None: not a notebook this tool reads)."""
    from ..notebook import Notebook, NotebookError

    try:
        return Notebook(text).module
    except NotebookError:
        return None


def _marked(folder: str) -> bool:
    """Whether ``folder`` holds a project marker (a project's root)."""
    return any(os.path.exists(os.path.join(folder, marker)) for marker in ROOT_MARKERS)


def find_root(path: str) -> str:
    """The nearest folder above ``path`` holding a project marker, else ``path``'s folder."""
    start = os.path.dirname(os.path.abspath(path))
    return _nearest_marked(start) or start


# folder -> the nearest folder at or above it that holds a project marker (None: none):
# the files of one folder, and the folders of one project, share what their parents found
_MARKED: dict[str, str | None] = {}
# folder, absolute -> its real path
_REAL_FOLDERS: dict[str, str] = {}
_MAX_FOLDERS = 20_000  # in each of the two: a language server's session may meet many


def _nearest_marked(folder: str) -> str | None:
    found = _MARKED.get(folder, "")
    if found == "":
        if len(_MARKED) >= _MAX_FOLDERS:
            _MARKED.clear()
        parent = os.path.dirname(folder)
        found = folder if _marked(folder) else None if parent == folder else _nearest_marked(parent)
        _MARKED[folder] = found
    return found


def _resolved_folder(folder: str) -> str:
    """``os.path.realpath`` of the absolute ``folder``: its parent's real path and its own
    name when it is no link, so that a folder not seen before costs one ``lstat``, not one
    for each folder above it."""
    real = _REAL_FOLDERS.get(folder)
    if real is None:
        if len(_REAL_FOLDERS) >= _MAX_FOLDERS:
            _REAL_FOLDERS.clear()
        parent, name = os.path.split(folder)
        real = os.path.realpath(folder) if not name or os.path.islink(folder) else os.path.join(_resolved_folder(parent), name)
        _REAL_FOLDERS[folder] = real
    return real


def _resolved_file(path: str) -> str:
    """``os.path.realpath`` of the absolute ``path``, its folder's looked up as above."""
    folder, name = os.path.split(path)
    return os.path.realpath(path) if os.path.islink(path) else os.path.join(_resolved_folder(folder), name)


class Project:
    """The modules under one root folder, their summaries made on first use and kept."""

    def __init__(self, root: str, cache_folder: str | None = None) -> None:
        self.root = os.path.realpath(root)
        self.disk = DiskCache(cache_folder, self.names_only_modules) if cache_folder else None
        self._files: dict[tuple[str, tuple[str, ...]], str | None] = {}
        self._buffers: dict[str, str] = {}  # path -> unsaved text (the language server's)
        self._loading: set[str] = set()
        self._hops = 0
        self._asking = 0  # questions being answered now (one asks others)
        self._too_deep = 0  # questions stopped by MAX_HOPS
        self._cycles = 0  # modules whose star imports lead back to themselves
        self._graph: ImportGraph | None = None  # made when a caller is first looked for
        # method name -> the modules that define it and those that spell it (``method_spellings``)
        self._spellings: dict[str, tuple[frozenset[str], frozenset[str]] | None] = {}
        # module -> the names it spells that some module defines with ``def`` (built after
        # SCANS_BEFORE_INDEX names: ``method_spellings`` then reads only the modules that
        # spell the name asked)
        self._defined_words: dict[str, frozenset[bytes]] | None = None
        self._scans = 0  # names looked for without the index
        self._work_for: weakref.ref | None = None  # the summary of the file whose questions these are
        self._work_left = MAX_WORK_PER_FILE

    # -- which file an import names ------------------------------------------------
    def resolve(self, importer: str, dotted: str, asker: ModuleSummary | None = None) -> tuple[str, str] | None:
        """(the module file, the name inside it) that ``dotted`` names in ``importer``: a
        relative name (``.utils.f``) from the importer's package, an absolute one from the
        importer's folder (a script imports its siblings), the root, or ``root/src``.
        ``asker`` notes that its answers rely on this look-up."""
        return self._noted(asker, importer, dotted, whole=False)

    def find_module(self, importer: str, dotted: str, asker: ModuleSummary | None = None) -> str | None:
        """The file of the module ``dotted`` (``from dotted import *``) in ``importer``."""
        found = self._noted(asker, importer, dotted, whole=True)
        return found[0] if found is not None else None

    def _noted(self, asker: ModuleSummary | None, importer: str, dotted: str, whole: bool) -> tuple[str, str] | None:
        found = self._find(importer, dotted, whole)
        if asker is not None:  # a module added or removed later may change what it finds
            asker.depends_on[f"import\0{importer}\0{dotted}\0{int(whole)}"] = _spelled(found)
        return found

    def _looks_up_alike(self, key: str, found: str) -> bool:
        _, importer, dotted, whole = key.split("\0")
        return _spelled(self._find(importer, dotted, whole=whole == "1")) == found

    # -- who imports a module ----------------------------------------------------------
    def importers(self, path: str, asker: ModuleSummary | None = None) -> frozenset[str] | None:
        """The project's modules that import the module at ``path``: where its functions'
        callers in other modules are (None: a project too large to know). ``asker`` notes
        that its answers rely on them: a module that starts or stops importing changes them."""
        found = self._import_graph().importers(path)
        if asker is not None:
            asker.depends_on[f"importers\0{path}"] = _listed(found)
        return found

    def _import_graph(self) -> ImportGraph:
        """The project's modules and what each imports, walked once (its index kept on disk)."""
        if self._graph is None:
            known = self.disk.load_index(self.root) if self.disk is not None else None
            self._graph = ImportGraph(self.root, self.find_module, self._code, list(self._buffers), known)
        self._graph.modules()  # the walk, where it was not made yet
        if self._graph.unsaved and self.disk is not None:
            self._graph.unsaved = False
            self.disk.save_index(self.root, self._graph.index)
        return self._graph

    def method_spellings(self, name: str, asker: ModuleSummary | None = None) -> tuple[frozenset[str], frozenset[str]] | None:
        """(the modules that spell ``def name(``, the modules that spell ``.name``) over the
        whole project, read from the modules' text: where a method of that name may be
        defined, and where it may be called or read. None when that cannot be told from the
        text: the project is too large to know, a module cannot be read, or a module spells
        the name so that a call may go unseen (a plain call ``name(``, an assignment
        ``name = ...``, a string ``"name"`` that ``getattr`` may read). ``asker`` notes that
        its answers rely on it: any module may start or stop spelling it."""
        if name not in self._spellings:
            if len(self._spellings) >= _MAX_RESOLVED:
                self._spellings.clear()
            self._spellings[name] = self._spell(name)
        found = self._spellings[name]
        if asker is not None:
            asker.depends_on[f"spelled\0{name}"] = _spelt(found)
        return found

    def _spell(self, name: str) -> tuple[frozenset[str], frozenset[str]] | None:
        modules = self._import_graph().modules()
        if modules is None or len(modules) > MAX_SPELLING_MODULES:
            return None
        word = name.encode("ascii")
        spelling = self._modules_spelling(word, modules)
        if spelling is None:
            return None
        defined = re.compile(rb"\bdef\s+" + word + rb"\s*\(")
        plain = re.compile(rb"(?<![\w.])" + word + rb"\s*\(")
        dotted = re.compile(rb"\.\s*" + word + rb"\b")
        hidden = re.compile(rb"(?<!\w)" + word + rb"\s*=(?!=)|[\"']" + word + rb"[\"']")
        definers, spellers = set(), set()
        for path in spelling:
            text = self._text(path)
            if text is None:
                return None  # gone since it was read: what it calls is unknown
            defines = len(defined.findall(text))
            if len(plain.findall(text)) > defines or hidden.search(text):
                return None
            if defines:
                definers.add(path)
            if dotted.search(text):
                spellers.add(path)
        return frozenset(definers), frozenset(spellers)

    def _modules_spelling(self, word: bytes, modules: frozenset[str]) -> list[str] | None:
        """The modules whose text spells ``word`` as a whole word, when some module of the
        project defines it with ``def`` (else none: no method has that name); None when a
        module cannot be read."""
        if self._defined_words is None and self._scans < SCANS_BEFORE_INDEX:
            self._scans += 1
            return self._scan_for(word, modules)
        words = self._defined_words_of(modules)
        if words is None:
            return None
        return [path for path in modules if word in words[path]]

    def _scan_for(self, word: bytes, modules: frozenset[str]) -> list[str] | None:
        """``_modules_spelling`` by one read of each module, without the index."""
        whole = re.compile(rb"(?<!\w)" + re.escape(word) + rb"(?!\w)")
        spelling, defined = [], False
        for path in modules:
            text = self._text(path)
            if text is None:
                return None
            if word in text and whole.search(text):
                spelling.append(path)
                defined = defined or word in _DEFINED_NAME.findall(text)
        return spelling if defined else []

    def _defined_words_of(self, modules: Iterable[str]) -> dict[str, frozenset[bytes]] | None:
        """Each module's words that some module of the project defines with ``def``: two
        reads of every module, once, instead of one per method name asked. None when a
        module cannot be read (too large, or gone)."""
        if self._defined_words is None:
            modules = list(modules)
            defined: set[bytes] = set()
            for path in modules:  # not all the texts at once: a large project's would weigh
                text = self._text(path)
                if text is None:
                    return None
                defined.update(_DEFINED_NAME.findall(text))
            words = {}
            for path in modules:
                text = self._text(path)
                if text is None:
                    return None
                words[path] = frozenset(_WORD.findall(text)).intersection(defined)
            self._defined_words = words
        return self._defined_words

    def spells(self, path: str, word: str) -> bool:
        """Whether the module's text spells ``word`` (maybe inside a longer one): else it
        makes no call by that name, and need not be parsed to know."""
        spelled = word.encode("utf-8", "surrogatepass")
        return self.text_satisfies(path, lambda text: spelled in text)

    def text_satisfies(self, path: str, test: Callable[[bytes], bool]) -> bool:
        """Whether the module's text passes ``test`` (False when it cannot be read)."""
        text = self._text(path)
        return text is not None and test(text)

    def _text(self, path: str, limit: int = MAX_MODULE_BYTES) -> bytes | None:
        buffer = self._buffers.get(path)
        if buffer is not None:
            return buffer.encode("utf-8", "surrogatepass")
        return self._read_module(path, limit)

    def _read_module(self, path: str, limit: int) -> bytes | None:
        """The bytes of the module file ``path``: only a plain file under the root, named by
        its real path (no link out of the root, no pipe, no device), read to ``limit``. The
        file itself is opened without following a link; its folder is checked once."""
        folder = os.path.dirname(path)
        if not self.contains(path) or _resolved_folder(folder) != folder:  # a link leads through it
            return None
        return read_plain_file(path, limit)

    def _code(self, path: str) -> bytes | None:
        """The module's Python (a notebook's code cells), read for its imports: also of a
        module too large to summarise, whose calls are then unknown rather than unseen."""
        text = self._text(path, MAX_SCANNED_BYTES)
        if text is None or not path.endswith(NOTEBOOK_SUFFIX):
            return text
        code = _notebook_code(text.decode("utf-8", "replace"))
        return code.encode("utf-8", "surrogatepass") if code is not None else None

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
            # an editor's buffer is a module too, saved or not (a new file, one deleted on disk)
            if os.path.isfile(candidate) or (self._buffers and _resolved_file(candidate) in self._buffers):
                real = _resolved_file(candidate)  # symlinks: one module, one summary
                found = real if self.contains(real) else None
                break
        if len(self._files) >= _MAX_RESOLVED:
            self._files.clear()
        self._files[key] = found
        return found

    # -- what a module answers -------------------------------------------------------
    def ask(self, asker: ModuleSummary, path: str, question: tuple[str, ...],
            answer: Callable[[ModuleSummary], object]) -> object:
        """What the module at ``path`` answers to ``question``, which ``answer`` works out
        from the module's summary: kept from earlier in the run, or from the disk cache,
        while the module and everything the answer was worked out from are unchanged.
        ``asker`` (the summary that asks) notes what it now depends on."""
        module_digest = self.digest(path)
        if module_digest is None:
            return None
        record = self._record(path, module_digest)
        known = record.answers.get(question)
        if known is None or not self._unchanged(known[1]):
            if not self._may_work_out(asker):
                self._too_deep += 1  # cut short: what the askers work out from it is not kept
                return None
            self._asking += 1
            try:
                known = self._work_out(record, path, question, answer, type(asker).of)
            finally:
                self._asking -= 1
                if not self._asking:
                    # a module larger than the summaries' bound served this question (and the
                    # ones it led to); kept longer, its tree would sit under the next files' peak
                    _SUMMARIES.trim()
        value, depends = known
        asker.depends_on[path] = module_digest
        asker.depends_on.update(depends)
        return value

    def _may_work_out(self, asker: ModuleSummary) -> bool:
        """Whether the file being linted may have one more question worked out (see
        ``MAX_WORK_PER_FILE``); the budget starts again with each file's first question."""
        if not self._asking and (self._work_for is None or self._work_for() is not asker):
            self._work_for, self._work_left = weakref.ref(asker), MAX_WORK_PER_FILE
        self._work_left -= 1
        return self._work_left >= 0

    def _work_out(self, record: _Record, path: str, question: tuple[str, ...],
                  answer: Callable[[ModuleSummary], object],
                  summarise: Callable[..., ModuleSummary]) -> tuple[object, dict[str, str]]:
        deep, cycles = self._too_deep, self._cycles
        home = self.summary(path, summarise=summarise)
        if home is None:  # it does not parse (kept: nothing changes that but its text), or a cycle
            if self._cycles == cycles:
                record.learn(question, None, {})
                self._note_unsaved(path, record)
            return None, {}
        try:
            value = answer(home)
            depends = home.dependencies()
        except UnparsedBody:  # a body the answer read does not parse: the module would not import
            value, depends = None, {}
        finally:
            held = _SUMMARIES.peek((self.root, path))
            if held is None or held[1] is not home:
                # let go while it answered (the questions it asked evicted it): the facts it
                # made since refer back to it, a cycle the collector, paused while a file is
                # analysed, would leave for later
                home.forget_facts()
            elif held[2] is not None:
                _SUMMARIES.resize((self.root, path), held[2].characters)  # the bodies it read
        if self._too_deep != deep:
            # asked deeper, the same question gets further: what its memos now hold depends
            # on where it was asked from, so the summary goes (and its answer is not kept)
            _SUMMARIES.pop((self.root, path))
            return value, depends
        if self._cycles != cycles:
            home.cut_short = True  # which module of the cycle came first decides: not kept
        if not home.cut_short:
            record.learn(question, value, depends)
            self._note_unsaved(path, record)
        return value, depends

    def _note_unsaved(self, path: str, record: _Record) -> None:
        if record.unsaved and self.disk is not None:
            _unsaved(self, path, record)

    def _record(self, path: str, module_digest: str) -> _Record:
        key = (self.root, path)
        record = _ANSWERS.get(key)
        if record is None or record.digest != module_digest:
            loaded = self.disk.load(path, module_digest) if self.disk is not None else {}
            record = _Record(module_digest, loaded)
            _ANSWERS.put(key, record, 1)
        return record

    def _unchanged(self, depends: dict[str, str]) -> bool:
        """Whether every module an answer was worked out from hashes as it did, every
        import look-up finds what it found, and every module has the importers it had."""
        return all(
            self._looks_up_alike(key, found) if key.startswith("import\0")
            else _listed(self.importers(key.partition("\0")[2])) == found if key.startswith("importers\0")
            else _spelt(self.method_spellings(key.partition("\0")[2])) == found if key.startswith("spelled\0")
            else self.digest(key) == found
            for key, found in depends.items()
        )

    def digest(self, path: str) -> str | None:
        """The hash of the module's text (None: unreadable, too large): worked out again
        only when the file's ``stat`` changes, or the editor's buffer laid over it."""
        buffer = self._buffers.get(path)
        stamp: object = buffer
        if buffer is None:
            stamp = stamp_of(path)  # module paths are real paths: a link here is not one
            if stamp is None or stamp[1] > MAX_MODULE_BYTES:
                return None
        known = _DIGESTS.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        if buffer is not None:
            found = digest(buffer.encode("utf-8", "surrogatepass"))
        else:
            text = self._read_module(path, MAX_MODULE_BYTES)
            if text is None:
                return None
            found = digest(text)
        if len(_DIGESTS) >= _MAX_DIGESTS:
            _DIGESTS.clear()
        _DIGESTS[path] = (stamp, found)
        return found

    # -- a module's summary ----------------------------------------------------------
    def summary(self, path: str, *, summarise: Callable[..., ModuleSummary]) -> ModuleSummary | None:
        """The summary of the module at ``path`` (None: unreadable, too large, not Python),
        its functions' bodies parsed as they are read (see ``lazy_bodies.parse_lazily``)."""
        stamp = self.digest(path)
        cached = _SUMMARIES.get((self.root, path))
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if path in self._loading:  # ``from a import *`` in b, and the other way round
            self._cycles += 1
            return None
        self._loading.add(path)
        try:
            summary, text = self._load(path, summarise) if stamp is not None else (None, None)
        finally:
            self._loading.discard(path)
        _SUMMARIES.put((self.root, path), (stamp, summary, text), text.characters if text is not None else 0)
        return summary

    def _load(self, path: str, summarise: Callable[..., ModuleSummary]) -> tuple[ModuleSummary | None, ParsedText | None]:
        """The module's summary, made by ``summarise`` (the asker's ``ModuleSummary.of``:
        this module does not import the summary, which imports it), and what of its text
        the tree holds parsed."""
        source = self._buffers.get(path)
        try:
            if source is None:
                raw = self._read_module(path, MAX_MODULE_BYTES)
                if raw is None:
                    return None, None
                source = _decoded(raw)
            if path.endswith(NOTEBOOK_SUFFIX):  # a notebook that imports the module calls it too
                source = _notebook_code(source)
                if source is None:
                    return None, None
            try:
                tree, text = parse_lazily(source)
            except SyntaxError:  # text the cut cannot follow: all of it is read
                tree, text = ast.parse(source), ParsedText.whole(source)
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError, MemoryError):
            return None, ParsedText.whole(source or "")
        return summarise(tree, source, path, project=self), text

    # -- what a cache entry may name ------------------------------------------------
    def names_only_modules(self, answers: Answers) -> bool:
        """Whether every path in ``answers`` (what they depend on, the modules of the
        instances they hold) may be one of the project's modules: an entry that names
        another file (``/dev/zero``, a pipe, ``/etc/passwd``) is not the analysis's own."""
        for value, depends in answers.values():
            if not all(map(self._may_be_module, _instance_modules(value))):
                return False
            for key, found in depends.items():
                if not self._sound_dependency(key, found):
                    return False
        return True

    def _sound_dependency(self, key: str, found: str) -> bool:
        kind, _, rest = key.partition("\0")
        if kind == "import":
            parts = rest.split("\0")
            if len(parts) != 3 or not self._may_be_module(parts[0]) or not _DOTTED.fullmatch(parts[1]) \
                    or parts[2] not in ("0", "1"):
                return False
            return not found or self._may_be_module(found.partition("\0")[0])
        if kind == "importers":
            return self._may_be_module(rest)
        if kind == "spelled":
            return rest.isidentifier() and rest.isascii()
        return not rest and self._may_be_module(key)

    def _may_be_module(self, path: str) -> bool:
        return path.endswith(MODULE_SUFFIXES) and os.path.isabs(path) and os.path.normpath(path) == path \
            and path != self.root and self.contains(path)

    @contextmanager
    def hop(self) -> Iterator[bool]:
        """One step of a question into another module; False when it went too deep."""
        self._hops += 1
        allowed = self._hops <= MAX_HOPS
        if not allowed:
            self._too_deep += 1
        try:
            yield allowed
        finally:
            self._hops -= 1

    def forget_files(self) -> None:
        """Files were added, removed or changed on disk: look the imports up again."""
        self._files.clear()
        self._graph = None
        self._forget_spellings()
        _changed()

    # -- the language server's open documents ---------------------------------------
    def buffers(self) -> dict[str, str]:
        """The unsaved buffers laid over the project's files (path -> text)."""
        return dict(self._buffers)

    def lay_buffers(self, buffers: dict[str, str]) -> None:
        """Read exactly ``buffers`` over the disk (the fixer process: the server's buffers)."""
        if buffers != self._buffers:
            self._buffers = dict(buffers)
            self._files.clear()  # a buffer may be a module that is not on disk
            self._graph = None
            self._forget_spellings()
            _changed()

    def overlay(self, path: str, text: str | None) -> None:
        """Read ``path`` as ``text`` (an editor's unsaved buffer); None: from disk again."""
        path = os.path.realpath(path)
        if self._buffers.get(path) == text:
            return
        if (text is None) == (path in self._buffers):  # opened or closed: it may be on disk or not
            self._files.clear()
        if text is None:
            self._buffers.pop(path, None)
        else:
            self._buffers[path] = text
        if self._graph is not None:
            self._graph.reread(path)
        self._forget_spellings()
        _changed()

    def _forget_spellings(self) -> None:
        self._spellings.clear()
        self._defined_words = None
        self._scans = 0


def _instance_modules(value: object) -> Iterator[str]:
    """The modules named by the instances that an answer's value holds."""
    if isinstance(value, (Instance, ClassObject)) and value.module:
        yield value.module
    elif isinstance(value, tuple):
        for element in value:
            yield from _instance_modules(element)


def _decoded(raw: bytes) -> str:
    """A module's bytes as Python reads them: its coding cookie or BOM honoured, its line
    ends made ``\\n`` (what ``tokenize.open`` gives, from bytes read to a bound)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return io.TextIOWrapper(io.BytesIO(raw), encoding, line_buffering=True).read()


class _Record:
    """What one module (at one text) answered, and whether the disk has it all yet."""

    __slots__ = ("digest", "answers", "unsaved")

    def __init__(self, digest: str, answers: Answers) -> None:
        self.digest = digest
        self.answers = answers
        self.unsaved: dict[tuple[str, ...], tuple[object, dict[str, str]]] = {}

    def learn(self, question: tuple[str, ...], value: object, depends: dict[str, str]) -> None:
        try:
            encode(value)
        except Unstorable:
            return
        self.answers[question] = self.unsaved[question] = (value, depends)


# (root, path) -> what that module answered: small records, many kept
_ANSWERS: BoundedCache[_Record] = BoundedCache(512, 512)
_DIGESTS: dict[str, tuple[object, str]] = {}  # path -> (its stat or its buffer's text, its hash)
_MAX_DIGESTS = 50_000
# Records with answers the disk lacks, written at the end of the process, or when many.
_UNSAVED: dict[tuple[str, str], tuple[Project, _Record]] = {}
_MAX_UNSAVED = 128
_SAVING_AT_EXIT: list[int] = []  # the process that arranged to save at its exit


def _unsaved(project: Project, path: str, record: _Record) -> None:
    _UNSAVED[(project.root, path)] = (project, record)
    if _SAVING_AT_EXIT != [os.getpid()]:
        # flake8's workers leave through multiprocessing, which runs these finalizers (and
        # no atexit hook); the main process runs them at exit too
        from multiprocessing import util

        util.Finalize(None, save_cache, exitpriority=10)
        _SAVING_AT_EXIT[:] = [os.getpid()]
    if len(_UNSAVED) >= _MAX_UNSAVED:
        save_cache()


def save_cache() -> None:
    """Write what this process learnt of the projects' modules into their disk caches."""
    while _UNSAVED:
        (_, path), (project, record) = _UNSAVED.popitem()
        if record.unsaved and project.disk is not None:
            project.disk.save(path, record.digest, record.unsaved)
        record.unsaved = {}


_PROJECTS: OrderedDict[str, Project] = OrderedDict()


def _let_go(held: tuple[object, ModuleSummary | None, ParsedText | None]) -> None:
    if held[1] is not None:
        held[1].forget_facts()  # so that its tree goes now, not at the next cycle collection


# (root, path) -> (the module's stamp, its summary, what of its text is parsed), for every
# project together: the bounds are those of the process, whichever projects it lints
# (flake8 . over several)
_SUMMARIES: BoundedCache[tuple[object, ModuleSummary | None, ParsedText | None]] = BoundedCache(
    CACHED_MODULES, CACHED_CHARACTERS, dropped=_let_go
)
_CACHED_PROJECTS = 4
_GENERATION = [0]  # counts what may have changed another module's answers (see ``generation``)


NO_CACHE_VARIABLE = "FLAKE8_TENSORCOPY_NO_CACHE"
NO_PROJECT_VARIABLE = "FLAKE8_TENSORCOPY_NO_PROJECT"
CACHE_DIR_VARIABLE = "FLAKE8_TENSORCOPY_CACHE_DIR"


def _table(root: str) -> dict:
    """The ``[tool.flake8-tensorcopy]`` table of the root's ``pyproject.toml`` ({}: none)."""
    # a plain file only (a pipe named pyproject.toml would block); a link is followed, as
    # the configuration's own reader follows it
    raw = read_plain_file(os.path.join(root, "pyproject.toml"), MAX_CONFIG_BYTES, follow_links=True)
    if raw is None:
        return {}
    import tomllib  # here: a run that reads no pyproject.toml never loads it

    try:
        table = tomllib.loads(raw.decode("utf-8")).get("tool", {}).get("flake8-tensorcopy", {})
    except (tomllib.TOMLDecodeError, AttributeError, UnicodeDecodeError):
        return {}
    return table if isinstance(table, dict) else {}


def enabled(root: str) -> bool:
    """Whether the project at ``root`` reads its other modules and its files' callers: yes
    unless ``project = false`` in the ``[tool.flake8-tensorcopy]`` table of its
    ``pyproject.toml``, or this run says no (:func:`files_alone`). Every front end asks
    here, so a file gets the same answer from each."""
    if os.environ.get(NO_PROJECT_VARIABLE, "") not in ("", "0"):
        return False
    return _table(root).get("project") is not False


def cache_folder(root: str) -> str | None:
    """Where the project at ``root`` keeps what its modules answered (None: nowhere):
    ``$FLAKE8_TENSORCOPY_CACHE_DIR`` (the CLI's ``--cache-dir`` sets it), else
    ``.tensorcopy_cache`` in the root; none with ``$FLAKE8_TENSORCOPY_NO_CACHE`` set or
    ``cache = false``, and none in a folder that is no project (no marker: the file's own
    folder stands in for one), where nothing is written beside loose files (a download
    folder, an installed library). Only the user chooses another folder: a cloned repository's
    ``cache-dir`` would have every run write where the repository says (a shared folder
    that another user fills), so it is refused with a warning."""
    if os.environ.get(NO_CACHE_VARIABLE, "") not in ("", "0"):
        return None
    table = _table(root)
    if table.get("cache") is False:
        return None
    chosen = os.environ.get(CACHE_DIR_VARIABLE)
    if not chosen and table.get("cache-dir") is not None:
        warn_once(f"{os.path.join(root, 'pyproject.toml')}: cache-dir is not honoured from a project's own "
                  f"configuration; set {CACHE_DIR_VARIABLE} (or the CLI's --cache-dir) to choose the folder. "
                  f"The cache stays in {FOLDER_NAME}")
    if chosen:
        # one folder may serve many projects: each has its own
        return os.path.join(root, os.path.expanduser(chosen), digest(root.encode("utf-8", "surrogatepass")))
    if not _marked(root):
        return None
    return os.path.join(root, FOLDER_NAME)


def choose_cache_folder(folder: str) -> None:
    """Keep the disk cache under ``folder`` (the CLI's ``--cache-dir``), in this process and
    the workers it starts: the environment carries it to them."""
    os.environ[CACHE_DIR_VARIABLE] = os.path.abspath(os.path.expanduser(folder))
    _PROJECTS.clear()


def files_alone() -> None:
    """Read each file alone in this process and the workers it starts (the CLI's
    ``--no-project``, flake8's ``--tensorcopy-no-project``), whatever the projects' tables
    say: the environment carries it to the workers, however they are started."""
    os.environ[NO_PROJECT_VARIABLE] = "1"
    _ROOTS.clear()


def no_disk_cache() -> None:
    """Neither read nor write the disk cache in this process and the workers it starts
    (``--no-cache``): the environment carries it to them, however they are started."""
    os.environ[NO_CACHE_VARIABLE] = "1"
    for known in _PROJECTS.values():
        known.disk = None


def generation() -> int:
    """A number that changes whenever an editor's buffer or the files of a project may have
    changed what a file's analysis reads of its project: a long-lived process (the language
    server) keys what it keeps of a lint on it."""
    return _GENERATION[0]


def _changed() -> None:
    _GENERATION[0] += 1


def let_go_of_summaries() -> None:
    """Drop the other modules' summaries kept for later questions: a run over many files
    (flake8, the CLI) calls it after each file. Kept, their trees sit in the collector's
    oldest generation while the host works on, and every full collection walks them; a later
    file seldom asks a question that its answers, kept apart, do not hold. The language
    server keeps them: it lints the same file again after every edit."""
    _SUMMARIES.clear()


def forget_files() -> None:
    """Files were added, removed or changed on disk (the language server is told so): find
    the roots, their settings and every import again."""
    _ROOTS.clear()
    _MARKED.clear()
    _REAL_FOLDERS.clear()
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
        real = _resolved_folder(folder)
        root = _resolved_folder(find_root(os.path.join(real, name)))
        known = _ROOTS[folder] = (real, root if enabled(root) else None)
    real, root = known
    if root is None:
        return None
    path = os.path.join(real, name)
    project = _PROJECTS.get(root)
    if project is None:
        project = _PROJECTS[root] = Project(root, cache_folder(root))
        if len(_PROJECTS) > _CACHED_PROJECTS:
            _PROJECTS.popitem(last=False)
    else:
        _PROJECTS.move_to_end(root)
    return project, path

