"""Notebooks in the language server, end to end (LSP 3.17 notebook sync through pytest-lsp's
client, the server in a subprocess): the Python cells are linted as one module, as the
CLI lints a notebook, and everything comes back per cell, in the cell's own positions."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from test_server import PULL, PUSH, WAIT_S, session  # noqa: E402

from flake8_tensorcopy import docs  # noqa: E402
from flake8_tensorcopy.rules import ALL_RULES  # noqa: E402
from flake8_tensorcopy.server.text import LineIndex, Position  # noqa: E402

pytestmark = pytest.mark.slow

NOTEBOOK_URI = "file:///virtual/train.ipynb"
MARKDOWN = "# Training\n\nThe `t` below is a tensor."
SETUP = "%matplotlib inline\nimport torch, copy\nt = torch.zeros(3)\n"
COPY = 'note = "é😀"; u = copy.deepcopy(t)\n'  # TCP003 on `copy.deepcopy(t)`: code points 17-33
STEPS = "z = t.clone().detach()\nt.data.add_(1)"  # TCP002 and TCP001, both safely fixable


def _with_notebooks(capabilities: types.ClientCapabilities) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        text_document=capabilities.text_document,
        workspace=capabilities.workspace,
        notebook_document=types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities()),
    )


def _cell(number: int) -> str:
    return f"vscode-notebook-cell:/virtual/train.ipynb#W{number}sZmlsZQ%3D%3D"  # quoted, as VS Code sends them


def _open_notebook(client, *cells: tuple[types.NotebookCellKind, str, str]) -> list[str]:
    """Open a notebook of ``cells`` (kind, language, text); the cells' URIs."""
    uris = [_cell(number) for number in range(1, len(cells) + 1)]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        types.NotebookDocument(NOTEBOOK_URI, "jupyter-notebook", 1,
                               [types.NotebookCell(kind, uri) for uri, (kind, _, _) in zip(uris, cells)]),
        [types.TextDocumentItem(uri, language, 1, text) for uri, (_, language, text) in zip(uris, cells)],
    ))
    return uris


def _edit_cell(client, notebook_version: int, uri: str, version: int, text: str) -> None:
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        types.VersionedNotebookDocumentIdentifier(notebook_version, NOTEBOOK_URI),
        types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(types.VersionedTextDocumentIdentifier(version, uri),
                                                     [types.TextDocumentContentChangeWholeDocument(text)])]))))


CODE, MARKUP = types.NotebookCellKind.Code, types.NotebookCellKind.Markup
TRAINING = ((MARKUP, "markdown", MARKDOWN), (CODE, "python", SETUP), (CODE, "python", COPY), (CODE, "python", STEPS))


async def _pushed(client, expected: dict[str, list[tuple]]) -> dict[str, list[tuple]]:
    """The diagnostics last pushed to each URI of ``expected``, (code, start, end) each, once
    they are as expected or ``WAIT_S`` has passed (a lint pushes to every cell at once)."""
    def now():
        return {uri: [(d.code, (d.range.start.line, d.range.start.character),
                       (d.range.end.line, d.range.end.character)) for d in client.diagnostics.get(uri, ())]
                for uri in expected}

    for _ in range(int(WAIT_S / 0.02)):
        if now() == expected:
            break
        await asyncio.sleep(0.02)
    return now()


def _apply(texts: dict[str, str], edit: types.WorkspaceEdit) -> dict[str, str]:
    """The cells' texts with a workspace edit applied, as an editor applies it."""
    texts = dict(texts)
    for change in edit.document_changes:
        uri = change.text_document.uri
        index = LineIndex(texts[uri])

        def offset(position: types.Position) -> int:
            line, column = index.column(Position(position.line, position.character))
            return index.starts[line - 1] + column

        edits = sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
        for text_edit in edits:
            start, end = offset(text_edit.range.start), offset(text_edit.range.end)
            texts[uri] = texts[uri][:start] + text_edit.new_text + texts[uri][end:]
    return texts


@pytest.mark.asyncio
async def test_cells_are_one_module_pushed_per_cell_and_a_change_in_one_relints_the_others():
    async with session(_with_notebooks(PUSH)) as client:
        (selector,) = client.server_capabilities.notebook_document_sync.notebook_selector
        assert selector.notebook == "jupyter-notebook" and selector.cells[0].language == "python"
        markdown, setup, copied, steps = _open_notebook(client, *TRAINING)
        # `t` comes from the cell above, past a magic line; the markdown cell gets nothing.
        found = {
            setup: [],
            copied: [("TCP003", (0, 18), (0, 34))],  # UTF-16: "é" is 1 unit, "😀" 2
            steps: [("TCP002", (0, 4), (0, 22)), ("TCP001", (1, 0), (1, 14))],
        }
        assert await _pushed(client, found) == found
        # The cell that binds `t` changes: the unchanged cell below loses its finding.
        _edit_cell(client, 2, setup, 2, SETUP.replace("torch.zeros(3)", "[0.0, 0.0]"))
        found = {**found, copied: []}
        assert await _pushed(client, found) == found
        # A cell edited into safe code: its diagnostics are cleared.
        _edit_cell(client, 3, setup, 3, SETUP)
        _edit_cell(client, 4, copied, 2, COPY.replace("copy.deepcopy(t)", "t.detach().clone()"))
        found = {setup: [], copied: [], steps: [("TCP002", (0, 4), (0, 22)), ("TCP001", (1, 0), (1, 14))]}
        assert await _pushed(client, found) == found
        # A deleted cell's diagnostics go with it.
        client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            types.VersionedNotebookDocumentIdentifier(5, NOTEBOOK_URI),
            types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(
                    types.NotebookCellArrayChange(3, 1, []), did_close=[types.TextDocumentIdentifier(steps)])))))
        found = {setup: [], copied: [], steps: []}
        assert await _pushed(client, found) == found
        # Closed while it shows a finding: cleared. The markdown cell was never pushed to.
        _edit_cell(client, 6, copied, 3, COPY)
        found = {setup: [], copied: [("TCP003", (0, 18), (0, 34))]}
        assert await _pushed(client, found) == found
        assert markdown not in client.diagnostics
        client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
            types.NotebookDocumentIdentifier(NOTEBOOK_URI),
            [types.TextDocumentIdentifier(uri) for uri in (markdown, setup, copied)]))
        found = {setup: [], copied: []}
        assert await _pushed(client, found) == found


@pytest.mark.asyncio
async def test_pulls_quick_fixes_noqa_fix_all_and_hover_on_cells():
    async with session(_with_notebooks(PULL)) as client:
        uris = _open_notebook(client, *TRAINING)
        texts = {uri: text for uri, (_, _, text) in zip(uris, TRAINING)}
        markdown, setup, copied, steps = uris

        async def pull(uri):
            return await asyncio.wait_for(client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))), WAIT_S)

        async def actions(uri, span, only):
            return await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
                types.TextDocumentIdentifier(uri), span, types.CodeActionContext(diagnostics=[], only=only))), WAIT_S)

        (tcp003,) = (await pull(copied)).items
        assert (tcp003.code, tcp003.range) == ("TCP003", types.Range(types.Position(0, 18), types.Position(0, 34)))
        assert list((await pull(markdown)).items) == [] and list((await pull(setup)).items) == []

        # The quick fix and the noqa action edit the cell, in its positions.
        fix, silence = await actions(copied, tcp003.range, ["quickfix"])
        assert fix.title.startswith("TCP003: ") and fix.title.endswith("(unsafe)")
        assert [change.text_document.uri for change in fix.edit.document_changes] == [copied]
        assert _apply(texts, fix.edit)[copied] == COPY.replace("copy.deepcopy(t)", "t.detach().clone()")
        assert _apply(texts, silence.edit)[copied] == COPY.replace("\n", "  # noqa: TCP003\n")

        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(copied), types.Position(0, 25))), WAIT_S)
        assert hover.contents.value == docs.render(next(r for r in ALL_RULES if r.code == "TCP003"))
        assert hover.range == tcp003.range

        # Fix-all, asked from any cell, applies every safe fix of the notebook, each in its cell.
        (fix_all,) = await actions(setup, types.Range(types.Position(0, 0), types.Position(0, 0)), ["source.fixAll"])
        fixed = _apply(texts, fix_all.edit)
        assert fixed[steps] == "z = t.detach().clone()\nwith torch.no_grad():\n    t.add_(1)"
        assert {uri for uri in fixed if fixed[uri] != texts[uri]} == {steps}

        # The fixed cell, sent back, pulls clean; the others keep theirs.
        _edit_cell(client, 2, steps, 2, fixed[steps])
        assert list((await pull(steps)).items) == []
        assert [d.code for d in (await pull(copied)).items] == ["TCP003"]
        # A client that pulls cells sees no pushed findings: none, or the push that cleared them.
        assert not client.diagnostics.get(copied)


SNAPSHOT = """\
def train(model, batches, evaluate):
    best_loss, best_state = float("inf"), None
    for x in batches:
        val = evaluate(model, x)
        if val < best_loss:
            best_loss, best_state = val, model.state_dict()
    model.load_state_dict(best_state)
"""


@pytest.mark.asyncio
async def test_a_quick_fix_in_one_cell_adds_its_import_to_the_first():
    async with session(_with_notebooks(PULL)) as client:
        cells = ((MARKUP, "markdown", MARKDOWN), (CODE, "python", "import torch\r\n"), (CODE, "python", SNAPSHOT))
        markdown, first, train = _open_notebook(client, *cells)
        (tcp008,) = (await asyncio.wait_for(client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(types.TextDocumentIdentifier(train))), WAIT_S)).items
        assert tcp008.code == "TCP008" and tcp008.range.start == types.Position(5, 41)
        fix, _ = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(train), tcp008.range, types.CodeActionContext(diagnostics=[]))), WAIT_S)
        assert [(change.text_document.uri, change.text_document.version) for change in fix.edit.document_changes] \
            == [(first, 1), (train, 1)]
        fixed = _apply({uri: text for uri, (_, _, text) in zip((markdown, first, train), cells)}, fix.edit)
        assert fixed[first] == "import copy\nimport torch\r\n"
        assert fixed[train] == SNAPSHOT.replace("model.state_dict()", "copy.deepcopy(model.state_dict())")
