"""Reading a file that a repository put there, without trusting what kind of file it is.

A repository is hostile input: a ``*.py`` that is a named pipe blocks whoever opens it for
reading until a writer comes, and a link to ``/dev/zero`` never ends. Every file the project
analysis reads (its modules, its configuration, its cache entries) comes through here: opened
without blocking, checked to be a plain file with ``fstat`` on what was opened (not on the
name, which may change in between), and read to a bound.
"""

from __future__ import annotations

import os
import stat

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def read_plain_file(path: str, limit: int, follow_links: bool = False) -> bytes | None:
    """The bytes of ``path`` when it is a plain file of at most ``limit`` bytes; None for
    anything else (missing, a pipe, a device, a folder, too large; a link unless
    ``follow_links``), never waiting on it."""
    flags = os.O_RDONLY | _NONBLOCK | (0 if follow_links else _NOFOLLOW)
    try:
        handle = os.open(path, flags)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        # Sized by the file, not the limit: a read of n allocates n bytes up front, and the
        # limit is megabytes. One byte more shows whether it grew since fstat.
        data = _read_up_to(handle, status.st_size + 1)
        if len(data) > status.st_size:
            data += _read_up_to(handle, limit + 1 - len(data))
    except OSError:
        return None
    finally:
        os.close(handle)
    return data if len(data) <= limit else None


def _read_up_to(handle: int, size: int) -> bytes:
    """``size`` bytes from the descriptor, fewer at the end of the file; read without a
    file object, which a project's thousands of small reads would each build and drop."""
    parts = []
    while size > 0:
        part = os.read(handle, size)
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return b"".join(parts)
