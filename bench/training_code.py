"""Training code of any length, assembled from the rules' runtime fixtures (``fixtures/``):
models, optimisers, tensors, their copy hazards and the fixed versions, as application
code holds them. Copy after copy of the fixtures, each copy's top-level names suffixed
so that nothing is redefined; the imports once, at the top. For the language server's
soak benchmark and tests, which need a 1,000-, 3,000- or 50,000-line file on any machine."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@cache
def _pieces() -> tuple[tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]]:
    """(the fixtures' imports, each fixture's code without them and its top-level names)."""
    imports: dict[str, None] = {}
    bodies = []
    for path in sorted(FIXTURES.glob("tcp*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        lines = source.splitlines(keepends=True)
        kept = []
        names = []
        for statement in tree.body:
            text = "".join(lines[statement.lineno - 1 - len(getattr(statement, "decorator_list", ())) :
                                 statement.end_lineno])
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                if not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__"):
                    imports[text] = None
            elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # the module docstring
            elif isinstance(statement, ast.If):
                continue  # `if __name__ == "__main__":`, which imports the harness
            else:
                kept.append(text)
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.append(statement.name)
                elif isinstance(statement, ast.Assign):
                    names += [target.id for target in statement.targets if isinstance(target, ast.Name)]
        bodies.append(("\n\n".join(kept), tuple(names)))
    return tuple(imports), tuple(bodies)


def training_file(lines: int) -> str:
    """A module of at least ``lines`` lines (the last fixture copied is whole)."""
    imports, bodies = _pieces()
    parts = ["".join(imports)]
    count = len(parts[0].splitlines())
    copy = 0
    while count < lines:
        body, names = bodies[copy % len(bodies)]
        if names:
            body = re.sub(rf"\b({'|'.join(names)})\b", rf"\1_{copy}", body)
        parts.append(body)
        count += body.count("\n") + 2
        copy += 1
    return "\n\n".join(parts)
