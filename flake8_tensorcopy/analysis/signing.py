"""Proof that a cache entry was written by this user's own runs, on this machine.

A cache folder can come with a cloned repository (committed with ``git add -f``) or sit where
another local user can write (a shared ``/tmp``); an entry planted there would change the
findings. Each entry is therefore signed with a secret key that only this user can read,
kept outside every repository: ``$FLAKE8_TENSORCOPY_KEY_DIR``, else
``$XDG_CACHE_HOME/flake8-tensorcopy``, else ``~/.cache/flake8-tensorcopy``, in a file
``key`` made on first use with permissions 0600. An entry whose signature does not match is
ignored (and rewritten); without a usable key the disk cache is neither read nor written.

The signature is keyed BLAKE2b, which is a MAC by design (RFC 7693) and needs no
``hashlib`` (which loads OpenSSL: memory every run would pay).
"""

from __future__ import annotations

import os
import stat

try:  # the same blake2b the cache hashes with, without hashlib loading OpenSSL
    from _blake2 import blake2b
except ImportError:  # not CPython
    from hashlib import blake2b
try:  # a comparison in constant time, without hmac importing hashlib
    from _operator import _compare_digest as same_digest
except ImportError:  # not CPython
    from hmac import compare_digest as same_digest

from .plain_file import read_plain_file

KEY_DIR_VARIABLE = "FLAKE8_TENSORCOPY_KEY_DIR"
_KEY_FILE = "key"
_KEY_BYTES = 32
_KEYS: dict[str, bytes | None] = {}  # key folder -> its key (None: none usable), once a process


def key_folder() -> str:
    chosen = os.environ.get(KEY_DIR_VARIABLE)
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG specification: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "flake8-tensorcopy")


def signature(body: bytes) -> str | None:
    """The signature of ``body`` with this user's key (None: no key can be had)."""
    key = _key()
    return blake2b(body, key=key, digest_size=32).hexdigest() if key is not None else None


def signed_by_us(body: bytes, claimed: bytes) -> bool:
    expected = signature(body)
    return expected is not None and same_digest(expected.encode("ascii"), claimed)


def _key() -> bytes | None:
    folder = key_folder()
    if folder not in _KEYS:
        _KEYS[folder] = _read_key(folder) or (_read_key(folder) if _make_key(folder) else None)
    return _KEYS[folder]


def _read_key(folder: str) -> bytes | None:
    """The key, when it is a plain file that only this user can read or write."""
    path = os.path.join(folder, _KEY_FILE)
    text = read_plain_file(path, 2 * _KEY_BYTES)
    if text is None or len(text) != 2 * _KEY_BYTES:
        return None
    try:
        status = os.lstat(path)
        key = bytes.fromhex(text.decode("ascii"))
    except (OSError, ValueError):
        return None
    if hasattr(os, "geteuid") and (status.st_uid != os.geteuid() or stat.S_IMODE(status.st_mode) & 0o077):
        return None  # another user could read it, or make it say what they like
    return key


def _make_key(folder: str) -> bool:
    """Make the key file (whole, or not at all: ``-j N`` workers may race to make it);
    False when the folder cannot be written (a read-only home)."""
    import tempfile

    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".key-")  # made 0600
    except OSError:
        return False
    try:
        with os.fdopen(handle, "w", encoding="ascii") as file:
            file.write(os.urandom(_KEY_BYTES).hex())
        os.link(temporary, os.path.join(folder, _KEY_FILE))  # fails where one was made first
    except FileExistsError:
        pass
    except OSError:
        return False
    finally:
        try:
            os.unlink(temporary)
        except OSError:
            pass
    return True
