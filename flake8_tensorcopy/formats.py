"""Output formats of the CLI: text (flake8's), json, github (workflow commands), sarif.

A finding in a notebook carries its cell: its line and column count inside that cell
(ruff's convention), so each format names the cell as it can (see docs/notebooks.md).
"""

from __future__ import annotations

import json
import posixpath
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath, PureWindowsPath

from . import __version__, docs, metadata
from .edits import Placed
from .engine import Finding
from .rules import ALL_RULES

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


@dataclass(frozen=True)
class Located:
    """A finding in a file, as the CLI shows it."""

    path: str  # as the user named it (or the stdin display name)
    finding: Finding
    fixable: bool  # with the fixes the user allowed (safe, or unsafe too)
    cell: int | None = None  # in a notebook: the cell (1-based among all cells) ``finding.line`` counts in
    edits: tuple[Placed, ...] = ()  # its fix alone, as edits (asked for by the JSON format only)

    @property
    def text(self) -> str:
        """The message without its leading code."""
        code, _, text = self.finding.message.partition(" ")
        return text if code == self.finding.code else self.finding.message


@dataclass(frozen=True)
class FileError:
    path: str
    message: str


def text(findings: Sequence[Located], errors: Sequence[FileError]) -> str:
    """flake8's default format: ``path:row:col: CODE text`` (1-based column); in a notebook
    ruff's ``path:cell N:row:col: CODE text``."""
    return "".join(
        f"{f.path}:{'' if f.cell is None else f'cell {f.cell}:'}{f.finding.line}:{f.finding.col + 1}: "
        f"{f.finding.message}\n"
        for f in findings
    )


def json_format(findings: Sequence[Located], errors: Sequence[FileError]) -> str:
    items = []
    for f in findings:
        fix = f.finding.fix
        items.append({
            "path": f.path,
            **({} if f.cell is None else {"cell": f.cell}),
            "line": f.finding.line,
            "column": f.finding.col + 1,
            **_end(f.finding),
            "code": f.finding.code,
            "message": f.text,
            "fix": None if fix is None else {
                "applicability": "safe" if fix.safe else "unsafe",
                "description": fix.description,
                # Empty where the fix applies only with the others (`--fix`), not on its own.
                "edits": [{
                    **({} if edit.cell is None else {"cell": edit.cell}),
                    "line": edit.line, "column": edit.col + 1, "end_line": edit.end_line,
                    "end_column": edit.end_col + 1, "content": edit.new_text,
                } for edit in f.edits],
            },
        })
    return json.dumps(items, indent=2) + "\n"


def _end(finding: Finding) -> dict[str, int]:
    """Where the flagged expression ends (1-based column, as ``column``), when known."""
    if finding.end_line is None or finding.end_col is None:
        return {}
    return {"end_line": finding.end_line, "end_column": finding.end_col + 1}


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Located], errors: Sequence[FileError]) -> str:
    """GitHub Actions workflow commands: one annotation per finding (and per file error)."""
    out = []
    for f in findings:
        if f.cell is not None:
            # GitHub shows a notebook as its JSON, where a cell's row is no line: the
            # annotation goes on the file, its title says where in the notebook.
            where = f"cell {f.cell}, line {f.finding.line}, col {f.finding.col + 1}"
            out.append(
                f"::warning file={_escape_property(f.path)},title={_escape_property(f'{f.finding.code} ({where})')}"
                f"::{_escape_data(f.finding.message)}\n"
            )
            continue
        out.append(
            f"::warning file={_escape_property(_github_path(f.path))},line={f.finding.line},col={f.finding.col + 1},"
            f"title={f.finding.code}::{_escape_data(f.finding.message)}\n"
        )
    for error in errors:
        out.append(
            f"::error file={_escape_property(_github_path(error.path))},title=flake8-tensorcopy::"
            f"{_escape_data(error.message)}\n"
        )
    return "".join(out)


def _github_path(path: str) -> str:
    """``pkg/x.py`` for ``./pkg/x.py``: GitHub places no annotation on a path with ``./``."""
    return posixpath.normpath(path.replace("\\", "/")) if not path.startswith("/") else path


def _uri(path: str) -> str:
    """A SARIF artifact URI: a relative reference for a relative path, else a file URI."""
    if PureWindowsPath(path).is_absolute() and not path.startswith("/"):
        return PureWindowsPath(path).as_uri()
    if path.startswith("/"):
        return PurePath(path).as_uri()
    normal = posixpath.normpath(path.replace("\\", "/"))
    return urllib.parse.quote(normal, safe="/")


def sarif(findings: Sequence[Located], errors: Sequence[FileError]) -> str:
    """SARIF 2.1.0: one run, every rule described, one result per finding."""
    index = {rule.code: position for position, rule in enumerate(ALL_RULES)}
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": f"{rule.code} {rule.message}"},
            "fullDescription": {"text": rule.docs.what},
            "help": {"text": docs.render(rule), "markdown": docs.render(rule)},
            **({"helpUri": url} if (url := docs.page_url(rule)) else {}),
            "defaultConfiguration": {"level": "warning", "enabled": rule.enabled_by_default},
            "properties": {"fixSafety": rule.docs.fix_safety},
        }
        for rule in ALL_RULES
    ]
    results = []
    for f in findings:
        result = {
            "ruleId": f.finding.code,
            "level": "warning",
            "message": {"text": f.finding.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    "region": {"startLine": f.finding.line, "startColumn": f.finding.col + 1,
                               **({} if f.finding.end_line is None else {
                                   "endLine": f.finding.end_line, "endColumn": f.finding.end_col + 1})},
                }
            }],
        }
        if f.cell is not None:  # the region counts in this cell (see docs/notebooks.md)
            location = result["locations"][0]
            location["logicalLocations"] = [{"name": f"cell {f.cell}", "kind": "module"}]
            location["properties"] = {"cell": f.cell}
        if f.finding.code in index:
            result["ruleIndex"] = index[f.finding.code]
        if f.finding.fix is not None:
            result["properties"] = {
                "fix": {"applicability": "safe" if f.finding.fix.safe else "unsafe",
                        "description": f.finding.fix.description}
            }
        results.append(result)
    notifications = [
        {
            "level": "error",
            "message": {"text": error.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(error.path)}}}],
        }
        for error in errors
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "flake8-tensorcopy",
                "version": __version__,
                "semanticVersion": __version__,
                **({"informationUri": url} if (url := metadata.repository_url()) else {}),
                "rules": rules,
            }},
            # Our columns count code points, not SARIF's default UTF-16 code units.
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": not errors,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def statistics(findings: Sequence[Located]) -> str:
    """flake8's ``--statistics``: ``count code message`` per code, the message of its first
    finding (``findings`` come sorted by path, as flake8 sorts them)."""
    counts: dict[str, int] = {}
    first: dict[str, str] = {}
    for f in findings:
        counts[f.finding.code] = counts.get(f.finding.code, 0) + 1
        first.setdefault(f.finding.code, f.text)
    return "".join(f"{counts[code]:<5} {code} {first[code]}\n" for code in sorted(counts))


FORMATS: dict[str, Callable[[Sequence[Located], Sequence[FileError]], str]] = {
    "text": text,
    "json": json_format,
    "github": github,
    "sarif": sarif,
}
