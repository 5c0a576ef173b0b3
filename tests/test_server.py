"""The language server, end to end: ``flake8-tensorcopy server`` in a subprocess, driven
over stdio by pytest-lsp's client (a real LSP client: framing, capabilities, position
encodings). Every session ends with ``shutdown``/``exit`` and checks exit status 0."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path

import every_rule
import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402

from flake8_tensorcopy import docs, engine, fixer  # noqa: E402
from flake8_tensorcopy.rules import ALL_RULES  # noqa: E402
from flake8_tensorcopy.server.text import LineIndex, Position  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
WAIT_S = 60  # per message: a hang fails the test instead of blocking CI
RULES = {rule.code: rule for rule in ALL_RULES}

STEP = """\
import torch


def step(w: torch.Tensor, lr: float) -> torch.Tensor:
    w.data.add_(-lr * w.grad)
    frozen = w.clone().detach()
    return frozen
"""

SNAPSHOT = """\
import torch


def train(model, batches, evaluate):
    best_loss, best_state = float("inf"), None
    for x in batches:
        val = evaluate(model, x)
        if val < best_loss:
            best_loss, best_state = val, model.state_dict()
    model.load_state_dict(best_state)
"""

PUSH = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(),
    )
)
PULL = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities()),
    workspace=types.WorkspaceClientCapabilities(
        diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    ),
)


def _with_encodings(capabilities: types.ClientCapabilities, *encodings: str) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        text_document=capabilities.text_document,
        workspace=capabilities.workspace,
        general=types.GeneralClientCapabilities(position_encodings=list(encodings)),
    )


@contextlib.asynccontextmanager
async def session(capabilities=PULL, options=None):
    """A server with the editor's ``options`` (by default: every rule on, opt-in ones too)."""
    options = {"select": ["TCP", *every_rule.OPT_IN]} if options is None else options
    client = pytest_lsp.make_test_lsp_client()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    await client.start_io(sys.executable, "-m", "flake8_tensorcopy", "server", env=env, cwd=str(ROOT))
    try:
        result = await asyncio.wait_for(client.initialize_session(types.InitializeParams(
            capabilities=capabilities, initialization_options=options, root_uri=ROOT.as_uri())), WAIT_S)
        client.server_capabilities = result.capabilities
        yield client
        await asyncio.wait_for(client.shutdown_session(), WAIT_S)
        assert client._server.returncode == 0
    finally:
        if client._server.returncode is None:  # the test failed: don't wait for a clean exit
            client._server.kill()
        await client.stop()


_NEXT = iter(range(1, 10_000))


def _open(client, source: str, name: str = "train.py") -> str:
    uri = f"file:///virtual/{next(_NEXT)}/{name}"  # never on disk: only the buffer can be linted
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=source)))
    return uri


def _replace_all(client, uri: str, source: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=source)]))


async def _pull(client, uri: str, previous: str | None = None):
    return await asyncio.wait_for(client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        types.TextDocumentIdentifier(uri), previous_result_id=previous)), WAIT_S)


async def _pushed(client, uri: str, version: int) -> list[types.Diagnostic]:
    """The diagnostics pushed for ``uri`` at ``version`` (waiting for them)."""
    while True:
        params = await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), WAIT_S)
        if params.uri == uri and params.version == version:
            return list(params.diagnostics)


async def _actions(client, uri: str, span: types.Range, only=None) -> list[types.CodeAction]:
    return await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), span, types.CodeActionContext(diagnostics=[], only=only))), WAIT_S)


def _apply(source: str, edit: types.WorkspaceEdit, encoding: str = "utf-16") -> str:
    """``source`` with a workspace edit applied, as an editor applies it (edits from the end)."""
    (change,) = edit.document_changes
    index = LineIndex(source, encoding)

    def offset(position: types.Position) -> int:
        line, column = index.column(Position(position.line, position.character))
        return index.starts[line - 1] + column

    for text_edit in sorted(change.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(text_edit.range.start), offset(text_edit.range.end)
        source = source[:start] + text_edit.new_text + source[end:]
    return source


def _span(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(types.Position(*start), types.Position(*end))


def _summary(diagnostics) -> list[tuple]:
    return [
        (d.code, (d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character))
        for d in diagnostics
    ]


# -- diagnostics ---------------------------------------------------------------------
@pytest.mark.asyncio
async def test_pushed_on_open_and_change_with_exact_ranges():
    async with session(PUSH) as client:
        uri = _open(client, STEP)
        diagnostics = await _pushed(client, uri, 1)
        assert _summary(diagnostics) == [("TCP001", (4, 4), (4, 29)), ("TCP002", (5, 13), (5, 31))]
        first = diagnostics[0]
        assert first.severity == types.DiagnosticSeverity.Warning
        assert first.source == "flake8-tensorcopy"
        assert first.message.startswith("in-place write through .data")
        assert first.code_description.href == docs.page_url(RULES["TCP001"])
        assert first.code_description.href.startswith("https://") and first.code_description.href.endswith("/rules/TCP001.md")

        # Three quick edits: one lint, of the last version (the stale ones are dropped).
        fixed = STEP.replace("w.clone().detach()", "w.detach().clone()")
        _replace_all(client, uri, STEP + "\n", 2)
        _replace_all(client, uri, STEP, 3)
        _replace_all(client, uri, fixed, 4)
        params = await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), WAIT_S)
        assert (params.uri, params.version) == (uri, 4)
        assert _summary(params.diagnostics) == [("TCP001", (4, 4), (4, 29))]

        # An incremental change: the line's call becomes a safe one.
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=5),
            [types.TextDocumentContentChangePartial(range=_span((4, 4), (4, 11)), text="w")]))
        assert await _pushed(client, uri, 5) == []

        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
        params = await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), WAIT_S)
        assert (params.uri, list(params.diagnostics)) == (uri, [])


@pytest.mark.asyncio
async def test_pulled_diagnostics_and_an_unchanged_report():
    async with session(PULL) as client:
        uri = _open(client, STEP)
        report = await _pull(client, uri)
        assert report.kind == "full"
        assert _summary(report.items) == [("TCP001", (4, 4), (4, 29)), ("TCP002", (5, 13), (5, 31))]
        again = await _pull(client, uri, previous=report.result_id)
        assert again.kind == "unchanged" and again.result_id == report.result_id
        _replace_all(client, uri, STEP.replace("    w.data.add_(-lr * w.grad)\n", ""), 2)
        changed = await _pull(client, uri, previous=report.result_id)
        assert changed.kind == "full" and _summary(changed.items) == [("TCP002", (4, 13), (4, 31))]
        assert client.diagnostics == {}  # a client that pulls is never pushed to (no duplicates)


# -- code actions --------------------------------------------------------------------
@pytest.mark.asyncio
async def test_a_quick_fix_edits_only_its_span_and_relints_clean():
    async with session(PULL) as client:
        uri = _open(client, STEP)
        fix, silence = await _actions(client, uri, _span((5, 20), (5, 20)), only=["quickfix"])
        assert fix.title == "TCP002: swap to .detach().clone()"
        assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
        assert fix.diagnostics[0].code == "TCP002"
        (edit,) = fix.edit.document_changes[0].edits
        assert edit.range.start.line == edit.range.end.line == 5
        assert 13 <= edit.range.start.character <= edit.range.end.character <= 31
        fixed = _apply(STEP, fix.edit)
        assert fixed == STEP.replace("w.clone().detach()", "w.detach().clone()")
        _replace_all(client, uri, fixed, 2)
        assert [d.code for d in (await _pull(client, uri)).items] == ["TCP001"]
        assert silence.title == "Disable TCP002 for this line"


@pytest.mark.asyncio
async def test_an_unsafe_quick_fix_is_marked_never_preferred_and_adds_its_import():
    async with session(PULL) as client:
        uri = _open(client, SNAPSHOT)
        (diagnostic,) = (await _pull(client, uri)).items
        assert diagnostic.code == "TCP008"
        fix, _ = await _actions(client, uri, diagnostic.range, only=["quickfix"])
        assert fix.title.endswith("(unsafe)") and not fix.is_preferred
        import_edit, span_edit = fix.edit.document_changes[0].edits
        assert import_edit.new_text == "import copy\n" and import_edit.range.start.line == 0
        assert span_edit.range.start.line == span_edit.range.end.line == diagnostic.range.start.line
        fixed = _apply(SNAPSHOT, fix.edit)
        assert fixed == "import copy\n" + SNAPSHOT.replace(
            "model.state_dict()", "copy.deepcopy(model.state_dict())")
        _replace_all(client, uri, fixed, 2)
        assert list((await _pull(client, uri)).items) == []


@pytest.mark.asyncio
async def test_fix_all_applies_every_safe_fix():
    source = STEP + "\n\n" + SNAPSHOT.replace("import torch\n\n\n", "")
    async with session(PULL) as client:
        uri = _open(client, source)
        assert [d.code for d in (await _pull(client, uri)).items] == ["TCP001", "TCP002", "TCP008"]
        (action,) = await _actions(client, uri, _span((0, 0), (0, 0)), only=["source.fixAll"])
        assert action.kind == "source.fixAll.tensorcopy"
        fixed = _apply(source, action.edit)
        assert fixed == fixer.fix_source(source).source
        _replace_all(client, uri, fixed, 2)
        assert [d.code for d in (await _pull(client, uri)).items] == ["TCP008"]  # unsafe: left alone


@pytest.mark.asyncio
async def test_the_noqa_action_extends_an_existing_comment():
    source = STEP.replace("frozen = w.clone().detach()", "frozen = w.clone().detach()  # noqa: F841")
    async with session(PULL) as client:
        uri = _open(client, source)
        actions = await _actions(client, uri, _span((5, 14), (5, 14)), only=["quickfix"])
        (silence,) = [a for a in actions if a.title == "Disable TCP002 for this line"]
        silenced = _apply(source, silence.edit)
        assert silenced.splitlines()[5] == "    frozen = w.clone().detach()  # noqa: F841, TCP002"
        _replace_all(client, uri, silenced, 2)
        assert [d.code for d in (await _pull(client, uri)).items] == ["TCP001"]


@pytest.mark.asyncio
async def test_every_rule_gets_its_quick_fix_and_noqa_action():
    """Each rule's first flagged example, opt-in rules selected: the diagnostic, its quick fix
    (where the rule has one) relinting clean of it, and the noqa action silencing it."""
    every = [rule.code for rule in ALL_RULES]
    async with session(PULL, options={"select": every}) as client:
        for version, rule in enumerate(ALL_RULES, start=2):
            source = rule.flagged[0].code
            uri = _open(client, source)
            (diagnostic,) = [d for d in (await _pull(client, uri)).items if d.code == rule.code]
            line, column = rule.flagged[0].expect[0]
            assert (diagnostic.range.start.line, diagnostic.range.start.character) == (line - 1, column - 1)
            actions = await _actions(client, uri, diagnostic.range, only=["quickfix"])
            (silence,) = [a for a in actions if a.title == f"Disable {rule.code} for this line"]
            fixes = [a for a in actions if a.title.startswith(f"{rule.code}: ")]
            expected_fix = fixer.applicable(
                next(f for f in engine.lint_source(source, rules=ALL_RULES) if f.code == rule.code).fix, unsafe=True
            )
            assert len(fixes) == (1 if expected_fix else 0), (rule.code, [a.title for a in actions])
            for action in (*fixes, silence):
                _replace_all(client, uri, _apply(source, action.edit), version)
                remaining = [d.code for d in (await _pull(client, uri)).items]
                assert rule.code not in remaining, (rule.code, action.title)
                _replace_all(client, uri, source, version := version + 100)


# -- hover ---------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_hover_shows_the_rule_page():
    async with session(PULL) as client:
        uri = _open(client, STEP)
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(4, 10))), WAIT_S)
        assert hover.contents.kind == types.MarkupKind.Markdown
        assert hover.contents.value == docs.render(RULES["TCP001"])
        assert (hover.range.start, hover.range.end) == (types.Position(4, 4), types.Position(4, 29))
        nothing = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(0, 3))), WAIT_S)
        assert nothing is None


# -- positions -----------------------------------------------------------------------
@pytest.mark.asyncio
@pytest.mark.parametrize(("offered", "negotiated", "column"), [
    ((), "utf-16", 27),  # "é" is 1 unit, "😀" 2
    (("utf-8", "utf-16"), "utf-8", 30),  # "é" is 2 bytes, "😀" 4
    (("utf-32",), "utf-32", 26),  # code points, as LibCST counts them
])
async def test_non_ascii_lines_in_each_position_encoding(offered, negotiated, column):
    source = STEP.replace("    frozen = w.clone().detach()", '    note = "é😀"; frozen = w.clone().detach()')
    capabilities = _with_encodings(PULL, *offered) if offered else PULL
    async with session(capabilities) as client:
        assert client.server_capabilities.position_encoding == negotiated
        uri = _open(client, source)
        tcp002 = (await _pull(client, uri)).items[1]
        assert (tcp002.range.start.character, tcp002.range.end.character) == (column, column + 18)
        fix, _ = await _actions(client, uri, tcp002.range, only=["quickfix"])
        fixed = _apply(source, fix.edit, negotiated)
        assert fixed == source.replace("w.clone().detach()", "w.detach().clone()")
        # An incremental edit after the non-ASCII text lands where the client meant it.
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangePartial(range=tcp002.range, text="w.detach().clone()")]))
        assert [d.code for d in (await _pull(client, uri)).items] == ["TCP001"]


# -- robustness ----------------------------------------------------------------------
@pytest.mark.asyncio
async def test_broken_and_hostile_documents_then_a_normal_one():
    nested = "x = " + "(" * 300 + "1" + ")" * 300 + "\n"
    long_sum = STEP + "\n\ndef total(a):\n    return " + "+".join(["a"] * 400) + "\n"
    async with session(PULL) as client:
        broken = _open(client, STEP.replace("return frozen", "return frozen +"))
        assert list((await _pull(client, broken)).items) == []
        hostile = _open(client, nested + STEP)
        assert list((await _pull(client, hostile)).items) == []
        deep = _open(client, long_sum)
        assert [d.code for d in (await _pull(client, deep)).items] == ["TCP001", "TCP002"]
        logged = [m.message for m in client.log_messages if m.type == types.MessageType.Warning]
        assert any(broken in m and "not valid Python" in m for m in logged)
        assert any(hostile in m for m in logged)
        normal = _open(client, STEP)
        assert [d.code for d in (await _pull(client, normal)).items] == ["TCP001", "TCP002"]


# -- settings ------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_settings_from_initialization_options_then_changed():
    async with session(PUSH, options={"ignore": ["TCP002"]}) as client:
        uri = _open(client, STEP)
        assert [d.code for d in await _pushed(client, uri, 1)] == ["TCP001"]
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"flake8-tensorcopy": {"select": "TCP002"}}))
        assert [d.code for d in await _pushed(client, uri, 1)] == ["TCP002"]
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"select": ["TCP9x9"]}))
        await asyncio.sleep(0)  # a bad setting is refused, and said so
        for _ in range(100):
            if client.messages:
                break
            await asyncio.sleep(0.05)
        assert "TCP9X9" in client.messages[0].message and client.messages[0].type == types.MessageType.Error


@pytest.mark.asyncio
async def test_the_project_configuration_then_the_editor_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.flake8-tensorcopy]\nignore = ["TCP002"]\nper-file-ignores = {"legacy/*" = ["TCP001"]}\n')
    (tmp_path / "legacy").mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "pyproject.toml").write_text('[tool.flake8-tensorcopy]\nselekt = ["TCP"]\n')
    async with session(PUSH, options={}) as client:  # no editor settings: the project's table
        def open_at(path):
            uri = path.as_uri()
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="python", version=1, text=STEP)))
            return uri

        assert [d.code for d in await _pushed(client, open_at(tmp_path / "train.py"), 1)] == ["TCP001"]
        assert [d.code for d in await _pushed(client, open_at(tmp_path / "legacy" / "old.py"), 1)] == []
        # A bad file is said, naming the key and the file; the editor's settings still lint.
        assert sorted(d.code for d in await _pushed(client, open_at(broken / "train.py"), 1)) == ["TCP001", "TCP002"]
        assert any("selekt" in m.message and "pyproject.toml" in m.message for m in client.messages)
    async with session(PUSH, options={"select": ["TCP002"]}) as client:  # the editor's select wins
        uri = (tmp_path / "train.py").as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=1, text=STEP)))
        assert [d.code for d in await _pushed(client, uri, 1)] == ["TCP002"]


@pytest.mark.asyncio
async def test_unsafe_fixes_setting_extends_fix_all():
    async with session(PULL, options={"unsafeFixes": True, "select": ["TCP", "TCP008"]}) as client:
        uri = _open(client, SNAPSHOT)
        (action,) = await _actions(client, uri, _span((0, 0), (0, 0)), only=["source.fixAll"])
        fixed = _apply(SNAPSHOT, action.edit)
        assert fixed == fixer.fix_source(SNAPSHOT, [*engine.rules_for(), *engine.rules_for(["TCP008"])], unsafe=True).source
        assert "copy.deepcopy(model.state_dict())" in fixed


@pytest.mark.asyncio
async def test_pull_clients_are_asked_to_refresh_after_a_settings_change():
    async with session(PULL) as client:
        _open(client, STEP)
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"ignore": "TCP"}))
        for _ in range(200):
            if client.diagnostic_refresh_count:
                break
            await asyncio.sleep(0.05)
        assert client.diagnostic_refresh_count == 1
