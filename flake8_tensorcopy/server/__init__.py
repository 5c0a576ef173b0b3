"""``flake8-tensorcopy server``: a language server (LSP over stdio) on the analysis core.

Optional: it needs pygls (``pip install 'flake8-tensorcopy[server]'``). Nothing else in
the package imports this subpackage, so the flake8 plugin and the CLI never pay for it.

The modules, from the protocol inwards:

- ``protocol``: the pygls glue (document and notebook sync, debounced pushes, pull
  diagnostics, code actions, hover, settings).
- ``rpc``: the connection (frames over stdio, pygls' protocol made fit to run all day).
  With ``protocol``, the only modules that import pygls.
- ``worker``: the lint thread, pulls and hovers before code actions' pieces; the fix
  thread steps aside for them (``yielding``).
- ``documents``: what a document lints (itself, or its notebook's cells joined as the CLI
  joins them), with findings and edits mapped back to each document.
- ``linting``: one text + settings -> the findings shown (``# noqa`` applied) and why
  any part was not analysed; cached by text.
- ``reuse``: the findings of unchanged chunks (functions, module-level code) carried
  over from one lint of a document to the next while what they asked of the rest of the
  file gets the same answers.
- ``fixes``: a finding's quick fix (``chunk_fix.py``: its chunk only) and the fix-all
  (``fixer.py``), as minimal text edits.
- ``fixer_process``: the fix-all in a process of its own, off the lint thread's CPU.
- ``reparse``: a text's ``ast`` from the tree of the text it shares most lines with.
- ``noqa_comment``: the edit that adds or extends a line's ``# noqa:`` comment.
- ``text``: offsets, code-point columns and LSP positions in utf-8/16/32.
- ``settings``: the editor's settings, and the seam where project configuration will plug in.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

MISSING_PYGLS = (
    "flake8-tensorcopy: error: the language server needs pygls: "
    "pip install 'flake8-tensorcopy[server]'"
)


def main(argv: Sequence[str] = ()) -> int:
    """Serve LSP over stdin/stdout until the client says ``exit``; 2 when pygls is missing.

    ``--stdio`` is accepted (some clients always pass it): stdio is the only transport."""
    unknown = [arg for arg in argv if arg != "--stdio"]
    if unknown:
        print(f"flake8-tensorcopy: error: the server takes no arguments but --stdio (got {' '.join(unknown)}); "
              "it speaks LSP over stdin/stdout", file=sys.stderr)
        return 2
    try:
        from .protocol import serve
    except ImportError as error:
        if (error.name or "").partition(".")[0] not in ("pygls", "lsprotocol"):
            raise
        print(MISSING_PYGLS, file=sys.stderr)
        return 2
    return serve()
