"""The ``[tool.flake8-tensorcopy]`` configuration: found, read, checked, merged with overrides.

Pure (it reads files, runs nothing, prints nothing), so that the command line and an
editor's language server share it: ``load(paths, ...)`` gives :class:`Settings`, whose
``rules_for(path)`` and ``excluded(path)`` answer for one file.

Which file: ``--config FILE`` when given; else the nearest ``pyproject.toml`` that holds a
``[tool.flake8-tensorcopy]`` table, from the folder that holds every given path up to the
file system's root (a ``pyproject.toml`` without the table is passed over, as ruff passes
over one without ``[tool.ruff]``). ``isolated`` reads no file at all.

Path patterns (``exclude``, ``per-file-ignores``) are globs (``*`` also matches ``/``) that
count from the configuration file's folder; a pattern without a ``/`` matches a file's or
a folder's base name anywhere (flake8's and ruff's rule).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, TYPE_CHECKING

from flake8 import defaults

from . import selection

if TYPE_CHECKING:
    from .rule import Rule

TABLE = "flake8-tensorcopy"
PYPROJECT = "pyproject.toml"
# Jupyter's autosaved copies too: linting them would report every notebook twice.
DEFAULT_EXCLUDE = (*defaults.EXCLUDE, ".ipynb_checkpoints")

_CODE_LISTS = ("select", "extend-select", "ignore")
_PATTERN_LISTS = ("exclude", "extend-exclude")
# "project", "cache" and "cache-dir": read by the analysis itself (analysis/project.py),
# checked here like the others; "cache-dir" only to warn that a project may not choose it.
_BOOLEANS = ("unsafe-fixes", "respect-gitignore", "project", "cache")
_FOLDERS = ("cache-dir",)
KEYS = (*_CODE_LISTS, "per-file-ignores", *_PATTERN_LISTS, *_BOOLEANS, *_FOLDERS)


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file (and the key)."""


class Pattern(NamedTuple):
    """A glob over paths: anchored at ``base`` when it holds a ``/``, else over base names."""

    text: str
    base: Path

    def matches(self, path: str) -> bool:
        if "/" not in self.text:
            return fnmatch.fnmatch(os.path.basename(os.path.normpath(path)), self.text)
        anchored = os.path.normpath(os.path.join(self.base, self.text))
        return fnmatch.fnmatch(os.path.abspath(path), anchored)


class Overrides(NamedTuple):
    """What the command line says, already split into codes and patterns; None: not given."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    unsafe_fixes: bool | None = None
    respect_gitignore: bool | None = None


class Settings(NamedTuple):
    source: Path | None  # the configuration file read; None: the defaults
    codes: tuple[str, ...]  # of the rules chosen, in code order
    exclude: tuple[Pattern, ...]
    per_file_ignores: tuple[tuple[Pattern, tuple[str, ...]], ...] = ()
    unsafe_fixes: bool = False
    respect_gitignore: bool = True

    @property
    def rules(self) -> tuple[type[Rule], ...]:
        return _rules(self.codes)

    def codes_for(self, path: str) -> tuple[str, ...]:
        """The codes that run on ``path``: :attr:`codes` less its per-file ignores."""
        ignored = tuple(code for pattern, codes in self.per_file_ignores if pattern.matches(path) for code in codes)
        return tuple(code for code in self.codes if not code.startswith(ignored))

    def rules_for(self, path: str) -> list[type[Rule]]:
        """The rules that run on ``path``: :attr:`rules` less its per-file ignores."""
        return list(_rules(self.codes_for(path)))

    def excluded(self, path: str) -> bool:
        return any(pattern.matches(path) for pattern in self.exclude)


def _rules(codes: tuple[str, ...]) -> tuple[type[Rule], ...]:
    from .rules import ALL_RULES  # only when asked: the flake8 plugin needs the codes alone

    return tuple(rule for rule in ALL_RULES if rule.code in codes)


class _FileValues:
    """A configuration file's table, checked."""

    def __init__(self, source: Path | None) -> None:
        self.source = source
        self.layer = selection.Layer()
        self.exclude: tuple[Pattern, ...] | None = None
        self.extend_exclude: tuple[Pattern, ...] = ()
        self.per_file_ignores: tuple[tuple[Pattern, tuple[str, ...]], ...] = ()
        self.booleans: dict[str, bool] = {}


def load(
    paths: Sequence[str],
    config: str | os.PathLike[str] | None = None,
    isolated: bool = False,
    overrides: Overrides = Overrides(),
    cwd: str | os.PathLike[str] | None = None,
) -> Settings:
    """The settings for linting ``paths``: the configuration file's, then ``overrides``.

    Patterns in ``overrides`` count from ``cwd`` (default: the current folder).
    Raises :class:`ConfigError`.
    """
    here = Path(cwd or os.getcwd())
    if isolated:
        found = None
    elif config is not None:
        found = _read(here / config, table_required=Path(config).name == PYPROJECT)
    else:
        found = _discover(paths, here)
    values = found or _FileValues(source=None)
    cli_layer = selection.Layer(overrides.select, overrides.extend_select, overrides.ignore)

    def anchored(patterns: Iterable[str]) -> tuple[Pattern, ...]:
        return tuple(Pattern(text, here) for text in patterns)

    if overrides.exclude is not None:
        exclude = anchored(overrides.exclude)
    elif values.exclude is not None:
        exclude = values.exclude
    else:
        exclude = anchored(DEFAULT_EXCLUDE)
    booleans = values.booleans
    return Settings(
        source=values.source,
        codes=selection.resolve([values.layer, cli_layer]),
        exclude=exclude + values.extend_exclude + anchored(overrides.extend_exclude),
        per_file_ignores=values.per_file_ignores,
        unsafe_fixes=_first(overrides.unsafe_fixes, booleans.get("unsafe-fixes"), False),
        respect_gitignore=_first(overrides.respect_gitignore, booleans.get("respect-gitignore"), True),
    )


def _first(*values: bool | None) -> bool:
    return next(value for value in values if value is not None)


def _discover(paths: Sequence[str], here: Path) -> _FileValues | None:
    starts = []
    for given in paths or ["."]:
        path = here / given
        starts.append(str(path if path.is_dir() else path.parent))
    folder = Path(os.path.normpath(os.path.commonpath(starts)))
    for candidate in (folder, *folder.parents):
        found = _read(candidate / PYPROJECT, table_required=False) if (candidate / PYPROJECT).is_file() else None
        if found is not None:
            return found
    return None


def _read(path: Path, table_required: bool) -> _FileValues | None:
    """``path``'s values; None for a pyproject.toml without our table (unless required).

    A file not named pyproject.toml holds the keys at its top level (like ruff.toml).
    """
    import tomllib  # here: a run that reads no configuration file never loads it

    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read it: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8: {error}") from None
    except tomllib.TOMLDecodeError as error:  # its message ends "(at line L, column C)"
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    if path.name != PYPROJECT:
        return _check(path, document, where="")
    table = document.get("tool", {}).get(TABLE) if isinstance(document.get("tool"), dict) else None
    if table is None:
        if table_required:
            raise ConfigError(f"{path}: has no [tool.{TABLE}] table")
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.{TABLE} must be a table")
    return _check(path, table, where=f"[tool.{TABLE}] ")


def _check(path: Path, table: Mapping[str, object], where: str) -> _FileValues:
    base = path.parent.absolute()
    values = _FileValues(source=path.absolute())
    codes: dict[str, tuple[str, ...]] = {}

    def fail(key: str, problem: str) -> ConfigError:
        return ConfigError(f"{path}: {where}{key}: {problem}")

    for key, value in table.items():
        if key not in KEYS:
            import difflib  # only to suggest a key

            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(KEYS)})"
            raise fail(key, f"unknown key{hint}")
        if key in _CODE_LISTS:
            codes[key] = _codes(value, lambda problem, key=key: fail(key, problem))
        elif key in _PATTERN_LISTS:
            patterns = tuple(Pattern(text, base) for text in _strings(value, lambda p, key=key: fail(key, p)))
            if key == "exclude":
                values.exclude = patterns
            else:
                values.extend_exclude = patterns
        elif key in _BOOLEANS:
            if not isinstance(value, bool):
                raise fail(key, f"must be true or false, not {value!r}")
            values.booleans[key] = value
        elif key in _FOLDERS:
            if not isinstance(value, str) or not value:
                raise fail(key, f"must be a folder's path, not {value!r}")
        else:
            values.per_file_ignores = _per_file_ignores(value, base, fail)
    values.layer = selection.Layer(codes.get("select"), codes.get("extend-select", ()), codes.get("ignore", ()))
    return values


def _strings(value: object, fail) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise fail(f"must be a list of strings, not {value!r}")
    return value


def _codes(value: object, fail) -> tuple[str, ...]:
    """Code prefixes that each select at least one rule: a typo must not pass in silence."""
    items = _strings(value, fail)
    if any("," in item for item in items):
        raise fail("one code per string, not comma-separated")
    try:
        codes = selection.parse_codes(items)
    except ValueError as error:
        raise fail(str(error)) from None
    for code in codes:
        if not selection.matches_a_rule(code):
            first, last = selection.CODES[0][0], selection.CODES[-1][0]
            raise fail(f"{code!r} matches no rule (the codes are {first} to {last})")
    return codes


def _per_file_ignores(value: object, base: Path, fail) -> tuple[tuple[Pattern, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise fail("per-file-ignores", f"must be a table of pattern = [codes], not {value!r}")
    return tuple(
        (Pattern(pattern, base), _codes(codes, lambda problem, p=pattern: fail(f"per-file-ignores.{p!r}", problem)))
        for pattern, codes in value.items()
    )
