"""The walk over ``ast`` that every rule's hooks run in (``ast_walk.py``)."""

from __future__ import annotations

import ast

from flake8_tensorcopy.ast_walk import Walker


class Recorder:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def visit_FunctionDef(self, node):
        self.seen.append(f"def {node.name}")

    def leave_FunctionDef(self, node):
        self.seen.append(f"end {node.name}")

    def visit_For(self, node):
        self.seen.append("for")

    def visit_With(self, node):
        self.seen.append("with")

    def visit_If_orelse(self, node):
        self.seen.append("else")

    def visit_SimpleStatement(self, node):
        self.seen.append(type(node).__name__)

    def leave_SimpleStatement(self, node):
        self.seen.append("/" + type(node).__name__)

    def visit_Name(self, node):
        self.seen.append(node.id)


def walked(source: str) -> list[str]:
    recorder = Recorder()
    Walker([recorder]).walk(ast.parse(source))
    return recorder.seen


def test_hooks_run_in_source_order_around_each_statement():
    assert walked("@deco\ndef f(a=b):\n    x = y\n") == ["def f", "deco", "b", "Assign", "x", "y", "/Assign", "end f"]


def test_async_forms_call_the_hooks_of_their_plain_forms():
    assert walked("async def g():\n    async for i in it:\n        pass\n    async with c:\n        pass\n") == [
        "def g", "for", "i", "it", "Pass", "/Pass", "with", "c", "Pass", "/Pass", "end g"]


def test_a_conditional_expression_is_read_as_written_and_else_has_its_hook():
    assert walked("v = a if t else b\nif t:\n    pass\nelse:\n    pass\n") == [
        "Assign", "v", "a", "t", "b", "/Assign", "t", "Pass", "/Pass", "else", "Pass", "/Pass"]


def test_names_held_as_strings_are_not_entered():
    source = "def f():\n    global g\n    g = 1\nmatch p:\n    case P(x=1):\n        pass\n"
    assert walked(source) == ["def f", "Global", "/Global", "Assign", "g", "/Assign", "end f", "p", "P", "Pass", "/Pass"]
