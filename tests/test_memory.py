"""The engine gives freed parse memory back on glibc (bench/run.py measures what it saves)."""

import platform

import pytest

from flake8_tensorcopy.runtime import memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_malloc_trim_is_found_on_glibc():
    # A failed lookup would be silent: the peak RSS of a flake8 run would grow again.
    trim = memory._find_malloc_trim()
    assert trim is not None
    assert trim(0) in (0, 1)  # 1: memory was released, 0: there was none


@pytest.mark.slow
def test_a_files_summary_is_freed_when_flake8_is_done_with_it(tmp_path):
    """The facts of a file's scopes and classes point back at its summary: left so, the
    summary and flake8's tree stay alive until the cycle collector runs, under the next
    files' peak. The plugin lets go of them when the file is done."""
    import ast
    import gc

    import flake8_tensorcopy.engine  # noqa: F401 (its import freezes what is alive then: done first)
    from flake8_tensorcopy.analysis.summary import ModuleSummary
    from flake8_tensorcopy._triggers import RULE_TRIGGERS
    from flake8_tensorcopy.plugin import TensorCopyChecker

    source = (
        "import torch\n\n\nclass Net:\n    def __init__(self):\n        self.w = torch.ones(1)\n\n"
        "    def copy(self):\n        return torch.tensor(self.w)\n\n\n"
        "def f(t: torch.Tensor):\n    return torch.tensor(t)\n"
    )
    path = tmp_path / "net.py"
    path.write_text(source)
    gc.collect()
    gc.disable()  # what is still tracked afterwards was not freed by reference counting
    try:
        tree = ast.parse(source)
        checker = TensorCopyChecker(tree, source.splitlines(True), str(path))
        # TCP005 (opt-in) alone, whatever an earlier test's flake8 options left on the class
        checker.settings = None
        checker.triggers = tuple(spec for spec in RULE_TRIGGERS if spec.code == "TCP005")
        assert [line for line, *_ in checker.run()] == [9, 13]
        del checker
        assert not [o for o in gc.get_objects() if type(o) is ModuleSummary and o.tree is tree]
    finally:
        gc.enable()


def test_a_binding_no_rule_read_keeps_nothing_alive():
    """A binding's value is worked out when first read, by the inference that made it: it
    holds that inference weakly, or the inference's scopes (which hold the binding) would
    make a cycle that keeps the module's summary and tree until the cycle collector runs."""
    import ast
    import gc

    from flake8_tensorcopy.analysis.evaluator import Inference
    from flake8_tensorcopy.imports import ImportTable

    tree = ast.parse("import torch\nunread = torch.ones(1)\nx = unread * 2\n")
    gc.collect()
    gc.disable()  # what is still tracked afterwards was not freed by reference counting
    try:
        inference = Inference(ImportTable.from_ast(tree))
        for statement in tree.body[1:]:
            inference.bind_target(statement.targets[0], statement.value)
        assert inference.binding("x").info is not None  # worked out, through `unread`, when read
        inference.bind_target(tree.body[1].targets[0], tree.body[1].value)  # bound again: never read
        del inference
        assert not [o for o in gc.get_objects() if type(o) is Inference]
    finally:
        gc.enable()


def test_loop_targets_unpackings_and_merges_are_worked_out_when_read():
    """What a loop's target, an unpacking or two branches bind is worked out the first time
    the name is read, not as the walk passes (most are never read), and with the bindings
    that were in force where it was bound: a later ``rows = []`` changes nothing."""
    import ast

    from flake8_tensorcopy.analysis.evaluator import Inference
    from flake8_tensorcopy.ast_scopes import bind_loop_target
    from flake8_tensorcopy.imports import ImportTable

    tree = ast.parse(
        "import torch\nrows = torch.ones(3, 2)\nfor row in rows: pass\nbest, at = rows.max(1)\n"
        "x = torch.ones(1)\nx = torch.zeros(1)\nrows = []\n"
    )
    bound, loop, unpacking, first, second, emptied = tree.body[1:]
    inference = Inference(ImportTable.from_ast(tree))
    worked_out = []
    work_out = inference.info
    inference.info = lambda node: worked_out.append(ast.unparse(node)) or work_out(node)
    unpack = inference.unpack
    inference.unpack = lambda target, value: worked_out.append(f"unpack {ast.unparse(value)}") or unpack(target, value)
    inference.bind_target(bound.targets[0], bound.value)
    inference.bind_later(["row"], loop.iter, lambda alive: bind_loop_target(alive, loop.target, loop.iter))
    inference.bind_target(unpacking.targets[0], unpacking.value)
    inference.enter_branches()
    inference.bind_target(first.targets[0], first.value)
    inference.next_branch()
    inference.bind_target(second.targets[0], second.value)
    inference.leave_branches(exhaustive=True)
    inference.bind_target(emptied.targets[0], emptied.value)
    assert worked_out == []
    assert inference.binding("row").info is not None
    assert "rows" in worked_out and "unpack rows.max(1)" not in worked_out
    assert inference.binding("best").info is not None and inference.binding("at").info is not None
    assert worked_out.count("unpack rows.max(1)") == 1  # both names from one look at the value
    assert inference.binding("x").info is not None
    assert inference.binding("rows").info is None
