"""What the plugin reports on a file, as (statement line, code) pairs: every rule, opt-in ones included."""

from __future__ import annotations

import ast
from functools import cache

from flake8_tensorcopy import engine, rules
from statements import statement_line, statement_starts


@cache
def all_rules() -> list[type]:
    return engine.rules_for([rule.code for rule in rules.ALL_RULES])


def plugin_findings(source: str, where: str = "", path: str | None = None) -> list[tuple[int, str]]:
    """The plugin's findings on ``source``, each at the first line of its statement, sorted.
    ``path``: where the file lies in an export of its repository, whose other modules
    the plugin then reads as it would in a checkout.

    A part the plugin could not analyse costs only its own findings, as under flake8.
    Any other exception is the plugin's bug: it is raised again naming ``where``.
    """
    tree = ast.parse(source)
    try:
        found = engine.lint_source(source, tree, rules=all_rules(), path=path)
    except engine.AnalysisError as error:
        found = error.findings
    except Exception as error:
        raise RuntimeError(f"the plugin failed on {where or 'this source'}: {error!r}") from error
    starts = statement_starts(tree)
    return sorted({(statement_line(starts, finding.line), scored_as()[finding.code]) for finding in found})


@cache
def scored_as() -> dict[str, str]:
    """The code each finding is scored under: its own, or for a code that another rule's
    analysis reports (TCP101, TCP001's writes where no graph is in play) that rule's, so
    that a finding of either code on a statement labelled TCP001 counts as found and the
    figures stay comparable with those from before the split."""
    return {rule.code: rule.analyser().code for rule in rules.ALL_RULES}
