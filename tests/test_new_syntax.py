"""Syntax newer than 3.11, on the Python that accepts it (issue 14).

flake8 hands the plugin a file only when the running Python parses it: PEP 695 type
parameters and ``type`` aliases and PEP 701 f-strings from 3.12, PEP 696 type-parameter
defaults from 3.13. Each case runs the real flake8 in a subprocess where its syntax is
valid (exact findings, nothing skipped, nothing raised) and is E999 on older Pythons.

The prefilter's blanking reads f-strings as PEP 701 does: where Python's own tokenizer
splits them into tokens (3.12+), the blanked text is checked against it.
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
import sysconfig
import textwrap
import tokenize
from collections import defaultdict
from pathlib import Path

import pytest

from flake8_tensorcopy import blanking
from flake8_tensorcopy.blanking import blank_comments_and_strings
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.rules import ALL_RULES

pytestmark = pytest.mark.compat

ROOT = Path(__file__).resolve().parent.parent
PY312 = (3, 12)
PY313 = (3, 13)

# name -> (the first Python that parses it, source, findings as "line:col: CODE", 1-based)
CASES: dict[str, tuple[tuple[int, int], str, list[str]]] = {
    "pep695_generic_function.py": (PY312, """\
        import torch


        def step[T: torch.Tensor](w: T, lr: float) -> T:
            w.data.add_(-lr * w.grad)
            return w.clone().detach()
        """, ["5:5: TCP001", "6:12: TCP002"]),
    "pep695_class_and_alias.py": (PY312, """\
        import torch

        type Pair[T] = tuple[T, T]


        class Buffer[T: torch.Tensor, *Ts, **P]:
            def snapshot[S](self, t: T) -> Pair[T]:
                return t, t.clone().detach()


        best = Buffer().snapshot(torch.zeros(1))[0].clone().detach()
        """, ["8:19: TCP002", "11:8: TCP002"]),
    "pep701_nested_quotes.py": (PY312, """\
        def f(x, d):
            s = f"{d["key"]}" + f'{d['k']!r:>{d["w"]}}'; y = x.clone().detach()
            return f"{x.clone().detach().sum()}", s, y
        """, ["2:54: TCP002", "3:15: TCP002"]),
    "pep701_hash_in_braces.py": (PY312, """\
        def f(x):
            s = f"{"#"}"; return x.clone().detach()
        """, ["2:26: TCP002"]),
    "pep701_comment_in_braces.py": (PY312, """\
        def f(x):
            s = f"{
                x.shape  # a "quoted" comment with a brace }
            }"; t = x.clone().detach()
            return s, t
        """, ["4:13: TCP002"]),
    "pep696_type_param_defaults.py": (PY313, """\
        import torch

        type Alias[T = int] = list[T]


        def f[T = torch.Tensor](x: T) -> T:
            x.data.add_(1)
            return x.clone().detach()


        class C[T = float, *Ts = *tuple[int]]:
            def g(self, x):
                return x.clone().detach()
        """, ["7:5: TCP001", "8:12: TCP002", "13:16: TCP002"]),
    # Valid on 3.11 too: a `#` in a string inside the braces is no comment.
    "fstring_hash_311.py": ((3, 11), """\
        def f(x):
            s = f"{'#'}"; return x.clone().detach()
        """, ["2:26: TCP002"]),
}


def nested_fstrings(depth: int) -> str:
    """A trigger inside ``depth`` nested f-strings (Python refuses 150)."""
    return "def f(x):\n    return " + "f'{" * depth + "x.clone().detach()" + "}'" * depth + "\n"


def _accepted(version: tuple[int, int]) -> pytest.MarkDecorator:
    syntax = "{}.{}".format(*version)
    return pytest.mark.skipif(sys.version_info < version, reason=f"Python {syntax} syntax: this Python refuses it")


def _refused(version: tuple[int, int]) -> pytest.MarkDecorator:
    syntax = "{}.{}".format(*version)
    return pytest.mark.skipif(sys.version_info >= version, reason=f"this Python parses {syntax} syntax")


@pytest.fixture(scope="module")
def flake8_run(tmp_path_factory) -> tuple[dict[str, list[str]], str]:
    """One real flake8 run over every case: ({file: ["line:col: CODE", ...]}, its log)."""
    folder = tmp_path_factory.mktemp("new_syntax")
    for name, (_, source, _) in CASES.items():
        (folder / name).write_text(textwrap.dedent(source), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "-v", "--select", "TCP,E999", "."],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 1, result.stderr[-3000:]
    reported: dict[str, list[str]] = defaultdict(list)
    for line in result.stdout.splitlines():
        path, row, col, rest = line.split(":", 3)
        reported[path.removeprefix("./")].append(f"{row}:{col}: {rest.split()[0]}")
    return reported, result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=_accepted(case[0])) for name, case in CASES.items()]
)
def test_flake8_reports_findings_in_new_syntax(flake8_run, name):
    reported, log = flake8_run
    assert reported[name] == CASES[name][2]
    assert "Traceback" not in log and "please report it" not in log
    assert f"skipped part of ./{name}" not in log, "LibCST must analyse it all"


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=_refused(case[0])) for name, case in CASES.items() if case[0] > (3, 11)]
)
def test_older_python_reports_e999(flake8_run, name):
    reported, _ = flake8_run
    assert len(reported[name]) == 1 and reported[name][0].endswith(" E999"), reported[name]


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=_accepted(case[0])) for name, case in CASES.items()]
)
def test_the_prefilter_loses_no_finding_in_new_syntax(name):
    """As ``test_prefilter_exact`` on real code: parsing only what the triggers pick finds
    what parsing the whole file finds (every rule, the opt-in ones too)."""
    source = textwrap.dedent(CASES[name][1])
    assert lint_source(source, rules=ALL_RULES) == lint_source(source, rules=ALL_RULES, shortcuts=False)


@_accepted(PY312)
def test_the_cli_agrees_and_fixes_new_syntax(tmp_path):
    """The CLI's findings are flake8's, and ``--fix`` rewrites new syntax (the CLI checks
    that the result parses and holds no new finding before it writes)."""
    expected = {name: findings for name, (version, _, findings) in CASES.items() if sys.version_info >= version}
    for name in expected:
        (tmp_path / name).write_text(textwrap.dedent(CASES[name][1]), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "--format", "json", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 1, result.stderr
    found = defaultdict(list)
    for item in json.loads(result.stdout):
        found[item["path"].removeprefix("./")].append(f"{item['line']}:{item['column']}: {item['code']}")
    assert found == expected
    fixed = subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", "--fix", "."], cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )
    assert fixed.returncode in (0, 1) and "error" not in fixed.stderr, fixed.stderr
    text = (tmp_path / "pep701_nested_quotes.py").read_text(encoding="utf-8")
    assert 'y = x.detach().clone()\n    return f"{x.detach().clone().sum()}", s, y\n' in text


@_accepted(PY312)
def test_deeply_nested_fstrings_are_analysed_or_skipped(tmp_path):
    """120 levels are analysed; the deepest Python allows, 149, is over the depth limit of
    ``limits`` (two ``ast`` levels a nesting): skipped and said so, never a crash."""
    (tmp_path / "deep120.py").write_text(nested_fstrings(120), encoding="utf-8")
    (tmp_path / "deep149.py").write_text(nested_fstrings(149), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "-v", "--select", "TCP", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert [line.split(" ")[:2] for line in result.stdout.splitlines()] == [["./deep120.py:2:372:", "TCP002"]]
    assert "Traceback" not in result.stderr and "please report it" not in result.stderr
    assert "skipped part of ./deep149.py: line 2: an expression nested 304 deep" in result.stderr


# -- the prefilter's blanking ------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "blanked"),
    [
        # A `#` or a quote in the braces belongs to a string there: what follows is code.
        ("s = f\"{'#'}\"; x.clone()\n", 's = f"{}"; x.clone()\n'),
        ("s = f'{d[\"k\"]}'.x; y.data\n", "s = f'{d[]}'.x; y.data\n"),
        # Literal text and format specs go, replacement fields (nested ones too) stay.
        ('s = f"a {x!r:>{w}} {{b}} \\N{DASH} {y=}" + z\n', 's = f"{x!r:{w}}{y=}" + z\n'),
        # In a raw f-string `\N{x}` is a backslash, an N and a field.
        ('s = rf"\\{a}\\N{b}" + z\n', 's = rf"{a}{b}" + z\n'),
        ('s = f"""\n{x.clone()}\n""" + z\n', 's = f"""\n{x.clone()}\n""" + z\n'),
        ("s = b'#' + rb'x' + u'''\n'''\n", "s = b + rb + u\n\n"),
    ],
)
def test_blanking_keeps_the_code_of_fstrings(source, blanked):
    assert blank_comments_and_strings(source) == blanked


@pytest.mark.parametrize(
    ("source", "blanked"),
    [
        ('s = f"{x["a"].clone()}" + y\n', 's = f"{x[].clone()}" + y\n'),
        ('s = f"{"#"}"; x.clone()\n', 's = f"{}"; x.clone()\n'),
        ("s = f'{f'{f'{x}'}'}' + y\n", "s = f'{f'{f'{x}'}'}' + y\n"),
        ('s = f"{\n    x  # c "}\n}" + "y"; z\n', 's = f"{\n    x  \n}" + ; z\n'),
        ('s = f"{"\\n".join(x)}" + y\n', 's = f"{.join(x)}" + y\n'),
    ],
)
@_accepted(PY312)
def test_blanking_reads_pep701_fstrings(source, blanked):
    assert blank_comments_and_strings(source) == blanked


# The pieces of text whose order the blanking must follow: quotes, escapes, prefixes, braces.
_TOKEN_PIECES = ["'", '"', "'''", '"""', "\\", "#", "\n", "f", "r", "b", "rf", "t", "{", "}", "{{", ":", "x", " ",
                 "(", ")", "N{", "\r\n"]


def test_blanking_in_one_pass_reads_as_token_by_token():
    """The one-pass replacement gives what reading one token after another gives, on
    texts made of the pieces where the two could part (unclosed strings, escapes, lone
    quotes, f-strings whose code holds their own quote, where it reads token by token)."""
    chooser = random.Random(701)
    onward = 0
    for _ in range(20_000):
        source = "".join(chooser.choice(_TOKEN_PIECES) for _ in range(chooser.randint(1, 30)))
        assert blank_comments_and_strings(source) == blanking._blank_token_by_token(source), source
        try:
            blanking.COMMENT_OR_STRING.sub(blanking._blanked, source)
        except blanking._FStringRunsOn:
            onward += 1
    assert onward > 100  # the fallback was exercised, not only the one pass
    for source in sorted({source for _, source, _ in CASES.values()}) + [nested_fstrings(40)]:
        source = textwrap.dedent(source)
        assert blank_comments_and_strings(source) == blanking._blank_token_by_token(source)


def _kept_by_tokenizer(source: str) -> dict[int, str]:
    """Line -> the text of the tokens the blanking must keep (a string's prefix only;
    no comment, no f-string literal text), by Python's own tokenizer."""
    dropped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    dropped |= {getattr(tokenize, name) for name in ("FSTRING_MIDDLE", "TSTRING_MIDDLE") if hasattr(tokenize, name)}
    kept: dict[int, str] = defaultdict(str)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING:
            kept[token.start[0]] += re.match(r"\w*", token.string).group()
        elif token.type not in dropped:
            kept[token.start[0]] += token.string
    return kept


def _tokenizer_corpus() -> list[Path]:
    """Every 8th file of the running Python's standard library, and this project's code."""
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py"))[::8]
    return stdlib + sorted((ROOT / "flake8_tensorcopy").rglob("*.py")) + sorted((ROOT / "tests").glob("*.py"))


@_accepted(PY312)
def test_blanking_agrees_with_pythons_tokenizer():
    sources = [textwrap.dedent(source) for _, source, _ in CASES.values()] + [nested_fstrings(149)]
    for path in _tokenizer_corpus():
        try:
            sources.append(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
    checked = 0
    for source in sources:
        try:
            kept = _kept_by_tokenizer(source)
        except (tokenize.TokenError, SyntaxError):  # test data of the standard library
            continue
        blanked = blank_comments_and_strings(source).split("\n")
        assert len(blanked) == source.count("\n") + 1
        for line, text in enumerate(blanked, 1):
            assert re.sub(r"[\s\\]", "", text) == kept.get(line, ""), (line, source.split("\n")[line - 1])
        checked += 1
    assert checked > 200
