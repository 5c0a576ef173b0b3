"""The flake8 adapter: a thin shell over :func:`engine.lint_source`.

flake8 hands us the decoded source (``lines``, the unsaved buffer under an editor) and
the ``ast`` tree it already parsed; we never reopen the file. Any failure is contained
here: one exception escaping ``run()`` would abort flake8's whole run, for every file.
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Iterator

from . import __version__
from .engine import AnalysisError, lint_source, rules_for

# A child of flake8's logger, so that ``flake8 -v`` shows which files were skipped.
LOG = logging.getLogger("flake8.tensorcopy")


class TensorCopyChecker:
    name = "flake8-tensorcopy"
    version = __version__
    rules = tuple(rules_for())

    def __init__(self, tree: ast.Module, lines: list[str], filename: str = "-") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        try:
            findings = lint_source("".join(self.lines), self.tree, rules=self.rules)
        except AnalysisError as error:
            LOG.info("flake8-tensorcopy skipped %s: %s", self.filename, error)
            return
        except Exception:  # a bug of ours must not cost the user their whole flake8 run
            LOG.warning("flake8-tensorcopy failed on %s; please report it", self.filename, exc_info=True)
            return
        for finding in findings:
            yield finding.line, finding.col, finding.message, type(self)
