"""What every rule is made of: its code, message, trigger, docs, visitor and fixes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst

from .imports import ImportTable
from .inference import Inference

# Whitespace that may sit between two tokens of one expression: spaces, newlines inside
# brackets and backslash continuations (comments are blanked before triggers run).
WS = r"[\s\\]*"
# Any in-place write: ``name_(``, ``x[...] =``, ``x op= v``.
INPLACE_SIGNATURE = rf"[A-Za-z0-9]_{WS}\(|\]{WS}=(?!=)|(?:[-+*/%@&|^]|//|\*\*|<<|>>)="


@dataclass(frozen=True)
class Fix:
    """Replace nodes of the parsed module (matched by identity) with new ones.

    ``safe``: the fixed code does exactly what the risky code did, minus the hazard.
    An unsafe fix changes behaviour on purpose and is applied only when asked.
    """

    replacements: tuple[tuple[cst.CSTNode, cst.CSTNode], ...]
    safe: bool
    description: str
    # A top-level import the replacement needs, added only when the file lacks it.
    needs_import: str | None = None


@dataclass(frozen=True)
class Report:
    """A finding before positions are known: the node it starts at."""

    node: cst.CSTNode
    code: str
    message: str
    fix: Fix | None = None


@dataclass(frozen=True)
class RuleDocs:
    """The single source of a rule's reference page (and of ``--explain``)."""

    what: str
    why: str
    example: str
    use_instead: str
    fixture: str
    known_problems: str = ""
    fix_safety: str = "No fix: the intent is unknown, so only the message advises."


@dataclass(frozen=True)
class Example:
    """An inline example: ``code`` is flagged at ``expect`` [(line, col), ...] (1-based)."""

    code: str
    expect: Sequence[tuple[int, int]] = field(default_factory=tuple)


class Context:
    """Shared by all rules of one batched pass."""

    def __init__(self, imports: ImportTable) -> None:
        self.imports = imports
        self.inference = Inference(imports)
        self.reports: list[Report] = []
        # Nesting depth of ``with torch.no_grad()`` / ``inference_mode`` (and decorated
        # functions): a fix needs no wrapper inside one.
        self.no_grad_depth = 0
        self.loops: list[cst.CSTNode] = []
        self.functions: list[cst.FunctionDef] = []
        self.statements: list[cst.SimpleStatementLine] = []  # the enclosing statement line

    def torch_name(self) -> str:
        """How the file spells ``torch`` (``import torch as th`` -> ``th``)."""
        for local, name in self.imports.aliases.items():
            if name == "torch":
                return local
        return "torch"


class Rule(cst.BatchableCSTVisitor):
    """One lint rule: subclasses set the class attributes and ``visit_*`` methods."""

    code: ClassVar[str]
    name: ClassVar[str]  # a slug: "data-mutation"
    message: ClassVar[str]  # the default one-line message, without the code
    docs: ClassVar[RuleDocs]
    # Regexes that must all match (on comment- and string-blanked text) inside a
    # function for the rule to possibly report there; the first is searched first.
    triggers: ClassVar[tuple[str, ...]]
    # Names whose import aliases also trigger the rule (``from copy import deepcopy as dc``).
    trigger_imports: ClassVar[frozenset[str]] = frozenset()
    enabled_by_default: ClassVar[bool] = True
    flagged: ClassVar[Sequence[Example]] = ()
    clean: ClassVar[Sequence[str]] = ()

    def __init__(self, context: Context) -> None:
        super().__init__()
        self.context = context
        self.inference = context.inference

    def report(self, node: cst.CSTNode, message: str | None = None, fix: Fix | None = None) -> None:
        text = f"{self.code} {message or self.message}"
        self.context.reports.append(Report(node, self.code, text, fix))

    @classmethod
    def trigger_patterns(cls, imports: ImportTable) -> list[re.Pattern[str]]:
        patterns = list(cls.triggers)
        aliases = imports.local_names(set(cls.trigger_imports))
        if aliases:
            names = "|".join(sorted(re.escape(a) for a in aliases))
            patterns[0] = rf"(?:{patterns[0]})|\b(?:{names}){WS}\("
        return [_compiled(p) for p in patterns]


_PATTERN_CACHE: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    compiled = _PATTERN_CACHE.get(pattern)
    if compiled is None:
        compiled = _PATTERN_CACHE[pattern] = re.compile(pattern)
    return compiled
