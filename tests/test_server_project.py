"""The language server reads the document's project as flake8 does: from disk, with the
editor's open buffers laid over it. A change of one open module lints the documents that
import it again (a refresh for a pulling client), and a file changed on disk reaches them
through ``workspace/didChangeWatchedFiles``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import every_rule
import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402

from test_server import PULL, _pull, _replace_all, session  # noqa: E402

pytestmark = pytest.mark.slow

HELPERS_ARRAY = "import numpy as np\n\n\ndef make_batch(n):\n    return np.zeros((n, 4))\n"
HELPERS_TENSOR = "import torch\n\n\ndef make_batch(n):\n    return torch.randn(n, 4)\n"
TRAIN = """\
import torch

from helpers import make_batch


def step():
    return torch.tensor(make_batch(8))
"""


def _project(root: Path) -> tuple[Path, Path]:
    (root / "pyproject.toml").write_text("[tool.flake8-tensorcopy]\nproject = true\n" + every_rule.TABLE_KEYS)
    helpers, train = root / "helpers.py", root / "train.py"
    helpers.write_text(HELPERS_ARRAY)
    train.write_text(TRAIN)
    return helpers, train


def _open_file(client, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    return uri


async def _codes(client, uri: str) -> list[tuple[str, int]]:
    report = await _pull(client, uri)
    return [(d.code, d.range.start.line + 1) for d in report.items]


def _flake8(path: Path) -> list[tuple[str, int]]:
    result = subprocess.run([sys.executable, "-m", "flake8", "--select", "TCP", path.name],
                            cwd=path.parent, capture_output=True, text=True, timeout=300)
    return [(line.split()[1], int(line.split(":")[1])) for line in result.stdout.splitlines()]


@pytest.mark.asyncio
async def test_open_buffers_are_what_the_other_documents_read(tmp_path: Path) -> None:
    helpers, train = _project(tmp_path)
    async with session(PULL) as client:
        train_uri = _open_file(client, train, TRAIN)
        assert await _codes(client, train_uri) == [] == _flake8(train)  # numpy: nothing to flag
        helpers_uri = _open_file(client, helpers, HELPERS_ARRAY)
        _replace_all(client, helpers_uri, HELPERS_TENSOR, 2)  # unsaved: only the buffer says so
        assert await _codes(client, train_uri) == [("TCP005", 7)]
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(helpers_uri)))
        assert await _codes(client, train_uri) == []  # closed unsaved: the file on disk again


@pytest.mark.asyncio
async def test_a_file_changed_on_disk_reaches_the_open_documents(tmp_path: Path) -> None:
    helpers, train = _project(tmp_path)
    async with session(PULL) as client:
        train_uri = _open_file(client, train, TRAIN)
        assert await _codes(client, train_uri) == []
        helpers.write_text(HELPERS_TENSOR + "\n\n# now a tensor\n")  # another size: a new stamp
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(helpers.as_uri(), types.FileChangeType.Changed)]))
        assert await _codes(client, train_uri) == [("TCP005", 7)] == _flake8(train)


CROP = "import torch\n\n\ndef crop(xyxy):\n    return torch.tensor(xyxy)\n"
NO_CALL = "def run():\n    return None\n"
DETECT_ROWS = """\
import torch

from crops import crop


def run(det: torch.Tensor):
    for *xyxy, conf in det:
        crop(xyxy)
"""


@pytest.mark.asyncio
async def test_a_caller_in_another_module_reaches_the_open_document(tmp_path: Path) -> None:
    """What the callers of another module pass is evidence too: their edits, unsaved or
    on disk, lint the callee's document again, as flake8 reads it."""
    (tmp_path / "pyproject.toml").write_text("[tool.flake8-tensorcopy]\nproject = true\n" + every_rule.TABLE_KEYS)
    crops, detect = tmp_path / "crops.py", tmp_path / "detect.py"
    crops.write_text(CROP)
    detect.write_text(NO_CALL)
    async with session(PULL) as client:
        crops_uri = _open_file(client, crops, CROP)
        assert await _codes(client, crops_uri) == [] == _flake8(crops)  # no caller
        detect_uri = _open_file(client, detect, NO_CALL)
        _replace_all(client, detect_uri, DETECT_ROWS, 2)  # unsaved: imports it, passes rows of a tensor
        assert await _codes(client, crops_uri) == [("TCP005", 5)]
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(detect_uri)))
        assert await _codes(client, crops_uri) == []  # closed unsaved: no caller on disk
        detect.write_text(DETECT_ROWS)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(detect.as_uri(), types.FileChangeType.Changed)]))
        assert await _codes(client, crops_uri) == [("TCP005", 5)] == _flake8(crops)
        (tmp_path / "late.py").write_text("from crops import crop\n\ncrop([0.0, 1.0])\n")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent((tmp_path / "late.py").as_uri(), types.FileChangeType.Created)]))
        assert await _codes(client, crops_uri) == [] == _flake8(crops)  # a new caller passes numbers


@pytest.mark.slow
@pytest.mark.asyncio
async def test_an_open_module_never_saved_is_a_module(tmp_path: Path) -> None:
    """A buffer is a module of the project whether or not its file is on disk: a new file
    not saved yet, imported or importing."""
    (tmp_path / "pyproject.toml").write_text("[tool.flake8-tensorcopy]\nproject = true\n" + every_rule.TABLE_KEYS)
    train, crops = tmp_path / "train.py", tmp_path / "crops.py"
    train.write_text(TRAIN)
    crops.write_text(CROP)
    async with session(PULL) as client:
        train_uri = _open_file(client, train, TRAIN)
        assert await _codes(client, train_uri) == []  # no helpers.py anywhere
        _open_file(client, tmp_path / "helpers.py", HELPERS_TENSOR)  # never saved
        assert await _codes(client, train_uri) == [("TCP005", 7)]
        crops_uri = _open_file(client, crops, CROP)
        assert await _codes(client, crops_uri) == []
        _open_file(client, tmp_path / "detect.py", DETECT_ROWS)  # a caller, never saved
        assert await _codes(client, crops_uri) == [("TCP005", 5)]
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent((tmp_path / "other.py").as_uri(), types.FileChangeType.Created)]))
        assert await _codes(client, train_uri) == [("TCP005", 7)]  # the project read again: still there
        assert await _codes(client, crops_uri) == [("TCP005", 5)]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_an_open_module_deleted_on_disk_is_still_a_module(tmp_path: Path) -> None:
    helpers, train = _project(tmp_path)
    helpers.write_text(HELPERS_TENSOR)
    async with session(PULL) as client:
        train_uri = _open_file(client, train, TRAIN)
        _open_file(client, helpers, HELPERS_TENSOR)
        assert await _codes(client, train_uri) == [("TCP005", 7)]
        helpers.unlink()
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(helpers.as_uri(), types.FileChangeType.Deleted)]))
        assert await _codes(client, train_uri) == [("TCP005", 7)]  # the buffer is still open


WATCHING = types.ClientCapabilities(
    text_document=PULL.text_document,
    workspace=types.WorkspaceClientCapabilities(
        diagnostics=PULL.workspace.diagnostics,
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
    ),
)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_notebooks_are_watched_too(monkeypatch) -> None:
    """A notebook imports the project's modules and calls them: a change on disk must
    reach the documents it calls into, as a module's does."""
    import pytest_lsp

    registered: asyncio.Future = asyncio.get_running_loop().create_future()
    make_client = pytest_lsp.make_test_lsp_client

    def recording_client():  # the handler is there before the server can ask
        client = make_client()

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            if not registered.done():
                registered.set_result(params)

        return client

    monkeypatch.setattr(pytest_lsp, "make_test_lsp_client", recording_client)
    async with session(WATCHING):
        params = await asyncio.wait_for(registered, 30)
    patterns = [watcher["globPattern"] if isinstance(watcher, dict) else watcher.glob_pattern
                for registration in params.registrations
                for watcher in _watchers(registration.register_options)]
    assert any(pattern.endswith((".ipynb", "ipynb}")) for pattern in patterns), patterns
    assert any(pattern.endswith((".py", "py}", "py,ipynb}")) for pattern in patterns), patterns


def _watchers(options) -> list:
    return options["watchers"] if isinstance(options, dict) else options.watchers
