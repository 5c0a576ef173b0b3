"""What every rule is made of: its code, message, trigger, docs, detection on ``ast`` and fixes."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import ClassVar, NamedTuple

from .analysis.evaluator import Inference
from .analysis.summary import ModuleSummary
from .gates import ArgumentGate, Gate  # noqa: F401 (ArgumentGate: re-exported for rules)
from .lazy_cst import cst
from .prefilter import INPLACE_SIGNATURE, WS, TriggerSpec, word  # noqa: F401 (re-exported for rules)
from .runtime.frozen import Frozen


class Fix(Frozen):
    """How to fix one finding: edits to the LibCST module a :class:`FixPlan`'s builder was
    given (``FixSite.module``), applied by ``fixer.py``.

    ``replacements``: ``(old, new)`` pairs. ``old`` is a node of that module, matched by
    identity (never by equality); ``new`` takes its place. ``new``
    may also be ``cst.RemoveFromParent()`` (delete a statement or an argument) or a
    ``cst.FlattenSentinel([...])`` (one statement becomes several). Replace the
    smallest node that changes, and reuse the original nodes inside ``new`` so that
    comments and formatting survive.

    ``wrap`` + ``wrap_with``: whole statement lines (``cst.SimpleStatementLine`` nodes
    that are the only statement on their line) to put under ``with <wrap_with>:``,
    e.g. ``wrap_with="torch.no_grad()"``. The replacements inside them are applied
    first. Consecutive wrapped statements of one block that share ``wrap_with`` get
    one ``with`` (a loop body made only of them is wrapped once); the comments above
    the first one stay above the ``with``.

    ``needs_import``: a module name (``"torch"`` means ``import torch``) or a whole
    import statement (``"from torch import nn"``) that the new code needs; set it only
    when the file lacks the name (see :func:`module_reference`). The fixer adds it once,
    after the module docstring and ``__future__`` imports, unless it is already there.

    ``safe``: the fixed code does exactly what the risky code did, minus the hazard.
    An unsafe fix changes behaviour on purpose and is applied only when asked.
    ``description`` says what the fix does in a few words (shown to users).

    The fixer applies the fixes of one pass whose replaced subtrees do not overlap,
    then lints again and applies the rest in later passes (a bounded number).
    """

    __slots__ = ("replacements", "safe", "description", "needs_import", "wrap", "wrap_with")
    replacements: tuple[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel], ...]
    safe: bool
    description: str
    needs_import: str | None  # a top-level import the replacement needs, added only when the file lacks it
    wrap: tuple[cst.SimpleStatementLine, ...]
    wrap_with: str | None

    def __init__(
        self,
        replacements: tuple[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel], ...],
        safe: bool,
        description: str,
        needs_import: str | None = None,
        wrap: tuple[cst.SimpleStatementLine, ...] = (),
        wrap_with: str | None = None,
    ) -> None:
        self._set(replacements=replacements, safe=safe, description=description, needs_import=needs_import,
                  wrap=wrap, wrap_with=wrap_with)

    def without_edits(self) -> Fix:
        """This fix without its nodes: what it does and how safe it is, as a finding carries it
        from a worker process back to the command."""
        return Fix((), self.safe, self.description, self.needs_import, (), self.wrap_with)


def applicable(fix: Fix | FixPlan | None, unsafe: bool) -> bool:
    """Whether ``fix`` may be applied: a safe one always, an unsafe one when asked."""
    return fix is not None and (fix.safe or unsafe)


class Report(NamedTuple):
    """A finding before positions are known: the node it starts at (an ``ast`` node, or a
    LibCST one once its fix is built)."""

    node: object
    code: str
    message: str
    fix: Fix | FixPlan | None = None


class FixSite(NamedTuple):
    """Where a fix is built: the LibCST nodes at the spans of the plan's ``anchors`` (in
    their order), in ``module``, the parsed part of the file that holds the finding."""

    module: cst.Module
    nodes: tuple
    data: tuple
    lines: dict[int, cst.SimpleStatementLine]  # id(small statement) -> the line holding it

    def line_of(self, statement: cst.CSTNode) -> cst.SimpleStatementLine | None:
        """The statement line holding ``statement`` (a small statement such as an assignment)."""
        return self.lines.get(id(statement))


class FixPlan:
    """A fix decided when the finding is made, on ``ast``; LibCST builds it only when asked.

    ``build(site)`` returns the :class:`Fix` (or None when the code turns out not to allow
    it); ``site.nodes`` are the LibCST nodes at the spans of ``anchors``, ``site.data`` is
    ``data`` (plain values the detection knew: the local name of torch, say). ``safe`` and
    ``description`` are the built fix's: so a run that builds none still says what is fixable.
    """

    __slots__ = ("safe", "description", "build", "anchors", "data")

    def __init__(self, safe: bool, description: str, build: Callable[[FixSite], Fix | None],
                 anchors: tuple[ast.AST, ...] = (), data: tuple = ()) -> None:
        self.safe = safe
        self.description = description
        self.build = build
        self.anchors = anchors
        self.data = data

    def __eq__(self, other: object) -> bool:  # plans that offer the same fix
        if other.__class__ is FixPlan:
            return (self.safe, self.description) == (other.safe, other.description)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.safe, self.description))

    def __repr__(self) -> str:
        return f"FixPlan(safe={self.safe!r}, description={self.description!r})"

    def offer(self) -> Fix:
        """What a finding says of its fix before any is built: no edits, its safety and what it does."""
        return Fix(replacements=(), safe=self.safe, description=self.description)


class RuleDocs(NamedTuple):
    """The single source of a rule's reference page (and of ``--explain``)."""

    what: str
    why: str
    example: str
    use_instead: str
    fixture: str
    known_problems: str = ""
    fix_safety: str = "No fix: the intent is unknown, so only the message advises."
    # Where the flagged code does no harm, and when a `# noqa` is the right answer.
    harmless: str = ""
    noqa: str = ""


class Example(NamedTuple):
    """An inline example: ``code`` is flagged at ``expect`` [(line, col), ...] (1-based),
    each finding's message holding ``message`` (the place it names, where it names one)."""

    code: str
    expect: Sequence[tuple[int, int]] = ()
    message: str = ""


class Context:
    """Shared by all rules of one walk."""

    def __init__(self, summary: ModuleSummary, scope: str = "", source: str | None = None) -> None:
        """``scope``: the qualified name of the scope around the walked code ("" for the
        module, "Trainer" for a method analysed on its own); ``source``: the walked code's
        text, for a message that quotes it as written (None: not known)."""
        self.summary = summary
        self.source = source
        self.imports = summary.imports
        self.inference = Inference(summary.imports, summary, scope)
        self.reports: list[Report] = []
        # Nesting depth of ``with torch.no_grad()`` / ``inference_mode`` (and decorated
        # functions): a fix needs no wrapper inside one.
        self.no_grad_depth = 0
        self.loops: list[ast.For | ast.While] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.statements: list[ast.stmt] = []  # the enclosing statement that holds no other
        # The walked source's lines, for a message that quotes its code ((): not known).
        self.lines: Sequence[str] = source.split("\n") if source is not None else ()
        # The codes asked for: a rule that reports several (see ``Rule.reported_by``) drops
        # the others' findings. None: every code.
        self.codes: frozenset[str] | None = None


def module_reference(context: Context, module: str = "torch") -> tuple[str, str | None]:
    """How new code spells ``module`` here, and the import to add when nothing binds it.

    ``import torch as th`` gives ``("th", None)``; a file that only has
    ``from torch import tensor`` gives ``("torch", "torch")``: the fix needs ``import torch``.
    """
    for local, name in context.imports.aliases.items():
        if name == module:
            return local, None
    return module, module


def _primaries() -> tuple[type, ...]:
    """Expressions that can be the receiver of ``.method()`` without parentheses (a tuple
    or a generator expression counts only with its own parentheses)."""
    return (
        cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Dict, cst.Set,
        cst.ListComp, cst.SetComp, cst.DictComp, cst.SimpleString, cst.FormattedString,
        cst.Float, cst.Imaginary, cst.Ellipsis,
    )


def as_receiver(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node``, parenthesised when ``node.method()`` would bind differently (``a + b``)."""
    if node.lpar or isinstance(node, _primaries()):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def call_method(receiver: cst.BaseExpression, method: str, args: Sequence[cst.Arg] = ()) -> cst.Call:
    """``receiver.method(*args)`` on one line: reused args lose their own commas and the
    line breaks that followed them in their old call."""
    fresh = [
        arg.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace(""))
        for arg in args
    ]
    return cst.Call(func=cst.Attribute(value=as_receiver(receiver), attr=cst.Name(method)), args=fresh)


class Rule:
    """One lint rule: subclasses set the class attributes and ``visit_*``/``leave_*``
    methods named for ``ast`` node types (see ``ast_walk.py``)."""

    code: ClassVar[str]
    name: ClassVar[str]  # a slug: "data-mutation"
    message: ClassVar[str]  # the default one-line message, without the code
    docs: ClassVar[RuleDocs]
    # Regexes that must all match (on comment- and string-blanked text) inside a
    # function for the rule to possibly report there; the first is searched first.
    triggers: ClassVar[tuple[str, ...]]
    # Names whose import aliases also trigger the rule (``from copy import deepcopy as dc``).
    trigger_imports: ClassVar[frozenset[str]] = frozenset()
    # A necessary condition checked on flake8's ast for each function the triggers pick.
    gate: ClassVar[Gate | None] = None
    enabled_by_default: ClassVar[bool] = True
    # A code whose findings another rule's analysis makes, in the same walk (TCP101's are
    # TCP001's writes where the site shows no graph in play): that rule. Such a rule has
    # its own page, examples and selection, and no visitor of its own.
    reported_by: ClassVar[type[Rule] | None] = None
    flagged: ClassVar[Sequence[Example]] = ()
    clean: ClassVar[Sequence[str]] = ()

    @classmethod
    def analyser(cls) -> type[Rule]:
        """The rule whose visitor makes this rule's findings."""
        return cls.reported_by or cls

    @classmethod
    def trigger_spec(cls) -> TriggerSpec:
        return TriggerSpec(cls.code, cls.triggers, cls.trigger_imports, cls.enabled_by_default, cls.gate)

    def __init__(self, context: Context) -> None:
        self.context = context
        self.inference = context.inference

    @property
    def lines(self) -> Sequence[str] | None:
        """The walked text's lines, for what ``ast`` does not keep (None: not known)."""
        return self.context.lines or None

    def report(self, node: ast.AST, message: str | None = None, fix: FixPlan | None = None,
               code: str | None = None) -> None:
        """Report a finding under ``code`` (this rule's by default; another only for a rule
        that reports for it), unless that code was not asked for."""
        code = code or self.code
        if self.context.codes is not None and code not in self.context.codes:
            return
        self.context.reports.append(Report(node, code, f"{code} {message or self.message}", fix))
