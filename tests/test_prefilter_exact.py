"""The prefilter is exact: parsing only the functions it picks loses no finding.

Runs every rule (opt-in ones too) with and without the shortcut over real code: the
installed torch package's own sources, the files with the most trigger matches first,
this repository's fixtures, and application code from PyPI (trainers, training loops,
early stopping, RL: five pinned wheels, fetched once into a cache).

``python tests/test_prefilter_exact.py [DIR]`` checks every ``.py`` file under DIR
instead, on every core: by default the whole torch tree (about 10 minutes on 2 cores);
the accuracy corpus of application code (``python bench/accuracy/corpus.py export
DIR``, 3,495 files) takes about a minute.
"""

from __future__ import annotations

import ast
import importlib.util
import multiprocessing
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flake8_tensorcopy.engine import AnalysisError, lint_source
from flake8_tensorcopy.imports import ImportTable
from flake8_tensorcopy.blanking import blank_comments_and_strings
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
    # (shortcuts, fixes): the CLI's plan, the flake8 plugin's (statements alone), no plan
    for shortcuts, fixes in ((True, True), (True, False), (False, True)):
        try:
            outcomes.append(lint_source(source, tree, rules=ALL_RULES, shortcuts=shortcuts, fixes=fixes))
        except AnalysisError as error:
            outcomes.append(("not analysed", error.findings))
    cli, plugin, whole = outcomes
    return (cli if cli == plugin else (cli, plugin)), whole


FIXTURES = sorted((ROOT / "fixtures").glob("tcp*.py"))
NO_TORCH = pytest.mark.skipif(
    sys.version_info >= (3, 12) and importlib.util.find_spec("torch") is None,
    reason="the test extra installs no torch on Python 3.12+: torch's sources are the corpus on 3.11",
)


@pytest.fixture(scope="module")
def torch_sample() -> list[Path]:
    """Scored when a test asks for it, not when the module is collected (seconds, even under -k)."""
    return sample(torch_sources(), SAMPLE_LINES)


@pytest.mark.slow
@NO_TORCH
def test_the_corpus_is_real(torch_sample):
    assert len(torch_sample) > 50, "torch's sources were not found: install the test extra"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_shortcuts_lose_no_finding_on_the_fixtures(path):
    fast, whole = findings_both_ways(path.read_text(encoding="utf-8", errors="replace"))
    assert fast == whole


@pytest.mark.slow
@NO_TORCH
def test_shortcuts_lose_no_finding_on_torch_sources(torch_sample):
    differing = [_differs(path) for path in torch_sample]
    assert [difference for difference in differing if difference] == []


# Application code, where the hazards live: pure-Python wheels whose code trains models.
APPLICATION_WHEELS = (
    "stable-baselines3==2.9.2",
    "pytorch-tabnet==4.1.0",
    "skorch==1.4.0",
    "pytorch-ignite==0.5.5",
    "ultralytics==8.4.190",
)
WHEEL_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "flake8-tensorcopy-tests", "wheels")


def application_wheel(requirement: str) -> Path:
    """The wheel of ``requirement``, from the cache or fetched from the package index."""
    name = requirement.partition("==")[0].replace("-", "_")
    found = sorted(WHEEL_CACHE.glob(f"{name}-*.whl"))
    if not found:
        WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
        fetched = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
             "-d", str(WHEEL_CACHE), requirement],
            capture_output=True, text=True,
        )
        found = sorted(WHEEL_CACHE.glob(f"{name}-*.whl"))
        if fetched.returncode or not found:
            pytest.fail(f"cannot fetch {requirement} from the package index: {fetched.stderr[-2000:]}")
    return found[-1]


@pytest.mark.slow
@pytest.mark.parametrize("requirement", APPLICATION_WHEELS)
def test_shortcuts_lose_no_finding_on_application_code(requirement):
    with zipfile.ZipFile(application_wheel(requirement)) as wheel:
        sources = {name: wheel.read(name).decode("utf-8", "replace") for name in wheel.namelist() if name.endswith(".py")}
    assert len(sources) > 10
    outcomes = {name: findings_both_ways(source) for name, source in sources.items()}
    assert [name for name, (fast, whole) in outcomes.items() if fast != whole] == []


def _differs(path: Path) -> str | None:
    fast, whole = findings_both_ways(path.read_text(encoding="utf-8", errors="replace"))
    return None if fast == whole else f"DIFFERS {path}\n  prefiltered: {fast}\n  whole file: {whole}"


def main(argv: list[str]) -> int:
    paths = sorted(Path(argv[0]).rglob("*.py")) if argv else torch_sources()
    differing = 0
    with multiprocessing.Pool() as pool:
        for number, difference in enumerate(pool.imap_unordered(_differs, paths, chunksize=8), 1):
            if difference:
                differing += 1
                print(difference, flush=True)
            if number % 500 == 0:
                print(f"{number}/{len(paths)} files, {differing} differing", flush=True)
    print(f"{len(paths)} files, {differing} differing")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
