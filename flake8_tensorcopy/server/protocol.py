"""The LSP glue (pygls): documents in, diagnostics, code actions and hovers out.

Everything about Python code is decided elsewhere (``linting``, ``fixes``,
``noqa_comment``, ``documents``); this module converts positions (``text``), schedules
the work and talks to the client (``rpc``: the connection). Lints and hovers run one at a time on the lint thread (``worker``), so the connection
stays responsive while a big or hostile document is analysed. Fixes run on a thread of
their own, so that no pull waits behind a code action: a quick fix (its chunk, cut from
the text's ``ast``, then the fixed file re-linted) and the fix-all (the
whole file through the fixer: seconds, in a process of its own, ``fixer_process``), which
a client that resolves code actions gets computed only when chosen
(``codeAction/resolve``), not each time the cursor moves. The
fix thread steps aside at its checkpoints while the lint thread has urgent work
(``yielding``), and shares the linter (its caches are thread-safe): what a fix's check
lints, a pull after the fix is applied finds done.

Diagnostics are pulled (``textDocument/diagnostic``) by clients that declare pull
support, and pushed (``textDocument/publishDiagnostics``) to the others: on open and
save at once, on change after a quiet ``DEBOUNCE_S`` (a newer change cancels the wait,
and a lint finished for an outdated version is dropped). Pushing to a client that pulls
would show every finding twice.

Notebooks (LSP 3.17 notebook sync, Jupyter notebooks' Python cells): a change to any
cell lints the whole notebook as one module (``documents.JoinedNotebook``), and every
request about a cell answers from that lint. Their diagnostics are pushed, one
notification per cell, whatever the client says about pulls: VS Code pulls for text
documents but not for notebook cells. A client that does pull a cell's diagnostics
gets them, and from then on no notebook pushes (which would show them twice).
"""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, chunk_fix, config, docs, engine, limits, notebook
from ..runtime import collector, memory, yielding
from ..runtime.bounded import BoundedCache
from ..rules import ALL_RULES
from . import fixes, text
from ..analysis import project
from .documents import Cell, JoinedNotebook, LoneDocument, Shown, file_path
from .fixer_process import FixerProcess
from .linting import Diagnosis, Linter
from .noqa_comment import noqa_edit
from .rpc import TensorCopyProtocol, serve_stdio
from .settings import Settings, settings_for
from .worker import Worker

NAME = "flake8-tensorcopy"
DEBOUNCE_S = 0.3
# The files the project analysis reads: modules, and the notebooks that import and call them.
WATCHED = "**/*.{py,ipynb}"
FIX_ALL_KIND = "source.fixAll.tensorcopy"
RULES = {rule.code: rule for rule in ALL_RULES}
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithNotebook(
        notebook="jupyter-notebook", cells=[types.NotebookCellLanguage("python")])],
    save=True,
)

Result = TypeVar("Result")
Linted = LoneDocument | JoinedNotebook


class TensorCopyServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(NAME, __version__, notebook_document_sync=NOTEBOOK_SYNC, protocol_cls=TensorCopyProtocol)
        self.client_settings = Settings()
        self.linter = Linter()  # for both threads: what one lints, the other finds done
        self.lint_thread = Worker("tensorcopy-lint")
        self.fix_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tensorcopy-fix")
        self.fixer_process = FixerProcess()  # the fix-all, away from the lint thread's CPU
        self.pending: dict[str, asyncio.Task] = {}  # document or notebook uri -> its scheduled push
        self.pending_refresh: asyncio.Task | None = None  # a debounced workspace/diagnostic/refresh
        self.published: dict[str, set[str]] = {}  # notebook uri -> the cells last pushed to
        self.reported_failures: dict[str, str | None] = {}  # uri -> the failure last logged
        self.pushes = True  # False once the client says it pulls
        self.cells_pulled = False  # True once the client pulls a notebook cell's diagnostics

    def shutdown(self) -> None:
        """The server ends (after ``exit``, or when the client is gone): so does the
        fixer process."""
        self.fixer_process.stop()
        super().shutdown()

    def report_server_error(self, error: Exception, source: object) -> None:
        """An error outside any request (a notification's handler): logged for whoever
        reads the log; a pop-up would only interrupt the user."""
        self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"{NAME}: {error}"))

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

    # -- what a document lints -------------------------------------------------------
    def linted(self, uri: str) -> Linted:
        """What a request about ``uri`` works on: the notebook that holds the cell ``uri``,
        else the document (read from disk when the editor has not opened it)."""
        book = self.workspace.get_notebook_document(cell_uri=uri)
        if book is not None:
            return self.joined(book)
        document = self.workspace.get_text_document(uri)
        return LoneDocument(document.uri, document.source, document.version)

    def opened(self, uri: str) -> Linted | None:
        """What a push for ``uri`` lints, a notebook or a document; None once it is closed."""
        book = self.workspace.get_notebook_document(notebook_uri=uri)
        if book is not None:
            return self.joined(book)
        document = self.workspace.text_documents.get(unquote(uri))
        return None if document is None else LoneDocument(document.uri, document.source, document.version)

    def joined(self, book: types.NotebookDocument) -> JoinedNotebook:
        cells = []
        for number, cell in enumerate(book.cells, 1):
            document = self.workspace.text_documents.get(unquote(cell.document))
            if cell.kind == types.NotebookCellKind.Code and document is not None and document.language_id == "python":
                cells.append(Cell(cell.document, number, document.source, document.version))
        return JoinedNotebook(book.uri, cells)

    # -- positions -------------------------------------------------------------------
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or text.UTF16)

    def index(self, source: str) -> text.LineIndex:
        return text.LineIndex.of(source, self.encoding())

    # -- linting ---------------------------------------------------------------------
    async def on_lint_thread(self, work: Callable[[], Result], urgent: bool = True) -> Result:
        """``work`` on the lint thread; what is not ``urgent`` waits for what is."""
        return await asyncio.wrap_future(self.lint_thread.submit(work, urgent))

    async def on_fix_thread(self, work: Callable[[], Result]) -> Result:
        """``work`` on the fix thread: the cycle collector paused as on the lint thread, and
        stepping aside at each checkpoint while the lint thread has urgent work."""
        def run() -> Result:
            with collector.paused(collect=True), yielding.stepping_aside(self.lint_thread.wait_for_urgent):
                return work()
        return await asyncio.get_running_loop().run_in_executor(self.fix_thread, run)

    def lint_for_fixes(self, rules: list, linted: Linted,
                       before: Diagnosis) -> Callable[[str], tuple[tuple[engine.Finding, ...], str | None]]:
        """How a quick fix of ``linted`` checks its result (fix thread): ``before`` is the
        lint of its text; the fixed one is linted as a pull would lint it."""
        def lint(text: str) -> tuple[tuple[engine.Finding, ...], str | None]:
            diagnosis = before if text == linted.module else self.linter.diagnose(text, rules, linted.path)
            return diagnosis.findings, diagnosis.failure
        return lint

    async def fix_all(self, linted: Linted, settings: Settings, encoding: str) -> types.CodeAction | None:
        """The fix-all action with its edit (on the fix thread); None, logged, when it has none."""
        edit, failure = await self.on_fix_thread(
            lambda: fix_all_edit(linted, settings, encoding, self.fixer_process.fix_all))
        if edit is None:
            self.no_fix_all(linted, failure)
            return None
        return fix_all_action(linted, settings, edit)

    def no_fix_all(self, linted: Linted, why: str) -> None:
        self.window_log_message(types.LogMessageParams(
            types.MessageType.Warning, f"{NAME}: {linted.uri}: no fix-all: {linted.told(why)}"))

    def resolves_edits(self) -> bool:
        """Whether the client resolves a code action's edit when it is chosen."""
        support = _capability(self.client_capabilities, "text_document", "code_action", "resolve_support")
        return "edit" in (getattr(support, "properties", None) or ())

    async def diagnose(self, linted: Linted) -> Diagnosis:
        rules = self.settings(linted.uri).rules
        diagnosis = await self.on_lint_thread(lambda: self.linter.diagnose(linted.module, rules, linted.path))
        if self.reported_failures.get(linted.uri) != diagnosis.failure:  # once per new reason, not per keystroke
            self.reported_failures[linted.uri] = diagnosis.failure
            if diagnosis.failure is not None:
                self.window_log_message(types.LogMessageParams(
                    types.MessageType.Warning, f"{NAME}: {linted.uri}: {linted.told(diagnosis.failure)}"))
        return diagnosis

    def diagnostics(self, linted: Linted, uri: str, diagnosis: Diagnosis) -> list[types.Diagnostic]:
        """The diagnostics of the document ``uri``, one of those ``linted`` spans."""
        index = self.index(linted.documents[uri].text)
        return [diagnostic(shown.shown, index) for shown in linted.shown(diagnosis.findings)[uri]]

    def pushes_to(self, uri: str) -> bool:
        """Whether the diagnostics of the document or notebook ``uri`` are pushed."""
        if self.workspace.get_notebook_document(notebook_uri=uri) is not None:
            return not self.cells_pulled
        return self.pushes

    def schedule_push(self, uri: str, delay: float) -> None:
        """Push the diagnostics of the document or notebook ``uri`` after ``delay``."""
        if not self.pushes_to(uri):
            if self.workspace.get_notebook_document(notebook_uri=uri) is not None:
                self.refresh()  # the client pulls cells, and a change in one may change the others
            return
        stale = self.pending.pop(uri, None)
        if stale is not None:
            stale.cancel()
        self.pending[uri] = asyncio.ensure_future(self._push(uri, delay))

    async def _push(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        linted = self.opened(uri)
        if linted is None:
            return
        diagnosis = await self.diagnose(linted)
        current = self.opened(uri)
        if current is None or current.documents != linted.documents or not self.pushes_to(uri):
            return  # outdated: the push scheduled by the newer change will follow
        for document_uri, opened in linted.documents.items():
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                document_uri, self.diagnostics(linted, document_uri, diagnosis), opened.version))
        if isinstance(linted, JoinedNotebook):  # cells deleted, or no longer Python: nothing to show
            for gone in self.published.get(uri, set()) - linted.documents.keys():
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(gone, []))
            self.published[uri] = set(linted.documents)
        if self.pending.get(uri) is asyncio.current_task():
            del self.pending[uri]

    def forget(self, uri: str) -> None:
        """A closed document or notebook: its scheduled push is cancelled, its logged failure
        forgotten."""
        stale = self.pending.pop(uri, None)
        if stale is not None:
            stale.cancel()
        self.reported_failures.pop(uri, None)
        self.reported_failures.pop(f"config:{uri}", None)

    def unpublish_notebook(self, uri: str, cells: set[str]) -> None:
        """Take back what was pushed for the notebook ``uri``: closed, or now pulled."""
        for cell in cells | self.published.pop(uri, set()):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(cell, []))

    # -- the project: open documents are what the others read of their modules -------
    def buffer_changed(self, uri: str, text: str | None) -> None:
        """The open document ``uri`` now holds ``text`` (None: closed, its file is read
        again): the analyses of the project's other documents read it so, and lint again."""
        path = file_path(uri)
        located = project.locate(path) if path is not None and path.endswith(".py") else None
        if located is None:
            return
        before = project.generation()
        located[0].overlay(located[1], text)
        if project.generation() != before:
            self.others_changed(uri)

    def files_changed(self) -> None:
        """Files changed on disk (``workspace/didChangeWatchedFiles``): every project is
        read again, every open document linted again."""
        project.forget_files()
        self.relint_all()

    def others_changed(self, changed: str) -> None:
        """A module changed: the other open documents may import or call it (debounced)."""
        opened = [book.uri for book in self.workspace.notebook_documents.values()] + [
            document.uri for document in self.workspace.text_documents.values()
            if self.workspace.get_notebook_document(cell_uri=document.uri) is None and document.uri != changed
        ]
        for uri in opened:
            if self.pushes_to(uri):
                self.schedule_push(uri, DEBOUNCE_S)
        if not all(map(self.pushes_to, opened)):
            if self.pending_refresh is not None:
                self.pending_refresh.cancel()
            self.pending_refresh = asyncio.ensure_future(self._refresh_after(DEBOUNCE_S))

    async def _refresh_after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self.pending_refresh = None
        self.refresh()

    def refresh(self) -> None:
        if _capability(self.client_capabilities, "workspace", "diagnostics", "refresh_support"):
            self.workspace_diagnostic_refresh(None)

    def relint_all(self) -> None:
        opened = [book.uri for book in self.workspace.notebook_documents.values()] + [
            document.uri for document in self.workspace.text_documents.values()
            if self.workspace.get_notebook_document(cell_uri=document.uri) is None
        ]
        for uri in opened:
            if self.pushes_to(uri):
                self.schedule_push(uri, 0)
        if not all(map(self.pushes_to, opened)):
            self.refresh()

    # -- findings under a range ------------------------------------------------------
    def findings_in(self, linted: Linted, uri: str, requested: types.Range) -> list[Shown]:
        """The findings shown in the document ``uri`` whose span meets ``requested``
        (cached lint; on the lint thread)."""
        diagnosis = self.linter.diagnose(linted.module, self.settings(linted.uri).rules, linted.path)
        index = self.index(linted.documents[uri].text)
        first, last = index.column(_position(requested.start)), index.column(_position(requested.end))
        return [
            shown for shown in linted.shown(diagnosis.findings)[uri]
            if (shown.shown.line, shown.shown.col) <= last and first <= (shown.shown.end_line, shown.shown.end_col)
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


def _workspace_edit(linted: Linted, edits: tuple[fixes.Edit, ...], encoding: str) -> types.WorkspaceEdit | None:
    """``edits`` of the linted module as edits of the documents it spans (None: no change).
    Raises :class:`notebook.NotebookError` when they cannot go into a notebook's cells."""
    changes = []
    for uri, document_edits in linted.edits(edits).items():
        if not document_edits:
            continue
        opened = linted.documents[uri]
        index = text.LineIndex.of(opened.text, encoding)
        changes.append(types.TextDocumentEdit(
            types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=opened.version),
            [types.TextEdit(types.Range(_lsp(index.position_of_offset(edit.start)),
                                        _lsp(index.position_of_offset(edit.end))), edit.new_text)
             for edit in document_edits],
        ))
    return types.WorkspaceEdit(document_changes=changes) if changes else None


def _document(linted: Linted, uri: str) -> str | None:
    """The key of ``uri`` among the documents ``linted`` spans (None: a cell it does not
    lint, e.g. markdown); clients and pygls may quote a URI differently."""
    return next((key for key in linted.documents if unquote(key) == unquote(uri)), None)


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

    @server.feature(types.INITIALIZED)
    def initialized(ls: TensorCopyServer, params: types.InitializedParams) -> None:
        if _capability(ls.client_capabilities, "workspace", "did_change_watched_files", "dynamic_registration"):
            ls.client_register_capability(types.RegistrationParams([types.Registration(
                f"{NAME}-watched-files", types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                types.DidChangeWatchedFilesRegistrationOptions([types.FileSystemWatcher(glob_pattern=WATCHED)]),
            )]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: TensorCopyServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.files_changed()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TensorCopyServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.buffer_changed(params.text_document.uri, params.text_document.text)
        ls.schedule_push(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TensorCopyServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if unquote(uri) in ls.workspace.text_documents:
            ls.buffer_changed(uri, ls.workspace.get_text_document(uri).source)
        ls.schedule_push(uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: TensorCopyServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule_push(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TensorCopyServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.forget(uri)
        ls.buffer_changed(uri, None)
        if ls.pushes:
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: TensorCopyServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.schedule_push(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: TensorCopyServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule_push(params.notebook_document.uri, DEBOUNCE_S)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: TensorCopyServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule_push(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: TensorCopyServer, params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        ls.forget(uri)
        ls.unpublish_notebook(uri, {cell.uri for cell in params.cell_text_documents})

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier=NAME, inter_file_dependencies=True, workspace_diagnostics=False),
    )
    async def pull_diagnostics(ls: TensorCopyServer, params: types.DocumentDiagnosticParams):
        linted = ls.linted(params.text_document.uri)
        if isinstance(linted, JoinedNotebook) and not ls.cells_pulled:
            ls.cells_pulled = True  # this client pulls cells: pushes would show them twice
            for book in list(ls.published):
                ls.unpublish_notebook(book, set())
        uri = _document(linted, params.text_document.uri)
        if uri is None:
            return types.FullDocumentDiagnosticReport(items=[])
        diagnosis = await ls.diagnose(linted)
        # The result names the texts and the settings: the same again needs no new list.
        key = (linted.module, linted.documents[uri].text, uri, ls.settings(linted.uri))
        result_id = f"{hash(key) & 0xFFFF_FFFF_FFFF_FFFF:016x}"
        if params.previous_result_id == result_id:
            return types.UnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.FullDocumentDiagnosticReport(items=ls.diagnostics(linted, uri, diagnosis), result_id=result_id)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True
        ),
    )
    async def code_actions(ls: TensorCopyServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        linted = ls.linted(params.text_document.uri)
        uri = _document(linted, params.text_document.uri)
        settings = ls.settings(linted.uri)
        encoding = ls.encoding()
        only = params.context.only

        actions = []
        if uri is not None and _wanted(types.CodeActionKind.QuickFix, only):
            found, before = await ls.on_lint_thread(lambda: (
                ls.findings_in(linted, uri, params.range), ls.linter.diagnose(linted.module, settings.rules, linted.path)),
                urgent=False)
            lint = ls.lint_for_fixes(settings.rules, linted, before)

            def fixed() -> list[types.CodeAction]:
                tree = ls.linter.tree(linted.module) if found else None
                return [action for one in found for action in quick_fixes(linted, uri, one, settings, encoding, lint, tree)]

            actions = await ls.on_fix_thread(fixed)
        fixable = _wanted(FIX_ALL_KIND, only) and await ls.on_lint_thread(
            lambda: fix_all_applies(ls.linter, linted, settings), urgent=False)
        if fixable is True and only is None and ls.resolves_edits():  # computed if chosen
            actions.append(fix_all_action(linted, settings, data={"uri": params.text_document.uri}))
        elif fixable is True:
            action = await ls.fix_all(linted, settings, encoding)
            if action is not None:
                actions.append(action)
        elif fixable:
            ls.no_fix_all(linted, fixable)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve_code_action(ls: TensorCopyServer, action: types.CodeAction) -> types.CodeAction:
        uri = action.data.get("uri") if isinstance(action.data, dict) else None
        if action.kind != FIX_ALL_KIND or not isinstance(uri, str) or action.edit is not None:
            return action
        linted = ls.linted(uri)
        resolved = await ls.fix_all(linted, ls.settings(linted.uri), ls.encoding())
        return action if resolved is None else resolved

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: TensorCopyServer, params: types.HoverParams) -> types.Hover | None:
        linted = ls.linted(params.text_document.uri)
        uri = _document(linted, params.text_document.uri)
        if uri is None:
            return None
        point = types.Range(params.position, params.position)
        found = await ls.on_lint_thread(lambda: ls.findings_in(linted, uri, point))
        if not found:
            return None
        codes = list(dict.fromkeys(shown.shown.code for shown in found))
        pages = "\n---\n\n".join(docs.render(RULES[code]) for code in codes)
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, pages),
                           _range(ls.index(linted.documents[uri].text), found[0].shown))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: TensorCopyServer, params: None) -> None:
        for task in ls.pending.values():
            task.cancel()
        ls.lint_thread.shutdown()
        ls.fix_thread.shutdown(wait=False, cancel_futures=True)
        ls.fixer_process.stop()

    return server


def quick_fixes(linted: Linted, uri: str, found: Shown, settings: Settings, encoding: str,
                lint: Callable, tree: ast.Module | None = None) -> list[types.CodeAction]:
    """The finding's fix (when it has one that applies cleanly), then its noqa action; each
    edits the documents ``linted`` spans (a fix in a cell may add its import to the first).
    ``tree``: the ``ast`` of ``linted.module``, if known."""
    finding = found.linted
    shown = diagnostic(found.shown, text.LineIndex.of(linted.documents[uri].text, encoding))
    actions = []
    if finding.fix is not None:
        fixed = fixes.quick_fix(linted.module, finding, settings.rules, linted.kept_lines, lint, linted.path, tree)
        edit = _edit_or_none(linted, fixed.edits, encoding)
        if edit is not None:
            unsafe = "" if finding.fix.safe else " (unsafe)"
            actions.append(types.CodeAction(
                title=f"{finding.code}: {finding.fix.description}{unsafe}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[shown],
                is_preferred=finding.fix.safe,
                edit=edit,
            ))
    tree = tree if tree is not None else chunk_fix.parsed(linted.module)
    silence = noqa_edit(linted.module, finding.line, finding.code, tree)
    edit = _edit_or_none(linted, (silence,), encoding) if silence is not None else None
    if edit is not None:
        actions.append(types.CodeAction(
            title=f"Disable {finding.code} for this line",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[shown],
            edit=edit,
        ))
    return actions


def _edit_or_none(linted: Linted, edits: tuple[fixes.Edit, ...], encoding: str) -> types.WorkspaceEdit | None:
    """A quick fix that a notebook's cells cannot take (it spans two) is simply not offered."""
    try:
        return _workspace_edit(linted, edits, encoding)
    except notebook.NotebookError:
        return None


def fix_all_applies(linter: Linter, linted: Linted, settings: Settings) -> bool | str:
    """True when a shown finding has a fix the fix-all may apply and the fixer takes a file
    this size; else False, or why not (lint thread)."""
    diagnosis = linter.diagnose(linted.module, settings.rules, linted.path)
    if not any(f.fix is not None and (f.fix.safe or settings.unsafe_fixes) for f in diagnosis.findings):
        return False
    refusal = _FIXER_REFUSES.get(linted.module)
    if refusal is None:  # asked each time the cursor moves: counted once a text
        refusal = limits.Budget(limits.MAX_FIXED_TOKENS, what="fix").spend(linted.module) or ""
        _FIXER_REFUSES.put(linted.module, refusal, len(linted.module))
    return refusal or True


# text -> why the fixer refuses it ("" when it takes it)
_FIXER_REFUSES: BoundedCache[str] = BoundedCache(entries=4, characters=1_000_000)


def fix_all_action(linted: Linted, settings: Settings, edit: types.WorkspaceEdit | None = None,
                   data: object = None) -> types.CodeAction:
    """The fix-all action: with its edit, or with the ``data`` to resolve it later. In a
    notebook it fixes every cell, whichever cell asked."""
    return types.CodeAction(
        title=f"{NAME}: fix all {'' if settings.unsafe_fixes else 'safely '}fixable findings",
        kind=FIX_ALL_KIND,
        edit=edit,
        data=data,
    )


def fix_all_edit(linted: Linted, settings: Settings, encoding: str,
                 elsewhere: Callable | None = None) -> tuple[types.WorkspaceEdit | None, str | None]:
    """The fix-all's edit (fix thread; computed ``elsewhere``, the fixer process, where it
    can be), or why there is none."""
    fixed = fixes.fix_all(linted.module, settings.rules, settings.unsafe_fixes, linted.kept_lines, linted.path,
                          elsewhere)
    try:
        edit = _workspace_edit(linted, fixed.edits, encoding)
    except notebook.NotebookError as error:
        return None, str(error)
    return edit, None if edit is not None else fixed.failure or "the fixes change nothing"


def serve() -> int:
    memory.single_arena()  # before the server's threads start
    return serve_stdio(build_server())
