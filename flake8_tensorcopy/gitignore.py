"""What git would not ignore in a folder, asked of git itself (exact, and no dependency).

``git ls-files --cached --others --exclude-standard`` lists the tracked files and the
untracked ones that no ``.gitignore``, ``.git/info/exclude`` or global excludes file
ignores; git does not even descend into an ignored folder. A tracked file is never
ignored (git's own rule). Nested repositories and submodules are asked in turn.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_LIST = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")


def visible_files(folder: Path) -> set[str] | None:
    """Paths under ``folder`` (relative to it, normalised) that git does not ignore;
    None when ``folder`` is not in a git work tree or git cannot be run."""
    try:
        listed = subprocess.run(["git", "-C", str(folder), *_LIST], capture_output=True, check=False)
    except OSError:  # git is not installed
        return None
    if listed.returncode != 0:
        return None
    visible: set[str] = set()
    for entry in os.fsdecode(listed.stdout).split("\0"):
        if not entry:
            continue
        relative = os.path.normpath(entry)
        if (folder / relative).is_dir():  # a nested repository or a submodule
            visible.update(os.path.join(relative, inner) for inner in visible_files(folder / relative) or ())
        else:
            visible.add(relative)
    return visible


def folders_of(files: set[str]) -> set[str]:
    """Every folder on the way to ``files`` (relative paths): the ones worth walking."""
    folders = set()
    for path in files:
        parent = os.path.dirname(path)
        while parent and parent not in folders:
            folders.add(parent)
            parent = os.path.dirname(parent)
    return folders
