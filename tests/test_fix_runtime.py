"""Runtime proof of the fixes: fixed code behaves right on real tensors.

Each fixture file is fixed by the real CLI (``--fix --unsafe-fixes``, every rule selected,
the opt-in ones too) in a temporary folder; the fixed module is imported by path and every fixed ``risky[_case]`` must
now pass the fixture's own ``safe[_case]`` check, on CPU and on CUDA when present.
A case whose findings have no fix must come out unchanged (TCP004, ``p.data = t``),
and the ``fixed[_case]`` functions are never touched.

The second half proves the details of the fixes that the fixtures do not reach
(dtype/device/requires_grad mapping, augmented assignments, nn.init, ...) the same way:
the original and the fixed function run on identical inputs and must agree.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import every_rule
import pytest

if sys.version_info >= (3, 12):  # pyproject.toml installs torch for 3.11 only; there it must be present
    pytest.importorskip("torch", reason="the test extra installs no torch on Python 3.12+: runtime proofs run on 3.11")
import torch

from flake8_tensorcopy import engine, fixer
from flake8_tensorcopy.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").glob("tcp*.py"))
HAS_CUDA = torch.cuda.is_available()
DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param("cuda", id="cuda", marks=pytest.mark.skipif(not HAS_CUDA, reason="CUDA not available")),
]
_COUNTER = itertools.count()
# Every rule, the opt-in ones by their full codes: each fixture proves its rule's fix.
EVERY_RULE = ",".join(["TCP", *(rule.code for rule in ALL_RULES if not rule.enabled_by_default)])


def _import(path: Path):
    spec = importlib.util.spec_from_file_location(f"tcp_fixed_{path.stem}_{next(_COUNTER)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "flake8_tensorcopy", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _pick(module, base: str, case: str):
    return getattr(module, f"{base}_{case}" if case else base)


@pytest.fixture(scope="module")
def fixed_fixtures(tmp_path_factory):
    """{stem: (original module, fixed module, fixed path)} after one real CLI run."""
    folder = tmp_path_factory.mktemp("fixed_fixtures")
    for path in FIXTURES:
        (folder / path.name).write_bytes(path.read_bytes())
    result = _cli("--fix", "--unsafe-fixes", "--select", EVERY_RULE, ".", cwd=folder)
    assert result.returncode in (0, 1), result.stderr
    assert "error" not in result.stderr, result.stderr
    return {path.stem: (_import(path), _import(folder / path.name), folder / path.name) for path in FIXTURES}


def _fixable_functions(path: Path) -> set[str]:
    """Names of the risky functions holding a finding that has a fix (unsafe ones too)."""
    source = path.read_text(encoding="utf-8")
    module = _import(path)
    spans = {}
    for name in dir(module):
        if name.split("_")[0] == "risky":
            lines, first = inspect.getsourcelines(getattr(module, name))
            spans[name] = (first, first + len(lines) - 1)
    names = set()
    for finding in engine.lint_source(source, rules=ALL_RULES):
        if fixer.applicable(finding.fix, unsafe=True):
            names.update(n for n, (a, b) in spans.items() if a <= finding.line <= b)
    return names


CASES = []
for _path in FIXTURES:
    _module = _import(_path)
    CASES += [
        pytest.param(_path.stem, case, id=f"{_path.stem}-{case}" if case else _path.stem) for case in _module.CASES
    ]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("stem", "case"), CASES)
def test_fixed_risky_behaves_like_fixed(fixed_fixtures, stem, case, device):
    original, fixed, path = fixed_fixtures[stem]
    name = f"risky_{case}" if case else "risky"
    before = inspect.getsource(_pick(original, "risky", case))
    after = inspect.getsource(_pick(fixed, "risky", case))
    if name not in _fixable_functions(FIXTURES[[p.stem for p in FIXTURES].index(stem)]):
        # No fix exists (report only): the fixer must leave the function alone.
        assert after == before, f"{name} has no fix but was changed:\n{after}"
        return
    assert after != before, f"{name} has a fix but was not changed"
    # The fixture's own proof, now on the fixed risky function.
    assert _pick(original, "safe", case)(_pick(fixed, "risky", case), device)
    # And the fixture's `fixed` reference is untouched by the fixer.
    assert inspect.getsource(_pick(fixed, "fixed", case)) == inspect.getsource(_pick(original, "fixed", case))


def test_seed_expectations(fixed_fixtures):
    """The seeds' known shape: TCP004 has no fix at all, `p.data = t` neither, nor TCP003's
    deepcopy of a list of tensors; the rest do."""
    tcp004 = next(p for p in FIXTURES if p.stem.startswith("tcp004"))
    assert fixed_fixtures[tcp004.stem][2].read_bytes() == tcp004.read_bytes()
    tcp001 = next(p for p in FIXTURES if p.stem.startswith("tcp001"))
    assert _fixable_functions(tcp001) == {"risky"}  # risky_assign (`w.data = new`) is report only
    report_only = {"tcp003": {"risky_list"}}
    for prefix in ("tcp002", "tcp003", "tcp005", "tcp006", "tcp010", "tcp011", "tcp012"):
        path = next(p for p in FIXTURES if p.stem.startswith(prefix))
        module = _import(path)
        expected = {f"risky_{c}" if c else "risky" for c in module.CASES} - report_only.get(prefix, set())
        assert _fixable_functions(path) == expected, prefix


def test_only_risky_functions_change(fixed_fixtures):
    """Every changed line of a fixed fixture lies inside a risky function of the original."""
    import difflib

    for stem, (original, _, path) in fixed_fixtures.items():
        spans = []
        for name in dir(original):
            if name.split("_")[0] == "risky":
                lines, first = inspect.getsourcelines(getattr(original, name))
                spans.append((first, first + len(lines) - 1))
        before = (ROOT / "fixtures" / path.name).read_text(encoding="utf-8").splitlines()
        after = path.read_text(encoding="utf-8").splitlines()
        matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
        for tag, first, last, _, _ in matcher.get_opcodes():
            if tag != "equal":
                changed = range(first + 1, max(first + 1, last) + 1)
                assert any(a <= line <= b for a, b in spans for line in changed), (stem, tag, first, last)


def test_fixed_fixtures_are_clean_of_fixable_findings(fixed_fixtures):
    for stem, (_, _, path) in fixed_fixtures.items():
        findings = engine.lint_source(path.read_text(encoding="utf-8"), rules=ALL_RULES)
        assert not [f for f in findings if fixer.applicable(f.fix, unsafe=True)], stem


# -- details beyond the fixtures ----------------------------------------------------------
def _fix_and_import(tmp_path: Path, source: str, *extra: str):
    """(original module, fixed module, fixed text) for ``source``, fixed by the CLI."""
    source = textwrap.dedent(source)
    original = tmp_path / "original_mod.py"
    original.write_text(source, encoding="utf-8")
    target = tmp_path / "fixed_mod.py"
    target.write_text(source, encoding="utf-8")
    result = _cli("--fix", *every_rule.ARGS, *extra, str(target), cwd=tmp_path)
    assert result.returncode in (0, 1) and "error" not in result.stderr, result.stderr
    return _import(original), _import(target), target.read_text(encoding="utf-8")


def _same_tensor(a: torch.Tensor, b: torch.Tensor) -> None:
    assert a.dtype == b.dtype and a.device == b.device and a.shape == b.shape
    assert a.requires_grad == b.requires_grad and a.is_leaf == b.is_leaf
    assert a.stride() == b.stride()
    assert torch.equal(a.detach(), b.detach())


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


TENSOR_CALLS = '''
    import torch

    def plain(t: torch.Tensor):
        return torch.tensor(t)

    def typed(t: torch.Tensor):
        return torch.tensor(t, dtype=torch.float64)

    def to_int(t: torch.Tensor):
        return torch.tensor(t, dtype=torch.int32)

    def placed(t: torch.Tensor, device):
        return torch.tensor(t, device=device)

    def both(t: torch.Tensor, device):
        return torch.tensor(t, device=device, dtype=torch.float16)

    def grad(t: torch.Tensor):
        return torch.tensor(t, requires_grad=True)

    def grad_flag(t: torch.Tensor, flag):
        return torch.tensor(t, dtype=torch.float64, requires_grad=flag)

    def no_grad_kw(t: torch.Tensor):
        return torch.tensor(data=t, requires_grad=False)

    def expression(t: torch.Tensor):
        return torch.tensor(t * 2 + 1)
'''


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
def test_tensor_of_tensor_mapping(tmp_path, device):
    original, fixed, text = _fix_and_import(tmp_path, TENSOR_CALLS)
    assert "torch.tensor(" not in text, text  # every call was fixed, by safe fixes only
    make = {
        "contiguous": lambda: torch.tensor([[1.5, -2.25], [3.0, 4.75]], device=device, requires_grad=True),
        "transposed": lambda: torch.tensor([[1.5, -2.25], [3.0, 4.75]], device=device).t(),
        "non-leaf": lambda: torch.tensor([0.5, 1.5], device=device, requires_grad=True) * 3,
        "float64": lambda: torch.tensor([1.0, 2.0], device=device, dtype=torch.float64),
    }
    calls = {
        "plain": (), "typed": (), "to_int": (), "placed": (device,), "both": (device,), "grad": (),
        "grad_flag": (True,), "no_grad_kw": (), "expression": (),
    }
    for (kind, factory), (name, args) in itertools.product(make.items(), calls.items()):
        t = factory()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the original warns; that is the point of TCP005
            expected = getattr(original, name)(t, *args)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the fix must not warn
            got = getattr(fixed, name)(t, *args)
        _same_tensor(got, expected)
        assert _storage(got) != _storage(t), (kind, name)  # an independent copy
        before = t.detach().clone()
        with torch.no_grad():
            got.add_(1)
        assert torch.equal(t.detach(), before), (kind, name)  # writing to it leaves t alone


@pytest.mark.skipif(not HAS_CUDA, reason="CUDA not available: device moves cannot be shown")
def test_tensor_of_tensor_mapping_across_devices(tmp_path):
    original, fixed, _ = _fix_and_import(tmp_path, TENSOR_CALLS)
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    for name in ("placed", "both"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = getattr(original, name)(t, "cuda")
        _same_tensor(getattr(fixed, name)(t, "cuda"), expected)


DATA_WRITES = '''
    import torch

    def iadd(w: torch.Tensor, v):
        w.data += v

    def isub(w: torch.Tensor, v):
        w.data -= v

    def imul(w: torch.Tensor, v):
        w.data *= v

    def idiv(w: torch.Tensor, v):
        w.data /= v

    def ifloordiv(w: torch.Tensor, v):
        w.data //= v

    def imod(w: torch.Tensor, v):
        w.data %= v

    def ipow(w: torch.Tensor, v):
        w.data **= v

    def holder_iadd(holder, v):
        holder.weight.data += v

    def holder_imul(holder, v):
        holder.weight.data *= v

    def item(w: torch.Tensor, v):
        w.data[0] = v

    def item_iadd(w: torch.Tensor, v):
        w.data[1:] += v

    def item_method(w: torch.Tensor, v):
        w.data[0].fill_(v)

    def chained(w: torch.Tensor, v):
        w.data.mul_(v).add_(v)

    def loop(ws, v):
        for p in ws:
            p.data.mul_(v)
            p.data.add_(v)

    @torch.no_grad()
    def decorated(w: torch.Tensor, v):
        w.data.add_(v)

    def inside(w: torch.Tensor, v):
        with torch.no_grad():
            w.data.sub_(v)
'''
BITWISE = '''
    import torch

    def iand(w: torch.Tensor, v):
        w.data &= v

    def ior(w: torch.Tensor, v):
        w.data |= v

    def ixor(w: torch.Tensor, v):
        w.data ^= v
'''


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
def test_data_writes_keep_their_effect(tmp_path, device):
    """Every fixed `.data` write changes the tensor exactly as before, and now bumps the
    version counter (so a backward that saved it raises instead of being wrong)."""
    original, fixed, text = _fix_and_import(tmp_path, DATA_WRITES, "--unsafe-fixes")
    assert ".data" not in text, text
    assert "holder.weight.add_(v)" in text and "holder.weight.mul_(v)" in text, text  # method form
    assert "w += v" in text and "w -= v" in text, text  # local name: the operator stays

    class Holder:
        def __init__(self, weight):
            self.weight = weight

    def weight():
        return torch.nn.Parameter(torch.tensor([6.0, 7.5, 9.0], device=device))

    v = 1.5
    for name in ("iadd", "isub", "imul", "idiv", "ifloordiv", "imod", "ipow", "item", "item_iadd",
                 "item_method", "chained", "decorated", "inside"):
        a, b = weight(), weight()
        getattr(original, name)(a, v)
        getattr(fixed, name)(b, v)
        assert torch.equal(a.detach(), b.detach()), name
        assert a._version == 0 and b._version > 0, name  # invisible before, visible now
        assert isinstance(b, torch.nn.Parameter) and b.is_leaf and b.requires_grad, name
    for name in ("holder_iadd", "holder_imul"):
        a, b = Holder(weight()), Holder(weight())
        a_param, b_param = a.weight, b.weight
        getattr(original, name)(a, v)
        getattr(fixed, name)(b, v)
        assert b.weight is b_param and torch.equal(a_param.detach(), b_param.detach()), name
    first, second = [weight(), weight()], [weight(), weight()]
    original.loop(first, v)
    fixed.loop(second, v)
    assert all(torch.equal(x.detach(), y.detach()) for x, y in zip(first, second))


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
def test_bitwise_augmented_writes(tmp_path, device):
    original, fixed, text = _fix_and_import(tmp_path, BITWISE)
    assert ".data" not in text, text
    for name in ("iand", "ior", "ixor"):
        for dtype, value in ((torch.int64, 6), (torch.bool, True)):
            a = torch.tensor([5, 3, 0], device=device).to(dtype)
            b = a.clone()
            getattr(original, name)(a, value)
            getattr(fixed, name)(b, value)
            assert torch.equal(a, b), (name, dtype)


INIT = '''
    import torch
    from torch import nn

    def init(m):
        nn.init.{name}(m.weight.data{args})
'''


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    ("name", "args"),
    [("normal_", ""), ("uniform_", ", -0.5, 0.5"), ("xavier_uniform_", ""), ("kaiming_normal_", ""),
     ("orthogonal_", ""), ("trunc_normal_", ""), ("zeros_", ""), ("ones_", ""), ("eye_", ""),
     ("constant_", ", 0.25"), ("sparse_", ", 0.5")],
)
def test_nn_init_on_the_parameter_itself(tmp_path, name, args, device):
    original, fixed, text = _fix_and_import(tmp_path, INIT.format(name=name, args=args))
    assert f"nn.init.{name}(m.weight{args})" in text, text
    layers = []
    for module in (original, fixed):
        torch.manual_seed(0)
        layer = nn_linear(device)
        torch.manual_seed(1)
        module.init(layer)
        layers.append(layer)
    assert torch.equal(layers[0].weight.detach(), layers[1].weight.detach())
    assert layers[1].weight.requires_grad and layers[1].weight.is_leaf


def nn_linear(device):
    return torch.nn.Linear(4, 4, bias=False).to(device)


CLONES = '''
    import torch

    def method(x: torch.Tensor):
        return x.clone(memory_format=torch.contiguous_format).detach()

    def function(x: torch.Tensor):
        return torch.clone(x * 2).detach()

    def deep(x: torch.Tensor):
        import copy
        return copy.deepcopy(x)

    def stacked(a: torch.Tensor, b: torch.Tensor):
        return torch.tensor([a.sum(), b.sum()], dtype=torch.float64)
'''


@pytest.mark.slow
@pytest.mark.parametrize("device", DEVICES)
def test_clone_detach_deepcopy_and_stack(tmp_path, device):
    original, fixed, text = _fix_and_import(tmp_path, CLONES, "--unsafe-fixes")
    assert "x.detach().clone(memory_format=torch.contiguous_format)" in text, text
    assert "(x * 2).detach().clone()" in text and "torch.stack([a.sum(), b.sum()]).to(dtype=torch.float64)" in text
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True).t()
    for name in ("method", "function"):
        _same_tensor(getattr(fixed, name)(x), getattr(original, name)(x))
    leaf = torch.tensor([1.0, 2.0], device=device, requires_grad=True)
    snapshot = fixed.deep(leaf)  # unsafe on purpose: the copy no longer requires grad
    assert torch.equal(snapshot, leaf.detach()) and not snapshot.requires_grad
    a = torch.tensor(2.0, device=device, requires_grad=True)
    b = torch.tensor(3.0, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = original.stacked(a, b)
    after = fixed.stacked(a, b)  # unsafe on purpose: keeps the graph and the device
    assert torch.equal(after.detach().cpu(), before) and after.dtype == before.dtype
    assert after.requires_grad and after.device == a.device
