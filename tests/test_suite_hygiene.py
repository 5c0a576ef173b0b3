"""The test suite's own set-up: pytest runs it without warnings of its own making,
collecting it costs no analysis (`-k` runs only what it selects), the fast tier holds most
of it, and in CI a skip off the written list fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_pytest_asyncio_has_its_loop_scope_configured(tmp_path):
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ROOT / "pyproject.toml"),
         "--rootdir", str(tmp_path), "-W", "error::pytest.PytestDeprecationWarning", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


@pytest.mark.slow
def test_collecting_the_prefilter_test_analyses_nothing():
    """Its torch sample is scored by a fixture: importing the module runs no trigger search."""
    probe = textwrap.dedent(f"""
        import sys
        sys.path[:0] = [{str(ROOT / "tests")!r}, {str(ROOT)!r}]
        from flake8_tensorcopy import prefilter
        calls = []
        original = prefilter.blank_comments_and_strings
        prefilter.blank_comments_and_strings = lambda source: calls.append(1) or original(source)
        import test_prefilter_exact
        print(len(calls))
    """)
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "0"


def _check_for_strays(script: str) -> subprocess.CompletedProcess:
    """Runs `.ci/no-strays.sh` at the end of `script`, in a session of its own (as CI runs .ci/run)."""
    return subprocess.run(
        ["bash", "-c", f"{script}\nbash .ci/no-strays.sh\ncode=$?\nkill $(jobs -p) 2>/dev/null\nexit $code"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, start_new_session=True,
    )


def test_what_runs_the_suite_is_no_stray_even_when_its_script_names_pytest():
    """CI's harness runs .ci/run from a bash whose script text says pytest and flake8-tensorcopy:
    an ancestor, never a stray (the check once failed a green CI run on this)."""
    result = _check_for_strays(": this harness runs pytest, flake8 and flake8-tensorcopy")
    assert result.returncode == 0, result.stderr


@pytest.mark.slow
def test_a_pytest_left_running_fails_the_check():
    result = _check_for_strays("(exec -a pytest sleep 30) &\nsleep 0.5")
    assert result.returncode == 1
    assert "processes left running after the suite" in result.stderr and "pytest 30" in result.stderr


def _pytest(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, env=env)


def test_the_expected_skips_are_patterns_that_match_the_suites_own_reasons():
    from conftest import expected_skip_patterns

    patterns = expected_skip_patterns()
    assert 5 <= len(patterns) <= 12, "a short, written list"
    for reason in ["CUDA not available", "CUDA not available: device moves cannot be shown",
                   "Python 3.13 syntax: this Python refuses it", "this Python parses 3.12 syntax",
                   "the test extra installs no torch on Python 3.12+: runtime proofs run on 3.11",
                   "corpus group: 366 corpus tests not run, 183 of 183 repositories have no mirror at /m"]:
        assert any(pattern.search(reason) for pattern in patterns), reason
    for reason in ["git is not installed", "could not import 'torch': No module named 'torch'",
                   "o/r: not fetched: no git directory at /m/o+r/repo", "got empty parameter set for (repo)"]:
        assert not any(pattern.search(reason) for pattern in patterns), reason


@pytest.mark.slow
def test_in_ci_a_skip_off_the_list_fails_the_run(tmp_path):
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n"
        "def test_expected():\n    pytest.skip('CUDA not available')\n\n"
        "def test_unexpected():\n    pytest.skip('the database is not running')\n\n"
        "def test_passes():\n    pass\n"
    )
    plugin = ["-p", "conftest", "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests"), "CI": "true"}
    env.pop("TENSORCOPY_STRICT_SKIPS", None)
    strict = _pytest(*plugin, cwd=tmp_path, env=env)
    assert strict.returncode == 1, strict.stdout
    assert "test_skips.py::test_unexpected: the database is not running" in strict.stdout
    assert "test_expected" not in strict.stdout.split("unexpected skips")[1]
    assert "1 skips are not on expected_skips.txt's list" in strict.stdout
    relaxed = _pytest(*plugin, cwd=tmp_path, env={**env, "TENSORCOPY_STRICT_SKIPS": "0"})
    assert relaxed.returncode == 0, relaxed.stdout
    assert "1 passed, 2 skipped" in relaxed.stdout


@pytest.mark.slow
def test_the_fast_tier_holds_most_of_the_suite_and_no_corpus_test():
    fast = _pytest("--collect-only", "-m", "not slow", cwd=ROOT)
    assert fast.returncode == 0, fast.stdout[-3000:]
    collected = [line for line in fast.stdout.splitlines() if "::" in line]
    assert len(collected) >= 1_600, len(collected)  # with the CUDA cases that skip here: 1,500 or more run
    corpus = _pytest("--collect-only", "-m", "corpus and not slow", cwd=ROOT)
    assert corpus.returncode == 5, corpus.stdout[-3000:]  # none collected: every corpus test is slow
