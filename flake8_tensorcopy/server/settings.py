"""What the server lints with: the rules selected and whether unsafe fixes count.

The editor sends settings as ``initializationOptions`` and in
``workspace/didChangeConfiguration``, under a ``"flake8-tensorcopy"`` key or bare (where
only these keys are read)::

    {"select": ["TCP"], "ignore": ["TCP005"], "unsafeFixes": false}

``select``/``ignore`` are code prefixes, decided as the CLI's ``--select``/``--ignore`` (a
list, or one comma-separated string). ``unsafeFixes`` lets ``source.fixAll.tensorcopy``
apply the unsafe fixes too; each unsafe quick fix is offered either way, marked "(unsafe)".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from .. import config
from ..rule import Rule
from ..rules import ALL_RULES
from ..selection import Layer, parse_codes, resolve

SECTION = "flake8-tensorcopy"
KEYS = frozenset({"select", "ignore", "unsafeFixes"})


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool = False
    # What the project's configuration file and the editor's settings choose together for
    # one document (see settings_for); None: the editor's settings alone.
    resolved: tuple[type[Rule], ...] | None = None

    @cached_property
    def rules(self) -> tuple[type[Rule], ...]:
        return self.resolved if self.resolved is not None else _rules(self.select, self.ignore)

    @classmethod
    def from_client(cls, options: object) -> Settings:
        """Settings from what the editor sent; raises ValueError, naming the bad value."""
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise ValueError(f"settings must be an object, not {options!r}")
        if SECTION in options:  # ours alone: a key we do not know is a mistake worth saying
            options = options[SECTION]
            if not isinstance(options, Mapping):
                raise ValueError(f"{SECTION!r} must be an object, not {options!r}")
            unknown = sorted(set(options) - KEYS)
            if unknown:
                raise ValueError(f"unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(KEYS))})")
        # Bare, the object may also hold other tools' settings: only our keys are read.
        unsafe = options.get("unsafeFixes", False)
        if not isinstance(unsafe, bool):
            raise ValueError(f"unsafeFixes must be true or false, not {unsafe!r}")
        select, ignore = _codes(options, "select"), _codes(options, "ignore")
        _rules(select, ignore)  # a bad prefix raises here, where the caller can still report it
        return cls(select, ignore, unsafe)


def _rules(select: tuple[str, ...], ignore: tuple[str, ...]) -> tuple[type[Rule], ...]:
    """flake8's choice between select and ignore (the CLI's, without a configuration file)."""
    codes = resolve([Layer(select=parse_codes(select) or None, ignore=parse_codes(ignore))])
    return tuple(rule for rule in ALL_RULES if rule.code in codes)


def _codes(options: Mapping, key: str) -> tuple[str, ...]:
    value = options.get(key, ())
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{key} must be a list of code prefixes, not {value!r}")
    return tuple(value)


def settings_for(path: Path | None, client: Settings) -> Settings:
    """The settings that lint the document at ``path`` (None: not a file, e.g. untitled):
    the ``[tool.flake8-tensorcopy]`` table of the nearest pyproject.toml above it, found and
    read as the CLI does (its per-file ignores included), with the editor's settings
    (``client``) layered over it as the CLI's flags are. Raises :class:`config.ConfigError`
    for a bad configuration file."""
    if path is None:
        return client
    project = config.load([str(path)], overrides=config.Overrides(
        select=client.select or None, ignore=client.ignore, unsafe_fixes=client.unsafe_fixes or None))
    if project.source is None:
        return client
    return Settings(client.select, client.ignore, project.unsafe_fixes, tuple(project.rules_for(str(path))))
