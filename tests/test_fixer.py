"""The fixer on real source and real files: exact output, formatting kept, guarantees.

Every expected output below is the whole fixed file, so any change outside the fixed
spans (comments, spacing, blank lines) fails the test. Each fix is also checked to
re-parse, to re-lint without the fixed finding, and to be a fixed point.
"""

from __future__ import annotations

import ast
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from flake8_tensorcopy import cli, engine, fixer, noqa
from flake8_tensorcopy.rules import ALL_RULES
from flake8_tensorcopy.rule import Fix, FixPlan, Rule, RuleDocs

pytestmark = pytest.mark.compat


def _fix(source: str, unsafe: bool = False) -> fixer.FixResult:
    source = textwrap.dedent(source)
    result = fixer.fix_source(source, ALL_RULES, unsafe=unsafe)
    ast.parse(result.source)
    cst.parse_module(result.source)
    again = fixer.fix_source(result.source, ALL_RULES, unsafe=unsafe)
    assert again.source == result.source and not again.applied, "a second fix pass changed something"
    silencer = noqa.Silencer(result.source)
    left = [
        f for f in engine.lint_source(result.source, rules=ALL_RULES)
        if fixer.applicable(f.fix, unsafe) and not silencer.silences(f.code, f.line)
    ]
    assert not left, left
    return result


def _fixed(source: str, unsafe: bool = False) -> str:
    return _fix(source, unsafe).source


def _same(source: str, expected: str, unsafe: bool = False) -> None:
    assert _fixed(source, unsafe) == textwrap.dedent(expected)


# -- TCP001 ---------------------------------------------------------------------------------
def test_consecutive_data_writes_share_one_no_grad_and_keep_comments():
    _same(
        """\
        import torch


        def step(w: torch.Tensor, b: torch.Tensor, lr: float):
            loss = w.sum()
            # manual SGD step
            w.data.add_(-lr * w.grad)  # weights
            # and the bias
            b.data.add_(-lr * b.grad)
            return loss
        """,
        """\
        import torch


        def step(w: torch.Tensor, b: torch.Tensor, lr: float):
            loss = w.sum()
            # manual SGD step
            with torch.no_grad():
                w.add_(-lr * w.grad)  # weights
                # and the bias
                b.add_(-lr * b.grad)
            return loss
        """,
    )


def test_loop_body_made_of_data_writes_is_wrapped_once():
    _same(
        """\
        import torch

        def sgd(model, lr):
            for p in model.parameters():
                p.data -= lr * p.grad
                p.data.clamp_(-1, 1)
        """,
        """\
        import torch

        def sgd(model, lr):
            for p in model.parameters():
                with torch.no_grad():
                    p -= lr * p.grad
                    p.clamp_(-1, 1)
        """,
    )


def test_only_the_data_writes_go_under_no_grad():
    _same(
        """\
        import torch

        def f(w: torch.Tensor, x):
            w.data.mul_(0.5)
            y = w * x
            w.data.add_(1)
            return y
        """,
        """\
        import torch

        def f(w: torch.Tensor, x):
            with torch.no_grad():
                w.mul_(0.5)
            y = w * x
            with torch.no_grad():
                w.add_(1)
            return y
        """,
    )


def test_inside_no_grad_only_data_goes():
    _same(
        """\
        import torch as th

        @th.no_grad()
        def reset(w: th.Tensor):
            w.data.zero_()

        def update(w: th.Tensor):
            with th.inference_mode():
                if True: w.data.add_(1)
                w.data[0] = 5

        def off(w: th.Tensor):
            with th.inference_mode(False):
                w.data.add_(1)
        """,
        """\
        import torch as th

        @th.no_grad()
        def reset(w: th.Tensor):
            w.zero_()

        def update(w: th.Tensor):
            with th.inference_mode():
                if True: w.add_(1)
                w[0] = 5

        def off(w: th.Tensor):
            with th.inference_mode(False):
                with th.no_grad():
                    w.add_(1)
        """,
    )


def test_nested_function_is_not_under_the_outer_no_grad():
    _same(
        """\
        import torch

        def outer(w: torch.Tensor):
            with torch.no_grad():
                def later(v: torch.Tensor):
                    v.data.add_(1)
            return later
        """,
        """\
        import torch

        def outer(w: torch.Tensor):
            with torch.no_grad():
                def later(v: torch.Tensor):
                    with torch.no_grad():
                        v.add_(1)
            return later
        """,
    )


def test_nn_init_drops_data_without_a_wrapper():
    _same(
        """\
        import torch.nn.init as init
        from torch import nn

        def reset(m):
            nn.init.xavier_uniform_(m.weight.data, gain=2.0)
            init.zeros_((m.bias.data))
        """,
        """\
        import torch.nn.init as init
        from torch import nn

        def reset(m):
            nn.init.xavier_uniform_(m.weight, gain=2.0)
            init.zeros_((m.bias))
        """,
    )


def test_data_fixes_that_are_not_offered():
    source = textwrap.dedent(
        """\
        import torch
        from torch import nn

        def f(m, w: torch.Tensor, t, c):
            m.weight.data = t
            w.data.unsqueeze_(0)
            if c: w.data.add_(1)
            w.data.add_(1); w.data.mul_(2)
            y = w.data.add_(1)
            v = nn.init.normal_(m.weight.data)
            torch.add(t, t, out=w.data)
            return y, v
        """
    )
    findings = engine.lint_source(source)
    assert [f.code for f in findings] == ["TCP001"] * 6 + ["TCP101", "TCP001"]  # nn.init initialises
    assert all(f.fix is None for f in findings), [(f.line, f.fix) for f in findings]
    assert fixer.fix_source(source, unsafe=True).source == source


def test_unknown_receivers_get_unsafe_fixes():
    source = "import torch\n\ndef f(group):\n    for p in group['params']:\n        p.data.add_(1)\n"
    (finding,) = engine.lint_source(source)
    assert not finding.fix.safe and "assumes `p` is a tensor" in finding.fix.description
    assert fixer.fix_source(source).source == source
    assert "with torch.no_grad():\n            p.add_(1)" in _fixed(source, unsafe=True)


def test_augmented_assignment_on_an_attribute_becomes_a_method_call():
    _same(
        """\
        import torch

        lr = 0.1

        def f(m, w):
            m.weight.data -= lr * m.weight.grad
            m.bias.data //= 2
            g = w
            g.weight.data **= 2
        """,
        """\
        import torch

        lr = 0.1

        def f(m, w):
            with torch.no_grad():
                m.weight.sub_(lr * m.weight.grad)
                m.bias.floor_divide_(2)
            g = w
            with torch.no_grad():
                g.weight.pow_(2)
        """,
    )


def test_module_level_code_is_fixed_too():
    _same(
        """\
        import torch

        w = torch.zeros(3)
        w.data -= 1
        w.data[0] = 2
        """,
        """\
        import torch

        w = torch.zeros(3)
        with torch.no_grad():
            w -= 1
            w[0] = 2
        """,
    )


def test_import_added_once_when_torch_is_not_bound():
    result = _fix(
        """\
        \"\"\"Docstring.\"\"\"
        from __future__ import annotations

        from torch import Tensor


        def f(w: Tensor, v: Tensor):
            w.data.add_(1)


        def g(w: Tensor):
            w.data.mul_(2)
        """
    )
    assert result.imports_added == ["import torch"]
    assert result.source == textwrap.dedent(
        """\
        \"\"\"Docstring.\"\"\"
        from __future__ import annotations

        import torch
        from torch import Tensor


        def f(w: Tensor, v: Tensor):
            with torch.no_grad():
                w.add_(1)


        def g(w: Tensor):
            with torch.no_grad():
                w.mul_(2)
        """
    )


def test_import_placed_before_a_definition_keeps_blank_lines():
    result = _fix(
        """\
        # header comment


        def f(w):
            w.data.add_(1)
        """,
        unsafe=True,
    )
    assert result.source == textwrap.dedent(
        """\
        # header comment


        import torch


        def f(w):
            with torch.no_grad():
                w.add_(1)
        """
    )


# -- TCP002, TCP003, TCP005 --------------------------------------------------------------------
def test_clone_detach_keeps_layout():
    _same(
        """\
        import torch

        def f(x: torch.Tensor):
            a = (x
                 .clone()
                 .detach())
            b = torch.clone(x, memory_format=torch.preserve_format).detach()
            return a, b, x.clone().detach().clone().detach()
        """,
        """\
        import torch

        def f(x: torch.Tensor):
            a = (x
                 .detach()
                 .clone())
            b = x.detach().clone(memory_format=torch.preserve_format)
            return a, b, x.detach().detach().clone().clone()
        """,
    )


def test_tensor_of_tensor_variants():
    _same(
        """\
        import copy
        import torch as th
        from torch import tensor as T

        def f(t: th.Tensor, a: th.Tensor, b: th.Tensor, dev):
            x = th.tensor(t, device=dev, requires_grad=True)
            y = T(t + 1)
            z = th.tensor(copy.deepcopy(t))
            s = T([a, b])
            u = th.FloatTensor(t)
            keep = th.tensor(t, pin_memory=True), th.tensor([a, 1.0]), x.new_tensor(t)
            return x, y, z, s, u, keep
        """,
        """\
        import copy
        import torch as th
        from torch import tensor as T

        def f(t: th.Tensor, a: th.Tensor, b: th.Tensor, dev):
            x = t.detach().to(device=dev, copy=True).requires_grad_(True)
            y = (t + 1).detach().clone()
            z = t.detach().detach().clone().clone()
            s = th.stack([a, b])
            u = t.detach().clone()
            keep = th.tensor(t, pin_memory=True), th.tensor([a, 1.0]), x.new_tensor(t)
            return x, y, z, s, u, keep
        """,
        unsafe=True,
    )


def test_safe_only_by_default():
    source = "import copy\nimport torch\n\ndef f(t: torch.Tensor):\n    return copy.deepcopy(t), torch.Tensor(t)\n"
    assert fixer.fix_source(source, ALL_RULES).source == source
    assert fixer.fix_source(source, ALL_RULES, unsafe=True).counts() == {"TCP003": 1, "TCP005": 1}


def test_overlapping_fixes_are_applied_over_several_passes():
    result = _fix("import torch\n\ndef f(x: torch.Tensor):\n    return torch.tensor(x.clone().detach())\n")
    # TCP005 first (the outer call), then TCP002 inside, then the `.clone().detach()` that
    # the two fixes together made: `x.detach().clone().detach().clone()` still has one.
    assert result.source.endswith("return x.detach().detach().clone().clone()\n")
    assert result.counts() == {"TCP002": 2, "TCP005": 1}


def test_noqa_findings_are_not_fixed():
    source = textwrap.dedent(
        """\
        import torch

        def f(x: torch.Tensor):
            a = x.clone().detach()  # noqa: TCP002
            b = x.clone().detach()  # noqa
            c = x.clone().detach()  # noqa: E501
            d = x.clone().detach()  # NOQA:TCP0
            return a, b, c, d
        """
    )
    fixed = _fixed(source)
    assert fixed == source.replace("c = x.clone().detach()", "c = x.detach().clone()")


# -- text preservation -------------------------------------------------------------------------
def test_crlf_tabs_and_form_feeds_survive():
    source = (
        "import torch\r\n\x0c\r\ndef f(w: torch.Tensor):\r\n\tw.data.add_(1)  # c\r\n\treturn w.clone().detach()\r\n"
    )
    fixed = _fixed(source)
    assert fixed == (
        "import torch\r\n\x0c\r\ndef f(w: torch.Tensor):\r\n\twith torch.no_grad():\r\n\t\tw.add_(1)  # c\r\n"
        "\treturn w.detach().clone()\r\n"
    )


def _broken(site):
    (node,) = site.nodes
    # `1.real` is a syntax error that LibCST happily generates.
    return Fix(((node, cst.Attribute(value=cst.Integer("1"), attr=cst.Name("real"))),), safe=True, description="breaks")


def _unchanged(site):
    (node,) = site.nodes
    return Fix(((node, node.with_changes()),), safe=True, description="same")


def test_a_fix_that_does_not_parse_is_refused():
    class Broken(Rule):
        code = "TCP999"
        name = "broken"
        message = "broken"
        triggers = (r"\bclone\b",)
        docs = RuleDocs(what="", why="", example="", use_instead="", fixture="")

        def visit_Call(self, node):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "clone":
                self.report(node, fix=FixPlan(True, "breaks", _broken, (node,)))

    with pytest.raises(fixer.FixError, match="the fixed code does not re-parse"):
        fixer.fix_source("def f(x):\n    return x.clone()\n", [Broken])


def test_a_fix_that_never_settles_is_refused():
    class Loop(Rule):
        code = "TCP998"
        name = "loop"
        message = "loop"
        triggers = (r"\bclone\b",)
        docs = RuleDocs(what="", why="", example="", use_instead="", fixture="")

        def visit_Call(self, node):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "clone":
                self.report(node, fix=FixPlan(True, "same", _unchanged, (node,)))

    with pytest.raises(fixer.FixError, match="did not settle"):
        fixer.fix_source("def f(x):\n    return x.clone()\n", [Loop])


# -- files through the CLI ---------------------------------------------------------------------
def _run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", *args], cwd=cwd, input=stdin, capture_output=True, timeout=300
    )


RISKY = b"import torch\n\n\ndef f(w: torch.Tensor):\n    w.data.add_(1)\n    return w.clone().detach()\n"


@pytest.mark.slow
def test_fix_writes_atomically_and_keeps_the_mode(tmp_path):
    target = tmp_path / "m.py"
    target.write_bytes(RISKY)
    target.chmod(0o640)
    inode = target.stat().st_ino
    result = _run("--fix", "m.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.stat().st_ino != inode, "written by rename, not in place"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"], "no temporary file left"
    assert b"with torch.no_grad():\n        w.add_(1)\n    return w.detach().clone()\n" in target.read_bytes()
    second = _run("--fix", "m.py", cwd=tmp_path)
    assert second.returncode == 0 and b"Fixed 0 finding(s)" in second.stderr
    assert target.stat().st_ino != inode


@pytest.mark.slow
@pytest.mark.parametrize(
    ("prefix", "encoding"),
    [(b"", "utf-8"), (b"\xef\xbb\xbf", "utf-8-sig"), (b"# -*- coding: latin-1 -*-\r\n", "latin-1")],
    ids=["utf-8", "bom", "latin-1"],
)
def test_encoding_and_line_endings_are_kept(tmp_path, prefix, encoding):
    text = (
        "import torch\r\n\r\ndef f(w: torch.Tensor):\r\n"
        "    s = 'caf\u00e9'  # \u00e9\r\n    w.data.add_(1)\r\n    return s\r\n"
    )
    target = tmp_path / "m.py"
    data = prefix + text.encode("latin-1" if encoding == "latin-1" else "utf-8")
    target.write_bytes(data)
    result = _run("--fix", "m.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = text.replace("    w.data.add_(1)\r\n", "    with torch.no_grad():\r\n        w.add_(1)\r\n")
    assert target.read_bytes() == prefix + expected.encode("latin-1" if encoding == "latin-1" else "utf-8")


@pytest.mark.slow
def test_diff_never_writes_and_applies_with_patch(tmp_path):
    target = tmp_path / "m.py"
    source = b"from torch import Tensor\n\n\ndef f(w: Tensor):\n    w.data.add_(1)\n"
    target.write_bytes(source)
    before = target.stat()
    result = _run("--fix", "--diff", "m.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # nothing written: the finding is still there
    assert target.read_bytes() == source and target.stat().st_mtime_ns == before.st_mtime_ns
    diff = result.stdout.decode()
    assert diff.startswith("# flake8-tensorcopy: added `import torch` (a fix needs it)\n--- m.py\n+++ m.py\n")
    assert "+import torch\n" in diff and "+    with torch.no_grad():\n" in diff
    assert b"Would fix 1 finding(s) in 1 file(s) (TCP001: 1)" in result.stderr
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "m.py").write_bytes(source)
    subprocess.run(["patch", "-s", "-p0"], cwd=copy, input=result.stdout, check=True, timeout=60)
    fixed = (copy / "m.py").read_text()
    assert fixed == fixer.fix_source(source.decode()).source


def test_failed_fix_leaves_the_file_untouched_and_says_why(tmp_path, monkeypatch, capsys):
    broken_file = tmp_path / "m.py"
    broken_file.write_bytes(b"# make this fix fail\n" + RISKY)
    good_file = tmp_path / "n.py"
    good_file.write_bytes(RISKY)
    real = fixer.fix_source

    def fix_source(source, rules=None, **kwargs):
        if source.startswith("# make this fix fail"):
            raise fixer.FixError("the fixed code does not re-parse (boom)")
        return real(source, rules, **kwargs)

    monkeypatch.setattr(fixer, "fix_source", fix_source)
    code = cli.main(["--fix", str(broken_file), str(good_file)])
    err = capsys.readouterr().err
    assert code == 2
    assert broken_file.read_bytes() == b"# make this fix fail\n" + RISKY, "a failed fix must not touch the file"
    assert f"{broken_file}: error: not fixed, left untouched: the fixed code does not re-parse (boom)" in err
    assert good_file.read_bytes() != RISKY, "the other files are still fixed"
