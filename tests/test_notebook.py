"""Jupyter notebooks through the real command line: real .ipynb files, the CLI in a subprocess."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import every_rule
import pytest

from flake8_tensorcopy import engine, fixer
from flake8_tensorcopy.rules import ALL_RULES

pytestmark = [pytest.mark.slow, pytest.mark.compat]

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"
CELL_IDS = itertools.count(1)


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", *every_rule.ARGS, *args],
        cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300,
    )


def code(source: str | list[str], **extra) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": f"cell-{next(CELL_IDS)}",
            "metadata": {}, "outputs": [], "source": source, **extra}


def markdown(source: str) -> dict:
    return {"cell_type": "markdown", "id": "md", "metadata": {}, "source": source}


def lines(text: str) -> list[str]:
    """nbformat's list form of a source."""
    return text.splitlines(keepends=True)


def notebook(*cells: dict, metadata: dict | None = None) -> dict:
    return {"cells": list(cells), "metadata": metadata or {"kernelspec": {"language": "python", "name": "python3"}},
            "nbformat": 4, "nbformat_minor": 5}


def write(path: Path, document: dict, **layout) -> str:
    """The notebook as nbformat writes it (indent 1, non-ASCII as is, final newline) unless told."""
    text = json.dumps(document, **{"indent": 1, "ensure_ascii": False, **layout}) + "\n"
    path.write_text(text, encoding="utf-8")
    return text


def rows(text: str) -> list[tuple[str, int, int, int, str]]:
    """(path, cell, row, col, code) of each `path:cell N:row:col: CODE message` line."""
    found = []
    for line in text.splitlines():
        path, cell, row, col, rest = line.split(":", 4)
        assert cell.startswith("cell "), line
        found.append((path, int(cell.removeprefix("cell ")), int(row), int(col), rest.split()[0]))
    return found


# Cells 1 and 4 are markdown: the cell numbers count them (ruff's convention).
TRAINING = notebook(
    markdown("# Training é\n"),
    code(lines("import torch\n\nw = torch.ones(3)\nt = torch.nn.Linear(2, 2).weight\ny = t.detach()")),
    code("x = 1"),
    markdown("Now the mistakes."),
    code(lines("w.data.add_(1)\ny.zero_()\nz = t.clone().detach()"), execution_count=7,
         outputs=[{"name": "stdout", "output_type": "stream", "text": ["ünïcode out\n"]}]),
)


def test_code_cells_are_one_module_reported_by_cell_and_row(tmp_path):
    write(tmp_path / "train.ipynb", TRAINING)
    result = run("train.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    # `y = t.detach()` in cell 2 makes `y.zero_()` in cell 5 a TCP004: one module.
    assert rows(result.stdout) == [
        ("train.ipynb", 5, 1, 1, "TCP001"),
        ("train.ipynb", 5, 2, 1, "TCP004"),
        ("train.ipynb", 5, 3, 5, "TCP002"),
    ]
    items = json.loads(run("--format", "json", "train.ipynb", cwd=tmp_path).stdout)
    assert [(i["cell"], i["line"], i["column"], i["code"]) for i in items] == [
        (5, 1, 1, "TCP001"), (5, 2, 1, "TCP004"), (5, 3, 5, "TCP002")
    ]
    # `w` is known to be a tensor from cell 2, so the .data fix is safe; alone, cell 5 would
    # not know it, and the fix would be unsafe.
    assert items[0]["fix"]["applicability"] == "safe"
    write(tmp_path / "alone.ipynb", notebook(TRAINING["cells"][4]))
    alone = json.loads(run("--format", "json", "alone.ipynb", cwd=tmp_path).stdout)
    assert [(i["code"], i["fix"]["applicability"]) for i in alone] == [("TCP001", "unsafe"), ("TCP002", "safe")]
    assert list(items[0]) == ["path", "cell", "line", "column", "end_line", "end_column", "code", "message", "fix"]
    assert [edit["cell"] for item in items if item["fix"] for edit in item["fix"]["edits"]] == [5, 5]


MAGICS = notebook(
    code(lines(
        "%matplotlib inline\n"
        "!pip install torch\n"
        "import torch\n"
        "files = !ls\n"
        "a, b = %sx echo 1\n"
        "torch.ones?\n"
        "??torch.zeros\n"
        "w = torch.ones(3)\n"
        "if True:\n"
        "    %time w.clone()\n"
        "    !echo \\\n"
        "        continued\n"
        "    q = (10\n"
        "         %3)\n"
        "s = '''\n"
        "%not a magic: inside a string\n"
        "'''\n"
        "z = w.clone().detach()"
    )),
    code(lines("%%time\nv = w.clone().detach()\n")),
    code(lines("%%bash\n  for f in *; do echo $f; done\nw.clone().detach()\n")),
)


def test_ipython_syntax_is_neither_parsed_nor_reported(tmp_path):
    write(tmp_path / "magic.ipynb", MAGICS)
    result = run("magic.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("2 finding(s) fixable")  # no error: every cell parsed
    # The rows did not move; the %%time body is Python, the %%bash cell is not.
    assert rows(result.stdout) == [("magic.ipynb", 1, 18, 5, "TCP002"), ("magic.ipynb", 2, 2, 5, "TCP002")]


def test_fix_changes_only_the_fixed_cells_sources(tmp_path):
    before = write(tmp_path / "train.ipynb", TRAINING)
    result = run("--fix", "train.ipynb", cwd=tmp_path)
    assert result.returncode == 1  # TCP004 has no fix
    assert rows(result.stdout) == [("train.ipynb", 5, 3, 1, "TCP004")]
    assert "Fixed 2 finding(s) in 1 file(s) (TCP001: 1, TCP002: 1); 1 left." in result.stderr
    after = (tmp_path / "train.ipynb").read_text(encoding="utf-8")
    expected = json.loads(before)
    expected["cells"][4]["source"] = [
        "with torch.no_grad():\n", "    w.add_(1)\n", "y.zero_()\n", "z = t.detach().clone()"
    ]
    # Byte for byte what nbformat would write: indent 1, non-ASCII as is, final newline;
    # outputs, execution counts, ids, metadata and the other cells untouched.
    assert after == json.dumps(expected, indent=1, ensure_ascii=False) + "\n"
    again = run("--fix", "train.ipynb", cwd=tmp_path)
    assert "Fixed 0 finding(s)" in again.stderr
    assert (tmp_path / "train.ipynb").read_text(encoding="utf-8") == after
    assert not list(tmp_path.glob(".*.tcpfix"))  # the atomic write left nothing behind


@pytest.mark.parametrize(
    "layout", [{"indent": 2, "ensure_ascii": True}, {"indent": None, "separators": (",", ":")}, {"indent": "\t"}],
    ids=["indent-2-ascii", "minified", "tabs"],
)
def test_fix_keeps_the_json_layout_and_the_source_form(tmp_path, layout):
    document = notebook(code("import torch\nt = torch.ones(2)\nu = t.clone().detach()\n"), markdown("é"))
    text = json.dumps(document, **{"ensure_ascii": False, **layout})  # no final newline
    (tmp_path / "nb.ipynb").write_text(text, encoding="utf-8")
    result = run("--fix", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    document["cells"][0]["source"] = "import torch\nt = torch.ones(2)\nu = t.detach().clone()\n"  # still a string
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == json.dumps(
        document, **{"ensure_ascii": False, **layout})


def test_a_layout_that_cannot_be_reproduced_is_not_rewritten(tmp_path):
    text = json.dumps(notebook(code("import torch\nt = torch.ones(2)\nu = t.clone().detach()")), indent=1)
    text = text.replace('"nbformat": 4', '"nbformat" : 4')  # not what json.dumps writes
    (tmp_path / "odd.ipynb").write_text(text, encoding="utf-8")
    result = run("--fix", "odd.ipynb", cwd=tmp_path)
    assert result.returncode == 2
    assert "odd.ipynb: error: not fixed, left untouched: its JSON layout" in result.stderr
    assert (tmp_path / "odd.ipynb").read_text(encoding="utf-8") == text
    assert rows(result.stdout) == [("odd.ipynb", 1, 3, 5, "TCP002")]


def test_diff_shows_each_fixed_cell_and_writes_nothing(tmp_path):
    before = write(tmp_path / "train.ipynb", TRAINING)
    result = run("--diff", "train.ipynb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == (
        "--- train.ipynb:cell 5\n"
        "+++ train.ipynb:cell 5\n"
        "@@ -1,3 +1,4 @@\n"
        "-w.data.add_(1)\n"
        "+with torch.no_grad():\n"
        "+    w.add_(1)\n"
        " y.zero_()\n"
        "-z = t.clone().detach()\n"
        "\\ No newline at end of file\n"
        "+z = t.detach().clone()\n"
        "\\ No newline at end of file\n"
    )
    assert (tmp_path / "train.ipynb").read_text(encoding="utf-8") == before


def test_fixes_keep_ipython_lines_and_cells_apart(tmp_path):
    """Wraps next to a magic, and consecutive wraps in two cells, stay in their own cells."""
    write(tmp_path / "nb.ipynb", notebook(
        code(lines("import torch\nw = torch.ones(3)\nw.data.add_(1)")),
        code(lines("w.data.mul_(2)\nw.data.zero_()")),
        code(lines("%%time\nw.data.add_(1)\nfor _ in range(2):\n    w.data.add_(1)\n    %time w.sum()\n"
                   "    w.data.mul_(2)\n")),
        code(lines("!echo w.data.add_(1)\nw.data.add_(1)")),
    ))
    result = run("--fix", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    cells = json.loads((tmp_path / "nb.ipynb").read_text(encoding="utf-8"))["cells"]
    assert ["".join(cell["source"]) for cell in cells] == [
        "import torch\nw = torch.ones(3)\nwith torch.no_grad():\n    w.add_(1)",
        "with torch.no_grad():\n    w.mul_(2)\n    w.zero_()",
        "%%time\nwith torch.no_grad():\n    w.add_(1)\nfor _ in range(2):\n    with torch.no_grad():\n"
        "        w.add_(1)\n    %time w.sum()\n    with torch.no_grad():\n        w.mul_(2)\n",
        "!echo w.data.add_(1)\nwith torch.no_grad():\n    w.add_(1)",
    ]


def test_unreadable_notebooks_exit_2_and_the_rest_go_on(tmp_path):
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    write(tmp_path / "old.ipynb", {"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}})
    latin1 = json.dumps(notebook(code("x = 'é'")), ensure_ascii=False).encode("latin-1")
    (tmp_path / "latin1.ipynb").write_bytes(latin1)
    write(tmp_path / "odd.ipynb", {"nbformat": 4, "metadata": [], "cells": [{"cell_type": "code", "source": 5}]})
    write(tmp_path / "syntax.ipynb", notebook(code("import torch"), markdown("m"), code("def f(:\n    pass")))
    write(tmp_path / "train.ipynb", TRAINING)
    given = ("broken.ipynb", "old.ipynb", "latin1.ipynb", "odd.ipynb", "syntax.ipynb", "train.ipynb")
    result = run(*given, cwd=tmp_path)
    assert result.returncode == 2
    errors = result.stderr.splitlines()  # in path order, whatever the order given
    assert errors[0].startswith("broken.ipynb: error: cannot read it as a notebook: not valid JSON: ")
    assert errors[1].startswith("latin1.ipynb: error: cannot read it as a notebook: 'utf-8' codec can't decode")
    assert errors[2] == (
        "odd.ipynb: error: cannot read it as a notebook: cell 1: its source is neither a string nor a list of strings"
    )
    assert errors[3] == "old.ipynb: error: cannot read it as a notebook: not an nbformat 4 notebook (nbformat: 3)"
    # The syntax error is told in the notebook's terms: cell 3, its first line.
    assert errors[4].startswith("syntax.ipynb: error: cannot analyse it: not valid Python: ")
    assert errors[4].endswith("cell 3, line 1)")
    assert {path for path, *_ in rows(result.stdout)} == {"train.ipynb"}  # still linted


def test_noqa_in_a_cell(tmp_path):
    write(tmp_path / "nb.ipynb", notebook(code(lines(
        "import torch\nt = torch.ones(2)\n"
        "a = t.clone().detach()  # noqa: TCP002\nb = t.clone().detach()  # noqa: E501\n"
    ))))
    assert rows(run("nb.ipynb", cwd=tmp_path).stdout) == [("nb.ipynb", 1, 4, 5, "TCP002")]
    run("--fix", "nb.ipynb", cwd=tmp_path)
    source = json.loads((tmp_path / "nb.ipynb").read_text(encoding="utf-8"))["cells"][0]["source"]
    assert source[2:] == ["a = t.clone().detach()  # noqa: TCP002\n", "b = t.detach().clone()  # noqa: E501\n"]


def test_folders_are_walked_for_notebooks_but_not_their_checkpoints(tmp_path):
    (tmp_path / "nbs" / ".ipynb_checkpoints").mkdir(parents=True)
    write(tmp_path / "nbs" / "train.ipynb", TRAINING)
    write(tmp_path / "nbs" / ".ipynb_checkpoints" / "train-checkpoint.ipynb", TRAINING)
    r_notebook = notebook(code("w.data.add_(1)"), metadata={"language_info": {"name": "R"}})
    write(tmp_path / "nbs" / "analysis.ipynb", r_notebook)  # another kernel language: nothing to lint
    result = run(".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert {path for path, *_ in rows(result.stdout)} == {"./nbs/train.ipynb"}


def test_github_and_sarif_name_the_cell(tmp_path):
    write(tmp_path / "train.ipynb", TRAINING)
    github = run("--format", "github", "train.ipynb", cwd=tmp_path).stdout.splitlines()
    # No line=: GitHub would put it on that line of the notebook's JSON.
    assert github[0] == (
        "::warning file=train.ipynb,title=TCP001 (cell 5%2C line 1%2C col 1)::TCP001 in-place write through .data "
        "is invisible to autograd: if a pending backward saved this tensor, its gradient is silently wrong; "
        "write to the tensor itself inside `with torch.no_grad():`"
    )
    log = json.loads(run("--format", "sarif", "train.ipynb", cwd=tmp_path).stdout)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(log)
    location = log["runs"][0]["results"][2]["locations"][0]
    assert location["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 23}
    assert location["logicalLocations"] == [{"name": "cell 5", "kind": "module"}]
    assert location["properties"] == {"cell": 5}


def test_every_rule_in_a_notebook_cell_found_and_fixed(tmp_path):
    """Each rule's first flagged example as the second cell of its own notebook, every rule
    selected: found in that cell at the example's place; ``--fix --unsafe-fixes`` rewrites
    the cell where the rule has a fix, after which the cell is clean of it."""
    every = ",".join(["TCP", *(rule.code for rule in ALL_RULES if not rule.enabled_by_default)])
    fixable = set()
    for rule in ALL_RULES:
        source = rule.flagged[0].code
        write(tmp_path / f"{rule.code.lower()}.ipynb", notebook(markdown("# demo"), code(lines(source))))
        finding = next(f for f in engine.lint_source(source, rules=ALL_RULES) if f.code == rule.code)
        if fixer.applicable(finding.fix, unsafe=True):
            fixable.add(rule.code)
    found = rows(run("--select", every, ".", cwd=tmp_path).stdout)
    for rule in ALL_RULES:
        line, column = rule.flagged[0].expect[0]
        assert (f"./{rule.code.lower()}.ipynb", 2, line, column, rule.code) in found, rule.code
    assert {"TCP010", "TCP011"} <= fixable
    fixed = run("--fix", "--unsafe-fixes", "--select", every, ".", cwd=tmp_path)
    assert fixed.returncode in (0, 1), fixed.stderr
    after = rows(run("--select", every, ".", cwd=tmp_path).stdout)
    for rule in ALL_RULES:
        cell = json.loads((tmp_path / f"{rule.code.lower()}.ipynb").read_text(encoding="utf-8"))["cells"][1]
        changed = "".join(cell["source"]) != rule.flagged[0].code
        assert changed == (rule.code in fixable), rule.code
        if changed:
            assert not [r for r in after if r[0] == f"./{rule.code.lower()}.ipynb" and r[4] == rule.code], rule.code


def test_stdin_as_a_notebook(tmp_path):
    text = json.dumps(TRAINING, indent=1, ensure_ascii=False) + "\n"
    result = run("--fix", "-", "--stdin-display-name", "train.ipynb", cwd=tmp_path, stdin=text)
    assert result.returncode == 1
    assert json.loads(result.stdout)["cells"][4]["source"][0] == "with torch.no_grad():\n"  # the fixed notebook
    assert rows(result.stderr.split("Fixed")[0]) == [("train.ipynb", 5, 3, 1, "TCP004")]


def test_nbqa_runs_the_flake8_plugin_on_notebooks(tmp_path):
    """The README's route for flake8 users: nbQA numbers only the code cells (`cell_2` is
    this notebook's second code cell, its cell 3)."""
    write(tmp_path / "nb.ipynb", notebook(
        markdown("# Title"), code("import torch\nt = torch.ones(2)"), code("%time u = 1\nu = t.clone().detach()")
    ))
    result = subprocess.run([sys.executable, "-m", "nbqa", "flake8", "nb.ipynb", "--select", "TCP"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "nb.ipynb:cell_2:2:5: TCP002 .clone().detach() records a CloneBackward0 node only to throw it away; "
        "use .detach().clone()"
    ]
    assert rows(run("nb.ipynb", cwd=tmp_path).stdout) == [("nb.ipynb", 3, 2, 5, "TCP002")]


def test_the_project_analysis_names_notebooks_as_the_reader_does():
    """project.py spells the suffix itself, so that reading a project need not import the
    notebook reader: the two must agree."""
    from flake8_tensorcopy import notebook
    from flake8_tensorcopy.analysis import project

    assert project.NOTEBOOK_SUFFIX == notebook.SUFFIX
