"""The package's imports point one way: no module imports, at any depth (a function's
own imports included), one that imports it back, and the layers (text, analysis, rules,
engine, front ends) import only from their own layer and those below it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "flake8_tensorcopy"

# The layers, bottom first; a module not named here is a front end (the top).
LAYERS = {
    "text": {
        "blanking", "lazy_cst", "spans", "imports", "noqa", "notebook", "positions", "limits", "metadata",
        "runtime", "gitignore",
    },
    "analysis": {"analysis", "ast_walk", "ast_scopes", "ast_text", "gates", "prefilter"},
    "rules": {"rule", "rules", "_triggers", "_accuracy", "_blind", "docs"},
    "engine": {"engine", "fix_sites", "fixer", "chunk_fix", "edits"},
}
ORDER = ["text", "analysis", "rules", "engine", "front ends"]


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules ``name`` imports anywhere in its code, save under ``TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            submodules = {f"{target}.{alias.name}" for alias in node.names} & known.keys()
            found |= submodules
            if target in known and len(submodules) < len(node.names):
                found.add(target)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names} & known.keys()
    return found - {name}


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def layer(name: str) -> str:
    parts = name.split(".")
    top = parts[1] if len(parts) > 1 else ""
    for layer_name, members in LAYERS.items():
        if top in members:
            return layer_name
    return "front ends"


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_no_module_imports_one_that_imports_it_back():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_point_from_the_front_ends_down_to_the_text():
    upward = sorted(
        f"{name} ({layer(name)}) imports {other} ({layer(other)})"
        for name, others in graph().items()
        for other in others
        if ORDER.index(layer(other)) > ORDER.index(layer(name))
    )
    assert upward == []
