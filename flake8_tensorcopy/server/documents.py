"""What the server lints for a document: the document alone, or, for a cell of a notebook,
the whole notebook, its Python code cells joined into one module as the CLI joins them
(:class:`notebook.CodeCells`: IPython syntax neutralised, a marking line per cell).

Both kinds say which editor documents they span, put each finding of the linted module
where its document shows it, and turn edits of the module (a fix, a noqa comment) into
edits of those documents. Offsets and columns count code points in each document's own
text; ``text`` turns them into LSP positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pygls.uris import to_fs_path

from .. import engine, notebook, prefilter
from .fixes import Edit, minimal_edits
from .text import UTF32, LineIndex


def file_path(uri: str) -> str | None:
    """The file a ``file:`` URI names (whose project the analysis reads); None for others
    (``untitled:``, ``vscode-notebook-cell:``...)."""
    return to_fs_path(uri) if uri.startswith("file:") else None


@dataclass(frozen=True)
class Shown:
    """A finding of the linted module, and the same finding where its document shows it."""

    linted: engine.Finding
    shown: engine.Finding


@dataclass(frozen=True)
class Opened:
    """An editor document: its text and version as the editor holds them."""

    text: str
    version: int | None


class LoneDocument:
    """A document linted on its own: the module is its text."""

    kept_lines = ""  # nothing the fixer must leave alone

    def __init__(self, uri: str, text: str, version: int | None) -> None:
        self.uri = uri  # whose settings apply, and under which failures are logged
        self.path = file_path(uri)  # the file, whose project is read
        self.module = text
        self.documents = {uri: Opened(text, version)}

    def shown(self, findings: Sequence[engine.Finding]) -> dict[str, list[Shown]]:
        return {self.uri: [Shown(finding, finding) for finding in findings]}

    def edits(self, edits: Sequence[Edit]) -> dict[str, tuple[Edit, ...]]:
        return {self.uri: tuple(edits)}

    def told(self, message: str) -> str:
        return message


@dataclass(frozen=True)
class Cell:
    uri: str
    number: int  # 1-based among all the notebook's cells, markdown included (the CLI's "cell N")
    text: str
    version: int | None


class JoinedNotebook:
    """A notebook's Python code cells, in order, linted as one module."""

    kept_lines = notebook.MARK  # the fixer leaves the cell marks and the stand-ins alone

    def __init__(self, uri: str, cells: Sequence[Cell]) -> None:
        self.uri = uri
        self.path = file_path(uri)  # the .ipynb file, whose project is read
        self.documents = {cell.uri: Opened(cell.text, cell.version) for cell in cells}
        self._uris = {cell.number: cell.uri for cell in cells}
        # The CLI splits a cell at "\n"; an editor's cell may also end lines with "\r\n" or
        # "\r". Normalised, its lines and columns stay those the editor counts.
        self._texts = {cell.uri: prefilter.normalise_newlines(cell.text) for cell in cells}
        self.cells = notebook.CodeCells([notebook.code_cell(cell.number, self._texts[cell.uri]) for cell in cells])
        self.module = self.cells.module
        self._rows = {cell.number: cell.lines for cell in self.cells.cells}

    def shown(self, findings: Sequence[engine.Finding]) -> dict[str, list[Shown]]:
        """Each finding in its cell, its line the row there. A node that runs on into the
        next cell (a bracket the cell leaves open) is shown up to the end of its own cell."""
        shown: dict[str, list[Shown]] = {uri: [] for uri in self.documents}
        for finding in findings:
            number, row = self.cells.locate(finding.line)
            end_number, end_row = self.cells.locate(finding.end_line)
            end_col = finding.end_col
            if end_number != number:
                rows = self._rows[number]
                end_row, end_col = len(rows), len(rows[-1])
            moved = finding.replace(line=row, end_line=end_row, end_col=end_col)
            shown[self._uris[number]].append(Shown(finding, moved))
        return shown

    def edits(self, edits: Sequence[Edit]) -> dict[str, tuple[Edit, ...]]:
        """The edits of each cell that ``edits`` of the module change. Raises
        :class:`notebook.NotebookError` when they span two cells or touch a stand-in line."""
        fixed = self.module
        for edit in sorted(edits, key=lambda edit: edit.start, reverse=True):
            fixed = fixed[: edit.start] + edit.new_text + fixed[edit.end :]
        lines = self.cells.cell_lines(fixed)
        changed = {}
        for cell in self.cells.cells:
            uri = self._uris[cell.number]
            new = "\n".join(lines[cell.number]) + ("\n" if cell.ends_with_newline else "")
            if new != self._texts[uri]:
                changed[uri] = tuple(self._in_editor_text(uri, edit) for edit in minimal_edits(self._texts[uri], new))
        return changed

    def told(self, message: str) -> str:
        """``message`` with its lines of the module told as cell and line."""
        return self.cells.locate_in_message(message)

    def _in_editor_text(self, uri: str, edit: Edit) -> Edit:
        """``edit`` of the cell's normalised text, in the editor's text (the same lines and columns)."""
        text = self.documents[uri].text
        if text == self._texts[uri]:
            return edit
        normalised, editor = LineIndex(self._texts[uri], UTF32), LineIndex(text, UTF32)

        def offset(at: int) -> int:
            position = normalised.position_of_offset(at)
            return editor.starts[position.line] + position.character

        return Edit(offset(edit.start), offset(edit.end), edit.new_text)
