"""Telling the user, once a process, that a setting was refused.

The analysis runs inside flake8, the CLI and the language server, which share no way to
show a note; standard error reaches the user in all three (the language server's stdout is
its protocol, its stderr the editor's log). flake8's ``-j N`` workers each say it once.
"""

from __future__ import annotations

import sys

_SAID: set[str] = set()


def warn_once(message: str) -> None:
    if message in _SAID:
        return
    _SAID.add(message)
    try:
        sys.stderr.write(f"flake8-tensorcopy: warning: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # no stderr (pythonw), or closed
        pass
