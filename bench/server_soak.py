"""A day of editing, compressed: ``flake8-tensorcopy server`` driven by a real LSP client
over stdio through thousands of changes, with pulls, code actions, hovers and a notebook.

    PYTHONPATH=. python3 bench/server_soak.py [--changes 30000] [--seed 1]

Documents: training files of 1,000 and 3,000 lines (``training_code``: the rules'
fixtures, copy after copy) and a Jupyter notebook of their code cells. The client
declares what VS Code does (pulls, notebook sync, code actions resolved when chosen).
The session cycles through the documents: mostly incremental changes (a statement typed
into a function body, then deleted), a whole-document replacement every 500 changes, a
cell edit every 10; after every 25th change a pull of the document changed; every 250th
a quick-fix code action (``only: quickfix``) at one of its findings, a hover there and a
pull of a cell; every 500th (offset 250) a code action without ``only`` (the lightbulb)
with a pull sent right behind it; every 2,500th the fix-all resolved, with a pull behind.

Prints the server's RSS at the start (after a warm-up of 500 changes: one of each
request), the middle and the end; and, on the 3,000-line file, the latency (median, p95,
max) of each request, the server's CPU time for it beside (``/proc``: 10 ms ticks), and
the ratio to the baseline, the cold lint of the file in the fresh server. The fix-all
runs in a process of its own (``server/fixer_process.py``): its RSS and CPU are printed
apart, and its CPU is not in the fix-all's row. The last pull
of each document must equal what a fresh lint of its text finds, else the run fails.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import random
import resource
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from training_code import training_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from flake8_tensorcopy.server.linting import diagnose  # noqa: E402

TARGETS = "RSS growth < 10 MB; 3,000 lines: pull <= 50 ms median, <= 150 ms p95; quick fix <= 100 ms"
CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        diagnostic=types.DiagnosticClientCapabilities(),
        code_action=types.CodeActionClientCapabilities(
            resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"]))),
    notebook_document=types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()),
)
NOTEBOOK = "file:///soak/train.ipynb"
COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef,
            ast.AsyncFor, ast.AsyncWith, ast.Match)
WARM_UP = 500  # changes before the start's RSS: every kind of request made once


class Document:
    """A text the client holds and edits, as an editor buffer."""

    def __init__(self, uri: str, text: str) -> None:
        self.uri = uri
        self.text = text
        self.version = 1
        self.inserted: int | None = None  # the line of the statement typed in, until deleted
        # Where a statement may be typed: below a simple statement of a function body, at
        # its indentation (the file stays valid Python).
        self.slots = sorted({
            (statement.end_lineno, " " * statement.col_offset)
            for function in ast.walk(ast.parse(text)) if isinstance(function, ast.FunctionDef)
            for statement in function.body if not isinstance(statement, COMPOUND)
        })

    def lines(self) -> list[str]:
        return self.text.split("\n")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def fixer_processes(pid: int) -> list[int]:
    """The server's children that multiprocessing spawned (any of its threads')."""
    children = [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
                for child in (task / "children").read_text().split()]
    return [child for child in children if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()]


def cpu_s(pid: int) -> float:
    """The child's CPU time so far (utime + stime, from /proc: it still runs)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100


class Soak:
    def __init__(self, client: LanguageClient, pid: int, rng: random.Random) -> None:
        self.client = client
        self.pid = pid
        self.rng = rng
        self.times: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}

    def timed(self, what: str, started: float, cpu_started: float) -> None:
        self.times.setdefault(what, []).append((time.perf_counter() - started) * 1000)
        self.cpu.setdefault(what, []).append((cpu_s(self.pid) - cpu_started) * 1000)

    def change(self, document: Document, changes: list) -> None:
        document.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=document.uri, version=document.version), changes))

    def one_line_edit(self, document: Document) -> None:
        """Type a statement into a function body, or delete the one typed before."""
        lines = document.lines()
        if document.inserted is None:
            at, indent = self.rng.choice(document.slots)  # below line ``at`` (1-based)
            new = f"{indent}edited_{document.version} = {document.version}"
            start = types.Position(at, 0)
            self.change(document, [types.TextDocumentContentChangePartial(
                range=types.Range(start, start), text=new + "\n")])
            document.text = "\n".join(lines[:at] + [new] + lines[at:])
            document.inserted = at
        else:
            at = document.inserted
            self.change(document, [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(at, 0), types.Position(at + 1, 0)), text="")])
            document.text = "\n".join(lines[:at] + lines[at + 1 :])
            document.inserted = None

    def replace_all(self, document: Document, text: str) -> None:
        self.change(document, [types.TextDocumentContentChangeWholeDocument(text=text)])
        document.text = text
        document.inserted = None

    async def pull(self, uri: str) -> list[types.Diagnostic]:
        report = await self.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri)))
        return list(report.items)

    async def actions(self, uri: str, span: types.Range, only: list[str] | None) -> list:
        return await self.client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri), span, types.CodeActionContext(diagnostics=[], only=only)))


async def soak(changes: int, seed: int) -> int:
    client = LanguageClient("server-soak", "1")
    received: dict[str, int] = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def pushed(params: types.PublishDiagnosticsParams) -> None:  # the notebook's cells
        received["pushed diagnostics"] = received.get("pushed diagnostics", 0) + 1

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def logged(params: types.LogMessageParams) -> None:
        received["log messages"] = received.get("log messages", 0) + 1

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def shown(params: types.ShowMessageParams) -> None:
        received["pop-ups"] = received.get("pop-ups", 0) + 1
        print(f"pop-up: {params.message}", file=sys.stderr)

    await client.start_io(sys.executable, "-m", "flake8_tensorcopy", "server")
    pid = client._server.pid
    await client.initialize_async(types.InitializeParams(capabilities=CAPABILITIES))
    client.initialized(types.InitializedParams())
    run = Soak(client, pid, random.Random(seed))
    big, small = Document("file:///soak/train_3000.py", training_file(3_000)), \
        Document("file:///soak/train_1000.py", training_file(1_000))
    originals = {big.uri: big.text, small.uri: small.text}
    for document in (big, small):
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(document.uri, "python", 1, document.text)))
    cells = [piece for piece in training_file(150).split("\n\n\n") if piece.strip()]
    cell_uris = [f"vscode-notebook-cell:/soak/train.ipynb#W{n}" for n in range(len(cells))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        types.NotebookDocument(NOTEBOOK, "jupyter-notebook", 1,
                               [types.NotebookCell(types.NotebookCellKind.Code, uri) for uri in cell_uris]),
        [types.TextDocumentItem(uri, "python", 1, text) for uri, text in zip(cell_uris, cells)]))
    started = time.perf_counter()
    cpu_started = cpu_s(pid)
    cold = await run.pull(big.uri)
    run.timed("cold pull (fresh server)", started, cpu_started)
    await run.pull(small.uri)
    await run.pull(cell_uris[0])
    rss = []
    notebook_version, cell_versions = 1, [1] * len(cells)
    findings = {big.uri: cold}
    for number in range(1, WARM_UP + changes + 1):
        if number == WARM_UP + 1:
            rss.append(("start", rss_mib(pid)))
        document = big if number % 3 else small
        if number % 10 == 7:  # a cell retyped
            cell = run.rng.randrange(len(cells))
            notebook_version += 1
            cell_versions[cell] += 1
            text = cells[cell] + ("" if cell_versions[cell] % 2 else f"\nnote_{number} = {number}\n")
            client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
                types.VersionedNotebookDocumentIdentifier(notebook_version, NOTEBOOK),
                types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                    types.NotebookDocumentCellContentChanges(
                        types.VersionedTextDocumentIdentifier(cell_versions[cell], cell_uris[cell]),
                        [types.TextDocumentContentChangeWholeDocument(text)])]))))
            continue
        if number % 500 == 0:
            run.replace_all(document, originals[document.uri])
        else:
            tick, cpu_tick = time.perf_counter(), cpu_s(pid)
            run.one_line_edit(document)
            if number % 25 == 0:
                findings[document.uri] = await run.pull(document.uri)
                if document is big:
                    run.timed("pull after a one-line edit", tick, cpu_tick)
        assert findings.get(big.uri), "the 3,000-line file lost its findings: an edit broke it"
        if number % 250 == 0:
            findings[big.uri] = await run.pull(big.uri)
            target = run.rng.choice(findings[big.uri])
            tick, cpu_tick = time.perf_counter(), cpu_s(pid)
            fixes = await run.actions(big.uri, target.range, ["quickfix"])
            run.timed("quick-fix code action", tick, cpu_tick)
            assert fixes, f"no action for {target.code} at {target.range}"
            await client.text_document_hover_async(types.HoverParams(
                types.TextDocumentIdentifier(big.uri), target.range.start))
            await run.pull(cell_uris[run.rng.randrange(len(cells))])
        if number % 500 == 250:
            target = run.rng.choice(await run.pull(big.uri))
            tick, cpu_tick = time.perf_counter(), cpu_s(pid)
            lightbulb = asyncio.ensure_future(run.actions(big.uri, target.range, None))
            await asyncio.sleep(0)
            behind = time.perf_counter()
            run.one_line_edit(big)
            await run.pull(big.uri)
            run.times.setdefault("pull sent behind it", []).append((time.perf_counter() - behind) * 1000)
            actions = await lightbulb
            run.timed("lightbulb code action", tick, cpu_tick)
            if number % 2_500 == 250:
                fix_all = next(action for action in actions if action.kind == "source.fixAll.tensorcopy")
                tick, cpu_tick = time.perf_counter(), cpu_s(pid)
                resolving = asyncio.ensure_future(client.code_action_resolve_async(fix_all))
                await asyncio.sleep(0)
                behind = time.perf_counter()
                run.one_line_edit(big)
                await run.pull(big.uri)
                run.times.setdefault("pull sent behind the fix-all", []).append((time.perf_counter() - behind) * 1000)
                assert (await resolving).edit is not None
                run.timed("fix-all resolved", tick, cpu_tick)
        if number == WARM_UP + changes // 2:
            rss.append(("middle", rss_mib(pid)))
    for document in (big, small):
        shown = sorted((d.code, d.range.start.line, d.range.start.character) for d in await run.pull(document.uri))
        fresh = sorted((f.code, f.line - 1, f.col) for f in diagnose(document.text, _rules()).findings)
        assert shown == fresh, f"{document.uri}: the server's findings differ from a fresh lint's"
    rss.append(("end", rss_mib(pid)))
    server_cpu = cpu_s(pid)
    workers = fixer_processes(pid)  # the fix-all's (server/fixer_process.py)
    worker_rss, worker_cpu = sum(map(rss_mib, workers)), sum(map(cpu_s, workers))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    report(changes, rss, run, server_cpu, time.perf_counter() - started)
    print(f"fixer process (the fix-all, apart from the server): RSS {worker_rss:.1f} MiB at the end, "
          f"CPU {worker_cpu:.0f} s")
    print("received: " + ", ".join(f"{count:,} {what}" for what, count in sorted(received.items())))
    return 0


def _rules():
    from flake8_tensorcopy import engine
    return engine.rules_for()


def report(changes: int, rss: list[tuple[str, float]], run: Soak, server_cpu: float, wall: float) -> None:
    print(f"{changes:,} changes in {wall:.0f} s (server CPU {server_cpu:.0f} s); "
          f"client: {resource.getrusage(resource.RUSAGE_SELF).ru_utime:.0f} s CPU")
    print("RSS MiB: " + ", ".join(f"{where} {mib:.1f}" for where, mib in rss)
          + f"; growth {rss[-1][1] - rss[0][1]:+.1f}")
    cold = run.times["cold pull (fresh server)"][0]
    print(f"{'3,000-line file, ms':<30} {'n':>5} {'median':>8} {'p95':>8} {'max':>8} {'CPU med':>8} {'/ cold':>7}")
    for what, times in run.times.items():
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        cpu = run.cpu.get(what)
        cpu_text = f"{statistics.median(cpu):>8.1f}" if cpu else f"{'-':>8}"
        print(f"{what:<30} {len(times):>5} {statistics.median(times):>8.1f} {p95:>8.1f} {ordered[-1]:>8.1f} "
              f"{cpu_text} {statistics.median(times) / cold:>7.2f}")
    print(f"targets: {TARGETS}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=30_000)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args(argv)
    return asyncio.run(soak(arguments.changes, arguments.seed))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
