"""What the project analysis learnt of a module, kept on disk between runs.

A warm run (the second pre-commit, the next ``flake8 .``) asks the project's modules the
same questions as the last one: what ``utils.make_batch`` returns, what ``Net`` keeps on
``self``. Each module's answers are one JSON file in the cache folder, with the hash of the
module's text and, for each answer, the hashes of the other modules (and the import
look-ups) it was worked out from: an answer is used only while all of them are unchanged,
so a module that changes invalidates what depends on it, and nothing needs parsing.

The folder is ``.tensorcopy_cache`` in the project's root (git ignores it: it holds a
``.gitignore``), or ``cache-dir`` of the ``[tool.flake8-tensorcopy]`` table, or the
``FLAKE8_TENSORCOPY_CACHE_DIR`` environment variable; ``cache = false``,
``FLAKE8_TENSORCOPY_NO_CACHE=1``, the CLI's ``--no-cache`` and flake8's
``--tensorcopy-no-cache`` turn it off. Entries are written whole to a temporary file and
renamed into place, so flake8's worker processes share the folder safely (two writers of
one module may each lose the other's new answers, never corrupt them). An entry that is
unreadable, truncated, of another version of the analysis, or holds anything but what this
module writes is ignored and rebuilt: never trusted, never a crash. No ``pickle``.
"""

from __future__ import annotations

import os
import stat
from functools import cache

try:  # hashlib's own blake2b, without hashlib loading OpenSSL: some 3 MiB of a small run's memory
    from _blake2 import blake2b
except ImportError:  # not CPython
    from hashlib import blake2b

from .vocabulary import TensorInfo

FOLDER_NAME = ".tensorcopy_cache"
FORMAT = 1  # the layout of an entry; the analysis's own code is hashed in too (``_version``)
MAX_ENTRY_BYTES = 4 << 20  # a larger entry is not ours: never read
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
    """The analysis's own code, hashed: a cache written by another version (an upgrade, a
    checkout of this repository) answers other questions otherwise, so it is not read."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hashed = blake2b(str(FORMAT).encode(), digest_size=16)
    for folder, folders, files in os.walk(package):
        folders[:] = sorted(name for name in folders if name not in ("__pycache__", "server"))
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as file:
                    hashed.update(name.encode() + b"\0" + file.read())
    return hashed.hexdigest()


class DiskCache:
    """The cache folder of one project."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def _entry_path(self, module: str) -> str:
        return os.path.join(self.folder, digest(module.encode("utf-8", "surrogatepass")) + ".json")

    def load(self, module: str, module_digest: str) -> Answers:
        """The answers kept for ``module`` while its text hashed to ``module_digest``; none
        when there is no entry or it cannot be trusted."""
        try:
            raw = _read_regular_file(self._entry_path(module))
            if raw is None:
                return {}
            import json  # here: a run with nothing cached to read does not hold the module

            entry = json.loads(raw)
            if not isinstance(entry, dict) or entry.get("version") != _version() \
                    or entry.get("module") != module or entry.get("digest") != module_digest:
                return {}
            return _decode_answers(entry.get("answers"))
        except (OSError, ValueError, TypeError, KeyError, RecursionError, MemoryError, _Corrupt):
            return {}

    def save(self, module: str, module_digest: str, answers: Answers) -> None:
        """Keep ``answers`` for ``module``, with those another process kept meanwhile for
        the same text (theirs give way to ours). Failing to write loses nothing but time."""
        import json
        import tempfile

        try:
            kept = {**self.load(module, module_digest), **answers}
            text = json.dumps({
                "version": _version(), "module": module, "digest": module_digest,
                "answers": [[list(question), encode(value), depends] for question, (value, depends) in kept.items()],
            }, separators=(",", ":"))
            self._prepare()
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".entry-", suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    file.write(text)
                os.replace(temporary, self._entry_path(module))
            except BaseException:
                _remove(temporary)
                raise
        except (OSError, ValueError, RecursionError, MemoryError):
            pass  # a read-only tree, a full disk: the next run works it out again

    def _prepare(self) -> None:
        if os.path.isdir(self.folder):
            return
        os.makedirs(self.folder, exist_ok=True)
        for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            with open(os.path.join(self.folder, name), "w", encoding="utf-8") as file:
                file.write(text)


def _read_regular_file(path: str) -> bytes | None:
    """The bytes of ``path`` when it is a plain file of a sane size: a link, a pipe or a
    device planted in the cache folder is never opened for reading (nor waited on)."""
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(handle, "rb") as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_ENTRY_BYTES:
            return None
        return file.read(MAX_ENTRY_BYTES + 1)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class _Corrupt(Exception):
    """An entry holds something this module never writes."""


# -- values, as JSON: only what the summary's answers are made of ------------------------
def encode(value: object) -> object:
    """``value`` as JSON: None, a tensor's facts, a non-tensor the rules know, an instance
    of a project's class or of a tabled library class, a tuple of those, or a star
    import's names."""
    from .summary import Holds, Instance, LibraryObject

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
    if isinstance(value, tuple):
        return {"tuple": [encode(element) for element in value]}
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return {"names": value}
    raise Unstorable(type(value).__name__)


def decode(data: object) -> object:
    from .summary import Holds, Instance, LibraryObject

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
