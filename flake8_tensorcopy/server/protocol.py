"""The LSP glue (pygls): documents in, diagnostics, code actions and hovers out.

Everything about Python code is decided elsewhere (``linting``, ``fixes``,
``noqa_comment``); this module converts positions (``text``), schedules the work and
talks to the client. Lints run one at a time on a worker thread, so the connection
stays responsive while a big or hostile document is analysed, and the engine's
process-wide settings (recursion limit, cycle collector) are never raced.

Diagnostics are pulled (``textDocument/diagnostic``) by clients that declare pull
support, and pushed (``textDocument/publishDiagnostics``) to the others: on open and
save at once, on change after a quiet ``DEBOUNCE_S`` (a newer change cancels the wait,
and a lint finished for an outdated version is dropped). Pushing to a client that pulls
would show every finding twice.

Notebooks: register the ``notebookDocument/*`` features here and hand each cell's text
(or the cells joined, with a map back to cell URIs) to :meth:`TensorCopyServer.diagnose`;
everything below that works on plain text.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, config, docs, engine
from ..rules import ALL_RULES
from . import fixes, text
from .linting import Diagnosis, Linter
from .noqa_comment import noqa_edit
from .settings import Settings, settings_for

NAME = "flake8-tensorcopy"
DEBOUNCE_S = 0.3
FIX_ALL_KIND = "source.fixAll.tensorcopy"
RULES = {rule.code: rule for rule in ALL_RULES}

Result = TypeVar("Result")


class TensorCopyServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(NAME, __version__)
        self.client_settings = Settings()
        self.linter = Linter()
        self.lint_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tensorcopy-lint")
        self.pending: dict[str, asyncio.Task] = {}  # uri -> its scheduled push
        self.reported_failures: dict[str, str | None] = {}  # uri -> the failure last logged
        self.pushes = True  # False once the client says it pulls

    # -- settings --------------------------------------------------------------------
    def settings(self, uri: str) -> Settings:
        path = to_fs_path(uri)
        try:
            return settings_for(Path(path) if path else None, self.client_settings)
        except config.ConfigError as error:  # said once per new reason; the editor's settings still lint
            if self.reported_failures.get(f"config:{uri}") != str(error):
                self.reported_failures[f"config:{uri}"] = str(error)
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"{NAME}: {error}"))
            return self.client_settings

    def update_settings(self, options: object, where: str) -> None:
        try:
            self.client_settings = Settings.from_client(options)
        except ValueError as error:
            self.window_show_message(types.ShowMessageParams(
                types.MessageType.Error, f"{NAME}: ignored the {where}: {error}"))

    # -- positions -------------------------------------------------------------------
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or text.UTF16)

    def index(self, source: str) -> text.LineIndex:
        return text.LineIndex(source, self.encoding())

    # -- linting ---------------------------------------------------------------------
    async def on_lint_thread(self, work: Callable[[], Result]) -> Result:
        return await asyncio.get_running_loop().run_in_executor(self.lint_thread, work)

    async def diagnose(self, uri: str, source: str) -> Diagnosis:
        rules = self.settings(uri).rules
        diagnosis = await self.on_lint_thread(lambda: self.linter.diagnose(source, rules))
        if self.reported_failures.get(uri) != diagnosis.failure:  # once per new reason, not per keystroke
            self.reported_failures[uri] = diagnosis.failure
            if diagnosis.failure is not None:
                self.window_log_message(types.LogMessageParams(
                    types.MessageType.Warning, f"{NAME}: {uri}: {diagnosis.failure}"))
        return diagnosis

    def diagnostics(self, source: str, diagnosis: Diagnosis) -> list[types.Diagnostic]:
        index = self.index(source)
        return [diagnostic(finding, index) for finding in diagnosis.findings]

    def schedule_push(self, uri: str, delay: float) -> None:
        if not self.pushes:
            return
        stale = self.pending.pop(uri, None)
        if stale is not None:
            stale.cancel()
        self.pending[uri] = asyncio.ensure_future(self._push(uri, delay))

    async def _push(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return
        version, source = document.version, document.source
        diagnosis = await self.diagnose(uri, source)
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return  # outdated: the push scheduled by the newer change will follow
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri, self.diagnostics(source, diagnosis), version))
        if self.pending.get(uri) is asyncio.current_task():
            del self.pending[uri]

    def relint_all(self) -> None:
        if self.pushes:
            for uri in list(self.workspace.text_documents):
                self.schedule_push(uri, 0)
        elif _capability(self.client_capabilities, "workspace", "diagnostics", "refresh_support"):
            self.workspace_diagnostic_refresh(None)

    # -- findings under a range ------------------------------------------------------
    def findings_in(self, uri: str, source: str, requested: types.Range) -> list[engine.Finding]:
        """The findings shown for ``source`` whose span meets ``requested`` (cached lint;
        on the lint thread)."""
        diagnosis = self.linter.diagnose(source, self.settings(uri).rules)
        index = self.index(source)
        first, last = index.column(_position(requested.start)), index.column(_position(requested.end))
        return [
            finding for finding in diagnosis.findings
            if (finding.line, finding.col) <= last and first <= (finding.end_line, finding.end_col)
        ]


def diagnostic(finding: engine.Finding, index: text.LineIndex) -> types.Diagnostic:
    url = docs.page_url(RULES[finding.code])
    return types.Diagnostic(
        range=_range(index, finding),
        message=finding.message.removeprefix(f"{finding.code} "),
        severity=types.DiagnosticSeverity.Warning,
        code=finding.code,
        code_description=types.CodeDescription(href=url) if url else None,
        source=NAME,
    )


def _range(index: text.LineIndex, finding: engine.Finding) -> types.Range:
    return types.Range(
        _lsp(index.position(finding.line, finding.col)), _lsp(index.position(finding.end_line, finding.end_col))
    )


def _lsp(position: text.Position) -> types.Position:
    return types.Position(position.line, position.character)


def _position(position: types.Position) -> text.Position:
    return text.Position(position.line, position.character)


def _workspace_edit(uri: str, version: int | None, index: text.LineIndex,
                    edits: tuple[fixes.Edit, ...]) -> types.WorkspaceEdit:
    text_edits = [
        types.TextEdit(
            types.Range(_lsp(index.position_of_offset(edit.start)), _lsp(index.position_of_offset(edit.end))),
            edit.new_text,
        )
        for edit in edits
    ]
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
        types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), text_edits)])


def _capability(root: object, *path: str) -> object:
    for name in path:
        root = getattr(root, name, None)
    return root


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Whether an action of ``kind`` answers a request for ``only`` (kinds are hierarchical)."""
    return only is None or any(kind == wanted or kind.startswith(wanted + ".") for wanted in only)


def build_server() -> TensorCopyServer:
    server = TensorCopyServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: TensorCopyServer, params: types.InitializeParams) -> None:
        ls.update_settings(params.initialization_options, "initializationOptions")
        ls.pushes = _capability(params.capabilities, "text_document", "diagnostic") is None

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: TensorCopyServer, params: types.DidChangeConfigurationParams) -> None:
        ls.update_settings(params.settings, "settings")
        ls.relint_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TensorCopyServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule_push(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TensorCopyServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule_push(params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TensorCopyServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule_push(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TensorCopyServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        stale = ls.pending.pop(uri, None)
        if stale is not None:
            stale.cancel()
        ls.reported_failures.pop(uri, None)
        if ls.pushes:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier=NAME, inter_file_dependencies=False, workspace_diagnostics=False),
    )
    async def pull_diagnostics(ls: TensorCopyServer, params: types.DocumentDiagnosticParams):
        document = ls.workspace.get_text_document(params.text_document.uri)
        source = document.source
        diagnosis = await ls.diagnose(document.uri, source)
        # The result names the text and the settings: the same again needs no new list.
        result_id = f"{hash((source, ls.settings(document.uri))) & 0xFFFF_FFFF_FFFF_FFFF:016x}"
        if params.previous_result_id == result_id:
            return types.UnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.FullDocumentDiagnosticReport(items=ls.diagnostics(source, diagnosis), result_id=result_id)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False
        ),
    )
    async def code_actions(ls: TensorCopyServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        document = ls.workspace.get_text_document(params.text_document.uri)
        uri, source, version = document.uri, document.source, document.version
        settings = ls.settings(uri)
        index = ls.index(source)
        only = params.context.only

        def work() -> tuple[list[types.CodeAction], str | None]:
            actions = []
            if _wanted(types.CodeActionKind.QuickFix, only):
                for finding in ls.findings_in(uri, source, params.range):
                    actions.extend(quick_fixes(uri, version, source, index, finding, settings))
            failure = None
            if _wanted(FIX_ALL_KIND, only):
                action, failure = fix_all_action(ls.linter, uri, version, source, index, settings)
                if action is not None:
                    actions.append(action)
            return actions, failure

        actions, failure = await ls.on_lint_thread(work)
        if failure is not None:
            ls.window_log_message(types.LogMessageParams(
                types.MessageType.Warning, f"{NAME}: {uri}: no fix-all: {failure}"))
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: TensorCopyServer, params: types.HoverParams) -> types.Hover | None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        source = document.source
        point = types.Range(params.position, params.position)
        findings = await ls.on_lint_thread(lambda: ls.findings_in(document.uri, source, point))
        if not findings:
            return None
        codes = list(dict.fromkeys(finding.code for finding in findings))
        pages = "\n---\n\n".join(docs.render(RULES[code]) for code in codes)
        return types.Hover(
            types.MarkupContent(types.MarkupKind.Markdown, pages), _range(ls.index(source), findings[0])
        )

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TensorCopyServer, params: None) -> None:
        for task in ls.pending.values():
            task.cancel()
        ls.lint_thread.shutdown(wait=False, cancel_futures=True)

    return server


def quick_fixes(uri: str, version: int | None, source: str, index: text.LineIndex,
                finding: engine.Finding, settings: Settings) -> list[types.CodeAction]:
    """The finding's fix (when it has one that applies cleanly), then its noqa action."""
    shown = diagnostic(finding, index)
    actions = []
    if finding.fix is not None:
        fixed = fixes.quick_fix(source, finding, settings.rules)
        if fixed.edits:
            unsafe = "" if finding.fix.safe else " (unsafe)"
            actions.append(types.CodeAction(
                title=f"{finding.code}: {finding.fix.description}{unsafe}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[shown],
                is_preferred=finding.fix.safe,
                edit=_workspace_edit(uri, version, index, fixed.edits),
            ))
    silence = noqa_edit(source, finding.line, finding.code)
    if silence is not None:
        actions.append(types.CodeAction(
            title=f"Disable {finding.code} for this line",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[shown],
            edit=_workspace_edit(uri, version, index, (silence,)),
        ))
    return actions


def fix_all_action(linter: Linter, uri: str, version: int | None, source: str, index: text.LineIndex,
                   settings: Settings) -> tuple[types.CodeAction | None, str | None]:
    """The fix-all action when a shown finding has a fix it may apply; else why not, if known."""
    diagnosis = linter.diagnose(source, settings.rules)
    if not any(f.fix is not None and (f.fix.safe or settings.unsafe_fixes) for f in diagnosis.findings):
        return None, None
    fixed = fixes.fix_all(source, settings.rules, settings.unsafe_fixes)
    if not fixed.edits:
        return None, fixed.failure
    return types.CodeAction(
        title=f"{NAME}: fix all {'' if settings.unsafe_fixes else 'safely '}fixable findings",
        kind=FIX_ALL_KIND,
        edit=_workspace_edit(uri, version, index, fixed.edits),
    ), None


def serve() -> int:
    build_server().start_io()
    return 0
