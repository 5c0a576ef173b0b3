"""The plugin through the real flake8 CLI, in a subprocess: where column and noqa bugs show."""

import json
import subprocess
import sys
import textwrap

import pytest

from flake8_tensorcopy.rules import ALL_RULES

pytestmark = pytest.mark.compat

RISKY = textwrap.dedent(
    """\
    import copy
    import torch


    def train(w: torch.Tensor, x: torch.Tensor, lr: float):
        w.data.add_(-lr)
        snap = x.clone().detach()
        again = x.clone().detach()  # noqa: TCP002
        both = x.clone().detach()  # noqa: E501,TCP002
        return copy.deepcopy(x), snap, again, both, torch.tensor(x)
    """
)
# TCP005 (torch.tensor(x), line 10) is opt-in: not in a default run.
EXPECTED = [
    "risky.py:6:5: TCP001",
    "risky.py:7:12: TCP002",
    "risky.py:10:12: TCP003",
]


def flake8(*args, cwd, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True, input=stdin, timeout=300
    )


def located(output: str) -> list[str]:
    """``path:line:col: CODE`` of each reported line."""
    return [" ".join(line.split(" ")[:2]) for line in output.splitlines() if line]


@pytest.mark.slow
@pytest.mark.parametrize("select", ["TC", "TCP", "TCP0"])
def test_select_prefixes_report_at_flake8_columns(tmp_path, select):
    (tmp_path / "risky.py").write_text(RISKY)
    result = flake8("--select", select, "risky.py", cwd=tmp_path)
    assert located(result.stdout) == EXPECTED
    assert result.returncode == 1


@pytest.mark.slow
def test_noqa_for_one_code_silences_only_that_line(tmp_path):
    (tmp_path / "risky.py").write_text(RISKY.replace("w.data.add_(-lr)", "w.data.add_(-lr)  # noqa: TCP001"))
    result = flake8("--select", "TCP", "risky.py", cwd=tmp_path)
    assert located(result.stdout) == EXPECTED[1:]


def test_default_run_includes_our_codes(tmp_path):
    (tmp_path / "risky.py").write_text(RISKY)
    result = flake8("risky.py", cwd=tmp_path)
    assert [l for l in located(result.stdout) if " TCP" in l] == EXPECTED


@pytest.mark.slow
def test_parallel_jobs_give_the_same_findings(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.py").write_text(RISKY)
    result = flake8("-j", "2", "--select", "TCP", ".", cwd=tmp_path)
    expected = sorted(line.replace("risky.py", f"./{name}.py") for name in "abc" for line in EXPECTED)
    assert sorted(located(result.stdout)) == expected


@pytest.mark.slow
def test_stdin_is_linted_as_the_editor_buffer(tmp_path):
    result = flake8("--select", "TCP", "--stdin-display-name", "risky.py", "-", cwd=tmp_path, stdin=RISKY)
    assert located(result.stdout) == EXPECTED
    assert not (tmp_path / "risky.py").exists()


@pytest.mark.slow
def test_non_ascii_identifiers_keep_code_point_columns(tmp_path):
    source = "def f(größe):\n    größe.data.add_(1); größe.clone().detach()\n"
    (tmp_path / "u.py").write_text(source, encoding="utf-8")
    result = flake8("--select", "TCP", "u.py", cwd=tmp_path)
    assert located(result.stdout) == ["u.py:2:5: TCP001", "u.py:2:25: TCP002"]


@pytest.mark.slow
def test_unanalysable_files_do_not_stop_the_run(tmp_path):
    (tmp_path / "a_syntax_error.py").write_text("def f(:\n")
    # 300 terms: pyflakes copes, LibCST would take seconds (see limits.py)
    deep = "def f(x):\n    y = x.clone().detach() * " + " * ".join(["x"] * 300) + "\n    return y\n"
    (tmp_path / "b_deep.py").write_text(deep)
    (tmp_path / "c_risky.py").write_text(RISKY)
    result = flake8("--select", "TCP,E999", "-v", ".", cwd=tmp_path)
    lines = located(result.stdout)
    assert lines[0].startswith("./a_syntax_error.py:1:") and lines[0].endswith("E999")
    assert [l for l in lines if "b_deep" in l] == []
    assert [l for l in lines if "c_risky" in l] == [l.replace("risky.py", "./c_risky.py") for l in EXPECTED]
    assert "flake8-tensorcopy skipped part of ./b_deep.py: line 2: an expression nested 306 deep" in result.stderr
    assert "Traceback" not in result.stderr


_REGISTERED = """
import configparser, json
from flake8.plugins import finder
options = finder.PluginOptions(local_plugin_paths=(), enable_extensions=frozenset({"TCP006", "TCP010"}),
                               require_plugins=frozenset())
plugins = finder.load_plugins(finder.find_plugins(configparser.RawConfigParser(), options), options)
print(json.dumps(sorted([p.entry_name, p.plugin.version, p.obj.__module__ + ":" + p.obj.__name__]
                        for p in plugins.all_plugins() if p.plugin.package == "flake8-tensorcopy")))
"""


@pytest.mark.slow
def test_plugin_is_registered_under_TCP(tmp_path):
    """flake8 finds our checkers under the entry names `TCP` (so `--select TC`/`TCP` picks
    them up) and `TCP006`, `TCP010` (opt-in: `--enable-extensions TCP006`), as this version."""
    from flake8_tensorcopy import __version__

    result = flake8("--version", cwd=tmp_path)
    assert f"flake8-tensorcopy: {__version__}" in result.stdout
    found = subprocess.run([sys.executable, "-c", _REGISTERED], cwd=tmp_path, capture_output=True, text=True,
                           check=True, timeout=120)
    assert json.loads(found.stdout) == [
        ["TCP", __version__, "flake8_tensorcopy.plugin:TensorCopyChecker"],
        ["TCP006", __version__, "flake8_tensorcopy.plugin:TCP006Checker"],
        ["TCP010", __version__, "flake8_tensorcopy.plugin:TCP010Checker"],
    ]


def _with_noqa(source: str, line: int, code: str) -> str:
    lines = source.splitlines()
    lines[line - 1] += f"  # noqa: {code}"
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_every_rule_at_its_column_and_silenced_by_its_noqa(tmp_path):
    """Each rule's first flagged example, opt-in rules enabled: found where the example says,
    and gone with ``# noqa: CODE`` on that line."""
    opt_in = ",".join(rule.code for rule in ALL_RULES if not rule.enabled_by_default)
    expected = []
    for rule in ALL_RULES:
        example = rule.flagged[0]
        line, column = example.expect[0]
        (tmp_path / f"{rule.code.lower()}.py").write_text(example.code)
        (tmp_path / f"{rule.code.lower()}_noqa.py").write_text(_with_noqa(example.code, line, rule.code))
        expected.append(f"{rule.code.lower()}.py:{line}:{column}: {rule.code}")
    files = sorted(p.name for p in tmp_path.glob("tcp*.py"))
    result = flake8("--select", "TCP", "--enable-extensions", opt_in, *files, cwd=tmp_path)
    assert sorted(located(result.stdout)) == sorted(expected), result.stdout + result.stderr


@pytest.mark.slow
def test_a_data_write_says_where_it_runs_and_tcp1_drops_the_harmless_ones(tmp_path):
    """No_grad, an initialiser, and between a forward and its backward: three messages, and
    `--extend-ignore TCP1` keeps only the finding where harm is possible."""
    from test_rules import PLACED, PLACES

    (tmp_path / "places.py").write_text(PLACES)
    result = flake8("--select", "TCP", "places.py", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert [(int(line.split(":")[1]), line.split(" ")[1]) for line in lines] == [
        (line, code) for line, (code, _, _) in PLACED.items()
    ], result.stdout + result.stderr
    messages = {int(line.split(":")[1]): line.split(" ", 2)[2] for line in lines}
    assert all(PLACED[line][1] in message for line, message in messages.items())
    assert len({messages[9], messages[14], messages[19]}) == 3
    kept = flake8("--select", "TCP", "--extend-ignore", "TCP1", "places.py", cwd=tmp_path)
    assert located(kept.stdout) == ["places.py:19:5: TCP001"], kept.stdout + kept.stderr


def test_a_run_that_forks_workers_imports_the_analysis_before_the_fork(tmp_path, monkeypatch):
    """flake8 forks its workers once the options are parsed: the engine and the chosen
    rules imported then are shared by every worker, not imported by each."""
    import argparse
    import multiprocessing
    import os

    from flake8.main.options import JobsArgument

    from flake8_tensorcopy import plugin

    def options(jobs: str, *names: str) -> argparse.Namespace:
        return argparse.Namespace(jobs=JobsArgument(jobs), filenames=list(names))

    (tmp_path / "a.py").write_text("")
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda allow_none=False: "fork")
    assert plugin._forks_workers(options("auto", str(tmp_path / "a.py"), str(tmp_path / "b.py")))
    assert plugin._forks_workers(options("2", str(tmp_path)))  # a folder: its files, likely several
    assert not plugin._forks_workers(options("auto", str(tmp_path / "a.py")))  # one file: serial
    assert not plugin._forks_workers(options("1", str(tmp_path)))
    assert not plugin._forks_workers(options("auto", "-"))
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda allow_none=False: "spawn")
    assert not plugin._forks_workers(options("auto", str(tmp_path)))  # a spawned worker imports anew


def test_importing_the_plugin_leaves_the_cycle_collector_as_it_was():
    probe = (
        "import gc\nimport flake8_tensorcopy.plugin\nassert gc.isenabled()\n"
        "gc.disable()\nimport importlib\nimportlib.reload(flake8_tensorcopy.plugin)\nassert not gc.isenabled()\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
