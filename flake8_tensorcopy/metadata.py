"""Where the project lives: its repository's URL, written once in pyproject.toml's
``[project.urls]``, and the links made from it (a rule's page)."""

from __future__ import annotations

import functools
import importlib.metadata
from pathlib import Path

DISTRIBUTION = "flake8-tensorcopy"
CHECKOUT_PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
# The branch the rule pages are linked on: no release is tagged yet.
PAGES_REF = "main"


@functools.cache
def repository_url() -> str | None:
    """From the checkout's pyproject.toml when the package runs from one (its metadata
    may be an older install's), else from the installed distribution's ``Project-URL``."""
    import tomllib  # only where a link is made: the flake8 plugin never asks

    try:
        project = tomllib.loads(CHECKOUT_PYPROJECT.read_text(encoding="utf-8"))["project"]
        if project.get("name") == DISTRIBUTION:
            return project["urls"]["Repository"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass
    try:
        entries = importlib.metadata.metadata(DISTRIBUTION).get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in entries:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "repository":
            return url.strip()
    return None


def rule_page_url(code: str) -> str | None:
    """The rule's page in the repository (``rules/TCPnnn.md``), None without a repository."""
    repository = repository_url()
    return f"{repository}/blob/{PAGES_REF}/rules/{code}.md" if repository else None
