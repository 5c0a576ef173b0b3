#!/usr/bin/env bash
# The release artefacts, built and checked as a user would meet them: the sdist and the
# wheel built with `python -m build` (the wheel from the sdist, so the sdist must hold
# everything), their metadata checked with `twine check --strict`, then the wheel installed
# in a fresh venv (no checkout beside it) and run on a file by flake8 and by the command.
# They are left in dist/ (ignored by git) for a release to take; .ci/editors.sh puts the
# .vsix there too. Needs python3 and the package index.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { echo "== [release ${SECONDS} s] $*"; }
fail() { echo "release.sh: $*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

version="$(python3 -c 'import re, pathlib
print(re.search(r"^__version__ = \"(.+)\"$", pathlib.Path("flake8_tensorcopy/__init__.py").read_text(), re.M)[1])')"
repository="$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["urls"]["Repository"])')"

step "build and twine, in a venv of their own"
python3 -m venv "$work/tools"
pip_install() {  # $1: the venv's python; the rest: what to install. Its log is shown on failure only.
    "$1" -m pip install -q --disable-pip-version-check "${@:2}" >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; fail "pip install ${*:2} failed"; }
}
pip_install "$work/tools/bin/python" build twine

step "build the sdist, and the wheel from it ($version)"
"$work/tools/bin/python" -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "python -m build failed"; }
sdist="$work/dist/flake8_tensorcopy-$version.tar.gz"
wheel="$work/dist/flake8_tensorcopy-$version-py3-none-any.whl"
[ -f "$sdist" ] && [ -f "$wheel" ] || fail "expected $(basename "$sdist") and $(basename "$wheel"), got: $(ls "$work/dist")"

step "twine check --strict"
"$work/tools/bin/python" -m twine check --strict "$sdist" "$wheel"

step "what the artefacts hold: the license in both, the rule tables in the wheel"
tar -tzf "$sdist" >"$work/sdist.txt"  # listed first: grep -q would end tar early, and pipefail fail it
grep -qx "flake8_tensorcopy-$version/LICENSE" "$work/sdist.txt" || fail "the sdist has no LICENSE"
python3 - "$wheel" "$version" <<'EOF'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
info = f"flake8_tensorcopy-{sys.argv[2]}.dist-info"
missing = {f"{info}/licenses/LICENSE", "flake8_tensorcopy/_triggers.py", "flake8_tensorcopy/_accuracy.py",
           "flake8_tensorcopy/analysis/torch_api.py"} - names
sys.exit(f"the wheel lacks {sorted(missing)}" if missing else 0)
EOF

step "the wheel in a fresh venv, run on a file"
python3 -m venv "$work/user"
pip_install "$work/user/bin/python" "$wheel"
mkdir "$work/project"
printf 'import torch\n\n\ndef snapshot(w: torch.Tensor) -> torch.Tensor:\n    return w.clone().detach()\n' >"$work/project/train.py"
expect_finding() {  # $1: what ran; stdin: its output, which must hold the TCP002 finding
    grep -q "train.py:5:12: TCP002 " || fail "$1 did not report TCP002 on train.py"
}
status=0
(cd "$work/project" && "$work/user/bin/flake8" --select TCP train.py) >"$work/out" || status=$?
[ "$status" -eq 1 ] || fail "flake8 exited $status, not 1"
expect_finding flake8 <"$work/out"
status=0
(cd "$work/project" && "$work/user/bin/flake8-tensorcopy" train.py) >"$work/out" || status=$?
[ "$status" -eq 1 ] || fail "flake8-tensorcopy exited $status, not 1"
expect_finding flake8-tensorcopy <"$work/out"
"$work/user/bin/flake8-tensorcopy" --explain TCP002 | grep -q "^# TCP002: clone-detach" || fail "--explain TCP002 printed no page"
linked="$(cd "$work/project" && "$work/user/bin/python" -c 'from flake8_tensorcopy import metadata; print(metadata.rule_page_url("TCP002"))')"
[ "$linked" = "$repository/blob/main/rules/TCP002.md" ] || fail "the installed package links the rule page to '$linked'"

step "the artefacts, in dist/"
mkdir -p dist
rm -f dist/flake8_tensorcopy-*
cp "$sdist" "$wheel" dist/
ls -l dist/
step "done"
