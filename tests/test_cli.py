"""The real command line in a subprocess: exit codes, stdin, formats, noqa, selection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import every_rule
import pytest

from flake8_tensorcopy import __version__, docs, metadata
from flake8_tensorcopy.rules import ALL_RULES

pytestmark = pytest.mark.compat

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"

RISKY = (
    "import copy\n"
    "import torch\n"
    "\n"
    "\n"
    "def f(w: torch.Tensor, t: torch.Tensor):\n"
    "    w.data.add_(1)\n"
    "    x = copy.deepcopy(t)\n"
    "    y = t.detach()\n"
    "    y.zero_()\n"
    "    return x, w.clone().detach()\n"
)
CLEAN = "import torch\n\n\ndef f(x: torch.Tensor):\n    return x.detach().clone()\n"


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300,
    )


@pytest.fixture
def project(tmp_path):
    """The two files, with every rule on (the opt-in ones too)."""
    (tmp_path / "risky.py").write_text(RISKY)
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "pyproject.toml").write_text(every_rule.TABLE)
    return tmp_path


def _rows(text: str) -> list[tuple[str, int, int, str]]:
    rows = []
    for line in text.splitlines():
        path, row, col, rest = line.split(":", 3)
        rows.append((path, int(row), int(col), rest.split()[0]))
    return rows


def test_text_format_and_exit_code_1(project):
    result = run("risky.py", "clean.py", cwd=project)
    assert result.returncode == 1, result.stderr
    assert _rows(result.stdout) == [
        ("risky.py", 6, 5, "TCP001"),
        ("risky.py", 7, 9, "TCP003"),
        ("risky.py", 9, 5, "TCP004"),
        ("risky.py", 10, 15, "TCP002"),
    ]
    assert "2 finding(s) fixable with --fix." in result.stderr
    assert "1 more fixable with --fix --unsafe-fixes." in result.stderr


def test_a_default_run_leaves_the_opt_in_rules_out(project):
    (project / "pyproject.toml").unlink()
    result = run("risky.py", cwd=project)
    assert [row[3] for row in _rows(result.stdout)] == ["TCP001", "TCP003", "TCP002"]  # not TCP004


@pytest.mark.slow
def test_clean_file_exits_0_with_no_output(project):
    result = run("clean.py", cwd=project)
    assert (result.returncode, result.stdout) == (0, "")


@pytest.mark.slow
def test_same_findings_as_flake8(project):
    ours = run("--format", "text", "risky.py", cwd=project)
    theirs = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "TCP", "risky.py"],
        cwd=project, capture_output=True, text=True, timeout=300,
    )
    assert ours.stdout == theirs.stdout and ours.stdout


NOQA_CASES = """\
import torch


def f(x: torch.Tensor):
    a = x.clone().detach()  # noqa: TCP002
    b = x.clone().detach()  # noqa
    c = x.clone().detach()  # noqa: E501
    d = x.clone().detach()  # NOQA:TCP0
    e = x.clone().detach()  # noqa: TCP
    g = x.clone().detach()  # noqa:tcp002
    h = x.clone().detach()  # noqa : TCP001
    i = x.clone().detach()  # noqa: E501,TCP002
    j = x.clone().detach(), '''
    '''  # noqa: TCP002
    k = x.clone(
    ).detach()  # noqa: TCP002
    m = x.clone() \\
        .detach()  # noqa: TCP002
    return a, b, c, d, e, g, h, i, j, k, m
"""


@pytest.mark.slow
def test_noqa_is_read_exactly_as_flake8_reads_it(tmp_path):
    """Blanket, prefix and case rules, multi-line strings and continuations: whatever flake8
    silences, the CLI silences (and does not fix), and the rest it reports (and fixes)."""
    (tmp_path / "n.py").write_text(NOQA_CASES)

    def flake8() -> str:
        return subprocess.run(
            [sys.executable, "-m", "flake8", "--select", "TCP", "n.py"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        ).stdout

    ours = run("n.py", cwd=tmp_path)
    assert ours.stdout == flake8()
    # E501 only, lowercase codes (flake8 compares codes case-sensitively), and a noqa on
    # the second line of a bracketed continuation do not silence the finding.
    assert [row for _, row, _, _ in _rows(ours.stdout)] == [7, 10, 15]
    fixed = run("--fix", "n.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Fixed 3 finding(s)" in fixed.stderr
    before, after = NOQA_CASES.splitlines(), (tmp_path / "n.py").read_text().splitlines()
    changed = [number for number, (old, new) in enumerate(zip(before, after), 1) if old != new]
    assert changed == [7, 10, 15, 16] and len(before) == len(after)
    assert flake8() == ""


@pytest.mark.slow
def test_file_level_noqa(tmp_path):
    (tmp_path / "m.py").write_text("# flake8: noqa\n" + RISKY)
    result = run("--fix", "m.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    assert (tmp_path / "m.py").read_text() == "# flake8: noqa\n" + RISKY


@pytest.mark.slow
def test_fix_then_unsafe_fix_then_idempotent(project):
    first = run("--fix", "risky.py", cwd=project)
    assert first.returncode == 1  # TCP003 (unsafe fix) and TCP004 (no fix) remain
    assert _rows(first.stdout) == [("risky.py", 8, 9, "TCP003"), ("risky.py", 10, 5, "TCP004")]
    assert "Fixed 2 finding(s) in 1 file(s) (TCP001: 1, TCP002: 1); 2 left." in first.stderr
    second = run("--fix", "--unsafe-fixes", "risky.py", cwd=project)
    assert _rows(second.stdout) == [("risky.py", 10, 5, "TCP004")]
    assert "Fixed 1 finding(s) in 1 file(s) (TCP003: 1); 1 left." in second.stderr
    content = (project / "risky.py").read_text()
    third = run("--fix", "--unsafe-fixes", ".", cwd=project)
    assert third.returncode == 1 and "Fixed 0 finding(s)" in third.stderr
    assert (project / "risky.py").read_text() == content
    assert content == (
        "import copy\n"
        "import torch\n"
        "\n"
        "\n"
        "def f(w: torch.Tensor, t: torch.Tensor):\n"
        "    with torch.no_grad():\n"
        "        w.add_(1)\n"
        "    x = t.detach().clone()\n"
        "    y = t.detach()\n"
        "    y.zero_()\n"
        "    return x, w.detach().clone()\n"
    )


@pytest.mark.slow
def test_all_fixed_exits_0(tmp_path):
    (tmp_path / "m.py").write_text(CLEAN.replace("x.detach().clone()", "x.clone().detach()"))
    result = run("--fix", "m.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert (tmp_path / "m.py").read_text() == CLEAN


@pytest.mark.slow
def test_unreadable_and_unparsable_files_exit_2_and_the_rest_go_on(project):
    (project / "broken.py").write_text("def f(:\n")
    (project / "bad_cookie.py").write_bytes(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    result = run("missing.py", "broken.py", "bad_cookie.py", "risky.py", cwd=project)
    assert result.returncode == 2
    assert "missing.py: error: cannot read it: No such file or directory" in result.stderr
    assert "broken.py: error: cannot analyse it: not valid Python" in result.stderr
    assert "bad_cookie.py: error: cannot decode it" in result.stderr
    assert len(_rows(result.stdout)) == 4  # risky.py was still linted


@pytest.mark.slow
def test_a_clean_run_says_how_many_files_and_notebooks_it_checked(tmp_path):
    (tmp_path / "clean.py").write_text("x = 1\n")
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "id": "a", "metadata": {}, "outputs": [],
                           "source": ["y = 2"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "clean.ipynb").write_text(json.dumps(notebook))
    result = run(".", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "2 file(s) checked (1 notebook(s)): no findings.\n"
    assert run("--quiet", ".", cwd=tmp_path).stderr == ""


@pytest.mark.slow
def test_bad_usage_exits_2(project):
    assert run("--select", "TCP!", "risky.py", cwd=project).returncode == 2
    assert run("--format", "xml", "risky.py", cwd=project).returncode == 2
    assert run("--no-such-option", cwd=project).returncode == 2
    unknown = run("--explain", "TCP777", cwd=project)
    assert unknown.returncode == 2 and "no rule 'TCP777'" in unknown.stderr


@pytest.mark.slow
def test_explain_takes_a_rules_name_too(project):
    (rule,) = [rule for rule in ALL_RULES if rule.name == "deepcopy-tensor"]
    result = run("--explain", "Deepcopy-Tensor", cwd=project)
    assert result.returncode == 0 and result.stdout == docs.render(rule), result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_explain_prints_the_rule_page(project, rule):
    result = run("--explain", rule.code.lower(), cwd=project)
    assert (result.returncode, result.stdout) == (0, docs.render(rule))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "codes"),
    [
        (("--select", "TCP002"), {"TCP002"}),
        (("--select", "TC"), {"TCP001", "TCP002", "TCP003"}),  # a prefix on the command line: no opt-in rule
        (("--ignore", "TCP001,TCP004"), {"TCP002", "TCP003"}),
        (("--select", "TCP", "--ignore", "TCP00"), set()),
        (("--select", "TCP001", "--ignore", "TCP"), {"TCP001"}),  # the longer prefix wins
        (("--select", "TCP001", "--select", "TCP003"), {"TCP001", "TCP003"}),
    ],
)
def test_select_and_ignore_are_prefixes(project, args, codes):
    result = run(*args, "risky.py", cwd=project)
    assert {code for *_, code in _rows(result.stdout)} == codes
    assert result.returncode == (1 if codes else 0)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "codes"),
    [
        ((), ["TCP101", "TCP101", "TCP001", "TCP101"]),
        (("--ignore", "TCP101"), ["TCP001"]),
        (("--ignore", "TCP1"), ["TCP001"]),  # the family of legacy spellings harmless where they are
        (("--select", "TCP101"), ["TCP101", "TCP101", "TCP101"]),
        (("--select", "TCP001"), ["TCP001"]),
    ],
)
def test_the_harmless_data_writes_have_their_own_code(tmp_path, args, codes):
    from test_rules import PLACES

    (tmp_path / "places.py").write_text(PLACES)
    result = run(*args, "places.py", cwd=tmp_path)
    assert [code for *_, code in _rows(result.stdout)] == codes, result.stdout + result.stderr


@pytest.mark.slow
def test_ignored_codes_are_not_fixed(project):
    result = run("--fix", "--ignore", "TCP002", "risky.py", cwd=project)
    text = (project / "risky.py").read_text()
    assert "w.clone().detach()" in text and "with torch.no_grad():" in text, result.stderr


@pytest.mark.slow
def test_stdin(project):
    result = run("-", "--stdin-display-name", "pkg/mod.py", cwd=project, stdin=RISKY)
    assert result.returncode == 1
    assert [row[0] for row in _rows(result.stdout)] == ["pkg/mod.py"] * 4
    fixed = run("--fix", "-", cwd=project, stdin=RISKY)
    assert fixed.returncode == 1
    assert "with torch.no_grad():\n        w.add_(1)\n" in fixed.stdout  # the fixed code
    assert _rows(fixed.stderr.split("Fixed")[0]) == [("stdin", 8, 9, "TCP003"), ("stdin", 10, 5, "TCP004")]
    unchanged = run("--fix", "-", cwd=project, stdin=CLEAN)
    assert (unchanged.returncode, unchanged.stdout) == (0, CLEAN)
    diff = run("--diff", "-", cwd=project, stdin=RISKY)
    assert diff.stdout.startswith("--- stdin\n+++ stdin\n") and "+    with torch.no_grad():" in diff.stdout


@pytest.mark.slow
def test_folders_are_walked_and_excludes_honoured(project):
    (project / "pkg" / "sub").mkdir(parents=True)
    (project / "pkg" / "sub" / "deep.py").write_text(RISKY)
    (project / "pkg" / "notes.txt").write_text(RISKY)
    (project / ".git").mkdir()
    (project / ".git" / "hook.py").write_text(RISKY)
    (project / "pkg" / "skip_me.py").write_text(RISKY)
    result = run(".", "--extend-exclude", "skip_*.py", cwd=project)
    assert sorted({row[0] for row in _rows(result.stdout)}) == ["./pkg/sub/deep.py", "./risky.py"]
    default = run(cwd=project)  # no PATH: the current folder
    assert default.stdout == run(".", cwd=project).stdout


@pytest.mark.slow
def test_json_format(project):
    result = run("--format", "json", "risky.py", cwd=project)
    items = json.loads(result.stdout)
    assert [(i["line"], i["column"], i["code"]) for i in items] == [
        (6, 5, "TCP001"), (7, 9, "TCP003"), (9, 5, "TCP004"), (10, 15, "TCP002")
    ]
    assert items[0]["path"] == "risky.py" and items[0]["message"].startswith("in-place write through .data")
    assert [i["fix"] and i["fix"]["applicability"] for i in items] == ["safe", "unsafe", None, "safe"]
    assert [(i["end_line"], i["end_column"]) for i in items] == [(6, 19), (7, 25), (9, 14), (10, 33)]
    # Each fix's edits alone give the code its quick fix gives: TCP002's, the swap.
    (swap,) = items[3]["fix"]["edits"]
    lines = RISKY.splitlines(keepends=True)
    assert swap["line"] == swap["end_line"] == 10
    line = lines[9]
    lines[9] = line[:swap["column"] - 1] + swap["content"] + line[swap["end_column"] - 1:]
    assert lines[9] == "    return x, w.detach().clone()\n"


@pytest.mark.slow
def test_github_format(project):
    result = run("--format", "github", "risky.py", cwd=project)
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("::warning file=risky.py,line=6,col=5,title=TCP001::TCP001 in-place write")
    assert lines[3].startswith("::warning file=risky.py,line=10,col=15,title=TCP002::TCP002 .clone().detach()")
    (project / "broken.py").write_text("def f(:\n")
    errors = run("--format", "github", "broken.py", cwd=project)
    assert errors.returncode == 2
    assert errors.stdout.startswith("::error file=broken.py,title=flake8-tensorcopy::cannot analyse it")
    # A walked folder names files ./risky.py; GitHub places no annotation on such a path.
    walked = run("--format", "github", ".", cwd=project)
    assert "file=./" not in walked.stdout and "::warning file=risky.py,line=6," in walked.stdout


@pytest.mark.slow
def test_every_rule_in_sarif_and_silenced_by_its_noqa(tmp_path):
    """Each rule's first flagged example, every rule selected (the opt-in ones by code): one
    valid SARIF result per rule at the example's place; ``# noqa: CODE`` silences it."""
    every = ",".join(["TCP", *(rule.code for rule in ALL_RULES if not rule.enabled_by_default)])
    for rule in ALL_RULES:
        (tmp_path / f"{rule.code.lower()}.py").write_text(rule.flagged[0].code)
    result = run("--format", "sarif", "--select", every, ".", cwd=tmp_path)
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(log)
    found = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
         r["locations"][0]["physicalLocation"]["region"]["startLine"],
         r["locations"][0]["physicalLocation"]["region"]["startColumn"])
        for r in log["runs"][0]["results"]
    }
    expected = {(rule.code, f"{rule.code.lower()}.py", *rule.flagged[0].expect[0]) for rule in ALL_RULES}
    assert expected <= found, expected - found
    for rule in ALL_RULES:
        line = rule.flagged[0].expect[0][0]
        lines = rule.flagged[0].code.splitlines()
        lines[line - 1] += f"  # noqa: {rule.code}"
        (tmp_path / f"{rule.code.lower()}.py").write_text("\n".join(lines) + "\n")
    silenced = run("--select", every, ".", cwd=tmp_path)
    own = [(path, code) for path, _, _, code in _rows(silenced.stdout) if path.endswith(f"{code.lower()}.py")]
    assert own == [], silenced.stdout


@pytest.mark.slow
def test_sarif_is_valid_2_1_0(project):
    (project / "broken.py").write_text("def f(:\n")
    result = run("--format", "sarif", "risky.py", "broken.py", cwd=project)
    assert result.returncode == 2
    log = json.loads(result.stdout)
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(log)
    assert log["version"] == "2.1.0"
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "flake8-tensorcopy" and driver["version"] == __version__
    assert driver["informationUri"] == metadata.repository_url()
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in ALL_RULES]
    for described, rule in zip(driver["rules"], ALL_RULES):
        assert described["help"]["markdown"] == docs.render(rule)
        assert described["helpUri"] == f"{metadata.repository_url()}/blob/main/rules/{rule.code}.md"
        assert described["shortDescription"]["text"].startswith(rule.code)
        assert described["defaultConfiguration"]["level"] == "warning"
    results = run_["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in results] == [
        ("TCP001", 6, 5), ("TCP003", 7, 9), ("TCP004", 9, 5), ("TCP002", 10, 15)
    ]
    for result_ in results:
        assert driver["rules"][result_["ruleIndex"]]["id"] == result_["ruleId"]
        assert result_["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "risky.py"
    invocation = run_["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "broken.py" in json.dumps(invocation["toolExecutionNotifications"])


@pytest.mark.slow
def test_console_script_is_installed(project):
    """`flake8-tensorcopy` on PATH (from [project.scripts]) is the same command."""
    script = Path(sys.executable).with_name("flake8-tensorcopy")
    if not script.exists():
        import shutil

        found = shutil.which("flake8-tensorcopy")
        if found is None:
            pytest.skip("the package is not installed with its scripts here")
        script = Path(found)
    result = subprocess.run([str(script), "risky.py"], cwd=project, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and len(_rows(result.stdout)) == 4


@pytest.mark.slow
def test_server_without_pygls_exits_2_naming_the_extra():
    # pygls made unimportable: what a core install (no [server] extra) sees.
    code = "import sys; sys.modules['pygls'] = None; from flake8_tensorcopy.cli import main; sys.exit(main(['server']))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 2
    assert "pip install 'flake8-tensorcopy[server]'" in result.stderr


@pytest.mark.slow
def test_linting_never_imports_the_server(tmp_path):
    (tmp_path / "server").mkdir()  # a folder named like the subcommand, linted through ./server
    (tmp_path / "server" / "m.py").write_text("import torch\n\ndef f(w):\n    return w.clone().detach()\n")
    code = (
        "import sys; from flake8_tensorcopy.cli import main; status = main(['./server']); "
        "assert 'flake8_tensorcopy.server' not in sys.modules and 'pygls' not in sys.modules; sys.exit(status)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 1, result.stderr
    assert "TCP002" in result.stdout
