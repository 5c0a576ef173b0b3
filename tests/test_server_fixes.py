"""The server's fixes on training files of thousands of lines: a quick fix is applied to
the chunk that holds its finding (whatever the file's size) or not offered, and the
fix-all (seconds: the whole file through the fixer) never holds up a pull."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")

from bench_modules import import_bench_modules  # noqa: E402
from lsprotocol import types  # noqa: E402
from test_server import PULL, WAIT_S, _actions, _apply, _open, _pull, _replace_all, _span, session  # noqa: E402

from flake8_tensorcopy import fixer, limits  # noqa: E402

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
        assert _apply(source, resolved.edit) == fixer.fix_source(source).source
