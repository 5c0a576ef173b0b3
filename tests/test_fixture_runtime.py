"""Each runtime fixture reproduces its hazard with `risky`, not with `fixed`.

Fixtures are loaded by file path (fixtures/ is not a package). Each lists its
cases in CASES; "" stands for the unsuffixed risky/fixed/hazard/safe.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 12):  # pyproject.toml installs torch for 3.11 only; there it must be present
    pytest.importorskip("torch", reason="the test extra installs no torch on Python 3.12+: runtime proofs run on 3.11")
import torch

FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE_FILES = sorted(FIXTURES_DIR.glob("tcp*.py"))
HAS_CUDA = torch.cuda.is_available()
DEVICES = [
    pytest.param("cpu", id="cpu"),
    pytest.param(
        "cuda",
        id="cuda",
        marks=pytest.mark.skipif(not HAS_CUDA, reason="CUDA not available"),
    ),
]


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"fixture_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULES = {path.stem: _load(path) for path in FIXTURE_FILES}


def _pick(module, base: str, case: str):
    return getattr(module, f"{base}_{case}" if case else base)


# ids: "tcp001_data_mutation", "tcp005_tensor_from_tensor-alias", ...
CASE_PARAMS = [
    pytest.param(name, case, id=f"{name}-{case}" if case else name)
    for name, module in MODULES.items()
    for case in module.CASES
]


def test_fixtures_found():
    assert len(FIXTURE_FILES) >= 5, FIXTURE_FILES


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("name", "case"), CASE_PARAMS)
def test_hazard_and_fix(name, case, device):
    module = MODULES[name]
    risky, fixed = _pick(module, "risky", case), _pick(module, "fixed", case)
    assert _pick(module, "hazard", case)(risky, device)
    assert _pick(module, "safe", case)(fixed, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("name", "case"), CASE_PARAMS)
def test_checks_tell_risky_from_fixed(name, case, device):
    module = MODULES[name]
    risky, fixed = _pick(module, "risky", case), _pick(module, "fixed", case)
    # `safe` must reject the risky version, or it cannot prove an autofix.
    # It fails by an assertion, or (tcp003 default) by the hazard's own
    # RuntimeError, since deepcopy of a non-leaf raises before any check.
    with pytest.raises((AssertionError, RuntimeError)):
        _pick(module, "safe", case)(risky, device)
    # And the hazard must not "reproduce" on the fixed version.
    with pytest.raises(AssertionError):
        _pick(module, "hazard", case)(fixed, device)


@pytest.mark.parametrize("name", MODULES)
def test_fixture_shape(name):
    module = MODULES[name]
    assert module.__doc__ and name[:6].upper() in module.__doc__
    cases = module.CASES
    assert isinstance(cases, tuple) and cases
    assert len(set(cases)) == len(cases)
    for case in cases:
        # Same signature, so a fixed body can replace a risky one in place.
        risky = inspect.signature(_pick(module, "risky", case))
        assert risky == inspect.signature(_pick(module, "fixed", case)), case
        for check in ("hazard", "safe"):
            params = inspect.signature(_pick(module, check, case)).parameters
            assert list(params) == ["fn", "device"], (check, case)
    # No stray risky_*/fixed_* functions that the linter sees but CASES hides.
    bases = ("risky", "fixed")
    declared = {f"{b}_{c}" if c else b for c in cases for b in bases}
    defined = {n for n in vars(module) if n.split("_")[0] in bases}
    assert defined == declared


@pytest.mark.slow
@pytest.mark.parametrize("name", MODULES)
def test_script_runs(name):
    result = subprocess.run(
        [sys.executable, str(FIXTURES_DIR / f"{name}.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for device in ["cpu", "cuda"] if HAS_CUDA else ["cpu"]:
        for case in MODULES[name].CASES:
            for check in ("hazard", "safe"):
                line = f"[{device}] {case or 'default'} {check}: "
                assert line in result.stdout, (line, result.stdout)


@pytest.mark.slow
@pytest.mark.skipif(HAS_CUDA, reason="with CUDA the script runs every fixture: run it as it is")
def test_the_gpu_script_refuses_a_machine_without_cuda():
    """scripts/gpu_fixtures.sh covers what CI skips; on a CPU-only machine it must fail, not
    pass as if the CUDA cases had run."""
    script = FIXTURES_DIR.parent / "scripts" / "gpu_fixtures.sh"
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # its python3 is this one
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PATH=path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no CUDA device" in result.stderr
