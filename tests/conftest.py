"""The suite's own set-up: the package on the path, a signing key of its own, the corpus
group, and, in CI, skips checked against the written list of expected ones
(tests/expected_skips.txt)."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The disk cache's signing key (analysis/signing.py) lives in the user's cache folder: the
# tests, and the flake8 and CLI processes they start, keep theirs in a folder of their own.
_KEYS = tempfile.TemporaryDirectory(prefix="tensorcopy-test-key-")
os.environ["FLAKE8_TENSORCOPY_KEY_DIR"] = _KEYS.name

EXPECTED_SKIPS = Path(__file__).with_name("expected_skips.txt")
STRICT_SKIPS_ENV = "TENSORCOPY_STRICT_SKIPS"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A corpus test parametrised over no fetched repository is dropped: the group's one
    skip (test_every_corpus_repository_is_fetched) counts what did not run."""
    empty = [item for item in items if item.get_closest_marker("corpus") and any(
        str(mark.kwargs.get("reason", "")).startswith("got empty parameter set") for mark in item.iter_markers("skip"))]
    if empty:
        dropped = set(empty)
        items[:] = [item for item in items if item not in dropped]
        config.hook.pytest_deselected(items=empty)


def strict_skips_wanted() -> bool:
    """In CI (CI=true, as CI services set it) unless TENSORCOPY_STRICT_SKIPS=0; anywhere with =1."""
    chosen = os.environ.get(STRICT_SKIPS_ENV)
    if chosen is not None:
        return chosen == "1"
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def expected_skip_patterns(path: Path = EXPECTED_SKIPS) -> list[re.Pattern[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [re.compile(line) for line in lines if line.strip() and not line.startswith("#")]


def skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple):  # (path, line, "Skipped: reason")
        return report.longrepr[2].removeprefix("Skipped: ")
    return str(report.longrepr)


class SkipAudit:
    """Collects every skip of the run and fails the session on one that is not expected."""

    def __init__(self, patterns: list[re.Pattern[str]]) -> None:
        self.patterns = patterns
        self.unexpected: list[tuple[str, str]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._check(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._check(report)

    def _check(self, report) -> None:
        if report.skipped:
            reason = skip_reason(report)
            if not any(pattern.search(reason) for pattern in self.patterns):
                self.unexpected.append((report.nodeid, reason))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.unexpected:
            terminalreporter.section("unexpected skips", red=True)
            for nodeid, reason in self.unexpected:
                terminalreporter.line(f"{nodeid}: {reason}")
            terminalreporter.line(f"{len(self.unexpected)} skips are not on {EXPECTED_SKIPS.name}'s list: "
                                  f"a check did not run ({STRICT_SKIPS_ENV}=0 turns this off)")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unexpected and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config: pytest.Config) -> None:
    if strict_skips_wanted():
        config.pluginmanager.register(SkipAudit(expected_skip_patterns()), "tensorcopy-skip-audit")
