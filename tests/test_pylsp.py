"""The editor path, run for real: python-lsp-server (``pylsp``) over stdio JSON-RPC.

pylsp's flake8 plugin pipes the unsaved buffer to ``flake8 -`` (the ``flake8`` on the
server's PATH, here the one next to this interpreter) and publishes what it prints.
The document never exists on disk, so only the buffer can produce the diagnostics.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

WAIT_S = 60  # per message; a hang fails the test instead of blocking CI

SETTINGS = {
    "pylsp": {
        "plugins": {
            "flake8": {"enabled": True},
            "pycodestyle": {"enabled": False},
            "pyflakes": {"enabled": False},
            "mccabe": {"enabled": False},
        }
    }
}

BUFFER = """\
import torch


def step(w: torch.Tensor, lr: float) -> torch.Tensor:
    w.data.add_(-lr * w.grad)
    frozen = w.clone().detach()
    kept = w.clone().detach()  # noqa: TCP002
    return frozen + kept
"""

EDITED = BUFFER.replace("    w.data.add_(-lr * w.grad)\n", "    with torch.no_grad():\n        w.add_(-lr * w.grad)\n")


class LspClient:
    """A minimal LSP client: Content-Length framing over a subprocess's stdio."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], log: Path) -> None:
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )
        self._messages: queue.Queue[dict | None] = queue.Queue()
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        try:
            while True:
                length = None
                while True:
                    header = stream.readline()
                    if not header:
                        return
                    if header in (b"\r\n", b"\n"):
                        break
                    name, _, value = header.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if length is not None:
                    self._messages.put(json.loads(stream.read(length)))
        finally:
            self._messages.put(None)

    def _send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict | None = None) -> None:
        self._send({"method": method, "params": params})

    def request(self, method: str, params: dict | None = None) -> dict:
        self._next_id += 1
        request_id = self._next_id
        self._send({"id": request_id, "method": method, "params": params})
        reply = self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, what=method)
        assert "error" not in reply, reply
        return reply.get("result")

    def wait_for(self, predicate, what: str) -> dict:
        """The next message that matches; server requests get a null reply."""
        while True:
            try:
                message = self._messages.get(timeout=WAIT_S)
            except queue.Empty:
                pytest.fail(f"pylsp sent no {what} within {WAIT_S} s; its log:\n{self.log_text()}")
            if message is None:
                pytest.fail(f"pylsp exited (code {self.process.poll()}) before {what}; its log:\n{self.log_text()}")
            if "method" in message and "id" in message:  # a request from the server
                self._send({"id": message["id"], "result": None})
            if predicate(message):
                return message

    def diagnostics(self, uri: str) -> list[dict]:
        message = self.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri,
            what="publishDiagnostics",
        )
        return message["params"]["diagnostics"]

    def log_text(self) -> str:
        self._log.flush()
        return Path(self._log.name).read_text(encoding="utf-8", errors="replace")[-4000:]

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.request("shutdown")
                self.notify("exit")
                self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self._log.close()


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "workspace"
    (root / "pkg").mkdir(parents=True)
    return root


@pytest.fixture
def client(workspace, tmp_path):
    scripts = sysconfig.get_path("scripts")
    env = dict(os.environ)
    # As under an activated environment: the `flake8` pylsp runs is this interpreter's.
    env["PATH"] = scripts + os.pathsep + env.get("PATH", "")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg-config")  # no user-wide flake8 config
    flake8 = shutil.which("flake8", path=env["PATH"])
    assert flake8 and Path(flake8).parent == Path(scripts), f"no flake8 script next to {sys.executable}"
    lsp = LspClient([sys.executable, "-m", "pylsp"], workspace, env, tmp_path / "pylsp.log")
    try:
        lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": workspace.as_uri(),
                "capabilities": {},
                "initializationOptions": SETTINGS,
            },
        )
        lsp.notify("initialized", {})
        yield lsp
    finally:
        lsp.close()


def _line_of(text: str, needle: str) -> tuple[int, int]:
    """The 0-based (line, character) where ``needle`` first occurs in ``text``."""
    for number, line in enumerate(text.splitlines()):
        if needle in line:
            return number, line.index(needle)
    raise AssertionError(needle)


def _ours(diagnostics: list[dict]) -> list[tuple[str, int, int]]:
    return sorted(
        (d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"])
        for d in diagnostics
        if d["code"].startswith("TCP")
    )


def test_unsaved_buffer_gets_diagnostics_at_the_right_ranges(client, workspace):
    path = workspace / "pkg" / "train.py"
    uri = path.as_uri()
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BUFFER}},
    )
    diagnostics = client.diagnostics(uri)

    assert not path.exists(), "the buffer must not have been written to disk"
    data_line = _line_of(BUFFER, "w.data.add_(")
    clone_line = _line_of(BUFFER, "w.clone().detach()")  # the first one, `frozen = ...`
    assert _ours(diagnostics) == [("TCP001", *data_line), ("TCP002", *clone_line)], diagnostics
    for diagnostic in diagnostics:
        assert diagnostic["source"] == "flake8"
        assert diagnostic["range"]["end"]["line"] == diagnostic["range"]["start"]["line"]
        if diagnostic["code"].startswith("TCP"):
            assert diagnostic["severity"] == 2, diagnostic  # Warning
            assert diagnostic["message"].startswith(diagnostic["code"] + " "), diagnostic
    noqa_line, _ = _line_of(BUFFER, "# noqa: TCP002")
    assert [d for d in diagnostics if d["range"]["start"]["line"] == noqa_line] == []

    # An unsaved edit fixes the `.data` write: its diagnostic goes, the other stays.
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": EDITED}]},
    )
    diagnostics = client.diagnostics(uri)
    assert _ours(diagnostics) == [("TCP002", *_line_of(EDITED, "w.clone().detach()"))], diagnostics
    assert not path.exists()
