"""The test suite's own set-up: pytest runs it without warnings of its own making, and
collecting it costs no analysis (`-k` runs only what it selects)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_pytest_asyncio_has_its_loop_scope_configured(tmp_path):
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(ROOT / "pyproject.toml"),
         "--rootdir", str(tmp_path), "-W", "error::pytest.PytestDeprecationWarning", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


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


def test_a_pytest_left_running_fails_the_check():
    result = _check_for_strays("(exec -a pytest sleep 30) &\nsleep 0.5")
    assert result.returncode == 1
    assert "processes left running after the suite" in result.stderr and "pytest 30" in result.stderr
