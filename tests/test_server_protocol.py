"""The language server on the wire, as an editor uses it over a long day: every request
gets a reply (LSP's error codes where it cannot be served), notifications cost no
memory once handled, a frame it cannot read ends it (so the editor restarts it), and a
change to a document never opened is logged, not shown."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pygls")

from lsp_wire import WireClient, frame, notification, request  # noqa: E402

pytestmark = pytest.mark.slow

URI = "file:///virtual/wire/train.py"
SOURCE = "import torch\n\n\ndef f(w):\n    return w.clone().detach()\n"


@pytest.fixture
def client():
    client = WireClient()
    yield client
    client.close()


def _open(client: WireClient, uri: str = URI, text: str = SOURCE) -> None:
    client.send(frame(notification("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}})))


def _change(uri: str, version: int, text: str) -> bytes:
    return frame(notification("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}))


def _pull(number: int) -> bytes:
    return frame(request(number, "textDocument/diagnostic", {"textDocument": {"uri": URI}}))


def _error_code(reply: dict) -> int | None:
    return reply.get("error", {}).get("code")


def _shut_down(client: WireClient, number: int = 999) -> int:
    assert client.call(number, "shutdown") == {"jsonrpc": "2.0", "id": number, "result": None}
    client.send(frame(notification("exit")))
    return client.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's RSS from /proc")
def test_notifications_cost_no_memory_once_handled(client):
    """pygls kept a Future per notification (about 2 KB each) for as long as the server ran."""
    client.initialize()
    _open(client)
    text = [SOURCE, SOURCE.replace("w.clone", "v.clone")]

    def burst(first: int, count: int) -> None:
        client.send(b"".join(_change(URI, version, text[version % 2]) for version in range(first, first + count)))
        assert len(client.call(first, "textDocument/diagnostic", {"textDocument": {"uri": URI}})["result"]["items"]) == 1

    burst(2, 3_000)  # warm: caches and the allocator's pools filled
    before = client.rss_kib()
    burst(5_000, 20_000)
    grown = client.rss_kib() - before
    assert grown < 8 * 1024, f"RSS grew by {grown} KiB over 20,000 notifications"
    assert _shut_down(client) == 0


def test_every_request_gets_a_reply(client):
    client.send(frame(request(1, "textDocument/hover", {"textDocument": {"uri": URI}, "position": {
        "line": 0, "character": 0}})))
    assert _error_code(client.reply(1)) == -32002  # before initialize: ServerNotInitialized
    client.initialize()
    _open(client)
    hover_at = {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}}
    assert _error_code(client.call(2, "textDocument/hover", hover_at)) == -32602
    assert _error_code(client.call(3, "textDocument/codeAction")) == -32602  # no params
    assert _error_code(client.call(4, "textDocument/diagnostic", "oops")) == -32602
    client.send(frame(b'{"jsonrpc": "2.0", "id": 5, "method": '))  # cut short
    assert _error_code(client.reply(None)) == -32700
    assert _error_code(client.call(6, "no/such/method", {})) == -32601
    assert client.call(7, "textDocument/diagnostic", {"textDocument": {"uri": URI}})["result"]["items"]
    assert client.shown_messages() == []  # each said in its reply, not in a pop-up
    assert client.call(8, "shutdown") == {"jsonrpc": "2.0", "id": 8, "result": None}
    assert _error_code(client.call(9, "textDocument/diagnostic", {"textDocument": {"uri": URI}})) == -32600
    client.send(frame(notification("exit")))
    assert client.wait() == 0


def test_exit_without_shutdown_exits_1(client):
    client.initialize()
    client.send(frame(notification("exit")))
    assert client.wait() == 1


def test_a_change_to_a_document_never_opened_is_logged_not_shown(client):
    client.initialize()
    client.send(_change("file:///virtual/wire/never.py", 2, "x = 1\n"))
    _open(client)
    assert client.call(1, "textDocument/diagnostic", {"textDocument": {"uri": URI}})["result"]["items"]
    assert client.shown_messages() == []
    logged = [m["params"]["message"] for m in client.seen if m.get("method") == "window/logMessage"]
    assert any("never.py" in message and "not open" in message for message in logged)
    assert _shut_down(client) == 0


@pytest.mark.parametrize("broken", [
    b"Content-Length: 9999999999999\r\n\r\n",  # more than any message
    b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}",  # no length
    b"Content-Length: 2\r\n\r\n" + frame(request(1, "shutdown"))[:-5],  # wrong length: the rest is no header
])
def test_a_broken_frame_ends_the_server_with_a_logged_error(client, broken):
    client.initialize()
    client.send(broken + _pull(2))
    assert client.wait() == 1
    assert b"frame" in client.stderr
