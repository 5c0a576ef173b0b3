#!/usr/bin/env bash
# Every runtime fixture and the tests that prove them, on a machine with CUDA.
# CI has no GPU, so there the CUDA cases skip; this is the run that covers them. It fails
# when CUDA is absent or when any test skipped, so a CPU-only run cannot pass for a GPU one.
# Needs torch, pytest, flake8 and libcst importable (the package itself from this checkout).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import sys, torch
assert torch.cuda.is_available(), "no CUDA device: this script is for a GPU machine"
print(sys.version.split()[0], "torch", torch.__version__, torch.cuda.get_device_name(0))' || exit 1
status=0
for fixture in fixtures/tcp*.py; do
    echo "== $fixture"
    python3 "$fixture" || status=1
done
# The one test that skips by design with CUDA: it proves this script refuses a CPU-only machine.
report="$(python3 -m pytest -q -p no:cacheprovider -rs \
    --deselect tests/test_fixture_runtime.py::test_the_gpu_script_refuses_a_machine_without_cuda \
    tests/test_fixture_runtime.py tests/test_fix_runtime.py tests/test_fixture_lint.py 2>&1)" || status=1
echo "$report"
if grep -qE '[0-9]+ skipped' <<<"$report"; then
    echo "some tests skipped: not a full GPU run" >&2
    status=1
fi
exit $status
