"""The connection: LSP frames over stdio, and pygls' protocol with what a server that runs
all day needs and pygls 2.1.1 (the latest release) lacks.

- **No memory kept per notification.** pygls' ``JsonRPCProtocol._execute_handler`` stores
  the Future of every async, threaded or generator handler in ``_request_futures`` under a
  fresh uuid when the message is a notification, and only a response (requests) pops it:
  every ``didChange``/``didOpen``/``didClose`` (pygls' own handlers are generators) left
  about 2 KB behind for good. Here a handler's Future leaves the table when it is done.
- **A reply to every request.** Invalid JSON gets -32700; params that do not fit the
  method -32602 (pygls only logged and showed a message); a request before
  ``initialize`` -32002; one after ``shutdown`` -32600. ``exit`` without ``shutdown``
  exits 1 (pygls' ``start_io`` swallowed the code).
- **A frame it cannot read ends the server** with a logged error, and exit status 1, so
  the editor restarts it: pygls read on, out of step with the frames, and answered
  nothing, forever.
- **A change to a document never opened** is logged and ignored (pygls raised a KeyError
  that reached the user as a pop-up).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.protocol.language_server import lsp_method

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 512 << 20  # a message past this is a broken frame, not a document
_HEADER = re.compile(rb"([A-Za-z][A-Za-z0-9-]*):[ \t]*([^\r\n]*)\r?\n")


class FrameError(Exception):
    """The byte stream is no longer a sequence of LSP frames."""


class TensorCopyProtocol(LanguageServerProtocol):
    exit_code = 1  # until shutdown: what ending now (exit, or the client gone) reports

    # -- handlers' Futures ------------------------------------------------------------
    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        def done(future) -> None:
            if self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]
            callback(future)

        super()._execute_handler(msg_id, handler, done, args, kwargs)

    # -- messages ---------------------------------------------------------------------
    def receive(self, body: bytes) -> None:
        """Handle one message's body: every request it holds gets a response."""
        try:
            data = json.loads(body)
        except ValueError as error:  # UnicodeDecodeError included
            self._send_error(None, types.ErrorCodes.ParseError, f"not JSON: {error}")
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != self.VERSION:
            self._send_error(data.get("id") if isinstance(data, dict) else None, types.ErrorCodes.InvalidRequest,
                             "not a JSON-RPC 2.0 message")
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as error:
            what = f"{data.get('method', 'a response')}: {'invalid params' if isinstance(error, JsonRpcInvalidParams) else error}"
            if "id" in data and "method" in data:
                self._send_error(data["id"], types.ErrorCodes.InvalidParams, what)
            else:
                logger.warning("ignored a message: %s", what)
            return
        self.handle_message(message)

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method != types.EXIT:
            if self._workspace is None and method != types.INITIALIZE:
                if isinstance(message, RPCRequest):
                    self._send_error(message.id, types.ErrorCodes.ServerNotInitialized,
                                     f"{method}: the server is not initialized yet")
                return
            if self._shutdown:
                if isinstance(message, RPCRequest):
                    self._send_error(message.id, types.ErrorCodes.InvalidRequest,
                                     f"{method}: the server is shutting down")
                return
        super().handle_message(message)

    def _send_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        # A plain dict: "id" must be sent even when null (a message that could not be read).
        self._send_data({"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": int(code), "message": message}})

    # -- lifecycle --------------------------------------------------------------------
    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args):
        result = yield from super().lsp_shutdown(*args)
        self.exit_code = 0
        return result

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args):
        yield from ()  # a generator, like pygls' own handlers
        raise SystemExit(self.exit_code)

    # -- documents --------------------------------------------------------------------
    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if unquote(params.text_document.uri) not in self.workspace.text_documents:
            self._server.window_log_message(types.LogMessageParams(
                types.MessageType.Warning, f"ignored a change to {params.text_document.uri}: it is not open"))
            return
        yield from super().lsp_text_document__did_change(params)


async def read_frames(reader: StdinAsyncReader, protocol: TensorCopyProtocol, stop: threading.Event) -> None:
    """Hand each frame's body to ``protocol`` until the input ends. Raises
    :class:`FrameError` when it stops being LSP frames: reading on would only misread."""
    while not stop.is_set():
        length = None
        while True:
            line = await reader.readline()
            if not line:
                return
            if line in (b"\r\n", b"\n"):
                break
            header = _HEADER.fullmatch(line)
            if header is None:
                raise FrameError(f"a frame header expected, read {line[:80]!r}")
            if header[1].lower() == b"content-length":
                if not header[2].isdigit() or int(header[2]) > MAX_MESSAGE_BYTES:
                    raise FrameError(f"Content-Length {header[2][:40].decode(errors='replace')!r} "
                                     f"is no length up to {MAX_MESSAGE_BYTES:,} bytes")
                length = int(header[2])
        if length is None:
            raise FrameError("a frame without a Content-Length header")
        body = await reader.readexactly(length)
        if len(body) < length:
            return
        protocol.receive(body)


def serve_stdio(server) -> int:
    """Serve over stdin/stdout; the exit status: 0 after shutdown, else 1."""
    stop = threading.Event()
    server._stop_event = stop
    protocol: TensorCopyProtocol = server.protocol
    protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    reader = StdinAsyncReader(sys.stdin.buffer, server.thread_pool)
    try:
        asyncio.run(read_frames(reader, protocol, stop))
    except FrameError as error:
        logger.error("%s", error)
        print(f"flake8-tensorcopy server: error: broken frame: {error}; exiting so that the editor restarts it",
              file=sys.stderr, flush=True)
        return 1
    except SystemExit as exit_:  # the client's exit notification
        return int(exit_.code or 0)
    except BrokenPipeError:
        logger.error("the client is gone")
    finally:
        server.shutdown()
    return protocol.exit_code
