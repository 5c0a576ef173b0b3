"""The generated table of what returns a tensor (``analysis/torch_api.py``) matches the
pinned torch's own type stubs, and linting never imports torch, numpy or pandas."""

import subprocess
import sys

import pytest

from generators import load_generator

from flake8_tensorcopy.analysis import torch_api

def _generator():
    return load_generator("generate_torch_api")


@pytest.mark.slow
def test_the_table_is_generated_from_the_pinned_torch():
    pytest.importorskip("torch", reason="needs the pinned torch (no CPU wheel for this Python here)")
    pytest.importorskip("numpy")
    pytest.importorskip("pandas")
    generator = _generator()
    assert generator.TABLE.read_text() == generator.generate(), "stale: run `python3 scripts/generate_torch_api.py`"


def test_the_table_knows_what_the_rules_rely_on():
    assert {"stack", "from_numpy", "as_tensor", "einsum"} <= torch_api.TORCH_FUNCTIONS
    assert {"detach", "clone", "unsqueeze", "permute"} <= torch_api.TENSOR_ONLY_METHODS
    # Shared with numpy arrays, frames, modules or builtins: no evidence of a tensor.
    assert not {"view", "sum", "cpu", "cuda", "to", "copy", "item", "reshape"} & torch_api.TENSOR_ONLY_METHODS
    assert {"numpy", "backward", "requires_grad", "grad_fn"} <= torch_api.TENSOR_ONLY_MEMBERS
    assert "stride" not in torch_api.TENSOR_ONLY_MEMBERS  # conv layers have one too
    # numpy ufuncs that wrap a CPU tensor's result back into a tensor; reductions are no ufuncs
    assert {"exp", "log", "sqrt", "maximum", "add"} <= torch_api.NUMPY_TENSOR_UFUNCS
    assert not {"mean", "sum", "asarray", "array", "clip"} & torch_api.NUMPY_TENSOR_UFUNCS


@pytest.mark.slow
def test_linting_imports_neither_torch_nor_numpy(tmp_path):
    target = tmp_path / "m.py"
    target.write_text("import copy\nimport torch\ndef f(out):\n    return copy.deepcopy(out.detach())\n")
    probe = (
        "import sys\nfrom flake8_tensorcopy import engine\n"
        f"print(len(engine.lint_source(open({str(target)!r}).read())))\n"
        "print(sorted(m for m in ('torch', 'numpy', 'pandas') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.split("\n")[:2] == ["1", "[]"]
