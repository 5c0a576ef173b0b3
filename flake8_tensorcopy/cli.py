"""``flake8-tensorcopy PATH...``: lint, and optionally fix, on the flake8 plugin's core.

Linting is :func:`engine.lint_source` (what the plugin runs), fixing is
:func:`fixer.fix_source`; this module only finds files, decodes and writes them,
honours ``# noqa`` like flake8 and prints. Settings come from :mod:`config`, the files
from :mod:`discovery`; :mod:`parallel` spreads them over ``--jobs`` processes, and the
output is printed sorted by path once all are done. Exit status: 0 when no finding is
left, 1 when some are, 2 on bad usage, a bad configuration file, or when a file could not
be read, analysed or fixed (the other files are still processed).

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
import io
import itertools
import os
import re
import stat
import sys
import tempfile
import tokenize
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from . import __version__, config, discovery, docs, edits, engine, noqa, notebook, parallel, selection
from .analysis.project import choose_cache_folder, files_alone, let_go_of_summaries, no_disk_cache
from .formats import FORMATS, FileError, Located, statistics
from .progress import Progress
from .rule import Rule, applicable
from .rules import ALL_RULES

if TYPE_CHECKING:
    from .fixer import FixResult

USAGE_ERROR = 2


@dataclass
class Options:
    rules: list[type[Rule]]
    fix: bool
    unsafe: bool
    diff: bool
    stdin_name: str
    ends: bool = False  # where each finding ends (JSON, SARIF)
    edits: bool = False  # each fix's edits (JSON)

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
        "flake8-tensorcopy plugin, without flake8. Settings come from the [tool.flake8-tensorcopy] "
        "table of the nearest pyproject.toml that has one (searched from the folder holding every "
        "PATH upwards; a pyproject.toml without the table is passed over); command-line flags win "
        "over it.",
        epilog="Exit status: 0 no finding left, 1 findings left, 2 bad usage, a bad configuration file, "
        "or a file that could not be read, analysed or fixed. "
        "`flake8-tensorcopy server` runs the language server instead (LSP over stdin/stdout; needs "
        "pip install 'flake8-tensorcopy[server]'); to lint a folder named server, write ./server.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files and folders to lint (folders: their *.py and *.ipynb files); '-' reads stdin "
                        "(default: .)")
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="comma-separated code prefixes to report, replacing the configuration's "
                        "select, extend-select and ignore (default: every rule on by default)")
    parser.add_argument("--extend-select", action="append", default=[], metavar="CODES",
                        help="code prefixes to report in addition to the selected ones")
    parser.add_argument("--ignore", action="append", default=[], metavar="CODES",
                        help="comma-separated code prefixes not to report (of a select and an ignore, "
                        "the longer matching prefix wins)")
    parser.add_argument("--fix", action="store_true", help="apply the safe fixes, writing the files")
    parser.add_argument("--unsafe-fixes", action=argparse.BooleanOptionalAction,
                        help="also apply the unsafe fixes (they change behaviour on purpose); "
                        "--no-unsafe-fixes overrides unsafe-fixes = true in the configuration")
    parser.add_argument("--diff", action="store_true",
                        help="print the fixes as a unified diff instead of writing them")
    parser.add_argument("--explain", metavar="RULE",
                        help="print the reference page of a rule, by code or name (TCP003, deepcopy-tensor), and exit")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--statistics", action="store_true",
                        help="after the findings, print how many there are of each code (flake8's format)")
    parser.add_argument("--exclude", metavar="PATTERNS",
                        help="comma-separated glob patterns of files and folders to skip when walking "
                        "folders, replacing the configuration's exclude (default: "
                        f"{','.join(config.DEFAULT_EXCLUDE)}); a pattern with a / counts from the "
                        "current folder, one without matches base names")
    parser.add_argument("--extend-exclude", action="append", default=[], metavar="PATTERNS",
                        help="patterns to skip in addition to the excluded ones")
    parser.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction,
                        help="when walking a folder inside a git work tree, skip what git ignores "
                        "(.gitignore, .git/info/exclude, the global excludes file), as ruff does; on by "
                        "default. Outside a work tree, or without git installed, git ignores nothing. "
                        "Files named on the command line are linted even if ignored")
    parser.add_argument("--config", metavar="FILE",
                        help="read the settings from FILE instead of searching: a pyproject.toml with a "
                        "[tool.flake8-tensorcopy] table, or any other TOML file with the same keys at "
                        "its top level")
    parser.add_argument("--isolated", action="store_true", help="read no configuration file")
    parser.add_argument("-j", "--jobs", type=_positive, default=parallel.default_jobs(), metavar="N",
                        help="lint N files at a time in worker processes; the output is the same "
                        "whatever N (default: the number of cores, %(default)s here)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the findings and errors: no progress bar, no summary")
    parser.add_argument("--no-project", action="store_true",
                        help="read each file alone: not the project's other modules nor the "
                        "callers in the modules that import it (as project = false does)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the cache of what the project's other modules "
                        "answered (.tensorcopy_cache in the project's root, or --cache-dir)")
    parser.add_argument("--cache-dir", metavar="FOLDER",
                        help="keep that cache under FOLDER, a folder of its own per project (as "
                        "$FLAKE8_TENSORCOPY_CACHE_DIR does; a project's own cache-dir is not honoured)")
    parser.add_argument("--stdin-display-name", default="stdin", metavar="NAME",
                        help="the name under which stdin is reported (default: stdin)")
    parser.add_argument("--version", action="version", version=f"flake8-tensorcopy {__version__}")
    return parser


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a positive whole number")
    return int(value)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["server"]:
        from .server import main as serve  # only this command imports the server (pygls is optional)

        return serve(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.explain:
        return _explain(args.explain)
    if args.cache_dir:
        choose_cache_folder(args.cache_dir)
    if args.no_cache:
        no_disk_cache()
    if args.no_project:
        files_alone()
    paths = args.paths or ["."]
    if paths.count("-") > 1:
        parser.error("'-' (stdin) may be given once")
    if args.config and args.isolated:
        parser.error("--config and --isolated exclude each other")
    if args.statistics and (args.diff or args.format in ("json", "sarif")):
        parser.error("--statistics prints text after the findings: it needs --format text or github, "
                     "and no --diff")
    try:
        overrides = _overrides(args)
    except ValueError as error:
        parser.error(str(error))
    try:
        settings = config.load([args.stdin_display_name if p == "-" else p for p in paths],
                               config=args.config, isolated=args.isolated, overrides=overrides)
    except config.ConfigError as error:
        print(f"flake8-tensorcopy: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    options = Options(list(settings.rules), args.fix, settings.unsafe_fixes, args.diff, args.stdin_display_name,
                      ends=args.format in ("json", "sarif"), edits=args.format == "json")

    done = _process_all(paths, settings, options, args)
    located: list[Located] = []
    errors: list[FileError] = []
    fixed: Counter[str] = Counter()
    fixed_files = 0
    for display, (outcome, printed) in done:
        if printed:
            sys.stdout.flush()
            sys.stdout.buffer.write(printed)
        located.extend(outcome.findings)
        if outcome.error is not None:
            errors.append(outcome.error)
            print(f"{outcome.error.path}: error: {outcome.error.message}", file=sys.stderr)
        for note in outcome.notes:
            print(f"{display}: {note}", file=sys.stderr)
        if outcome.fixed:
            fixed.update(outcome.fixed)
            fixed_files += 1

    located.sort(key=_position)
    if not options.diff:
        # With `- --fix` stdout carries the fixed code: the findings go to stderr.
        stream = sys.stderr if (options.writes and "-" in paths) else sys.stdout
        stream.flush()
        stream.write(FORMATS[args.format](located, errors))
        if args.statistics:
            stream.write(statistics(located))
    if not args.quiet:
        _summary(options, located, fixed, fixed_files)
        if not located and not errors:  # else silence would not say whether anything was read
            notebooks = sum(1 for display, _ in done if display.endswith(".ipynb"))
            left = " left" if options.fixing else ""
            print(f"{len(done)} file(s) checked ({notebooks} notebook(s)): no findings{left}.", file=sys.stderr)
    if errors:
        return 2
    return 1 if located else 0


def _overrides(args: argparse.Namespace) -> config.Overrides:
    """The command line's settings; ValueError names a bad code."""
    def patterns(values: Sequence[str]) -> tuple[str, ...]:
        return tuple(item.strip() for value in values for item in value.split(",") if item.strip())

    return config.Overrides(
        select=None if args.select is None else selection.parse_codes(args.select),
        extend_select=selection.parse_codes(args.extend_select),
        ignore=selection.parse_codes(args.ignore),
        exclude=None if args.exclude is None else patterns([args.exclude]),
        extend_exclude=patterns(args.extend_exclude),
        unsafe_fixes=args.unsafe_fixes,
        respect_gitignore=args.respect_gitignore,
    )


def _position(located: Located) -> tuple[str, int, int, int]:
    return located.path, located.cell or 0, located.finding.line, located.finding.col


class Processed(NamedTuple):
    outcome: Outcome
    printed: bytes  # what processing wrote to stdout (a diff; with stdin, the code)


def _process_all(paths: Sequence[str], settings: config.Settings, options: Options,
                 args: argparse.Namespace) -> list[tuple[str, Processed]]:
    """Every file processed (in ``--jobs`` workers; stdin here), sorted by path so that the
    output is the same whatever ``--jobs``."""
    files = [(display, path, dataclasses.replace(options, rules=settings.rules_for(display)))
             for display, path in discovery.discover(paths, settings, args.stdin_display_name)]
    on_disk = [item for item in files if item[1] is not None]
    on_stdin = [item for item in files if item[1] is None]  # read here: a worker has no stdin
    progress = Progress(len(files), sys.stderr, enabled=not args.quiet)
    done = []
    try:
        for (display, _, _), result in itertools.chain(parallel.run(_process_portable, on_stdin, jobs=1),
                                                       parallel.run(_process_portable, on_disk, args.jobs)):
            if isinstance(result, BaseException):  # a worker died: not a finding of ours to hide
                result = Processed(Outcome(error=FileError(display, _bug(result))), b"")
            done.append((display, result))
            progress.advance()
    finally:
        progress.close()
    done.sort(key=lambda pair: pair[0])
    return done


def _process_portable(item: tuple[str, Path | None, Options]) -> Processed:
    """:func:`process`, with what it prints kept (the caller prints it in path order) and
    the findings' fixes stripped of their syntax trees (which a worker need not send back)."""
    display, path, options = item
    captured = io.BytesIO()
    stream = io.TextIOWrapper(captured, encoding=sys.stdout.encoding, errors=sys.stdout.errors,
                              write_through=True)
    with contextlib.redirect_stdout(stream):
        try:
            outcome = process(display, path, options)
        finally:
            let_go_of_summaries()  # a tree's other files seldom ask the same modules
    stream.flush()
    outcome.findings = [
        dataclasses.replace(f, finding=f.finding.replace(fix=f.finding.fix.without_edits()))
        if f.finding.fix is not None else f
        for f in outcome.findings
    ]
    return Processed(outcome, captured.getvalue())


def _explain(asked: str) -> int:
    """The page of the rule whose code or name is ``asked`` (any case)."""
    for rule in ALL_RULES:
        if asked.strip().lower() in (rule.code.lower(), rule.name):
            sys.stdout.write(docs.render(rule))
            return 0
    known = ", ".join(f"{rule.code} ({rule.name})" for rule in ALL_RULES)
    print(f"flake8-tensorcopy: error: no rule {asked!r} (known: {known})", file=sys.stderr)
    return USAGE_ERROR


# -- files -----------------------------------------------------------------------------
def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) honouring a BOM or a PEP 263 cookie; encoding ``text`` with
    ``encoding`` gives the bytes back (``utf-8-sig`` restores the BOM)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def _read_source(path: Path) -> bytes:
    """The bytes of a plain file; opened without blocking, so that a named pipe given as a
    file is an error rather than a run that never ends."""
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise OSError("not a plain file (a pipe, a device or a folder)")
        return file.read()


def process(display: str, path: Path | None, options: Options) -> Outcome:
    outcome = Outcome()
    try:
        data = sys.stdin.buffer.read() if path is None else _read_source(path)
    except OSError as error:
        outcome.error = FileError(display, f"cannot read it: {error.strerror or error}")
        return outcome
    if display.endswith(notebook.SUFFIX):
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
        outcome.error = FileError(display, _bug(error, " while linting"))
        return unfixed()
    outcome.findings = findings = _with_edits(source, findings, options, display)
    if not options.fixing or not any(f.fixable for f in findings):
        return unfixed()

    from . import fixer  # imports LibCST: only a run that fixes pays for it

    try:
        if source.encode(encoding) != data:
            raise fixer.FixError(f"its bytes do not survive decoding as {encoding} and encoding back")
        result = fixer.fix_source(source, options.rules, unsafe=options.unsafe, path=display)
        after = _lint(display, result.source, options)
        new_data = result.source.encode(encoding)
    except (fixer.FixError, engine.AnalysisError, UnicodeEncodeError) as error:
        outcome.error = FileError(display, f"not fixed, left untouched: {error}")
    except Exception as error:
        outcome.error = FileError(display, f"not fixed, left untouched: {_bug(error)}")
    if outcome.error is not None or not result.changed:
        return unfixed()

    _record_fixes(outcome, result)
    if options.diff:
        sys.stdout.write(unified_diff(display, source, result.source, result.imports_added))
        return outcome  # nothing written: every finding is still there
    if _deliver(display, path, data, new_data, outcome):
        outcome.findings = after
    return outcome


def _bug(error: BaseException, doing: str = "") -> str:
    """How a bug of ours is told (the other files still go on)."""
    return f"internal error{doing} ({type(error).__name__}: {error}); please report it"


def _record_fixes(outcome: Outcome, result: FixResult) -> None:
    outcome.fixed = result.counts()
    outcome.notes = [f"added `{statement}` (a fix needs it)" for statement in result.imports_added]


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
        outcome.findings = _in_cells(book, _with_edits(book.module, _lint(display, book.module, options), options,
                                                       display, keep_lines_with=notebook.MARK))
    except engine.AnalysisError as error:
        outcome.findings = _in_cells(book, _located(display, book.module, error.findings, options))
        outcome.error = FileError(display, f"cannot analyse it: {book.locate_in_message(str(error))}")
        return unfixed()
    except Exception as error:  # a bug of ours must not stop the other files
        outcome.error = FileError(display, _bug(error, " while linting"))
        return unfixed()
    if not options.fixing or not any(f.fixable for f in outcome.findings):
        return unfixed()

    from . import fixer  # imports LibCST: only a run that fixes pays for it

    try:
        result = fixer.fix_source(book.module, options.rules, unsafe=options.unsafe,
                                  keep_lines_with=notebook.MARK, path=display)
        fixed_book = book.with_module(result.source)
        after = _in_cells(fixed_book, _lint(display, fixed_book.module, options))
    except (fixer.FixError, engine.AnalysisError, notebook.NotebookError) as error:
        outcome.error = FileError(display, f"not fixed, left untouched: {error}")
    except Exception as error:
        outcome.error = FileError(display, f"not fixed, left untouched: {_bug(error)}")
    if outcome.error is not None or not result.changed:
        return unfixed()

    _record_fixes(outcome, result)
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
        finding = item.finding.replace(line=row, end_line=None if item.finding.end_line is None else (
            item.finding.end_line - item.finding.line + row))  # a finding never spans cells
        told.append(dataclasses.replace(item, finding=finding, cell=cell, edits=tuple(
            dataclasses.replace(edit, line=at[1], end_line=edit.end_line - edit.line + at[1], cell=at[0])
            for edit in item.edits for at in [book.locate(edit.line)])))
    return told


def _lint(display: str, source: str, options: Options) -> list[Located]:
    if noqa.Silencer(source).file_is_silenced():
        return []
    return _located(display, source, engine.lint_source(source, rules=options.rules, path=display, ends=options.ends),
                    options)


def _with_edits(source: str, located: Sequence[Located], options: Options, display: str,
                keep_lines_with: str = "") -> list[Located]:
    """``located`` with the edits of each one's fix, for the JSON format."""
    if not options.edits:
        return list(located)
    return [
        dataclasses.replace(item, edits=tuple(edits.finding_edits(
            source, item.finding, options.rules, keep_lines_with=keep_lines_with, path=display)))
        if item.finding.fix is not None else item
        for item in located
    ]


def _located(display: str, source: str, findings: Sequence[engine.Finding], options: Options) -> list[Located]:
    """``findings`` as the CLI shows them, less those silenced by ``# noqa``."""
    silencer = noqa.Silencer(source)
    return [
        Located(display, finding, applicable(finding.fix, options.unsafe))
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
    fixable = sum(1 for f in located if applicable(f.finding.fix, unsafe=False))
    unsafe_only = sum(1 for f in located if applicable(f.finding.fix, unsafe=True)) - fixable
    if not options.fixing and fixable:
        print(f"{fixable} finding(s) fixable with --fix.", file=sys.stderr)
    if unsafe_only and not options.unsafe:
        print(f"{unsafe_only} more fixable with --fix --unsafe-fixes.", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
