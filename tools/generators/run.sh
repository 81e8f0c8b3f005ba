#!/usr/bin/env bash
# Runs each named generator's check against one portald built from this tree (a free loopback port, an
# in-memory store, the demo organization restored before each check). A generator is a directory here:
# with a package.json, `npm run generate`, `npm run build` (a strict tsc) and `npm run check`; with a
# go.mod, `go generate ./...`, `go mod tidy -diff` (the module depends on this tree, whose requirements
# move), `go vet -unreachable=false ./...` (ogen writes unreachable code) and `go run .`. Each check reads
# the REST root from $PORTAL_BASE. Usage: run.sh GENERATOR...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
go=${GO:-go}

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$root" && "$go" build -o "$tmp/portald" ./cmd/portald)
mkfifo "$tmp/stdout"
"$tmp/portald" -addr 127.0.0.1:0 -db :memory: -log-level warn >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
exec 3<"$tmp/stdout"
# The first line names the REST root: "portald listening on ADDR, API at URL, ...".
read -r line <&3 || { cat "$tmp/stderr" >&2; echo "portald did not start" >&2; exit 1; }
cat <&3 >/dev/null &
base=$(sed -n 's/.* API at \(http:[^,]*\),.*/\1/p' <<<"$line")
[ -n "$base" ] || { echo "unexpected portald start-up line: $line" >&2; exit 1; }
origin=${base%/sharing/rest}

failed=()
for g in "$@"; do
  echo "== $g"
  dir=$here/$g
  curl -fsS -X POST -H 'Content-Type: application/json' "$origin/emulator/reset" >/dev/null
  rm -rf "$dir/gen" "$dir/build"
  if [ -f "$dir/package.json" ]; then
    step() { (cd "$dir" && npm run --silent generate && npm run --silent build && PORTAL_BASE=$base npm run --silent check); }
  else
    step() { (cd "$dir" && "$go" generate ./... && "$go" mod tidy -diff && "$go" vet -unreachable=false ./... && PORTAL_BASE=$base "$go" run .); }
  fi
  step || failed+=("$g")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAIL: ${failed[*]} ($(( $# - ${#failed[@]} )) of $# generators pass)" >&2
  exit 1
fi
echo "PASS: $# of $# generators"
