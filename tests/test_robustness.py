"""Issue 6: no input makes the plugin raise, hang, or cost the user their flake8 run.

Everything runs the real thing: flake8 in a subprocess over real files, the CLI in a
subprocess, and the plugin class fed exactly as flake8 feeds it (its own
``FileProcessor``) where flake8 itself cannot get that far: pyflakes dies on a
1,000-term ``a + a + ...`` (a RecursionError that aborts flake8's whole run, not ours),
and Python's own parser on 3,000 terms.

Time limits here are generous bounds (a loaded 2-core machine is 2-3x slower than a
laptop), never benchmarks: what they catch is minutes, or a hang.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from flake8_tensorcopy import engine, limits

pytestmark = pytest.mark.compat

TCP002 = "TCP002 .clone().detach() records"
BOUND_S = 30  # per pathological file; the goal is "a few seconds" on a laptop


def _risky(body_indent: str = "    ") -> str:
    return f"def f(x):\n{body_indent}return x.clone().detach()\n"


def chain(op: str, terms: int) -> str:
    return f" {op} ".join(["x"] * terms)


# name -> (bytes, the TCP findings flake8 must report as "line:col: CODE", 1-based)
NASTY: dict[str, tuple[bytes, list[str]]] = {
    # Valid code LibCST chokes on, in shapes pyflakes survives. Skipped, and said so:
    "deep_product.py": (f"def f(x):\n    y = {chain('*', 300)}.clone().detach()\n".encode(), []),
    "deep_lambdas.py": (("def f(x):\n    y = " + "lambda: " * 300 + "x.clone().detach()\n").encode(), []),
    # ... and shapes LibCST only needs a deep stack for. Analysed:
    "and_1000.py": (f"def f(x):\n    y = {chain('and', 1000)}\n    return x.clone().detach()\n".encode(),
                    ["3:12: TCP002"]),
    "nested_calls.py": (("def f(x):\n    y = " + "g(" * 150 + "x" + ")" * 150 + "\n    return x.clone().detach()\n").encode(),
                        ["3:12: TCP002"]),
    "nested_brackets.py": (("def f(x):\n    y = " + "[" * 90 + "x" + "]" * 90 + "\n    return x.clone().detach()\n").encode(),
                           ["3:12: TCP002"]),
    # Encodings, line endings, odd whitespace: columns count code points.
    "latin1.py": (b"# -*- coding: latin-1 -*-\ndef f(x):\n    s = '\xe9'; return x.clone().detach()\n", ["3:21: TCP002"]),
    "bom.py": (b"\xef\xbb\xbf" + _risky().encode(), ["2:12: TCP002"]),
    "crlf.py": (_risky().replace("\n", "\r\n").encode(), ["2:12: TCP002"]),
    "cr_only.py": (_risky().replace("\n", "\r").encode(), ["2:12: TCP002"]),
    "form_feed.py": (b"\x0c\ndef f(x):\n\x0c    return x.clone().detach()\n", ["3:13: TCP002"]),
    "tabs.py": (_risky("\t").encode(), ["2:9: TCP002"]),
    "non_ascii.py": ("def f(größe):\n    s = '😀𝔘'; return größe.clone().detach()\n".encode(), ["2:22: TCP002"]),
    "nfkc.py": ("def f(𝕩):\n    return 𝕩.clone().detach()\n".encode(), ["2:12: TCP002"]),
    "empty.py": (b"", []),
    "blank.py": (b"\n\n   \n", []),
    # Syntax flake8 reports as E999 itself.
    "syntax_error.py": (b"def f(:\n    return x.clone().detach()\n", []),
    "null_byte.py": (b"def f(x):\n    return x.clone().detach()\x00\n", []),
    # Syntax newer than 3.11: E999 on the Pythons before it (NEWER_SYNTAX), findings from it on.
    "py312_type.py": (b"type Alias = list[int]\ndef f(x):\n    return x.clone().detach()\n", ["3:12: TCP002"]),
    "py312_generic.py": (b"def f[T](x: T) -> T:\n    return x.clone().detach()\n", ["2:12: TCP002"]),
    "py312_fstring.py": (b"def f(x):\n    s = f'{'nested'}'\n    return x.clone().detach()\n", ["3:12: TCP002"]),
    "py313_type_default.py": (b"def f[T = int](x: T) -> T:\n    return x.clone().detach()\n", ["2:12: TCP002"]),
    # Newest syntax the 3.11 grammar allows.
    "py311_syntax.py": (textwrap.dedent("""\
        def f(x, /, *, k):
            match x:
                case {'a': [y, *_]} if (n := len(y)):
                    return y.clone().detach()
            with (open('a') as a, open('b') as b):
                pass
            try:
                pass
            except* ValueError:
                pass
        """).encode(), ["4:20: TCP002"]),
}
NEWER_SYNTAX = {"py312_type.py": (3, 12), "py312_generic.py": (3, 12), "py312_fstring.py": (3, 12),
                "py313_type_default.py": (3, 13)}
E999 = {"syntax_error.py", "null_byte.py"} | {name for name, version in NEWER_SYNTAX.items() if sys.version_info < version}
SKIPPED = {"deep_product.py": "an expression nested 301 deep", "deep_lambdas.py": "an expression nested 306 deep"}


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def nasty_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("nasty")
    for name, (data, _) in NASTY.items():
        (folder / name).write_bytes(data)
    (folder / "zz_risky.py").write_text(_risky())
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_flake8_reports_every_file_and_crashes_on_none(nasty_folder, jobs):
    result = flake8("-j", jobs, "-v", "--select", "TCP,E999", ".", cwd=nasty_folder)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and "failed during execution" not in result.stderr
    assert "please report it" not in result.stderr, "a bug of ours was contained, but it is a bug"
    reported: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        path, row, col, rest = line.split(":", 3)
        reported.setdefault(path.removeprefix("./"), []).append(f"{row}:{col}: {rest.split()[0]}")
    for name, (_, expected) in NASTY.items():
        got = reported.get(name, [])
        if name in E999:
            assert len(got) == 1 and got[0].endswith("E999"), (name, got)
        else:
            assert got == expected, name
    assert reported["zz_risky.py"] == ["2:12: TCP002"]
    # A skipped file is said so, once, with the reason; nothing else is.
    skips = [line for line in result.stderr.splitlines() if "flake8-tensorcopy skipped" in line]
    assert len(skips) == len(SKIPPED), skips
    for name, reason in SKIPPED.items():
        assert [line for line in skips if f"./{name}:" in line and reason in line], name


@pytest.mark.slow
def test_the_cli_reports_every_file_and_crashes_on_none(nasty_folder):
    result = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "--format", "json", "."],
        cwd=nasty_folder, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 2, result.stderr  # the unanalysable files are errors here
    assert "Traceback" not in result.stderr and "please report it" not in result.stderr
    found = {}
    for item in json.loads(result.stdout):
        found.setdefault(item["path"].removeprefix("./"), []).append(f"{item['line']}:{item['column']}: {item['code']}")
    for name, (_, expected) in NASTY.items():
        assert found.get(name, []) == ([] if name in E999 else expected), name
    errors = {line.split(":")[0].removeprefix("./") for line in result.stderr.splitlines() if ": error: " in line}
    assert errors == E999 | set(SKIPPED)


def _plugin_in_subprocess(path: Path, timeout: float = 600) -> dict:
    """The plugin run on ``path`` as flake8 runs it (flake8's FileProcessor builds the
    ast and the lines), in a subprocess: findings, log lines, seconds spent in ``run()``."""
    script = textwrap.dedent(
        """
        import argparse, json, logging, sys, time
        from flake8.processor import FileProcessor
        from flake8_tensorcopy.plugin import LOG, TensorCopyChecker
        records = []
        class Keep(logging.Handler):
            def emit(self, record):
                records.append([record.levelname, record.getMessage()])
        LOG.addHandler(Keep())
        LOG.setLevel(logging.INFO)
        options = argparse.Namespace(hang_closing=False, indent_size=4, max_line_length=79,
                                     max_doc_length=None, verbose=0)
        sys.setrecursionlimit(10_000)  # only so that Python's parser copes with the file
        processor = FileProcessor(sys.argv[1], options)
        tree = processor.build_ast()
        sys.setrecursionlimit(1_000)  # what flake8 runs the plugin with
        started = time.perf_counter()
        found = [(line, col, message.split()[0]) for line, col, message, _ in
                 TensorCopyChecker(tree, processor.lines, sys.argv[1]).run()]
        print(json.dumps({"findings": found, "log": records, "seconds": time.perf_counter() - started}))
        """
    )
    try:
        result = subprocess.run(
            [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the plugin was still running on {path.name} after {timeout} s")
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.slow
def test_plugin_survives_what_pyflakes_cannot(tmp_path):
    """A 1,000-term `a + a + ...` next to a risky function: the deep function is skipped
    (logged once), the risky one is still reported."""
    path = tmp_path / "chain.py"
    path.write_text(
        f"def deep(x):\n    return x.clone().detach() + {chain('+', 1000)}\n\n\n"
        "def risky(x):\n    return x.clone().detach()\n"
    )
    outcome = _plugin_in_subprocess(path)
    assert outcome["findings"] == [[6, 11, "TCP002"]]
    assert [level for level, _ in outcome["log"]] == ["INFO"]
    assert re.search(r"chain.py: line 2: an expression nested 10\d\d deep", outcome["log"][0][1])


def test_plugin_never_lets_an_exception_out(monkeypatch, caplog):
    """A bug of ours (here: a rule that raises) is contained and logged as one, per file."""
    import ast
    import logging

    from flake8_tensorcopy import plugin

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(engine, "lint_planned", broken)
    source = _risky()
    with caplog.at_level(logging.INFO, logger="flake8.tensorcopy"):
        found = list(plugin.TensorCopyChecker(ast.parse(source), source.splitlines(True), "bug.py").run())
    assert found == []
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("WARNING", "flake8-tensorcopy failed on bug.py; please report it")
    ]
    assert caplog.records[0].exc_info[0] is ZeroDivisionError


# -- the time bound ----------------------------------------------------------------------------
@pytest.mark.slow
def test_a_huge_file_full_of_triggers_is_bounded(tmp_path):
    """50,000 lines, a finding in every function: without the budget LibCST would take
    about a minute; with it, the first functions are analysed and the rest skipped."""
    path = tmp_path / "huge.py"
    path.write_text("".join(f"def f{i}(x):\n    return x.clone().detach()\n" for i in range(25_000)))
    outcome = _plugin_in_subprocess(path)
    assert outcome["seconds"] < BOUND_S, outcome["seconds"]
    rows = [line for line, _, _ in outcome["findings"]]
    assert 1_000 < len(rows) < 25_000 and rows == list(range(2, 2 * len(rows) + 1, 2))
    [(level, message)] = outcome["log"]
    assert level == "INFO" and f"over the analysis budget of {limits.MAX_ANALYSED_TOKENS:,} tokens" in message
    assert message.count("parts") == 1, "one summary, not one entry per function"


@pytest.mark.parametrize(
    ("left", "code", "refused", "left_after"),
    [
        (10, "a = b(c)", False, 4),  # shorter than what is left: counted in one call
        (6, "a = b(c)", False, 0),  # longer, and fits to the last token
        (5, "a = b(c)", True, 5),  # one token over: refused, nothing charged
        (3, "name_longer_than_three", False, 2),  # a token of many characters costs one
        (3, "x  # a comment, 'quoted'\n'''a\ndocstring'''", False, 0),
    ],
)
def test_the_budget_charges_tokens_not_characters(left, code, refused, left_after):
    budget = limits.Budget(left)
    reason = budget.spend(code)
    assert (reason is not None) == refused and budget.left == left_after
    if refused:
        assert f"over the analysis budget of {left:,} tokens" in reason


def test_the_budget_decides_each_part_as_an_exact_count_would():
    # Parts are charged by their characters until one does not fit that way; the tokens
    # are counted then. Every budget around the parts' total must refuse the same parts,
    # and leave the same, as counting every part's tokens at once.
    parts = [
        "def f(x):\n    return x.clone().detach()  # a note\n", "y = [a_long_name, 'a string', 3.25]\n",
        "z = f(  y  )\n", '"""doc\nstring"""\n', "w=1\n",
    ] * 3
    costs = [len(limits._TOKEN.findall(part)) for part in parts]
    for tokens in range(sum(costs) + 2):
        budget, left, refused, expected = limits.Budget(tokens), tokens, [], []
        for number, (part, cost) in enumerate(zip(parts, costs)):
            if budget.spend(part) is not None:
                refused.append(number)
            if cost > left:
                expected.append(number)
            else:
                left -= cost
        assert (refused, budget.left) == (expected, left), tokens


@pytest.mark.slow
def test_one_huge_function_is_bounded(tmp_path):
    """A single 6,000-line function whose findings need its bindings: it cannot be analysed
    in a few seconds, so it is skipped whole, and quickly."""
    body = "".join(f"    y{i} = copy.deepcopy(x)\n" for i in range(6_000))
    path = tmp_path / "one.py"
    path.write_text("import copy\nimport torch\ndef f(x: torch.Tensor):\n" + body + "\n\ndef g(x):\n    return x.clone().detach()\n")
    outcome = _plugin_in_subprocess(path)
    assert outcome["seconds"] < BOUND_S, outcome["seconds"]
    assert outcome["findings"] == [[6007, 11, "TCP002"]]
    assert "lines 3-6003: over the analysis budget" in outcome["log"][0][1]


@pytest.mark.slow
def test_a_gate_judging_thousands_of_calls_stays_bounded(tmp_path):
    """6,000 ``torch.tensor(x)`` whose ``x`` in force is a list (a tensor only after them):
    the gate answers each call from the straight path to it, in time that does not grow
    with the function's length, and spares the parse."""
    body = "".join(f"    y{i} = torch.tensor(x)\n" for i in range(6_000))
    path = tmp_path / "calls.py"
    path.write_text("import torch\ndef f(a):\n    x = a.tolist()\n" + body + "    x = torch.ones(2)\n    return x\n")
    outcome = _plugin_in_subprocess(path)
    assert outcome["seconds"] < BOUND_S, outcome["seconds"]
    assert outcome["findings"] == [] and outcome["log"] == []


@pytest.mark.slow
def test_statements_judged_alone_are_charged_as_their_function(tmp_path):
    """6,000 findings that need only their statements, in one function too big for the
    budget: the plugin, which would parse them alone, charges the budget for the function
    whole, as the command (which parses functions whole) does, and skips it as the command
    does; the function after it still fits. Quickly."""
    body = "".join(f"    y{i} = x.clone().detach()\n" for i in range(6_000))
    path = tmp_path / "many.py"
    path.write_text("def f(x):\n" + body + "\n\ndef g(x):\n    return x.clone().detach()\n")
    outcome = _plugin_in_subprocess(path)
    assert outcome["seconds"] < BOUND_S, outcome["seconds"]
    assert outcome["findings"] == [[6005, 11, "TCP002"]]
    assert "lines 1-6001: over the analysis budget" in outcome["log"][0][1]


# Python 3.13's parser takes a 3,000-term chain that 3.11 and 3.12 refuse; then the budget does.
_CHAIN_REFUSED = ("too deeply nested for Python's own parser" if sys.version_info < (3, 13)
                  else "module-level code: line 1: an expression nested 3001 deep")
_TOO_DEEP = "too deeply nested for Python's own parser"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "findings", "refused"),
    [
        # What cannot be analysed costs its findings and says why (exit 2); the rest is reported.
        pytest.param(f"y = {chain('+', 3000)}\nz = y.clone().detach()\n", [], _CHAIN_REFUSED, id="3000-term-chain"),
        pytest.param("def f(x):\n    y = " + "f(" * 190 + "x" + ")" * 190 + "\n    return x.clone().detach()\n",
                     ["p.py:3:12: TCP002"], None, id="deep-calls"),
        pytest.param("def f(x):\n    y = " + "-" * 50_000 + "x\n    return x.clone().detach()\n", [], _TOO_DEEP,
                     id="50k-unary"),
        pytest.param("def f(x):\n    y = x" + ".a" * 20_000 + "\n    return x.clone().detach()\n", [], _TOO_DEEP,
                     id="20k-attributes"),
        pytest.param("def f(x):\n    y = [" + "x.clone().detach(), " * 20_000 + "]\n", [],
                     "lines 1-2: over the analysis budget of 40,000 tokens a file", id="20k-findings-on-a-line"),
    ],
)
def test_pathological_expressions_are_bounded_through_the_cli(tmp_path, source, findings, refused):
    (tmp_path / "p.py").write_text(source)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "p.py"], cwd=tmp_path, capture_output=True, text=True,
        timeout=600,
    )
    elapsed = time.monotonic() - started
    assert elapsed < BOUND_S, elapsed
    assert "Traceback" not in result.stderr and "please report it" not in result.stderr
    assert [" ".join(line.split()[:2]) for line in result.stdout.splitlines() if line.startswith("p.py:")] == findings
    assert result.returncode == (2 if refused else 1), result.stderr
    if refused:
        assert result.stderr.startswith("p.py: error: cannot analyse it:") and refused in result.stderr, result.stderr


def test_pathological_comments_are_bounded(tmp_path):
    """Trigger regexes allow comments between tokens: a banner of `#` after a call must
    not make them backtrack exponentially (torch's own sources have such banners)."""
    banner = "#" * 80
    path = tmp_path / "banners.py"
    path.write_text(
        "import torch\n\n\ndef f(x):\n"
        + f"    y = g(x)  {banner}\n    {banner}\n" * 3
        + f"    z = x.detach()  {banner} {'# ' * 40}\n    w = x[0] {banner}\n"
        + f"    v = torch.tensor(1, {banner}\n  {banner}\n)\n    return y.clone()  {banner}\n"
    )
    outcome = _plugin_in_subprocess(path, timeout=BOUND_S * 2)
    assert outcome["seconds"] < BOUND_S, outcome["seconds"]


@pytest.mark.slow
def test_the_cli_reports_what_it_could_analyse(tmp_path):
    (tmp_path / "m.py").write_text(
        f"def deep(x):\n    return x.clone().detach() + {chain('*', 300)}\n\n\n"
        "def risky(x):\n    return x.clone().detach()\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "m.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 2
    assert result.stdout.startswith("m.py:6:12: TCP002 ") and result.stdout.count("\n") == 1
    assert "m.py: error: cannot analyse it: not analysed: lines 1-2: line 2: an expression nested 302 deep" in (
        result.stderr)


@pytest.mark.slow
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"def f(:\n    return x.clone().detach()\n", id="syntax-error"),
        pytest.param(f"y = {chain('+', 3000)}\nz = y.clone().detach()\n".encode(), id="3000-term-chain"),
        pytest.param(b"x = '\xff'\ny = x.clone().detach()\n", id="not-utf-8"),
        pytest.param(b"def f(x):\n    return x.clone().detach()\x00\n", id="null-byte"),
    ],
)
def test_fix_on_stdin_prints_the_code_back_when_it_cannot_fix(data):
    """`flake8-tensorcopy --fix -` is a filter (editors pipe the buffer through it): whatever
    goes wrong, stdout is the code, never nothing."""
    result = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "--fix", "-"], input=data, capture_output=True, timeout=600
    )
    assert result.returncode == 2
    assert result.stdout == data
    assert b"stdin: error: " in result.stderr and b"Traceback" not in result.stderr
