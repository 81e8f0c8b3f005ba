#!/bin/sh
# go-test-ran.sh PACKAGE TEST: runs the top-level test TEST of PACKAGE, whose
# enabling variable the caller sets, and fails unless it ran and passed. A
# test that skips, or a name that matches no test (go test passes then), is
# no pass: make test counts no skipped test.
set -u
pkg=$1
name=$2
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
"${GO:-go}" test -count=1 -v -run "^${name}\$" "$pkg" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then
	exit "$rc"
fi
if grep -q -- '--- SKIP' "$out"; then
	echo "$pkg $name: a test skipped; make test counts no skipped test" >&2
	exit 1
fi
if ! grep -q -- "^--- PASS: ${name} " "$out"; then
	echo "$pkg $name: no such test ran" >&2
	exit 1
fi
