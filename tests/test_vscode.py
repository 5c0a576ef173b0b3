"""The VS Code extension (editors/vscode) in a real VS Code: code-server in headless
Chromium, with the built .vsix installed and the Python package in a fresh environment,
checked as a person sees it: the install message while the selected interpreter lacks the
server, then (after selecting one that has it) the findings of a training script and of a
notebook in the Problems panel, the rule's page on hover, a quick fix from the light bulb,
fix-all on save and from the command, each checked on the file saved to disk.

The tests run in order on one editor session, as a person would work. They need
code-server, Node 24, Chromium and the .vsix, which `bash .ci/editors.sh` installs and
builds before it runs them (it sets TENSORCOPY_VSCODE_TEST=1); elsewhere they skip. A
failing test leaves a screenshot of the page (the path is in the failure)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a real editor in a browser

if os.environ.get("TENSORCOPY_VSCODE_TEST") != "1":
    pytest.skip("the real-editor test runs under `bash .ci/editors.sh` (TENSORCOPY_VSCODE_TEST=1)",
                allow_module_level=True)

from selenium.webdriver.common.keys import Keys  # noqa: E402
from vscode_workbench import SLOW_S, WAIT_S, CodeServer, Workbench  # noqa: E402

from flake8_tensorcopy.rules import ALL_RULES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULES = {rule.code: rule for rule in ALL_RULES}
STUB = Path(__file__).parent / "vscode_python_stub"
INSTALL = "-m pip install 'flake8-tensorcopy[server]'"
# Where the screenshots go: the README's picture, and one per failing test.
ARTIFACTS = Path(os.environ.get("TENSORCOPY_EDITOR_ARTIFACTS", ROOT / "build" / "editor-tests"))

TRAIN_PY = """\
import copy

import torch

model = torch.nn.Linear(4, 2)
weights = torch.randn(4, requires_grad=True)
frozen = weights.clone().detach()
best = copy.deepcopy(model.state_dict())
model.weight.data.add_(1)
"""
CELLS = [
    ("markdown", "# Fine-tuning\n\nThe cells below share `t`."),
    ("code", "import torch\n\nt = torch.zeros(3, requires_grad=True)"),
    ("code", "u = t.clone().detach()"),
]


def _notebook(cells: list[tuple[str, str]]) -> dict:
    return {
        "cells": [{"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True),
                   **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                  for kind, source in cells],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def _required(name: str) -> Path:
    value = os.environ.get(name)
    assert value and Path(value).exists(), f"{name} must name an existing file (bash .ci/editors.sh sets it): {value!r}"
    return Path(value)


def _stub_vsix(folder: Path) -> Path:
    """The Python extension stand-in as a .vsix (the files vsce writes that VS Code reads)."""
    manifest = json.loads((STUB / "package.json").read_text())
    vsix = folder / "python-stub.vsix"
    with zipfile.ZipFile(vsix, "w") as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="utf-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension=".json" ContentType="application/json"/><Default Extension=".js" ContentType="application/javascript"/>'
            '<Default Extension=".vsixmanifest" ContentType="text/xml"/></Types>'))
        archive.writestr("extension.vsixmanifest", (
            '<?xml version="1.0" encoding="utf-8"?><PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">'
            f'<Metadata><Identity Language="en-US" Id="{manifest["name"]}" Version="{manifest["version"]}" Publisher="{manifest["publisher"]}"/>'
            f'<DisplayName>{manifest["displayName"]}</DisplayName><Description>{manifest["description"]}</Description>'
            f'<Properties><Property Id="Microsoft.VisualStudio.Code.Engine" Value="{manifest["engines"]["vscode"]}"/></Properties></Metadata>'
            '<Installation><InstallationTarget Id="Microsoft.VisualStudio.Code"/></Installation><Dependencies/>'
            '<Assets><Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true"/></Assets>'
            '</PackageManifest>'))
        for path in STUB.iterdir():
            archive.write(path, f"extension/{path.name}")
    return vsix


@pytest.fixture(scope="module")
def pythons(tmp_path_factory) -> dict[str, Path]:
    """Two fresh interpreters: one with the package and its server extra installed from
    this checkout (not editable: as a user installs it), one bare."""
    root = tmp_path_factory.mktemp("pythons")
    venv.create(root / "bare", with_pip=False)
    venv.create(root / "server", with_pip=True)
    server = root / "server" / "bin" / "python"
    subprocess.run([server, "-m", "pip", "install", "-q", f"{ROOT}[server]"], check=True, timeout=600)
    return {"bare": root / "bare" / "bin" / "python", "server": server}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("workspace")
    (folder / "train.py").write_text(TRAIN_PY)
    (folder / "train.ipynb").write_text(json.dumps(_notebook(CELLS), indent=1))
    return folder


@pytest.fixture(scope="module")
def editor(tmp_path_factory, pythons, workspace):
    """VS Code with the extension and the Python extension stand-in, the bare interpreter
    selected, and no flake8-tensorcopy on PATH."""
    home = tmp_path_factory.mktemp("code-server")
    path = "/usr/bin:/bin"
    assert shutil.which("flake8-tensorcopy", path=path) is None, f"flake8-tensorcopy must not be on {path} here"
    env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", "XDG_CACHE_HOME": str(home / "cache")}
    code_server = CodeServer(_required("TENSORCOPY_CODE_SERVER"), home, env)
    code_server.install_extension(_required("TENSORCOPY_VSIX"))
    code_server.install_extension(_stub_vsix(home))
    code_server.user_settings(**{"python.defaultInterpreterPath": str(pythons["bare"]),
                                 "editor.codeActionsOnSave": {"source.fixAll.tensorcopy": "explicit"}})
    url = code_server.start(workspace)
    workbench = None
    try:
        workbench = Workbench(url, home / "chromium")
        yield code_server, workbench
    finally:
        if workbench is not None:
            workbench.close()
        code_server.stop()


@pytest.fixture(autouse=True)
def screenshot_on_failure(request, editor):
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:
        shot = editor[1].screenshot(ARTIFACTS / f"{request.node.name}.png")
        print(f"\nscreenshot of the failing page: {shot}\ncode-server's log: {editor[0].log_path}", file=sys.stderr)


def test_without_the_server_one_message_says_the_pip_command(editor, pythons):
    _, workbench = editor
    bare = str(pythons["bare"])
    workbench.open_file("train.py")  # a Python file activates the extension
    shown = workbench.notifications(lambda text: "language server was not found" in text,
                                    "the message that the server is missing", timeout=SLOW_S)
    assert f"not installed for the selected interpreter {bare} nor on PATH" in shown
    assert f"Install it with: {bare} {INSTALL}" in shown
    assert shown.count("language server was not found") == 1 and "Error" not in shown, "one message, no other"
    # Nothing else breaks: the file is open, and the extension's commands answer.
    workbench.command("flake8-tensorcopy: Show Output")
    workbench.wait_for_text(".output-view", lambda text: f"{bare} {INSTALL}" in text.replace("\n", ""),
                            "the message in the output channel")
    assert "TCP" not in workbench.problems(lambda text: "No problems" in text, "an empty Problems panel")


def test_selecting_an_interpreter_with_the_server_starts_it(editor, pythons):
    _, workbench = editor
    workbench.command("Python: Select Interpreter")
    workbench.input_box("Enter interpreter path", str(pythons["server"]))
    shown = workbench.problems(lambda text: "TCP001" in text and "TCP002" in text,
                               "train.py's findings in the Problems panel", timeout=SLOW_S)
    assert "train.py" in shown
    assert RULES["TCP002"].message.split(";")[0] in shown
    assert "[Ln 7, Col 10]" in shown and "[Ln 9, Col 1]" in shown
    workbench.wait_for(lambda: workbench.shown(".editor-group-container.active .squiggly-warning") >= 2, WAIT_S,
                       "both findings underlined in the editor")
    workbench.command("Notifications: Clear All Notifications")  # the install message, now stale


def test_hover_shows_the_rule_page(editor):
    _, workbench = editor
    workbench.open_file("train.py")
    workbench.go_to(7, 12)
    shown = workbench.hover(lambda text: "What it does" in text, "the rule's page on hover")
    assert f"TCP002: {RULES['TCP002'].name}" in shown
    assert "Use instead" in shown
    workbench.screenshot(ARTIFACTS / "vscode-hover.png")  # the README's picture


def test_quick_fix_from_the_light_bulb(editor):
    _, workbench = editor
    workbench.keys(Keys.ESCAPE)
    workbench.go_to(7, 12)
    workbench.quick_fix("TCP002: ")
    workbench.problems(lambda text: "TCP002" not in text and "TCP001" in text, "TCP002 gone, TCP001 left")
    assert "frozen = weights.detach().clone()" in workbench.editor_text()


def test_fix_all_on_save(editor, workspace):
    _, workbench = editor
    workbench.keys(Keys.CONTROL, "s")  # editor.codeActionsOnSave: {"source.fixAll.tensorcopy": "explicit"}
    workbench.wait_for(lambda: (workspace / "train.py").read_text() == TRAIN_PY.replace(
        "weights.clone().detach()", "weights.detach().clone()").replace(
        "model.weight.data.add_(1)", "with torch.no_grad():\n    model.weight.add_(1)"), 30, "train.py saved, both fixed")
    workbench.problems(lambda text: "train.py" not in text, "no finding left in train.py")


def test_notebook_findings_and_fix_all_command(editor, workspace):
    _, workbench = editor
    workbench.open_file("train.ipynb")
    shown = workbench.problems(lambda text: "train.ipynb" in text and "TCP002" in text,
                               "the notebook cell's finding in the Problems panel", timeout=SLOW_S)
    assert RULES["TCP002"].message.split(";")[0] in shown
    assert "[Ln 1, Col 5]" in shown, "the position in the cell's own lines"
    workbench.wait_for_text(".notebook-editor", lambda text: "u = t.clone().detach()" in text, "the cells shown")
    workbench.wait_for(lambda: workbench.shown(".notebook-editor .squiggly-warning"), WAIT_S,
                       "the finding underlined in its cell")
    workbench.screenshot(ARTIFACTS / "vscode-notebook.png")
    workbench.command("flake8-tensorcopy: Fix All Fixable Findings")
    workbench.problems(lambda text: "TCP002" not in text, "the notebook's finding fixed")
    workbench.keys(Keys.CONTROL, "s")
    workbench.wait_for(lambda: "u = t.detach().clone()" in (workspace / "train.ipynb").read_text(),
                       30, "the fixed cell saved")
