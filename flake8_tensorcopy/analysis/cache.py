"""What the project analysis learnt of a module, kept on disk between runs.

A warm run (the second pre-commit, the next ``flake8 .``) asks the project's modules the
same questions as the last one: what ``utils.make_batch`` returns, what ``Net`` keeps on
``self``. Each module's answers are one JSON file in the cache folder, with the hash of the
module's text and, for each answer, the hashes of the other modules (and the import
look-ups) it was worked out from: an answer is used only while all of them are unchanged,
so a module that changes invalidates what depends on it, and nothing needs parsing.

The folder is ``.tensorcopy_cache`` in the project's root (git ignores it: it holds a
``.gitignore``), or one under the ``FLAKE8_TENSORCOPY_CACHE_DIR`` environment variable
(``project.cache_folder``: the user's choice, never the repository's); ``cache = false``,
``FLAKE8_TENSORCOPY_NO_CACHE=1``, the CLI's ``--no-cache`` and flake8's
``--tensorcopy-no-cache`` turn it off. Entries are written whole to a temporary file and
renamed into place, so flake8's worker processes share the folder safely (two writers of
one module may each lose the other's new answers, never corrupt them). An entry that is
unreadable, truncated, of another version of the analysis, not signed with this user's key
(``signing.py``: a cache committed to a repository, or planted in a shared folder), naming a
file that is not one of the project's modules, or holding anything but what this module
writes is ignored and rebuilt, never merged: never trusted, never a crash. No ``pickle``.

The folder itself must be a folder this user owns, not a link (a committed
``.tensorcopy_cache`` link would send the entries wherever the repository likes); its
``.gitignore`` and ``CACHEDIR.TAG`` are written again whenever they are missing.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from functools import cache

try:  # hashlib's own blake2b, without hashlib loading OpenSSL: some 3 MiB of a small run's memory
    from _blake2 import blake2b
except ImportError:  # not CPython
    from hashlib import blake2b

from .notices import warn_once
from .plain_file import read_plain_file
from .signing import signature, signed_by_us
from .values import ClassObject, Holds, Instance, LibraryObject
from .vocabulary import TensorInfo

FOLDER_NAME = ".tensorcopy_cache"
FORMAT = 2  # the layout of an entry; the analysis's own code is stamped in too (``_version``)
MAX_ENTRY_BYTES = 4 << 20  # a larger entry is not ours: never read
MAX_INDEX_BYTES = 32 << 20  # what 10,000 modules import (import_graph.MAX_MODULES), with room
INDEX_NAME = "imports.index"  # JSON: what each module imports (import_graph.py), by its stamp
_INDEXED_NAME = re.compile(r"[.\w]+")  # a dotted name as ``import_graph`` reads it
_GITIGNORE = "# Made by flake8-tensorcopy: nothing here belongs in git.\n*\n"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# flake8-tensorcopy's cache.\n"

# question -> (the value, what it was worked out from: {path or look-up: its hash or result})
Answers = dict[tuple[str, ...], tuple[object, dict[str, str]]]


class Unstorable(Exception):
    """A value that an entry cannot hold: it is simply not kept."""


def digest(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


@cache
def _version() -> str:
    """The analysis's own code, stamped: a cache written by another version (an upgrade, a
    checkout of this repository, an edit) answers other questions otherwise, so it is not
    read. Each source file counts by its name, size and time of change, as Python's own
    bytecode cache judges a source changed (an install writes its files anew, a checkout
    or an edit touches them): reading and hashing the package's whole text instead would
    be paid again by every one-file run."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hashed = blake2b(str(FORMAT).encode(), digest_size=16)
    for folder, folders, files in os.walk(package):
        folders[:] = sorted(name for name in folders if name not in ("__pycache__", "server"))
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                found = os.stat(path)
                hashed.update(f"{os.path.relpath(path, package)}\0{found.st_size}\0{found.st_mtime_ns}\n".encode())
    return hashed.hexdigest()


class DiskCache:
    """The cache folder of one project. ``sound`` tells whether answers read back name only
    what they may (the project's own modules): an entry whose answers it refuses is not used."""

    def __init__(self, folder: str, sound: Callable[[Answers], bool] = lambda answers: True) -> None:
        self.folder = folder
        self._sound = sound
        self._prepared = False
        self._owned = False

    def load_index(self, root: str) -> dict:
        """What each module of the project at ``root`` imported, by the stamp of its file,
        as the last run wrote it ({}: none, or none to trust: a module outside the root, a
        name no import spells, an index not signed with this user's key)."""
        try:
            entry = self._read_signed(os.path.join(self.folder, INDEX_NAME), MAX_INDEX_BYTES)
            if entry is None or entry.get("root") != root:
                return {}
            return _decode_index(entry.get("modules"), root)
        except (OSError, ValueError, TypeError, KeyError, RecursionError, MemoryError, _Corrupt):
            return {}

    def save_index(self, root: str, index: dict) -> None:
        """Keep what each module imports (``import_graph.Index``) for the next run."""
        import json

        try:
            body = json.dumps({
                "version": _version(), "root": root,
                "modules": [[path, list(stamp), [[name, list(members)] for name, members in names]]
                            for path, (stamp, names) in sorted(index.items())],
            }, separators=(",", ":")).encode("utf-8", "surrogatepass")
            self._write_signed(os.path.join(self.folder, INDEX_NAME), body, ".index-")
        except (OSError, ValueError, RecursionError, MemoryError):
            pass  # a read-only tree, a full disk: the next run reads the modules again

    def _entry_path(self, module: str) -> str:
        return os.path.join(self.folder, digest(module.encode("utf-8", "surrogatepass")) + ".json")

    def load(self, module: str, module_digest: str) -> Answers:
        """The answers kept for ``module`` while its text hashed to ``module_digest``; none
        when there is no entry or it cannot be trusted."""
        try:
            entry = self._read_signed(self._entry_path(module), MAX_ENTRY_BYTES)
            if entry is None or entry.get("module") != module or entry.get("digest") != module_digest:
                return {}
            answers = _decode_answers(entry.get("answers"))
            return answers if self._sound(answers) else {}
        except (OSError, ValueError, TypeError, KeyError, RecursionError, MemoryError, _Corrupt):
            return {}

    def _read_signed(self, path: str, limit: int) -> dict | None:
        """The JSON object in ``path`` (at most ``limit`` bytes) when this user's key signed it
        and this version of the analysis wrote it; else None. Raises what reading and parsing
        raise (``OSError``, ``ValueError``, ...): the caller treats it as none."""
        if not self._folder_is_ours():
            return None
        raw = read_plain_file(path, limit)
        if raw is None:
            return None
        claimed, _, body = raw.partition(b"\n")
        if not signed_by_us(body, claimed):  # checked first: an unsigned file is not even parsed
            return None
        import json  # here: a run with nothing cached to read does not hold the module

        entry = json.loads(body)
        return entry if isinstance(entry, dict) and entry.get("version") == _version() else None

    def save(self, module: str, module_digest: str, answers: Answers) -> None:
        """Keep ``answers`` for ``module``, with those another process kept meanwhile for
        the same text (theirs give way to ours). Failing to write loses nothing but time."""
        import json

        try:
            kept = {**self.load(module, module_digest), **answers}
            body = json.dumps({
                "version": _version(), "module": module, "digest": module_digest,
                "answers": [[list(question), encode(value), depends] for question, (value, depends) in kept.items()],
            }, separators=(",", ":")).encode("utf-8", "surrogatepass")
            self._write_signed(self._entry_path(module), body, ".entry-")
        except (OSError, ValueError, RecursionError, MemoryError):
            pass  # a read-only tree, a full disk: the next run works it out again

    def _write_signed(self, path: str, body: bytes, prefix: str) -> None:
        """``body`` signed with this user's key in ``path``, whole or not at all; nothing
        without a key (what nobody could trust is not written)."""
        import tempfile

        signed = signature(body)
        if signed is None or not self._prepare():
            return
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=prefix, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(signed.encode("ascii") + b"\n" + body)
            os.replace(temporary, path)
        except BaseException:
            _remove(temporary)
            raise

    def _prepare(self) -> bool:
        """Whether the folder can take entries: made if missing, refused if it is a link or
        another user's, and its ``.gitignore`` and ``CACHEDIR.TAG`` written if missing (a
        full disk may have stopped them the first time)."""
        if self._prepared:
            return True
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        if not self._folder_is_ours():
            return False
        for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            path = os.path.join(self.folder, name)
            if read_plain_file(path, len(text)) != text.encode():
                _write_whole(path, text.encode())
        self._prepared = True
        return True

    def _folder_is_ours(self) -> bool:
        """Whether the folder is a folder (not a link to one) of this user's: else nothing
        is read from it or written to it."""
        if self._owned:
            return True
        try:
            status = os.lstat(self.folder)
        except OSError:
            return False
        if not stat.S_ISDIR(status.st_mode):
            warn_once(f"{self.folder}: the cache folder is a link or not a folder: no disk cache is kept "
                      "(FLAKE8_TENSORCOPY_CACHE_DIR or --cache-dir can choose a folder)")
            return False
        if hasattr(os, "geteuid") and status.st_uid != os.geteuid():
            warn_once(f"{self.folder}: the cache folder belongs to another user: no disk cache is kept")
            return False
        self._owned = True
        return True


def _write_whole(path: str, data: bytes) -> None:
    """``data`` in ``path``, whole or not at all: a half-written ``.gitignore`` would pass
    for one on the next check."""
    import tempfile

    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".made-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)  # mkstemp made it 0600; these two are for anyone to read
        os.replace(temporary, path)
    except BaseException:
        _remove(temporary)
        raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class _Corrupt(Exception):
    """An entry holds something this module never writes."""


def _decode_index(modules: object, root: str) -> dict:
    """The index's modules, each checked: a path of the root's, a stamp of three numbers,
    names an import could spell."""
    if not isinstance(modules, list):
        raise _Corrupt
    index = {}
    for item in modules:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and isinstance(item[1], list)
                and len(item[1]) == 3 and all(type(n) is int for n in item[1]) and isinstance(item[2], list)):
            raise _Corrupt
        path = item[0]
        if not path.startswith(root + os.sep) or os.path.normpath(path) != path:
            raise _Corrupt
        names = []
        for named in item[2]:
            if not (isinstance(named, list) and len(named) == 2 and isinstance(named[0], str)
                    and _INDEXED_NAME.fullmatch(named[0]) and isinstance(named[1], list)
                    and all(isinstance(m, str) and _INDEXED_NAME.fullmatch(m) for m in named[1])):
                raise _Corrupt
            names.append((named[0], tuple(named[1])))
        index[path] = (tuple(item[1]), tuple(names))
    return index


# -- values, as JSON: only what the summary's answers are made of ------------------------
def encode(value: object) -> object:
    """``value`` as JSON: None, a tensor's facts, a non-tensor the rules know, an instance
    of a project's class or of a tabled library class, a tuple of those, or a star
    import's names."""
    if value is None:
        return None
    if isinstance(value, LibraryObject):
        return {"library": value.qualified}
    if isinstance(value, TensorInfo):
        return {"tensor": [value.parameter, value.fresh, value.index]}
    if isinstance(value, Holds):
        return {"holds": value.name}
    if isinstance(value, Instance):
        return {"instance": [value.cls, value.module]}
    if isinstance(value, ClassObject):
        return {"class": [value.cls, value.module]}
    if isinstance(value, tuple):
        return {"tuple": [encode(element) for element in value]}
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return {"names": value}
    raise Unstorable(type(value).__name__)


def decode(data: object) -> object:
    if data is None:
        return None
    if not isinstance(data, dict) or len(data) != 1:
        raise _Corrupt
    (kind, body), = data.items()
    if kind == "tensor" and isinstance(body, list) and len(body) == 3 and all(isinstance(b, bool) for b in body):
        return TensorInfo(*body)
    if kind == "holds" and isinstance(body, str) and body in Holds.__members__:
        return Holds[body]
    if kind == "instance" and isinstance(body, list) and len(body) == 2 and all(isinstance(b, str) for b in body):
        return Instance(*body)
    if kind == "class" and isinstance(body, list) and len(body) == 2 and all(isinstance(b, str) for b in body):
        return ClassObject(*body)
    if kind == "library" and isinstance(body, str):
        return LibraryObject(body)
    if kind == "tuple" and isinstance(body, list):
        return tuple(decode(element) for element in body)
    if kind == "names" and isinstance(body, dict) and all(isinstance(v, str) for v in body.values()):
        return dict(body)
    raise _Corrupt


def _decode_answers(rows: object) -> Answers:
    if not isinstance(rows, list):
        raise _Corrupt
    answers: Answers = {}
    for row in rows:
        if not isinstance(row, list) or len(row) != 3:
            raise _Corrupt
        question, value, depends = row
        if not isinstance(question, list) or not question or not all(isinstance(q, str) for q in question) \
                or not isinstance(depends, dict) \
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in depends.items()):
            raise _Corrupt
        answers[tuple(question)] = (decode(value), depends)
    return answers
