"""The engine's walk calls hooks exactly as LibCST's own traversal would, minus trivia.

A visitor with a hook for every node type and every field records what the walk calls;
a plain LibCST visitor records what LibCST visits (leaving out whitespace, comments and
tokens, which the walk never enters). The two records must be identical, on this
repository's code and fixtures and on a sample of torch's sources.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path

import libcst as cst
import pytest
from tiers import by_size

from flake8_tensorcopy.walk import TRIVIA, Walker

pytestmark = pytest.mark.compat

ROOT = Path(__file__).resolve().parent.parent
NODE_TYPES = [
    node_type
    for node_type in vars(cst).values()
    if isinstance(node_type, type) and issubclass(node_type, cst.CSTNode) and dataclasses.is_dataclass(node_type)
]


def _recorder(events: list, hook_name: str):
    def hook(self, node):
        events.append((hook_name, id(node)))

    return hook


def recording_visitor(events: list) -> cst.BatchableCSTVisitor:
    hooks = {}
    for node_type in NODE_TYPES:
        if issubclass(node_type, TRIVIA):
            continue
        name = node_type.__name__
        for hook_name in (f"visit_{name}", f"leave_{name}"):
            hooks[hook_name] = _recorder(events, hook_name)
        for field in dataclasses.fields(node_type):
            for hook_name in (f"visit_{name}_{field.name}", f"leave_{name}_{field.name}"):
                hooks[hook_name] = _recorder(events, hook_name)
    return type("Recording", (cst.BatchableCSTVisitor,), hooks)()


class LibCSTReference(cst.CSTVisitor):
    def __init__(self, events: list) -> None:
        self.events = events

    def on_visit(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, TRIVIA):
            self.events.append((f"visit_{type(node).__name__}", id(node)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if not isinstance(original_node, TRIVIA):
            self.events.append((f"leave_{type(original_node).__name__}", id(original_node)))

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if not isinstance(node, TRIVIA):
            self.events.append((f"visit_{type(node).__name__}_{attribute}", id(node)))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        if not isinstance(original_node, TRIVIA):
            self.events.append((f"leave_{type(original_node).__name__}_{attribute}", id(original_node)))


def corpus() -> list[Path]:
    ours = sorted((ROOT / "flake8_tensorcopy").rglob("*.py")) + sorted((ROOT / "fixtures").glob("*.py"))
    spec = importlib.util.find_spec("torch")
    torch_files = sorted(Path(spec.origin).parent.rglob("*.py"))[::60] if spec and spec.origin else []
    return ours + torch_files


@pytest.mark.parametrize("path", by_size(corpus()))
def test_the_walk_calls_hooks_as_libcst_visits(path):
    try:
        module = cst.parse_module(path.read_text(encoding="utf-8"))
    except (cst.ParserSyntaxError, UnicodeDecodeError):
        pytest.skip("LibCST cannot parse it")
    walked, visited = [], []
    Walker([recording_visitor(walked)]).walk(module)
    module.visit(LibCSTReference(visited))
    assert walked == visited


def test_hooks_on_trivia_are_refused():
    class CommentCounter(cst.BatchableCSTVisitor):
        def visit_Comment(self, node):
            pass

    with pytest.raises(TypeError, match="never enters whitespace, comments or tokens"):
        Walker([CommentCounter()])


def test_python_312_syntax_walks_too():
    source = "type Pair[T] = tuple[T, T]\n\ndef first[T](pair: Pair[T]) -> T:\n    return pair[0]\n"
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        pytest.skip("this LibCST predates Python 3.12's syntax")
    walked, visited = [], []
    Walker([recording_visitor(walked)]).walk(module)
    module.visit(LibCSTReference(visited))
    assert walked == visited and any(name == "visit_TypeAlias" for name, _ in walked)


def test_the_ast_walk_enters_nodes_only():
    """``global``/``nonlocal`` and a class pattern's keywords hold names (strings) in lists."""
    import ast

    from flake8_tensorcopy.ast_walk import Walker as AstWalker

    class Names:
        def __init__(self):
            self.names = []

        def visit_Name(self, node):
            self.names.append(node.id)

    source = ("def f():\n    global g\n    x = 1\n    def h():\n        nonlocal x\n        x = g\n"
              "match p:\n    case P(a=1):\n        pass\n")
    visitor = Names()
    AstWalker([visitor]).walk(ast.parse(source))
    assert visitor.names == ["x", "x", "g", "p", "P"]
