"""``flake8-tensorcopy PATH...``: lint, and optionally fix, on the flake8 plugin's core.

Linting is :func:`engine.lint_source` (what the plugin runs), fixing is
:func:`fixer.fix_source`; this module only finds files, decodes and writes them,
honours ``# noqa`` like flake8 and prints. Exit status: 0 when no finding is left,
1 when some are, 2 on bad usage or when a file could not be read, analysed or fixed
(the other files are still processed).

``--fix`` never leaves a file half written: see :func:`write_atomic`. A process killed
(SIGKILL, power loss) between writing the fixed code and renaming it into place leaves
that file as it was plus a stray ``.NAME.XXXXXXXX.tcpfix`` next to it, which no run
lints (it is not a ``*.py``) and which can be deleted.

A ``*.ipynb`` notebook is linted and fixed through :mod:`notebook`: its code cells as one
module, findings told by cell and row (:func:`process_notebook`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import fnmatch
import io
import os
import re
import stat
import sys
import tempfile
import tokenize
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flake8 import defaults

from . import __version__, docs, engine, fixer, noqa, notebook
from .formats import FORMATS, FileError, Located
from .rule import Rule
from .rules import ALL_RULES

USAGE_ERROR = 2
NOTEBOOK_SUFFIX = ".ipynb"
# Jupyter's autosaved copies: linting them would report every notebook twice.
DEFAULT_EXCLUDE = (*defaults.EXCLUDE, ".ipynb_checkpoints")


@dataclass
class Options:
    rules: list[type[Rule]]
    fix: bool
    unsafe: bool
    diff: bool
    stdin_name: str

    @property
    def fixing(self) -> bool:
        return self.fix or self.diff

    @property
    def writes(self) -> bool:
        return self.fix and not self.diff


@dataclass
class Outcome:
    """What happened to one file."""

    findings: list[Located] = field(default_factory=list)
    error: FileError | None = None
    fixed: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flake8-tensorcopy",
        description="Find (and fix) PyTorch tensor copy and alias mistakes: the TCP rules of the "
        "flake8-tensorcopy plugin, without flake8.",
        epilog="Exit status: 0 no finding left, 1 findings left, 2 bad usage or a file that could not "
        "be read, analysed or fixed. "
        "`flake8-tensorcopy server` runs the language server instead (LSP over stdin/stdout; needs "
        "pip install 'flake8-tensorcopy[server]'); to lint a folder named server, write ./server.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files and folders to lint (folders: their *.py and *.ipynb files); '-' reads stdin "
                        "(default: .)")
    parser.add_argument("--select", action="append", default=[], metavar="CODES",
                        help="comma-separated code prefixes to report (default: every rule on by default)")
    parser.add_argument("--ignore", action="append", default=[], metavar="CODES",
                        help="comma-separated code prefixes not to report")
    parser.add_argument("--fix", action="store_true", help="apply the safe fixes, writing the files")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="also apply the unsafe fixes (they change behaviour on purpose)")
    parser.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff instead of writing them")
    parser.add_argument("--explain", metavar="CODE", help="print the reference page of a rule and exit")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--exclude", default=",".join(DEFAULT_EXCLUDE), metavar="PATTERNS",
                        help="comma-separated glob patterns of files and folders to skip when walking "
                        "folders (default: %(default)s)")
    parser.add_argument("--extend-exclude", default="", metavar="PATTERNS",
                        help="patterns to skip in addition to --exclude")
    parser.add_argument("--stdin-display-name", default="stdin", metavar="NAME",
                        help="the name under which stdin is reported (default: stdin)")
    parser.add_argument("--version", action="version", version=f"flake8-tensorcopy {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["server"]:
        from .server import main as serve  # only this command imports the server (pygls is optional)

        return serve(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.explain:
        return _explain(args.explain)
    try:
        rules = select_rules(args.select, args.ignore)
    except ValueError as error:
        parser.error(str(error))
    options = Options(rules, args.fix, args.unsafe_fixes, args.diff, args.stdin_display_name)
    excludes = _patterns(args.exclude) + _patterns(args.extend_exclude)
    paths = args.paths or ["."]
    if paths.count("-") > 1:
        parser.error("'-' (stdin) may be given once")

    located: list[Located] = []
    errors: list[FileError] = []
    fixed: Counter[str] = Counter()
    fixed_files = 0
    for display, source_path in discover(paths, excludes, args.stdin_display_name):
        outcome = process(display, source_path, options)
        located.extend(outcome.findings)
        if outcome.error is not None:
            errors.append(outcome.error)
            print(f"{outcome.error.path}: error: {outcome.error.message}", file=sys.stderr)
        for note in outcome.notes:
            print(f"{display}: {note}", file=sys.stderr)
        if outcome.fixed:
            fixed.update(outcome.fixed)
            fixed_files += 1

    if not options.diff:
        report = FORMATS[args.format](located, errors)
        # With `- --fix` stdout carries the fixed code: the findings go to stderr.
        stream = sys.stderr if (options.writes and "-" in paths) else sys.stdout
        stream.write(report)
    _summary(options, located, fixed, fixed_files)
    if errors:
        return 2
    return 1 if located else 0


# -- selection -------------------------------------------------------------------------
_VALID_PREFIX = re.compile(defaults.VALID_CODE_PREFIX.pattern)


def _patterns(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def select_rules(select: Sequence[str], ignore: Sequence[str]) -> list[type[Rule]]:
    """flake8's decision: the longer matching prefix of --select and --ignore wins.

    Without --select every rule on by default is selected. A rule off by default is
    selected only by its full code.
    """
    chosen, ignored = (_codes(value) for value in (select, ignore))
    rules = []
    for rule in ALL_RULES:
        if chosen:
            selected = max((len(p) for p in chosen if rule.code.startswith(p)), default=-1)
            if not rule.enabled_by_default and rule.code not in chosen:
                selected = -1
        else:
            selected = 0 if rule.enabled_by_default else -1
        ignoring = max((len(p) for p in ignored if rule.code.startswith(p)), default=-1)
        if selected >= 0 and selected > ignoring:
            rules.append(rule)
    return rules


def _codes(values: Sequence[str]) -> list[str]:
    codes = []
    for value in values:
        for code in _patterns(value):
            code = code.upper()
            if not _VALID_PREFIX.match(code):
                raise ValueError(f"{code!r} is not a code prefix (like TCP, TCP0 or TCP001)")
            codes.append(code)
    return codes


def _explain(code: str) -> int:
    for rule in ALL_RULES:
        if rule.code == code.strip().upper():
            sys.stdout.write(docs.render(rule))
            return 0
    known = ", ".join(rule.code for rule in ALL_RULES)
    print(f"flake8-tensorcopy: error: no rule {code!r} (known: {known})", file=sys.stderr)
    return USAGE_ERROR


# -- files -----------------------------------------------------------------------------
def discover(paths: Sequence[str], excludes: Sequence[str], stdin_name: str) -> Iterator[tuple[str, Path | None]]:
    """(name to show, path to read; None for stdin), folders walked in sorted order."""
    for given in paths:
        if given == "-":
            yield stdin_name, None
            continue
        path = Path(given)
        if not path.is_dir():
            yield given, path  # a missing file is reported when read
            continue
        for root, folders, files in os.walk(path):
            folders[:] = sorted(f for f in folders if not _excluded(os.path.join(root, f), excludes))
            for name in sorted(files):
                full = os.path.join(root, name)
                if name.endswith((".py", NOTEBOOK_SUFFIX)) and not _excluded(full, excludes):
                    yield full, Path(full)


def _excluded(path: str, patterns: Sequence[str]) -> bool:
    """flake8's rule: a pattern matches the base name or the absolute path."""
    name = os.path.basename(path)
    absolute = os.path.abspath(path)
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(absolute, p) for p in patterns)


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) honouring a BOM or a PEP 263 cookie; encoding ``text`` with
    ``encoding`` gives the bytes back (``utf-8-sig`` restores the BOM)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def process(display: str, path: Path | None, options: Options) -> Outcome:
    outcome = Outcome()
    try:
        data = sys.stdin.buffer.read() if path is None else path.read_bytes()
    except OSError as error:
        outcome.error = FileError(display, f"cannot read it: {error.strerror or error}")
        return outcome
    if display.endswith(NOTEBOOK_SUFFIX):
        return process_notebook(display, path, data, options)
    echo = path is None and options.writes  # `- --fix` prints the code, fixed or not: never nothing

    def unfixed() -> Outcome:
        if echo:
            sys.stdout.buffer.write(data)
        return outcome

    try:
        source, encoding = decode(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        outcome.error = FileError(display, f"cannot decode it: {error}")
        return unfixed()
    try:
        findings = _lint(display, source, options)
    except engine.AnalysisError as error:  # what the analysable parts found still counts
        outcome.findings = _located(display, source, error.findings, options)
        outcome.error = FileError(display, f"cannot analyse it: {error}")
        return unfixed()
    except Exception as error:  # a bug of ours must not stop the other files
        outcome.error = FileError(
            display, f"internal error while linting ({type(error).__name__}: {error}); please report it"
        )
        return unfixed()
    outcome.findings = findings
    if not options.fixing or not any(f.fixable for f in findings):
        return unfixed()

    try:
        if source.encode(encoding) != data:
            raise fixer.FixError(f"its bytes do not survive decoding as {encoding} and encoding back")
        result = fixer.fix_source(source, options.rules, unsafe=options.unsafe)
        after = _lint(display, result.source, options)
        new_data = result.source.encode(encoding)
    except (fixer.FixError, engine.AnalysisError, UnicodeEncodeError) as error:
        outcome.error = FileError(display, f"not fixed, left untouched: {error}")
    except Exception as error:
        outcome.error = FileError(display, f"not fixed, left untouched: internal error ({type(error).__name__}: "
                                  f"{error}); please report it")
    if outcome.error is not None or not result.changed:
        return unfixed()

    outcome.fixed = result.counts()
    outcome.notes = [f"added `{statement}` (a fix needs it)" for statement in result.imports_added]
    if options.diff:
        sys.stdout.write(unified_diff(display, source, result.source, result.imports_added))
        return outcome  # nothing written: every finding is still there
    if _deliver(display, path, data, new_data, outcome):
        outcome.findings = after
    return outcome


def _deliver(display: str, path: Path | None, data: bytes, new_data: bytes, outcome: Outcome) -> bool:
    """Write the fixed file (stdin: print it); on failure say so in ``outcome`` and return False."""
    if path is None:
        sys.stdout.buffer.write(new_data)
        return True
    try:
        write_atomic(path, new_data, expected=data)
    except (Refused, OSError) as error:
        reason = f"left untouched: {error}" if isinstance(error, Refused) else (
            f"cannot write it: {error.strerror or error}")
        outcome.error = FileError(display, f"not fixed, {reason}")
        outcome.fixed = Counter()
        outcome.notes = []
        return False
    return True


def process_notebook(display: str, path: Path | None, data: bytes, options: Options) -> Outcome:
    """:func:`process` for a notebook: its code cells linted and fixed as one module."""
    outcome = Outcome()
    echo = path is None and options.writes

    def unfixed() -> Outcome:
        if echo:
            sys.stdout.buffer.write(data)
        return outcome

    try:
        book = notebook.Notebook(data.decode("utf-8"))
    except (UnicodeDecodeError, notebook.NotebookError) as error:
        outcome.error = FileError(display, f"cannot read it as a notebook: {error}")
        return unfixed()
    try:
        outcome.findings = _in_cells(book, _lint(display, book.module, options))
    except engine.AnalysisError as error:
        outcome.findings = _in_cells(book, _located(display, book.module, error.findings, options))
        outcome.error = FileError(display, f"cannot analyse it: {book.locate_in_message(str(error))}")
        return unfixed()
    except Exception as error:  # a bug of ours must not stop the other files
        outcome.error = FileError(
            display, f"internal error while linting ({type(error).__name__}: {error}); please report it"
        )
        return unfixed()
    if not options.fixing or not any(f.fixable for f in outcome.findings):
        return unfixed()

    try:
        result = fixer.fix_source(book.module, options.rules, unsafe=options.unsafe,
                                  keep_lines_with=notebook.MARK)
        fixed_book = book.with_module(result.source)
        after = _in_cells(fixed_book, _lint(display, fixed_book.module, options))
    except (fixer.FixError, engine.AnalysisError, notebook.NotebookError) as error:
        outcome.error = FileError(display, f"not fixed, left untouched: {error}")
    except Exception as error:
        outcome.error = FileError(display, f"not fixed, left untouched: internal error ({type(error).__name__}: "
                                  f"{error}); please report it")
    if outcome.error is not None or not result.changed:
        return unfixed()

    outcome.fixed = result.counts()
    outcome.notes = [f"added `{statement}` (a fix needs it)" for statement in result.imports_added]
    if options.diff:
        changes = book.changed_cells(fixed_book)
        sys.stdout.write("".join(
            unified_diff(f"{display}:cell {number}", old, new, result.imports_added if position == 0 else ())
            for position, (number, old, new) in enumerate(changes)
        ))
        return outcome
    if _deliver(display, path, data, fixed_book.text.encode("utf-8"), outcome):
        outcome.findings = after
    return outcome


def _in_cells(book: notebook.Notebook, located: Sequence[Located]) -> list[Located]:
    """``located`` (lines of ``book.module``) told by cell and row in that cell."""
    told = []
    for item in located:
        cell, row = book.locate(item.finding.line)
        told.append(dataclasses.replace(item, finding=dataclasses.replace(item.finding, line=row), cell=cell))
    return told


def _lint(display: str, source: str, options: Options) -> list[Located]:
    if noqa.Silencer(source).file_is_silenced():
        return []
    return _located(display, source, engine.lint_source(source, rules=options.rules), options)


def _located(display: str, source: str, findings: Sequence[engine.Finding], options: Options) -> list[Located]:
    """``findings`` as the CLI shows them, less those silenced by ``# noqa``."""
    silencer = noqa.Silencer(source)
    return [
        Located(display, finding, fixer.applicable(finding.fix, options.unsafe))
        for finding in findings
        if not silencer.silences(finding.code, finding.line)
    ]


TEMPORARY_SUFFIX = ".tcpfix"


class Refused(Exception):
    """Writing the fixed code could lose or misplace data: the file is left as it is."""


def write_atomic(path: Path, data: bytes, expected: bytes) -> None:
    """Replace ``path``'s content, which must still be ``expected``, with ``data``: all or nothing.

    The fixed code goes to a temporary file ``.NAME.XXXXXXXX.tcpfix`` in the same folder,
    is synced to disk, gets the file's mode (and owner), and is renamed over ``path``.
    Raises :class:`Refused`, writing nothing, for a symbolic link (the file it points to
    may lie outside what the user meant to fix), a read-only file, and a file whose
    content is no longer ``expected`` (an editor saved it meanwhile): checked just
    before the rename. Raises ``OSError`` when the folder cannot be written.
    """
    if path.is_symlink():
        raise Refused(f"it is a symbolic link (to {os.readlink(path)}); fix the file it points to")
    before = path.stat()
    if not stat.S_ISREG(before.st_mode):
        raise Refused("it is not a regular file")
    if not stat.S_IMODE(before.st_mode) & 0o222 or not os.access(path, os.W_OK):
        raise Refused("it is read-only")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(before.st_mode))
        written = os.stat(temporary)
        if (written.st_uid, written.st_gid) != (before.st_uid, before.st_gid):
            try:
                os.chown(temporary, before.st_uid, before.st_gid)
            except OSError:
                raise Refused("it belongs to another user or group; rewriting it would change that") from None
        if path.is_symlink() or path.read_bytes() != expected:
            raise Refused("it changed on disk while it was being fixed")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (where the platform lets a folder be synced)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def unified_diff(display: str, old: str, new: str, imports_added: Sequence[str] = ()) -> str:
    """A unified diff of ``old`` -> ``new``; a line above it names any import the fixes added."""
    # Both headers name the file as given (like ruff): `patch -p0` applies the diff.
    lines = list(difflib.unified_diff(_lines(old), _lines(new), fromfile=display, tofile=display))
    patched = []
    for line in lines:
        if line.endswith(("\n", "\r")):
            patched.append(line)
        else:
            patched.append(line + "\n\\ No newline at end of file\n")
    notes = [f"# flake8-tensorcopy: added `{statement}` (a fix needs it)\n" for statement in imports_added]
    return "".join(notes + patched)


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)


def _summary(options: Options, located: Sequence[Located], fixed: Counter[str], files: int) -> None:
    def by_code(counter: Counter[str]) -> str:
        return ", ".join(f"{code}: {count}" for code, count in sorted(counter.items()))

    total = sum(fixed.values())
    if options.fixing:
        verb = "Would fix" if options.diff else "Fixed"
        line = f"{verb} {total} finding(s) in {files} file(s)"
        if total:
            line += f" ({by_code(fixed)})"
        left = len(located) - (total if options.diff else 0)
        line += f"; {left} left."
        print(line, file=sys.stderr)
    fixable = sum(1 for f in located if fixer.applicable(f.finding.fix, unsafe=False))
    unsafe_only = sum(1 for f in located if fixer.applicable(f.finding.fix, unsafe=True)) - fixable
    if not options.fixing and fixable:
        print(f"{fixable} finding(s) fixable with --fix.", file=sys.stderr)
    if unsafe_only and not options.unsafe:
        print(f"{unsafe_only} more fixable with --fix --unsafe-fixes.", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
