"""The server's fixes on training files of thousands of lines: a quick fix is applied to
the chunk that holds its finding (whatever the file's size) or not offered, and the
fix-all (seconds: the whole file through the fixer) never holds up a pull."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import every_rule
import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")

from bench_modules import import_bench_modules  # noqa: E402
from lsprotocol import types  # noqa: E402
from test_server import PULL, WAIT_S, _actions, _apply, _open, _pull, _replace_all, _span, session  # noqa: E402

from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy import engine, fixer, limits  # noqa: E402

pytestmark = pytest.mark.slow

training_file = import_bench_modules(Path(__file__).resolve().parent.parent / "bench", ("training_code",))[
    "training_code"].training_file

RESOLVING = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        diagnostic=types.DiagnosticClientCapabilities(),
        code_action=types.CodeActionClientCapabilities(
            resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])),
    ),
)


def _tokens(source: str) -> int:
    budget = limits.Budget(10**9)
    budget.spend(source)
    return budget.limit - budget.left


def _codes(items) -> list[str]:
    return sorted(item.code for item in items)


@pytest.mark.asyncio
async def test_a_quick_fix_on_a_file_over_the_fixers_limit_fixes_its_chunk():
    source = training_file(3_400)
    assert _tokens(source) > limits.MAX_FIXED_TOKENS
    async with session(PULL) as client:
        uri = _open(client, source)
        items = (await _pull(client, uri)).items
        target = next(item for item in items if item.code == "TCP002")
        fix, _ = await _actions(client, uri, target.range, only=["quickfix"])
        assert fix.title == "TCP002: swap to .detach().clone()"
        fixed = _apply(source, fix.edit)
        line = target.range.start.line
        assert fixed.splitlines()[line] == source.splitlines()[line].replace(".clone().detach()", ".detach().clone()")
        assert [n for n, (a, b) in enumerate(zip(fixed.splitlines(), source.splitlines())) if a != b] == [line]
        _replace_all(client, uri, fixed, 2)
        after = _codes((await _pull(client, uri)).items)
        before = _codes(items)
        before.remove("TCP002")
        assert after == before
        # The fix-all needs the whole file: not offered, and the log says why.
        assert not await _actions(client, uri, _span((0, 0), (0, 0)), only=["source.fixAll"])
        logged = [m.message for m in client.log_messages if "no fix-all" in m.message]
        assert any(f"{limits.MAX_FIXED_TOKENS:,} tokens" in message for message in logged)


@pytest.mark.asyncio
async def test_a_pull_is_answered_while_a_fix_all_is_computed():
    source = training_file(3_000)
    assert _tokens(source) < limits.MAX_FIXED_TOKENS
    async with session(PULL) as client:
        uri = _open(client, source)
        await _pull(client, uri)
        finished = []

        async def fix_all():
            actions = await _actions(client, uri, _span((0, 0), (0, 0)), only=["source.fixAll"])
            finished.append("fix-all")
            return actions

        async def pull():
            edited = source.replace("\n\n\n", "\n\nedited = 1\n", 1)
            _replace_all(client, uri, edited, 2)
            report = await _pull(client, uri)
            finished.append("pull")
            return report

        fixing = asyncio.ensure_future(fix_all())
        await asyncio.sleep(0.2)  # the fix-all is under way
        report, (action,) = await asyncio.wait_for(asyncio.gather(pull(), fixing), WAIT_S)
        assert finished == ["pull", "fix-all"]
        assert report.items
        assert action.kind == "source.fixAll.tensorcopy" and action.edit is not None


@pytest.mark.asyncio
async def test_the_fix_all_is_resolved_only_when_chosen():
    source = training_file(400)
    async with session(RESOLVING) as client:
        assert client.server_capabilities.code_action_provider.resolve_provider
        uri = _open(client, source)
        target = next(item for item in (await _pull(client, uri)).items if item.code == "TCP002")
        actions = await _actions(client, uri, target.range)
        assert [action.title for action in actions] == [
            "TCP002: swap to .detach().clone()", "Disable TCP002 for this line",
            "flake8-tensorcopy: fix all safely fixable findings"]
        lazy = actions[-1]
        assert lazy.edit is None and lazy.data
        resolved = await asyncio.wait_for(client.code_action_resolve_async(lazy), WAIT_S)
        assert _apply(source, resolved.edit) == fixer.fix_source(source, ALL_RULES).source


def _workers(pid: int) -> list[int]:
    """The server's fixer processes (its threads' children that multiprocessing spawned)."""
    children = [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
                for child in (task / "children").read_text().split()]
    return [child for child in children if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the server's children from /proc")
@pytest.mark.asyncio
async def test_the_fix_all_runs_in_a_process_of_its_own_that_ends_with_the_server():
    """LibCST's whole-file work held Python's lock for 300 ms at a time, in the server's
    process: a pull sent behind a fix-all waited for it."""
    source = training_file(400)
    async with session(RESOLVING) as client:
        server = client._server.pid
        uri = _open(client, source)
        await _pull(client, uri)
        assert _workers(server) == []
        lazy = next(a for a in await _actions(client, uri, _span((0, 0), (0, 0))) if a.kind == "source.fixAll.tensorcopy")
        resolved = await asyncio.wait_for(client.code_action_resolve_async(lazy), WAIT_S)
        assert _apply(source, resolved.edit) == fixer.fix_source(source, ALL_RULES).source
        (worker,) = _workers(server)
        os.kill(worker, signal.SIGKILL)  # killed (out of memory...): started again
        _replace_all(client, uri, source + "\nextra = 1\n", 2)
        lazy = next(a for a in await _actions(client, uri, _span((0, 0), (0, 0))) if a.kind == "source.fixAll.tensorcopy")
        resolved = await asyncio.wait_for(client.code_action_resolve_async(lazy), WAIT_S)
        assert _apply(source + "\nextra = 1\n", resolved.edit) == fixer.fix_source(source + "\nextra = 1\n", ALL_RULES).source
        (worker,) = _workers(server)
    for _ in range(100):  # the session ended with shutdown and exit
        if not Path(f"/proc/{worker}").exists():
            break
        await asyncio.sleep(0.1)
    assert not Path(f"/proc/{worker}").exists()


def test_the_fixer_process_reads_the_project_with_the_editors_buffers(tmp_path):
    """The fix-all's process reads the document's project as the server does: from disk, with
    the editor's unsaved buffers laid over it (the request carries them)."""
    from flake8_tensorcopy.analysis import project
    from flake8_tensorcopy.server import fixes
    from flake8_tensorcopy.server.fixer_process import FixerProcess

    (tmp_path / "pyproject.toml").write_text("[tool.flake8-tensorcopy]\nproject = true\n" + every_rule.TABLE_KEYS)
    helpers, train = tmp_path / "helpers.py", tmp_path / "train.py"
    helpers.write_text("import numpy as np\n\n\ndef make_batch(n):\n    return np.zeros(n)\n")
    source = "import torch\n\nfrom helpers import make_batch\n\nkept = torch.tensor(make_batch(8))\n"
    train.write_text(source)
    unsaved = "import torch\n\n\ndef make_batch(n):\n    return torch.zeros(n)\n"
    located = project.locate(str(train))
    process = FixerProcess()
    try:
        def fixed() -> str:
            edits = fixes.fix_all(source, ALL_RULES, True, "", located[1], process.fix_all)
            assert process.pid is not None  # it was fixed there
            result = source
            for edit in sorted(edits.edits, key=lambda e: e.start, reverse=True):
                result = result[: edit.start] + edit.new_text + result[edit.end :]
            return result

        assert fixed() == source  # on disk, make_batch returns an array: nothing to fix
        located[0].overlay(str(helpers), unsaved)
        assert fixed() == fixer.fix_source(source, ALL_RULES, unsafe=True, path=str(train)).source != source
        located[0].overlay(str(helpers), None)
        assert fixed() == source
    finally:
        process.stop()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the server's children from /proc")
def test_a_server_that_dies_leaves_no_fixer_process_nor_its_output_open():
    """A process that kept the server's stdout would keep the editor waiting for its end."""
    import threading
    import time

    from lsp_wire import WireClient, frame, notification

    client = WireClient()
    try:
        client.initialize()
        uri = "file:///virtual/dies/train.py"
        client.send(frame(notification("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": training_file(200)}})))
        reply = client.call(1, "textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
                                                    "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll"]}})
        assert reply["result"] and reply["result"][0]["edit"]
        (worker,) = _workers(client.process.pid)
        reader = next(t for t in threading.enumerate() if t.name != "MainThread" and t.is_alive()
                      and getattr(t, "_target", None) == client._read)
        client.process.kill()
        client.process.wait(WAIT_S)
        reader.join(10)
        assert not reader.is_alive()  # the server's stdout closed with it
        for _ in range(50):
            if not Path(f"/proc/{worker}").exists():
                break
            time.sleep(0.1)
        assert not Path(f"/proc/{worker}").exists()
    finally:
        client.close()
