"""Decide which parts of a file need a LibCST parse at all.

flake8 runs every plugin on every file, so parsing every file with LibCST would add
about 80% to a flake8 run. Instead each rule declares trigger regexes: text that must
appear for the rule to report anything. They run over the source with comments and the
text of string literals blanked out (an f-string's code in braces stays). A finding
always lies in the innermost function enclosing the trigger match, and what a function's
analysis knows of the rest of the file comes from the module summary, built from the
``ast`` (see ``analysis/summary.py``), so only those functions are parsed. A match
outside every function means the module-level code.
A rule may add a gate (``gates.py``): a necessary condition checked on the ``ast`` of
each function its triggers picked, e.g. "a ``torch.tensor(x)`` whose ``x`` could be known
as a tensor".

``tests/test_prefilter_exact.py`` proves on a real corpus that this loses no finding,
``tests/test_gates.py`` does for the gates on every kind of tensor evidence.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Iterable
from typing import NamedTuple

from .analysis.summary import ModuleSummary
from .blanking import blank_comments_and_strings
from .gates import FunctionFacts, Gate
from .imports import FUNCTION_DEFS, ImportTable, child_blocks, iter_statements
from .limits import statements_of, unparsable_reason
from .runtime import yielding

# What may sit between two tokens of one expression: spaces, newlines inside brackets,
# backslash continuations and comments.
WS = r"(?:[\s\\]++|\#[^\n]*+)*+"  # possessive: a banner of `#` must not backtrack


# Triggers are written so that every alternative starts with a literal character: `re`
# then skips ahead to it. A leading `\b` or character class makes it try every position
# of the file instead, which costs some 30 times more on real code.
def word(name: str) -> str:
    """``\\bname``, with the literal first."""
    return rf"{name}(?<!\w{name})"


# Any in-place write: ``name_(``, ``x[...] =``, ``x op= v``.
INPLACE_SIGNATURE = rf"_(?<=[A-Za-z0-9]_){WS}\(|\]{WS}=(?!=)|=(?:(?<=[-+*/%@&|^]=)|(?<=<<=)|(?<=>>=))"


class TriggerSpec(NamedTuple):
    """A rule's trigger, as the plugin sees it before LibCST is imported."""

    code: str
    triggers: tuple[str, ...]
    trigger_imports: frozenset[str] = frozenset()
    enabled_by_default: bool = True
    gate: Gate | None = None  # checked on a function the triggers picked

    def patterns(self, imports: ImportTable) -> list[re.Pattern[str]]:
        """The compiled triggers; local aliases of ``trigger_imports`` join the first."""
        patterns = list(self.triggers)
        aliases = imports.local_names(set(self.trigger_imports))
        if aliases:
            names = "|".join(sorted(re.escape(a) for a in aliases))
            patterns[0] = rf"(?:{patterns[0]})|\b(?:{names}){WS}\("
        return [_compiled(p) for p in patterns]


@functools.lru_cache(maxsize=256)  # bounded: each import alias of a trigger makes a new pattern
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


class Plan(NamedTuple):
    """What to parse.

    ``whole_file``: everything (the reference the shortcuts are tested against).
    ``spans``: (first, last) lines of functions, each parsed on its own.
    ``module_level``: parse the module with its functions taken out: each
    (first, last, stand_in) is an outermost function whose lines become one
    ``name = None`` line (the binding the ``def`` made) and blank lines.
    ``statements``: (first, last, codes) of single statements that only the rules
    ``codes`` need, each parsed alone for them (see ``Gate.statements``; never when
    fixes are wanted).
    ``skipped``: why parts that could hold a finding are not parsed (see ``limits``).
    ``statement_scopes``: the functions whose statements are parsed alone (a plan with
    fixes parses them whole); ``module_statements``: some are module-level code.
    ``codes``: the rules whose triggers chose the functions and module-level code (None:
    every rule), the only ones that can report there.
    """

    whole_file: bool
    spans: tuple[tuple[int, int], ...] = ()
    module_level: tuple[tuple[int, int, str], ...] | None = None
    statements: tuple[tuple[int, int, frozenset[str]], ...] = ()
    skipped: tuple[str, ...] = ()
    statement_scopes: tuple[tuple[int, int], ...] = ()
    module_statements: bool = False
    codes: frozenset[str] | None = None

    @property
    def needs_parse(self) -> bool:
        return self.whole_file or bool(self.spans) or self.module_level is not None or bool(self.statements)

    def runs(self, code: str) -> bool:
        """Whether the rule ``code`` is run on some part of the file."""
        return self.codes is None or code in self.codes or any(code in codes for *_, codes in self.statements)


WHOLE_FILE = Plan(whole_file=True)
NOTHING = Plan(whole_file=False)
_STAR_IMPORT = re.compile(r"import[\s\\]*\*")


def may_trigger(source: str, rules: Iterable[TriggerSpec]) -> tuple[TriggerSpec, ...]:
    """The rules for which :func:`plan` may find anything in ``source`` (newlines
    normalised), read from the text alone, before the module summary is made: their
    triggers all match, or match but for the first, which the file's import table may
    widen with a local name for one of the rule's ``trigger_imports``: a name the text's
    imports spell (``from copy import deepcopy as dc``), or one that ``import *`` may
    bring. Empty for most files; :func:`plan` need be handed only these."""
    rules = tuple(rules)
    # Codes that one analysis reports (TCP001 and TCP101) share their trigger: searched once.
    found = {
        key for key in dict.fromkeys((rule.triggers, rule.trigger_imports) for rule in rules)
        if _may_match(source, *key)
    }
    return tuple(rule for rule in rules if (rule.triggers, rule.trigger_imports) in found) if found else ()


def _may_match(source: str, triggers: tuple[str, ...], trigger_imports: frozenset[str]) -> bool:
    primary, *secondary = (_compiled(pattern) for pattern in triggers)
    if not all(pattern.search(source) for pattern in secondary):
        return False
    return bool(primary.search(source) or (trigger_imports and (
        any(name.rpartition(".")[2] in source for name in trigger_imports) or _STAR_IMPORT.search(source)
    )))


def plan(source: str, rules: Iterable[TriggerSpec], summary: ModuleSummary, fixes: bool = True) -> Plan:
    """The parts of ``source`` that can hold a finding of one of ``rules``; ``summary``
    is that of the file's ``ast`` tree. Without ``fixes`` (the flake8 plugin shows
    none), a rule whose gate can name the statements that hold its findings gets those
    parsed instead of their function."""
    source = normalise_newlines(source)
    tree, imports = summary.tree, summary.imports
    # Codes that one analysis reports (TCP001 and TCP101) share their trigger: searched once.
    shared: dict[tuple, tuple[set[str], TriggerSpec]] = {}
    for rule in rules:
        shared.setdefault((rule.triggers, rule.trigger_imports, rule.gate), (set(), rule))[0].add(rule.code)
    triggered = [(frozenset(codes), rule.gate, rule.patterns(imports)) for codes, rule in shared.values()]
    # Triggers skip comments, so they match the raw text wherever they match the
    # blanked one: most files are done before paying for the blanking.
    triggered = [rule for rule in triggered if all(pattern.search(source) for pattern in rule[2])]
    triggered.sort(key=lambda rule: rule[1] is not None)  # a gate is moot where another rule parses
    if not triggered:
        return NOTHING
    text = blank_comments_and_strings(source)
    index = _LineIndex(text)
    locator = _FunctionLocator(tree)
    functions: dict[tuple[int, int], ast.stmt] = {}
    statements: dict[int, tuple[ast.stmt, set[str]]] = {}  # id() -> a statement, the rules it is parsed for
    lines = source.split("\n")
    facts: dict[int, FunctionFacts] = {}  # id(scope) -> facts, shared by the gates
    module_level = False
    statement_scopes: set[tuple[int, int]] = set()
    module_statements = False
    chose: set[str] = set()  # the codes whose triggers chose a function or module-level code
    for codes, gate, (primary, *secondary) in triggered:
        yielding.checkpoint()  # a language server's pull goes first (see ``yielding``)
        callees = gate.spellings(imports) if gate else None
        judged: set[int] = set()  # id() of the scopes this rule's gate refused or cut to statements
        position = 0
        while match := primary.search(text, position):
            position = match.end()
            if callees is not None and _identifier_at(text, match.start()) not in callees:
                continue
            function = locator.innermost_function(index.line_of(match.start()))
            scope = tree if function is None else function
            if id(scope) in judged:
                continue
            if function is None:
                if module_level:  # another rule parses it: this one, triggered there, runs there too
                    chose |= codes
                    continue
                if not all(p.search(text) for p in secondary):
                    continue
                verdict = True if gate is None else _verdict(gate, facts, tree, summary, fixes, lines)
                if verdict is True:
                    module_level = True
                    chose |= codes
                else:
                    judged.add(id(tree))
                    _add_statements(statements, verdict, codes)
                    module_statements = module_statements or bool(verdict)
                continue
            span = (statement_start(function), function.end_lineno)
            start, end = index.offset_of_line(span[0]), index.offset_of_line(span[1] + 1)
            if span in functions:  # another rule parses it: this one, triggered there, runs there too
                chose |= codes
            elif all(p.search(text, start, end) for p in secondary):
                verdict = True if gate is None else _verdict(gate, facts, function, summary, fixes, lines)
                if verdict is not True:
                    # The gate judged this scope only, not the functions nested in it.
                    judged.add(id(function))
                    _add_statements(statements, verdict, codes)
                    if verdict:
                        statement_scopes.add(span)
                    continue
                functions[span] = function
                chose |= codes
            # Chosen, or a secondary trigger is missing from all of its text: done with it.
            position = max(end, position)
    spans, skipped = [], []
    for span in _outermost(set(functions)):
        size = index.offset_of_line(span[1] + 1) - index.offset_of_line(span[0])
        reason = unparsable_reason(statements_of(functions[span]), size)
        if reason:
            skipped.append(f"lines {span[0]}-{span[1]}: {reason}")
        else:
            spans.append(span)
    stand_ins = None
    if module_level:
        stand_ins, reason = _module_level(source, tree, index)
        if reason:
            skipped.append(f"module-level code: {reason}")
    alone = _statements_alone(statements, spans, module_level, locator, index, skipped, chose)
    return Plan(whole_file=False, spans=tuple(spans), module_level=stand_ins, statements=alone, skipped=tuple(skipped),
                statement_scopes=tuple(sorted(statement_scopes)), module_statements=module_statements,
                codes=frozenset(chose))


def as_with_fixes(planned: Plan, source: str, tree: ast.Module) -> Plan:
    """The plan that ``plan(..., fixes=True)`` makes of the same file, from one made without
    fixes: the functions (and module-level code) whose statements it parses alone are parsed
    whole. What a budget is charged by, whichever way the file is parsed."""
    if not planned.statements:
        return planned
    spans = _outermost(set(planned.spans) | set(planned.statement_scopes))
    module_level = planned.module_level
    if module_level is None and planned.module_statements:
        module_level, _ = _module_level(source, tree, _LineIndex(blank_comments_and_strings(source)))
    codes = planned.codes if planned.codes is None else planned.codes.union(*(c for *_, c in planned.statements))
    return Plan(whole_file=False, spans=spans, module_level=module_level, skipped=planned.skipped, codes=codes)


def _verdict(gate: Gate, cache: dict[int, FunctionFacts], scope: ast.AST, summary: ModuleSummary, fixes: bool,
             lines: list[str]) -> bool | list[ast.stmt]:
    """True: parse the scope; else the statements to parse alone (none: the gate refused)."""
    if not _admits(gate, cache, scope, summary):
        return []
    if fixes:
        return True
    alone = gate.statements(cache[id(scope)])
    # A statement after a header on its line (``else: x.data.zero_()``) is no code alone.
    if alone is None or not all(lines[s.lineno - 1][: s.col_offset].strip() == "" for s in alone):
        return True
    return alone


def _add_statements(statements: dict[int, tuple[ast.stmt, set[str]]], found: list[ast.stmt], codes: frozenset[str]) -> None:
    for statement in found:
        statements.setdefault(id(statement), (statement, set()))[1].update(codes)


def _statements_alone(statements, spans, module_level, locator, index, skipped, held: set[str]):
    """The statements to parse alone, (first, last, codes): those that no parsed function
    nor the parsed module-level code holds (two on one line make one chunk). The codes of
    those held are added to ``held``: their rules run on what holds them."""
    alone: dict[tuple[int, int], set[str]] = {}
    for statement, codes in statements.values():
        first, last = statement.lineno, statement.end_lineno
        if any(start <= first and last <= end for start, end in spans) or (
                module_level and locator.innermost_function(first) is None):
            held |= codes
            continue
        size = index.offset_of_line(last + 1) - index.offset_of_line(first)
        reason = unparsable_reason(statements_of(statement), size)
        if reason:  # a one-line statement's reason already says where
            skipped.append(reason if reason.startswith(f"line {first}:") else f"lines {first}-{last}: {reason}")
        else:
            alone.setdefault((first, last), set()).update(codes)
    return tuple((first, last, frozenset(codes)) for (first, last), codes in sorted(alone.items()))


def _identifier_at(text: str, offset: int) -> str:
    """The whole word of ``text`` around ``offset`` (``FakeTensor`` for a match at ``ensor``)."""
    start = end = offset
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end]


def _admits(gate: Gate, cache: dict[int, FunctionFacts], scope: ast.AST, summary: ModuleSummary) -> bool:
    """The gate's verdict on ``scope``; ``cache`` keeps each scope's facts for every gate."""
    try:
        facts = cache.get(id(scope))
        if facts is None:
            facts = cache[id(scope)] = FunctionFacts(summary, scope)
        return gate.admits(facts)
    except RecursionError:  # an expression too deep to judge: the parse's limits will say so
        return True


def whole_file_plan(source: str, tree: ast.Module) -> Plan:
    reason = unparsable_reason(statements_of(tree), len(source))
    return Plan(whole_file=False, skipped=(reason,)) if reason else WHOLE_FILE


def _module_level(source: str, tree: ast.Module, index: _LineIndex):
    """Stand-ins for the outermost functions, or why module-level code can't be parsed."""
    statements = list(iter_statements(tree, into=lambda statement: not isinstance(statement, FUNCTION_DEFS)))
    functions = [s for s in statements if isinstance(s, FUNCTION_DEFS)]
    stand_ins, size, lines = [], len(source), source.split("\n")
    for function in functions:
        first = statement_start(function)
        line = lines[first - 1]  # from the source: ``index`` counts blanked text
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        stand_ins.append((first, function.end_lineno, f"{indent}{function.name} = None"))
        size -= index.offset_of_line(function.end_lineno + 1) - index.offset_of_line(first)
    outside = [s for s in statements if not isinstance(s, FUNCTION_DEFS)]
    reason = unparsable_reason(outside, size)
    return (None, reason) if reason else (tuple(stand_ins), None)


def normalise_newlines(source: str) -> str:
    """``\r\n`` and ``\r`` become ``\n``: line numbers and columns stay the same."""
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    return source


def _outermost(spans: set[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Drop spans nested in another one: parsing the outer one covers them."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
        if kept and start >= kept[-1][0] and end <= kept[-1][1]:
            continue
        kept.append((start, end))
    return tuple(kept)


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return self._starts

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def offset_of_line(self, line: int) -> int:
        return self.starts[line - 1] if line <= len(self.starts) else len(self.text)


def statement_start(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None)
    return min([statement.lineno, *(d.lineno for d in decorators)]) if decorators else statement.lineno


class _FunctionLocator:
    """Finds the innermost ``def`` around a line by descending the ``ast`` tree."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        # id(statement) -> its child statements and their first lines (a class with
        # hundreds of methods is looked into once per trigger match, not rebuilt).
        self._children: dict[int, tuple[list[ast.stmt], list[int]]] = {}
        self._module_starts = [statement_start(s) for s in tree.body]

    def innermost_function(self, line: int) -> ast.stmt | None:
        found = None
        statement = _containing(self.tree.body, self._module_starts, line)
        while statement is not None:
            if isinstance(statement, FUNCTION_DEFS):
                found = statement
            children = self._children.get(id(statement))
            if children is None:
                block = [s for b in child_blocks(statement) for s in b]
                children = self._children[id(statement)] = (block, [statement_start(s) for s in block])
            statement = _containing(*children, line)
        return found


def _containing(block: list[ast.stmt], starts: list[int], line: int) -> ast.stmt | None:
    position = bisect.bisect_right(starts, line) - 1
    if position >= 0 and line <= block[position].end_lineno:
        return block[position]
    return None
