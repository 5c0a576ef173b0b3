"""Warm pull-diagnostics latency of ``flake8-tensorcopy server``, through a real LSP
client over stdio, beside what an editor route through flake8 pays per lint.

    PYTHONPATH=. python3 bench/server_latency.py [FILE ...]

For each file: open it, pull once (cold), then 10 edits, each an incremental change
(a new statement typed into a function body, the line differing each time) followed
by ``textDocument/diagnostic``; the figure is the median time from sending the change
to receiving the diagnostics. Beside it, ``flake8 - --stdin-display-name PATH`` (what
pylsp runs per lint) on the same text, median of 5. Without arguments: the training
files of the benchmark corpus, if fetched, and torch's ``nn/modules/module.py``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from corpus_files import BENCH_CACHE, app_corpus_path, project_cache_outside

EDITS = 10
FLAKE8_RUNS = 5
CORPUS = app_corpus_path(BENCH_CACHE)
DEFAULT_FILES = [CORPUS / "ajbrock+BigGAN-PyTorch/utils.py", CORPUS / "WongKinYiu+yolov7/models/yolo.py"]


def default_files() -> list[Path]:
    files = [path for path in DEFAULT_FILES if path.is_file()]
    torch = importlib.util.find_spec("torch")
    if torch is not None and torch.origin:
        files.append(Path(torch.origin).parent / "nn" / "modules" / "module.py")
    return files


def edit_line(source: str) -> int:
    """A line inside a function body near the middle of the file (0-based)."""
    lines = source.splitlines()
    for number in range(len(lines) // 2, len(lines)):
        line = lines[number]
        if line.startswith("        ") and line.strip() and not line.rstrip().endswith(("\\", ",", "(", "[", "{")):
            return number
    raise SystemExit("no line to edit found")


async def server_latency(path: Path) -> tuple[float, float, int]:
    """(cold ms, warm median ms, findings)."""
    source = path.read_text(encoding="utf-8")
    client = LanguageClient("server-latency", "1")
    await client.start_io(sys.executable, "-m", "flake8_tensorcopy", "server")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities()))))
    client.initialized(types.InitializedParams())
    uri = path.resolve().as_uri()
    document = types.TextDocumentIdentifier(uri)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=source)))
    start = time.perf_counter()
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(document))
    cold = time.perf_counter() - start
    findings = len(report.items)
    line = edit_line(source)
    indent = source.splitlines()[line][: len(source.splitlines()[line]) - len(source.splitlines()[line].lstrip())]
    times = []
    for version in range(2, 2 + EDITS):
        at = types.Position(line + 1, 0)  # a new statement at the start of the next line
        change = types.TextDocumentContentChangePartial(
            range=types.Range(at, at), text=f"{indent}edited_{version} = {version}\n")
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(document))
        times.append(time.perf_counter() - start)
        assert len(report.items) == findings, "an edit changed the findings"
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return cold * 1000, statistics.median(times) * 1000, findings


def flake8_latency(path: Path) -> float:
    data = path.read_bytes()
    times = []
    for _ in range(FLAKE8_RUNS):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "flake8", "-", "--stdin-display-name", str(path), "--select", "TC"],
                       input=data, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv: list[str]) -> int:
    project_cache_outside(BENCH_CACHE)  # the server lints the corpus's files: no cache written there
    files = [Path(arg) for arg in argv] or default_files()
    print(f"{'file':<48} {'lines':>6} {'findings':>8} {'cold ms':>8} {'warm ms':>8} {'flake8 ms':>10}")
    for path in files:
        cold, warm, findings = asyncio.run(server_latency(path))
        lines = len(path.read_text(encoding="utf-8").splitlines())
        name = "/".join(path.parts[-3:])
        print(f"{name:<48} {lines:>6} {findings:>8} {cold:>8.1f} {warm:>8.1f} {flake8_latency(path):>10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
