"""A bare LSP client for the server's wire-level tests: it writes frames as raw bytes (so
a test can send what no well-behaved client would: broken JSON, a bad header, thousands
of notifications in one write) and reads the server's messages on a thread."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WAIT_S = 60  # per message: a hang fails the test instead of blocking CI


def frame(message: dict | str | bytes) -> bytes:
    body = message if isinstance(message, bytes) else (
        message if isinstance(message, str) else json.dumps(message)).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def notification(method: str, params: object = None) -> dict:
    return {"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})}


def request(number: int, method: str, params: object = None) -> dict:
    return {"jsonrpc": "2.0", "id": number, "method": method, **({} if params is None else {"params": params})}


class WireClient:
    """``flake8-tensorcopy server`` in a subprocess, spoken to in raw frames."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flake8_tensorcopy", "server"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(ROOT))
        self.messages: queue.Queue[dict] = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr = b""
        self._stderr = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr.start()

    def _read(self) -> None:
        stdout = self.process.stdout
        while True:
            length = None
            while (line := stdout.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                return
            self.messages.put(json.loads(stdout.read(length)))

    def _read_stderr(self) -> None:
        self.stderr = self.process.stderr.read()

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def next(self) -> dict:
        message = self.messages.get(timeout=WAIT_S)
        self.seen.append(message)
        return message

    def reply(self, number: int | None) -> dict:
        """The server's response to the request ``number`` (its other messages are kept in ``seen``)."""
        while True:
            message = self.next()
            if "method" not in message and message.get("id") == number:
                return message

    def call(self, number: int, method: str, params: object = None) -> dict:
        self.send(frame(request(number, method, params)))
        return self.reply(number)

    def initialize(self) -> None:
        capabilities = {"textDocument": {"diagnostic": {}}}  # pulls: nothing is pushed
        assert "result" in self.call(0, "initialize", {"processId": None, "rootUri": None,
                                                       "capabilities": capabilities})
        self.send(frame(notification("initialized", {})))

    def shown_messages(self) -> list[str]:
        """The ``window/showMessage`` texts among the messages seen so far."""
        return [m["params"]["message"] for m in self.seen if m.get("method") == "window/showMessage"]

    def rss_kib(self) -> int:
        """The server's resident set (Linux)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def wait(self) -> int:
        code = self.process.wait(timeout=WAIT_S)
        self._stderr.join(WAIT_S)
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()
