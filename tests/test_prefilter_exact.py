"""The prefilter is exact: parsing only the functions it picks loses no finding.

Runs every rule (opt-in ones too) with and without the shortcut over real code: the
installed torch package's own sources, the files with the most trigger matches first,
plus this repository's fixtures. ``python tests/test_prefilter_exact.py`` checks the
whole torch tree instead (about 10 minutes on 2 cores).
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from flake8_tensorcopy.engine import AnalysisError, lint_source
from flake8_tensorcopy.imports import ImportTable
from flake8_tensorcopy.prefilter import blank_comments_and_strings
from flake8_tensorcopy.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_LINES = 40_000  # keeps the test near a minute


def torch_sources() -> list[Path]:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return []
    return sorted(Path(spec.origin).parent.rglob("*.py"))


def trigger_matches(source: str) -> int:
    text = blank_comments_and_strings(source)
    imports = ImportTable({})
    return sum(
        len(pattern.findall(text))
        for rule in ALL_RULES
        for pattern in rule.trigger_spec().patterns(imports)[:1]
    )


def sample(paths: list[Path], budget: int) -> list[Path]:
    """The files richest in trigger matches (per line), up to ``budget`` lines."""
    scored = []
    for path in paths:
        source = path.read_text(encoding="utf-8", errors="replace")
        matches = trigger_matches(source)
        if matches:
            lines = source.count("\n") + 1
            scored.append((-matches / lines, str(path), lines))
    chosen, total = [], 0
    for _, path, lines in sorted(scored):
        if total + lines <= budget:
            chosen.append(Path(path))
            total += lines
    return chosen


def findings_both_ways(source: str):
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None, None
    outcomes = []
    for shortcuts in (True, False):
        try:
            outcomes.append(lint_source(source, tree, rules=ALL_RULES, shortcuts=shortcuts))
        except AnalysisError as error:
            outcomes.append(("not analysed", error.findings))
    return outcomes


CORPUS = sorted((ROOT / "fixtures").glob("tcp*.py")) + sample(torch_sources(), SAMPLE_LINES)


@pytest.mark.skipif(
    sys.version_info >= (3, 12) and importlib.util.find_spec("torch") is None,
    reason="the test extra installs no torch on Python 3.12+: torch's sources are the corpus on 3.11",
)
def test_the_corpus_is_real():
    assert len(CORPUS) > 50, "torch's sources were not found: install the test extra"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_shortcuts_lose_no_finding(path):
    fast, whole = findings_both_ways(path.read_text(encoding="utf-8", errors="replace"))
    assert fast == whole


def main() -> int:
    differing = 0
    paths = torch_sources()
    for number, path in enumerate(paths, 1):
        fast, whole = findings_both_ways(path.read_text(encoding="utf-8", errors="replace"))
        if fast != whole:
            differing += 1
            print(f"DIFFERS {path}\n  prefiltered: {fast}\n  whole file: {whole}", flush=True)
        if number % 200 == 0:
            print(f"{number}/{len(paths)} files, {differing} differing", flush=True)
    print(f"{len(paths)} files, {differing} differing")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
