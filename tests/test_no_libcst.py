"""Detection reads flake8's ``ast``; LibCST is imported only to build fixes. A flake8 run,
and a command-line run that shows no fix, never import it, and still say what is fixable.
A run imports the rules a file can hold findings of, not the others, and defines no
dataclass: each one's generated methods are compiled at import, a cost every one-file run
(an editor's, a pre-commit hook's) would pay."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

RISKY = """\
import copy

import torch


def step(w: torch.Tensor, model, optimizer, batches, score):
    w.data.add_(1)
    y = w.clone().detach()
    z = copy.deepcopy(y)
    t = torch.tensor(z)
    best = None
    total = 0
    for x in batches:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        total += loss
        if score() > 0.9:
            best = model.state_dict()
    return best, total, t
"""


def _probe(tmp_path, body: str, source: str = RISKY) -> dict:
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    probe = textwrap.dedent(body) + textwrap.dedent("""
        import json, sys
        print(json.dumps({"libcst": sorted(m for m in sys.modules if m.split(".")[0] == "libcst")[:3],
                          "rules": sorted(m.rsplit(".", 1)[1] for m in sys.modules
                                          if m.startswith("flake8_tensorcopy.rules.")),
                          "ctypes": "ctypes" in sys.modules,
                          "dataclasses": sorted(f"{name}.{value.__qualname__}" for name, module in list(sys.modules.items())
                                                if name.startswith("flake8_tensorcopy")
                                                for value in vars(module).values()
                                                if isinstance(value, type) and "__dataclass_fields__" in vars(value)
                                                and value.__module__ == name),
                          "out": out.buffer.getvalue().decode()}))
    """)
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


# flake8 on train.py, in the probe's process, its output kept in ``out``
FLAKE8_RUN = """
    import contextlib, io
    from flake8.main import cli
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        cli.main(["--select", "TCP", "--enable-extensions", "TCP005,TCP008,TCP009", "train.py"])
"""


@pytest.mark.slow
def test_a_flake8_run_with_findings_never_imports_libcst_nor_defines_a_dataclass(tmp_path):
    seen = _probe(tmp_path, FLAKE8_RUN)
    codes = {line.split()[1] for line in seen["out"].splitlines()}
    assert {"TCP001", "TCP002", "TCP003", "TCP005", "TCP008", "TCP009"} <= codes, seen["out"]
    assert seen["libcst"] == []
    assert seen["dataclasses"] == []  # runtime.frozen's Frozen, a NamedTuple or a class with __slots__ instead


@pytest.mark.slow
def test_a_flake8_run_imports_only_the_rules_its_file_can_trigger(tmp_path):
    seen = _probe(tmp_path, FLAKE8_RUN, source="import torch\n\n\ndef bump(w: torch.Tensor):\n    w.data.add_(1)\n")
    assert [line.split()[1] for line in seen["out"].splitlines()] == ["TCP001"], seen["out"]
    # TCP001 and TCP101 share one trigger; ctypes is loaded only to trim memory, from a
    # process's ninth parsed file
    assert seen["rules"] == ["tcp001_data_mutation", "tcp101_data_write_outside_graph"]
    assert seen["libcst"] == [] and not seen["ctypes"]


@pytest.mark.slow
def test_the_command_without_fix_never_imports_libcst_and_counts_the_fixable(tmp_path):
    seen = _probe(tmp_path, """
        import contextlib, io
        from flake8_tensorcopy import cli
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), contextlib.suppress(SystemExit):
            cli.main(["train.py"])
    """)
    assert "fixable" in seen["out"], seen["out"]
    assert seen["libcst"] == []


@pytest.mark.slow
def test_showing_the_fixes_does_import_libcst(tmp_path):
    seen = _probe(tmp_path, """
        import contextlib, io
        from flake8_tensorcopy import cli
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), contextlib.suppress(SystemExit):
            cli.main(["--diff", "train.py"])
    """)
    assert "+    y = w.detach().clone()" in seen["out"], seen["out"]
    assert seen["libcst"] != []
