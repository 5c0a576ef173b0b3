"""Jupyter notebooks: their code cells as one Python module, and fixed cells written back.

The code cells are joined in order, one module, so that a tensor defined in one cell is
known in the next ones, as in the kernel; each cell opens with a comment line marking
it. IPython syntax (``%magic``, ``!shell``, ``x = !cmd``, ``obj?``, a ``%%cell`` magic) is
not Python: each such line is replaced by a stand-in of its own (``pass`` or a comment)
so that no line moves. A finding's module line maps back to its cell and its row there.
The marks and stand-ins end with :data:`MARK`; the fixer neither changes such a line nor
wraps statements on both sides of one in one ``with`` (which would span two cells).

Rewriting keeps the file as it was except for the sources of the fixed cells: the JSON is
written with the layout it was read with (indentation, key order, escaping, final
newline), and a notebook whose layout cannot be reproduced byte for byte is not rewritten.
This module only reads and builds text; the CLI decides what to print and write. The
language server joins the cells an editor holds with the same :class:`CodeCells`.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

MARK = "# flake8-tensorcopy: notebook"
SUFFIX = ".ipynb"

# Cell magics whose body is Python run by the kernel; any other one (%%bash, %%html,
# %%writefile, ...) makes its cell something else than Python.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})

_ESCAPE = re.compile(r"\s*(?:[%!/;,]|\?)")  # %magic, !shell, /autocall, ;quote, ,quote, ?help
_HELP_AFTER = re.compile(r"\s*%{0,2}[\w.*]+\?{1,2}\s*$")  # obj? obj??
_ASSIGN_FROM = re.compile(r"(\s*[\w.,()\[\]*\s]+?=)\s*[!%]")  # x = !ls, files = %sx ls


class NotebookError(Exception):
    """The file is not a notebook this tool can read, or cannot be rewritten; ``str`` says why."""


class CodeCell(NamedTuple):
    number: int  # 1-based among all the notebook's cells, markdown included (ruff's "cell N")
    lines: tuple[str, ...]  # its source, split at "\n"
    python: tuple[str, ...]  # the same lines, IPython syntax replaced by stand-ins
    ends_with_newline: bool

    @property
    def source(self) -> str:
        return "\n".join(self.lines) + ("\n" if self.ends_with_newline else "")


class CodeCells:
    """Code cells joined into one Python module, in order, each opened by a :data:`MARK`
    line; the way back from a line of the module to its cell and row."""

    def __init__(self, cells: Sequence[CodeCell]) -> None:
        self.cells = list(cells)
        # Module line -> (cell number, row in the cell; 0 for the line marking the cell).
        self._where = [(cell.number, row) for cell in self.cells for row in range(len(cell.python) + 1)]
        self.module = "".join(f"{MARK}\n" + "".join(line + "\n" for line in cell.python) for cell in self.cells)

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, row in that cell) of ``line`` (1-based) of :attr:`module`."""
        return self._where[line - 1]

    def locate_in_message(self, message: str) -> str:
        """``message`` with its ``line N`` references to :attr:`module` told as cell and row."""
        def told(match: re.Match[str]) -> str:
            line = int(match.group(1))
            if not 0 < line <= len(self._where):
                return match.group(0)
            cell, row = self.locate(line)
            return f"cell {cell}, line {row}"

        return re.sub(r"\bline (\d+)", told, message)

    def cell_lines(self, fixed: str) -> dict[int, list[str]]:
        """Cell number -> the lines of each code cell once :attr:`module` became ``fixed``.

        Each changed line goes to the cell of the line it replaces (an inserted one to the
        cell of the line after it). Raises :class:`NotebookError` when a change spans two
        cells or touches a stand-in line.
        """
        old = self.module.split("\n")[:-1]
        new = fixed.split("\n")[:-1] if fixed.endswith("\n") else fixed.split("\n")
        by_number = {cell.number: cell for cell in self.cells}
        lines: dict[int, list[str]] = {cell.number: [] for cell in self.cells}
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for number, row in self._where[i1:i2]:  # a stand-in gets its IPython line back
                    if row:
                        lines[number].append(by_number[number].lines[row - 1])
                continue
            touched = {number for number, _ in self._where[i1:i2]} or {self._where[min(i1, len(old) - 1)][0]}
            if len(touched) > 1:
                raise NotebookError(f"a fix spans cells {' and '.join(map(str, sorted(touched)))}")
            if any(MARK in line for line in old[i1:i2]):
                raise NotebookError("a fix would change a line of IPython syntax or join two cells")
            lines[touched.pop()].extend(new[j1:j2])
        return lines


class Notebook(CodeCells):
    """An nbformat 4 notebook read from ``text``; raises :class:`NotebookError`."""

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.document = json.loads(text)
        except json.JSONDecodeError as error:
            raise NotebookError(f"not valid JSON: {error}") from None
        if not isinstance(self.document, dict) or self.document.get("nbformat") != 4:
            found = self.document.get("nbformat") if isinstance(self.document, dict) else None
            raise NotebookError(f"not an nbformat 4 notebook (nbformat: {found!r})")
        cells = self.document.get("cells")
        if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
            raise NotebookError("not an nbformat 4 notebook: 'cells' is not a list of cells")
        super().__init__([_code_cell(number, cell) for number, cell in enumerate(cells, 1)
                          if cell.get("cell_type") == "code"] if _is_python(self.document) else [])

    def with_module(self, fixed: str) -> Notebook:
        """This notebook with its code cells holding ``fixed``, a fixed :attr:`module`
        (see :meth:`cell_lines`). Raises :class:`NotebookError` also when the file's layout
        cannot be reproduced.
        """
        lines = self.cell_lines(fixed)
        document = json.loads(self.text)
        cells = document["cells"]
        for cell in self.cells:
            if lines[cell.number] != list(cell.lines):
                source = "\n".join(lines[cell.number]) + ("\n" if cell.ends_with_newline else "")
                original = cells[cell.number - 1]["source"]
                cells[cell.number - 1]["source"] = _split_lines(source) if isinstance(original, list) else source
        return Notebook(_dumps_like(document, self.document, self.text))

    def changed_cells(self, other: Notebook) -> list[tuple[int, str, str]]:
        """(cell number, source here, source in ``other``) of each code cell that differs."""
        return [(mine.number, mine.source, theirs.source)
                for mine, theirs in zip(self.cells, other.cells) if mine.source != theirs.source]


def _is_python(document: dict[str, Any]) -> bool:
    """False for a notebook of another kernel language (R, Julia, ...): nothing to lint."""
    metadata = _member(document, "metadata")
    language = (_member(_member(metadata, "language_info"), "name")
                or _member(_member(metadata, "kernelspec"), "language"))
    return not isinstance(language, str) or language.lower() == "python"


def _member(mapping: object, key: str) -> Any:
    """``mapping[key]``, or None where the JSON has no such object or member."""
    return mapping.get(key) if isinstance(mapping, dict) else None


def _code_cell(number: int, cell: dict[str, Any]) -> CodeCell:
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        source = "".join(source)
    if not isinstance(source, str):
        raise NotebookError(f"cell {number}: its source is neither a string nor a list of strings")
    return code_cell(number, source)


def code_cell(number: int, source: str) -> CodeCell:
    """The code cell ``number`` holding ``source`` (lines end with ``\\n``)."""
    ends_with_newline = source.endswith("\n")
    lines = tuple(source[:-1].split("\n") if ends_with_newline else source.split("\n")) if source else ()
    return CodeCell(number, lines, tuple(neutralise(list(lines))), ends_with_newline)


def neutralise(lines: list[str]) -> list[str]:
    """``lines`` with each line of IPython syntax replaced by a stand-in, line for line."""
    first = next((line for line in lines if line.strip()), "")
    if first.startswith("%%"):
        magic = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if magic not in PYTHON_CELL_MAGICS:  # the whole cell is another language
            return [MARK] * len(lines)
        header = lines.index(first)
        return lines[:header] + [MARK] + neutralise(lines[header + 1:])
    out: list[str] = []
    scanner = _Scanner()
    in_magic = False  # a line of IPython syntax continued by a backslash
    for line in lines:
        if in_magic:
            out.append(MARK)
        elif scanner.at_statement_start and (stand_in := _stand_in(line)) is not None:
            out.append(stand_in)
        else:
            out.append(line)
            scanner.feed(line)
            continue
        in_magic = line.rstrip().endswith("\\")
    return out


def _stand_in(line: str) -> str | None:
    """The stand-in for ``line`` if it is IPython syntax: it keeps the indentation, and the
    names an assignment binds (``x = !ls`` -> ``x = None``)."""
    if assignment := _ASSIGN_FROM.match(line):
        return f"{assignment.group(1)} None  {MARK}"
    if _ESCAPE.match(line) or _HELP_AFTER.match(line):
        indent = line[: len(line) - len(line.lstrip())]
        return f"{indent}pass  {MARK}"
    return None


class _Scanner:
    """Follows brackets, strings and backslashes over lines, to tell where a statement starts:
    IPython reads ``%``, ``!`` and ``?`` as its own syntax only there."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the quote of a string still open at the end of the last line
        self.backslash = False

    @property
    def at_statement_start(self) -> bool:
        return not (self.depth or self.quote or self.backslash)

    def feed(self, line: str) -> None:
        line = line.rstrip("\r")
        position, quote = 0, self.quote
        while position < len(line):
            char = line[position]
            if quote:
                if char == "\\":
                    position += 1
                elif line.startswith(quote, position):
                    position += len(quote) - 1
                    quote = ""
            elif char == "#":
                break
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char in "'\"":
                quote = char * 3 if line.startswith(char * 3, position) else char
                position += len(quote) - 1
            position += 1
        self.backslash = line.endswith("\\") and "#" not in line[position:]
        # A one-quote string ends with its line unless a backslash continues it.
        self.quote = quote if len(quote) == 3 or (quote and self.backslash) else ""


def _split_lines(source: str) -> list[str]:
    """nbformat's list form: lines keeping their "\\n", the last one without it."""
    return re.findall(r"[^\n]*\n|[^\n]+$", source)


def _dumps_like(document: dict[str, Any], before: dict[str, Any], original: str) -> str:
    """``document`` as JSON in the layout of ``original``, the text ``before`` was read from,
    which that layout must reproduce exactly."""
    ending = "\n" if original.endswith("\n") else ""
    indent_match = re.match(r"[\[{]\n([ \t]*)", original)
    if indent_match:
        whitespace = indent_match.group(1)
        layouts = [{"indent": len(whitespace) if whitespace.strip(" ") == "" else whitespace}]
    else:
        layouts = [{"indent": None}, {"indent": None, "separators": (",", ":")}]
    for layout in layouts:
        for ensure_ascii in (False, True):
            if json.dumps(before, ensure_ascii=ensure_ascii, **layout) + ending == original:
                return json.dumps(document, ensure_ascii=ensure_ascii, **layout) + ending
    raise NotebookError("its JSON layout is not one this tool can reproduce exactly (re-save it with Jupyter)")
