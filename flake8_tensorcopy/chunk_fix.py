"""One finding's fix, applied to the chunk that holds it: an editor's quick fix.

``fixer.fix_source`` parses, analyses and regenerates the whole file with LibCST, twice
at least: seconds on a 3,000-line training file, and refused past
``limits.MAX_FIXED_TOKENS``. One finding's fix needs none of that. Its finding came from
one chunk (``engine.chunks_of``: a function, or the module-level code with the functions
taken out), analysed with the summary of the whole file; so that chunk is cut from the
``ast`` again (the function around the finding, innermost first: no plan, whose gates
cost a third of a lint), parsed and analysed the same way, the finding's fix applied to
it, its changed lines put back into the file, and the import the fix needs (if the file
lacks it) added after the docstring and ``__future__`` imports, with LibCST on the
file's head alone.

Checked as ``fix_source`` checks: the fixed file must parse, and re-linting it (``lint``:
the server passes its cached, chunk-reusing linter, so only the changed chunk is analysed
again) must find no more findings of any code than before, one fewer of the fixed one.
Anything else raises :class:`fixer.FixError`, and no fix is offered.
"""

from __future__ import annotations

import ast
import difflib
from collections import Counter
from collections.abc import Callable, Sequence

import libcst as cst

from . import engine, fixer, positions, prefilter
from .runtime import yielding
from .analysis.summary import ModuleSummary
from .imports import FUNCTION_DEFS, ImportTable, child_blocks
from .rule import Fix, Report, Rule

# text -> (its findings, why part of it was not analysed or None)
Lint = Callable[[str], tuple[Sequence[engine.Finding], str | None]]


def fix_finding(source: str, only: tuple[int, int, str], rules: Sequence[type[Rule]], *,
                keep_lines_with: str = "", lint: Lint | None = None, path: str | None = None,
                tree: ast.Module | None = None, offered: Fix | None = None) -> str:
    """``source`` with the fix of the finding at ``only`` = (line, column, code) applied;
    ``lint`` checks it (by default ``engine.lint_source`` with ``rules``); ``path`` is the
    file's, whose project the analysis reads; ``tree``, its ``ast`` if the caller has it;
    ``offered``, the fix the finding was shown with, which the one applied must match
    (what it does, whether it is safe). Raises :class:`fixer.FixError` or
    :class:`engine.AnalysisError`."""
    lint = lint or (lambda text: _lint_source(text, rules, path))
    before, failure = lint(source)
    if failure is not None:
        raise fixer.FixError(f"the file is not wholly analysed, so no fix can be checked ({failure})")
    text = prefilter.normalise_newlines(source)
    newline = "\r\n" if "\r\n" in source else "\r" if "\r" in source else "\n"
    if text.replace("\n", newline) != source:
        raise fixer.FixError("the file mixes line endings; `flake8-tensorcopy --fix` can fix it")
    yielding.checkpoint()
    tree = tree if tree is not None else engine.parse_ast(text)
    # Lazy: it works out only what the chunk's analysis asks of the rest of the file.
    summary = ModuleSummary.of(tree, text, path)
    try:
        fixed = _fixed(text, tree, summary, only, tuple(rules), keep_lines_with, offered)
    finally:
        summary.forget_facts()
    fixed = fixed.replace("\n", newline)  # whether it parses, the re-lint says
    yielding.checkpoint()
    _check(before, fixed, only[2], lint)
    return fixed


def _fixed(text: str, tree: ast.Module, summary: ModuleSummary, only: tuple[int, int, str],
           rules: tuple[type[Rule], ...], keep_lines_with: str, offered: Fix | None) -> str:
    lines = text.split("\n")
    stand_ins = _stand_ins(text, tree)
    for chunk in _holding(lines, tree, summary, rules, only[0], stand_ins):
        found = _report_at(chunk, summary, only)
        if found is not None and (offered is None or (found[1].fix.description, found[1].fix.safe) ==
                                  (offered.description, offered.safe)):
            module, report = found
            break
    else:
        raise fixer.FixError("the finding is not in the current text")
    if keep_lines_with and fixer._rewrites_text(module, report.fix, keep_lines_with):
        raise fixer.FixError("the fix would rewrite a line the notebook needs as it is")
    try:  # whether LibCST reads what it wrote, the re-lint says
        code, imports = fixer._apply(module, [report.fix], keep_lines_with, add_imports=False)
    except (engine.AnalysisError, fixer.FixError):
        raise
    except Exception as error:  # e.g. a rule built a node LibCST refuses
        raise fixer.FixError(f"the fix ({only[2]}) could not be applied: {type(error).__name__}: {error}") from None
    _, chunk_text, offset, _, _, _ = chunk
    fixed = _put_back(lines, chunk_text.split("\n"), code.split("\n"), offset, _fixed_lines(chunk, stand_ins))
    wanted = [statement for statement in imports if not _file_binds(tree, statement)]
    if wanted:
        fixed = _with_imports(fixed, wanted)
    return fixed


def parsed(source: str) -> ast.Module | None:
    """The ``ast`` of ``source``; None when it does not parse."""
    try:
        return engine.parse_ast(prefilter.normalise_newlines(source))
    except engine.AnalysisError:
        return None


def _lint_source(text: str, rules: Sequence[type[Rule]], path: str | None) -> tuple[Sequence[engine.Finding], str | None]:
    try:
        return engine.lint_source(text, rules=rules, path=path), None
    except engine.AnalysisError as error:
        return error.findings, str(error)


def _holding(lines: list[str], tree: ast.Module, summary: ModuleSummary, rules: tuple[type[Rule], ...],
             line: int, stand_ins: tuple[tuple[int, int, str], ...]) -> list[engine.Chunk]:
    """The chunks that may hold the finding on ``line``, cut as ``engine.chunks_of`` cuts
    them: each function around it, innermost first; else the module-level code, its
    functions left out. The lint's plan picked one of them (the outermost its triggers
    chose); the first whose analysis finds the same finding with the same fix serves, and
    the fixed file's re-lint is the check either way. No plan is needed: the prefilter's
    gates cost a third of a lint."""
    functions = _functions_around(tree, line)
    chunks: list[engine.Chunk] = []
    for function in reversed(functions):
        first, last = prefilter.statement_start(function), function.end_lineno
        chunks.append((f"lines {first}-{last}", *engine._function_chunk(lines, first, last), summary.enclosing(first),
                       rules, (first, last)))
    if not functions:
        chunks.append(("module-level code", engine._module_level_chunk(lines, stand_ins), 0, "", rules, None))
    return chunks


def _functions_around(tree: ast.Module, line: int) -> list[ast.stmt]:
    """The functions whose lines (decorators included) hold ``line``, outermost first."""
    functions = []
    block = tree.body
    while True:
        statement = next((s for s in block if prefilter.statement_start(s) <= line <= s.end_lineno), None)
        if statement is None:
            return functions
        if isinstance(statement, FUNCTION_DEFS):
            functions.append(statement)
        block = [s for body in child_blocks(statement) for s in body]


def _stand_ins(text: str, tree: ast.Module) -> tuple[tuple[int, int, str], ...]:
    """The module-level chunk's stand-ins for the outermost functions (``prefilter.Plan``)."""
    stand_ins, _ = prefilter._module_level(text, tree, prefilter._LineIndex(text))
    return stand_ins or ()


def _report_at(chunk: engine.Chunk, summary: ModuleSummary,
               only: tuple[int, int, str]) -> tuple[cst.Module, Report] | None:
    _, text, offset, scope, rules, _ = chunk

    def analyse() -> tuple[cst.Module, Report] | None:
        module = engine._parse(text)
        reports = [report for report in engine.analyse_module(module, summary, rules, scope)
                   if report.code == only[2] and report.fix is not None]
        starts = positions.starts(module, [report.node for report in reports]) if reports else {}
        for report in reports:
            line, column = starts[id(report.node)]
            if (line + offset, column) == only[:2]:
                return module, report
        return None

    return engine.with_deep_recursion(analyse)


def _fixed_lines(chunk: engine.Chunk, stand_ins: tuple[tuple[int, int, str], ...]) -> set[int]:
    """The chunk's lines (0-based) that stand for no line of the file as it is: the
    ``if True:`` above an indented function, a left-out function's stand-in and blanks."""
    _, text, offset, _, _, lines = chunk
    if lines is not None:
        return {0} if offset == lines[0] - 2 else set()
    return {line for first, last, _ in stand_ins for line in range(first - 1, last)}


def _put_back(file_lines: list[str], old: list[str], new: list[str], offset: int, fixed: set[int]) -> str:
    """The file with the chunk's changed lines (``old`` -> ``new``) in place: chunk line
    ``k`` is file line ``k + offset`` (0-based). Lines in ``fixed`` must stay as they are."""
    result = list(file_lines)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):
        if tag == "equal":
            continue
        # An insertion may go above or below a line that stands for none, not between two.
        inside = i1 in fixed and (i1 == 0 or i1 - 1 in fixed)
        if (set(range(i1, i2)) & fixed if i2 > i1 else inside) or i1 + offset < 0 or i2 + offset > len(result):
            raise fixer.FixError("the fix would change code outside its function")
        result[i1 + offset : i2 + offset] = new[j1:j2]
    return "\n".join(result)


def _file_binds(tree: ast.Module, statement: str) -> bool:
    """Whether the file's top-level imports already bind what ``statement`` binds (a fix
    inside a function leaves them as they are)."""
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    have = ImportTable.from_ast(ast.Module(body=imports, type_ignores=[])).aliases
    return all(have.get(local) == name for local, name in fixer._bound_by(statement).items())


def _with_imports(text: str, statements: list[str]) -> str:
    """``text`` with ``statements`` added where ``fixer`` adds imports. Only the head of
    the file goes to LibCST: the lines before its first statement that is not the
    docstring or a ``__future__`` import, then a stand-in of the same kind for it."""
    tree = ast.parse(text)
    body = tree.body
    position = 0
    while position < len(body) and _is_preamble(body[position], position):
        position += 1
    lines = text.split("\n")
    if position == len(body):
        head, stand_in = len(lines), ""
    else:
        following = body[position]
        head = min([following.lineno] + [d.lineno for d in getattr(following, "decorator_list", ())]) - 1
        if isinstance(following, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stand_in = "def _():\n    pass\n"
        elif isinstance(following, (ast.Import, ast.ImportFrom)):
            stand_in = "import _\n"
        else:
            stand_in = "pass\n"
    prefix = "".join(line + "\n" for line in lines[:head])
    module = engine._parse(prefix + stand_in)
    code = fixer._add_imports(module, statements).code
    if not code.endswith(stand_in):
        raise fixer.FixError("the import could not be added")
    return code[: len(code) - len(stand_in)] + "\n".join(lines[head:])


def _is_preamble(statement: ast.stmt, position: int) -> bool:
    """``fixer._is_preamble``, on the ``ast``: the docstring, a ``__future__`` import."""
    if position == 0 and isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__" and not statement.level


def _check(old: Sequence[engine.Finding], after: str, code: str, lint: Lint) -> None:
    """As ``fix_source`` checks its result: no finding more of any code than ``old`` (the
    findings before), one fewer of ``code``."""
    new, new_failure = lint(after)
    if new_failure is not None:
        raise fixer.FixError(f"the fixed code cannot be analysed ({new_failure})")
    expected = Counter(finding.code for finding in old)
    expected[code] -= 1
    for left, count in sorted(Counter(finding.code for finding in new).items()):
        if count > expected[left]:
            raise fixer.FixError(f"re-linting the fixed code finds {count} {left} finding(s) where "
                                 f"{max(expected[left], 0)} were expected: the fix left a new finding behind")
