"""What the language server keeps: every cache it holds has a bound, and a large document
costs memory only while it is analysed (the server runs as long as the editor does)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from bench_modules import import_bench_modules

from flake8_tensorcopy import prefilter
from flake8_tensorcopy.imports import ImportTable
from flake8_tensorcopy.rules import ALL_RULES

training_file = import_bench_modules(Path(__file__).resolve().parent.parent / "bench", ("training_code",))[
    "training_code"].training_file


@pytest.mark.slow
def test_the_compiled_triggers_are_bounded_however_many_aliases():
    """One pattern per distinct local alias of a trigger's import (``deepcopy as dc_N``)."""
    specs = [rule.trigger_spec() for rule in ALL_RULES if rule.trigger_spec().trigger_imports]
    assert specs
    for number in range(4_000):
        imports = ImportTable.from_ast(ast.parse(f"from copy import deepcopy as dc_{number}\n"))
        for spec in specs:
            spec.patterns(imports)
    info = prefilter._compiled.cache_info()
    assert info.maxsize is not None and info.currsize <= info.maxsize < 4_000


@pytest.mark.slow
def test_the_server_caches_are_bounded_by_size_not_only_count():
    pytest.importorskip("pygls")
    from flake8_tensorcopy import engine
    from flake8_tensorcopy.server.linting import Linter

    linter = Linter()
    rules = engine.rules_for()
    for number in range(6):  # each a 1 MB line: sixteen would be kept by count alone
        linter.diagnose(f"x_{number} = '{'a' * 1_000_000}'\n", rules)
    assert len(linter._cache) <= 4  # 4 MB of text at most


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's RSS from /proc")
def test_large_documents_leave_no_memory_behind_once_closed():
    pytest.importorskip("pygls")
    from lsp_wire import WireClient, frame, notification

    small = training_file(100)
    large = training_file(50_000)
    long_line = "import torch\nx = torch.zeros(3)" + ".clone()" * 120_000 + "\n"
    client = WireClient()
    try:
        client.initialize()
        number = iter(range(1, 1_000))

        def lint(uri: str, text: str, close: bool = True) -> dict:
            client.send(frame(notification("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": text}})))
            report = client.call(next(number), "textDocument/diagnostic", {"textDocument": {"uri": uri}})
            if close:
                client.send(frame(notification("textDocument/didClose", {"textDocument": {"uri": uri}})))
            return report["result"]

        assert lint("file:///virtual/small.py", small, close=False)["items"]
        before = client.rss_kib()
        for copy in range(2):
            lint(f"file:///virtual/large_{copy}.py", large + f"# {copy}\n")
            lint(f"file:///virtual/line_{copy}.py", long_line + f"# {copy}\n")
        assert lint("file:///virtual/small.py", small, close=False)["items"]
        grown = client.rss_kib() - before
        assert grown < 40 * 1024, f"RSS grew by {grown} KiB after two large documents were closed"
        logged = [m["params"]["message"] for m in client.seen if m.get("method") == "window/logMessage"]
        assert any("large_0.py" in message and "limit" in message for message in logged)
        client.call(999, "shutdown")
        client.send(frame(notification("exit")))
        assert client.wait() == 0
    finally:
        client.close()


def test_the_server_allocates_from_one_c_heap(monkeypatch):
    """glibc's heap per thread kept the free memory of each thread's peak: 3-4 MiB more
    over a day of editing."""
    pytest.importorskip("pygls")
    from flake8_tensorcopy.runtime import memory
    from flake8_tensorcopy.server import protocol

    if sys.platform.startswith("linux") and memory._find_malloc_trim() is not None:  # glibc
        assert memory.single_arena()
    asked = []
    monkeypatch.setattr(memory, "single_arena", lambda: asked.append("before") or True)
    monkeypatch.setattr(protocol, "serve_stdio", lambda server: asked.append("served") or 0)
    assert protocol.serve() == 0
    assert asked == ["before", "served"]
