#!/usr/bin/env bash
# Build CPython 3.13 from Debian trixie's python3.13 source package and print the path
# of its `python3.13`. A CI machine has only 3.11 and no internet beyond the package
# registries; Debian's source package carries the upstream tarball.
#
# apt runs on a private configuration (its own sources list, lists, caches), so the
# machine's apt setup is left as it was. apt-get checks the tarball against the signed
# index, and its sha256 keys a build cache under ~/.cache: a later run on the same
# machine reuses the build, a fresh machine builds it (about 3 minutes on 2 cores).
# Every failure stops CI with a message: 3.13 is never skipped silently.
set -euo pipefail

fail() {
    echo "build-python313: $*" >&2
    exit 1
}

work="$(mktemp -d)"
chmod 755 "$work"  # apt's download sandbox user must reach it
staging=""  # set by build(): removed with $work, even on failure
trap 'rm -rf "$work" ${staging:+"$staging"}' EXIT

download_source() {
    mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/src"
    echo "deb-src http://deb.debian.org/debian trixie main" >"$work/apt/sources.list"
    apt_options=(
        -o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
    )
    apt-get "${apt_options[@]}" -qq update ||
        fail "apt-get update of Debian trixie's source index failed (is deb.debian.org reachable?)"
    (cd "$work/src" && apt-get "${apt_options[@]}" -qq source --download-only python3.13) ||
        fail "apt-get source --download-only python3.13 failed"
}

# Prints the path of the upstream tarball (python3.13_3.13.N.orig.tar.xz).
upstream_tarball() {
    local tarballs=("$work"/src/python3.13_*.orig.tar.xz)
    [ "${#tarballs[@]}" -eq 1 ] && [ -f "${tarballs[0]}" ] ||
        fail "expected one upstream tarball in the source package, found: ${tarballs[*]}"
    echo "${tarballs[0]}"
}

# The build lands in $prefix only when complete: installed under a staging root beside
# it, then renamed, so an interrupted build never looks like a cached one.
build() {
    local tarball="$1" prefix="$2"
    staging="$prefix.partial.$$"
    mkdir -p "$work/build"
    tar -xf "$tarball" -C "$work/build" --strip-components=1 || fail "cannot unpack $tarball"
    echo "build-python313: building CPython from $(basename "$tarball") into $prefix" >&2
    (
        cd "$work/build" || exit 1
        ./configure --prefix="$prefix" --without-ensurepip >"$work/configure.log" 2>&1 ||
            { tail -n 40 "$work/configure.log" >&2; exit 1; }
        make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -n 40 "$work/make.log" >&2; exit 1; }
        make install DESTDIR="$staging" >"$work/install.log" 2>&1 || { tail -n 40 "$work/install.log" >&2; exit 1; }
    ) || fail "building CPython failed (the log's tail is above)"
    # A concurrent run may have renamed its identical build into place first.
    mv -T "$staging$prefix" "$prefix" 2>/dev/null || [ -x "$prefix/bin/python3.13" ] ||
        fail "cannot move the build into $prefix"
}

# A missing library leaves its module out of the build without failing it:
# pip needs ssl (PyPI is https) and zlib (wheels), venv needs ensurepip.
smoke_test() {
    "$1" -c 'import ensurepip, ssl, sys, zlib; assert sys.version_info[:2] == (3, 13)'
}

download_source
tarball="$(upstream_tarball)"
key="$(sha256sum "$tarball" | cut -c1-16)"
prefix="${XDG_CACHE_HOME:-$HOME/.cache}/flake8-tensorcopy-ci/python3.13-$key"
mkdir -p "$(dirname "$prefix")"
if [ -x "$prefix/bin/python3.13" ] && smoke_test "$prefix/bin/python3.13" 2>/dev/null; then
    echo "build-python313: reusing the build of $(basename "$tarball") in $prefix" >&2
else
    rm -rf "$prefix"
    build "$tarball" "$prefix"
    smoke_test "$prefix/bin/python3.13" || fail "the built python3.13 lacks ssl, zlib or ensurepip: a build dependency is missing"
fi
echo "$prefix/bin/python3.13"
