"""The composite GitHub Action (``action.yml``), run without a runner.

Each step's ``run`` script is executed as written, the way GitHub runs ``shell: bash``
(``bash --noprofile --norc -eo pipefail SCRIPT``), with ``${{ inputs.* }}`` and
``${{ github.action_path }}`` replaced by values and the step's ``env`` set. The install
step really installs a snapshot of this checkout into a virtualenv; pip is kept off the
network by its own environment variables, not by changing the command.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
INPUTS = ACTION["inputs"]
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
INSTALL, LINT = STEPS["Install flake8-tensorcopy"], STEPS["Run flake8-tensorcopy"]
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
# `shell: bash` in a GitHub workflow or composite action, as GitHub documents it.
GITHUB_BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
# pip's `--no-*` switches read inverted from the environment: PIP_NO_BUILD_ISOLATION=0
# is `--no-build-isolation`. The dependencies come from this interpreter's site-packages.
OFFLINE_PIP = {"PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1", "PIP_NO_BUILD_ISOLATION": "0"}

TRAIN = """\
import torch


def step(w: torch.Tensor, lr: float) -> torch.Tensor:
    w.data.add_(-lr * w.grad)
    return w.clone().detach()
"""
CLEAN = "import torch\n\n\ndef copy(t: torch.Tensor) -> torch.Tensor:\n    return t.detach().clone()\n"
# (file, line, column, code) of TRAIN's findings, columns 1-based as GitHub wants them.
TRAIN_FINDINGS = [("pkg/train.py", 5, 5, "TCP001"), ("pkg/train.py", 6, 12, "TCP002")]
ANNOTATION = re.compile(r"^::warning file=([^,]+),line=(\d+),col=(\d+),title=(TCP\d{3})::(TCP\d{3}) \S")


def expand(text: str, inputs: dict[str, str], action_path: Path) -> str:
    """``text`` with the expressions GitHub would substitute; any other one fails the test."""

    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression == "github.action_path":
            return str(action_path)
        name = expression.removeprefix("inputs.")
        assert name != expression and name in inputs, f"unexpected expression {match.group(0)}"
        return inputs[name]

    return EXPRESSION.sub(value, text)


def run_step(step: dict, cwd: Path, environ: dict[str, str], action_path: Path, **given: str):
    """Run one step's script as GitHub would; ``given`` are inputs (``fail_on_findings``
    for ``fail-on-findings``), the others take their defaults."""
    inputs = {name: spec["default"] for name, spec in INPUTS.items()}
    for key, value in given.items():
        name = key.replace("_", "-")
        assert name in inputs, f"no input {name!r}"
        inputs[name] = value
    step_env = {name: expand(str(value), inputs, action_path) for name, value in step.get("env", {}).items()}
    script = cwd.parent / f"{cwd.name}-step.sh"
    script.write_text(expand(step["run"], inputs, action_path), encoding="utf-8")
    return subprocess.run(
        [*GITHUB_BASH, str(script)], cwd=cwd, env={**environ, **step_env},
        capture_output=True, text=True, timeout=300,
    )


def snapshot(destination: Path) -> Path:
    """This checkout's files (tracked and untracked, minus ignored ones), as a runner
    would check the action out; pip's build leaves its by-products there, not here."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, destination / name)
    return destination


def fresh_environment(venv: Path) -> dict[str, str]:
    """A virtualenv whose ``python`` comes first on PATH, as after actions/setup-python.

    It sees this interpreter's packages (pip, setuptools, flake8, LibCST) but none of
    this checkout: PYTHONPATH is dropped, and a path line in a ``.pth`` file adds those
    site-packages without running their own ``.pth`` files (this checkout's editable
    install), so only what the install step installs runs. (``--system-site-packages``
    would show the base interpreter's packages instead: under CI's Python 3.13, built
    without pip, none.)
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    (Path(purelib) / "_outer_site_packages.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("GITHUB_")}
    environ["PATH"] = f"{venv / 'bin'}{os.pathsep}{environ['PATH']}"
    return environ


def imported_from(environ: dict[str, str], cwd: Path) -> Path:
    done = subprocess.run(["python", "-c", "import flake8_tensorcopy; print(flake8_tensorcopy.__file__)"],
                          cwd=cwd, env=environ, capture_output=True, text=True, check=True, timeout=60)
    return Path(done.stdout.strip())


@pytest.fixture(scope="module")
def action(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """(the action's checkout, the environment after its install step with default inputs)."""
    action_path = snapshot(tmp_path_factory.mktemp("action"))
    venv = tmp_path_factory.mktemp("runner") / "venv"
    environ = fresh_environment(venv)
    installed = run_step(INSTALL, venv.parent, {**environ, **OFFLINE_PIP}, action_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert imported_from(environ, venv.parent).is_relative_to(venv), "the step did not install the checkout"
    return action_path, environ


@pytest.fixture
def workspace(tmp_path) -> Path:
    (tmp_path / "workspace" / "pkg").mkdir(parents=True)
    (tmp_path / "workspace" / "pkg" / "train.py").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "workspace" / "pkg" / "clean.py").write_text(CLEAN, encoding="utf-8")
    (tmp_path / "workspace" / "notes.txt").write_text("not python\n", encoding="utf-8")
    return tmp_path / "workspace"


def lint(workspace: Path, action: tuple[Path, dict[str, str]], **inputs: str):
    action_path, environ = action
    return run_step(LINT, workspace, environ, action_path, **inputs)


def annotations(stdout: str) -> list[tuple[str, int, int, str]]:
    found = []
    for line in stdout.splitlines():
        match = ANNOTATION.match(line)
        assert match, f"not a warning annotation: {line!r}"
        path, row, col, title, code = match.groups()
        assert title == code
        found.append((path, int(row), int(col), code))
    return found


def test_action_is_composite_and_documents_every_input():
    assert ACTION["runs"]["using"] == "composite"
    assert ACTION["name"] and ACTION["description"]
    assert list(STEPS) == ["Install flake8-tensorcopy", "Run flake8-tensorcopy"]
    for name, spec in INPUTS.items():
        assert spec["description"].strip(), name
        assert isinstance(spec["default"], str), f"{name}: a composite action's inputs are strings"
    used = set()
    for step in STEPS.values():
        assert step["shell"] == "bash", step["name"]
        # Inputs reach the scripts through `env`, never spliced into the script's text.
        assert not EXPRESSION.search(step["run"]), step["name"]
        for value in step.get("env", {}).values():
            used.update(m.group(1).removeprefix("inputs.") for m in EXPRESSION.finditer(str(value)))
    assert used == {*INPUTS, "github.action_path"}


@pytest.mark.slow
def test_install_step_installs_the_requirement_given_as_version(tmp_path, action):
    action_path, _ = action
    venv = tmp_path / "venv"
    environ = fresh_environment(venv)
    requirement = f"flake8-tensorcopy @ {action_path.as_uri()}"
    # No action checkout at all: only `version` can have been installed.
    installed = run_step(INSTALL, tmp_path, {**environ, **OFFLINE_PIP}, tmp_path / "missing",
                         version=requirement)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert imported_from(environ, tmp_path).is_relative_to(venv)


@pytest.mark.slow
def test_github_annotations_by_default_fail_on_findings(workspace, action):
    done = lint(workspace, action)
    assert done.returncode == 1, done.stderr
    # Walking the default `.` yields `./pkg/train.py`: the action names it `pkg/train.py`.
    assert annotations(done.stdout) == TRAIN_FINDINGS, done.stdout
    assert "2 finding(s) fixable with --fix." in done.stderr


@pytest.mark.slow
def test_fail_on_findings_false_annotates_and_passes(workspace, action):
    done = lint(workspace, action, fail_on_findings="false")
    assert done.returncode == 0, done.stderr
    assert annotations(done.stdout) == TRAIN_FINDINGS, done.stdout


@pytest.mark.slow
def test_paths_and_args_are_split_on_whitespace(workspace, action):
    done = lint(workspace, action, paths="pkg/clean.py\npkg/train.py", args="--ignore TCP002  --select TCP")
    assert done.returncode == 1, done.stderr
    assert annotations(done.stdout) == TRAIN_FINDINGS[:1], done.stdout


@pytest.mark.slow
def test_clean_workspace_passes_silently(workspace, action):
    (workspace / "pkg" / "train.py").unlink()
    done = lint(workspace, action)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr


@pytest.mark.slow
def test_a_file_that_cannot_be_analysed_fails_even_without_fail_on_findings(workspace, action):
    (workspace / "pkg" / "broken.py").write_text("def f(:\n", encoding="utf-8")
    done = lint(workspace, action, fail_on_findings="false")
    assert done.returncode == 2, done.stderr
    *warnings, error = done.stdout.splitlines()
    assert annotations("\n".join(warnings)) == TRAIN_FINDINGS, done.stdout
    assert error.startswith("::error file=pkg/broken.py,title=flake8-tensorcopy::cannot analyse it"), done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("fail_on_findings, status", [("true", 1), ("false", 0)])
def test_sarif_file_is_written_and_valid_whatever_the_status(workspace, action, fail_on_findings, status):
    done = lint(workspace, action, format="sarif", fail_on_findings=fail_on_findings)
    assert done.returncode == status, done.stderr
    assert done.stdout == ""
    log = json.loads((workspace / INPUTS["sarif-file"]["default"]).read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)  # tests/test_cli.py checks the schema itself
    (run,) = log["runs"]
    located = []
    for result in run["results"]:
        (location,) = result["locations"]
        region = location["physicalLocation"]["region"]
        uri = location["physicalLocation"]["artifactLocation"]["uri"]
        located.append((uri, region["startLine"], region["startColumn"], result["ruleId"]))
    # Code scanning resolves a relative URI against the checkout: no `./`, no absolute path.
    assert located == TRAIN_FINDINGS


@pytest.mark.slow
def test_sarif_file_input_names_the_file(workspace, action):
    done = lint(workspace, action, format="sarif", sarif_file="reports.sarif", paths="pkg/clean.py")
    assert done.returncode == 0, done.stderr
    log = json.loads((workspace / "reports.sarif").read_text(encoding="utf-8"))
    assert log["runs"][0]["results"] == []
    assert not (workspace / INPUTS["sarif-file"]["default"]).exists()


def test_documented_examples_use_only_the_actions_inputs():
    pages = "".join((ROOT / page).read_text(encoding="utf-8") for page in ("README.md", "docs/ci.md"))
    steps = []
    for block in re.findall(r"```yaml\n(.*?)```", pages, re.DOTALL):
        document = yaml.safe_load(textwrap.dedent(block))
        if isinstance(document, dict):  # a workflow (its jobs' steps) or a pre-commit config
            document = [step for job in document.get("jobs", {}).values() for step in job["steps"]]
        steps += [step for step in document if isinstance(step, dict) and "uses" in step]
    ours = [step for step in steps if step["uses"].split("@")[0].endswith("/flake8-tensorcopy")]
    assert len(ours) == 3, "the README shows the action for annotations, docs/ci.md for annotations and SARIF"
    for step in ours:
        assert set(step.get("with", {})) <= set(INPUTS), step
    uploads = [step for step in steps if step["uses"].startswith("github/codeql-action/upload-sarif@")]
    (sarif_step,) = [step for step in ours if step.get("with", {}).get("format") == "sarif"]
    written = sarif_step["with"].get("sarif-file", INPUTS["sarif-file"]["default"])
    assert [step["with"]["sarif_file"] for step in uploads] == [written]
