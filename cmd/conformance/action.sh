#!/usr/bin/env bash
# The conformance GitHub Action (action.yml at the repository root) runs
# this script: it builds the conformance CLI from the action's own checkout,
# so that the suite is the one of the ref the workflow names, and runs it.
#
# Its inputs arrive as the CLI's CONFORMANCE_* environment variables, which
# keeps secrets off command lines. CONFORMANCE_JUNIT defaults to
# conformance-junit.xml. On GitHub it also writes the report's path to
# $GITHUB_OUTPUT (output "junit") and the verdict and failed tests to
# $GITHUB_STEP_SUMMARY (summary.sh). Its exit status is the CLI's: 0 passed, 1 a test
# failed, 2 a usage error or a portal that could not be reached.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! command -v go >/dev/null; then
	echo "::error title=conformance::the action builds the conformance CLI with Go, and this job has none: add actions/setup-go before it"
	exit 2
fi
# go.mod names the Go release the CLI needs; an older go fetches it itself
# unless the job forbids that (GOTOOLCHAIN=local).
(cd "$root" && go build -trimpath -o "$work/conformance" ./cmd/conformance)

export CONFORMANCE_JUNIT="${CONFORMANCE_JUNIT:-conformance-junit.xml}"
mkdir -p "$(dirname "$CONFORMANCE_JUNIT")"
status=0
"$work/conformance" | tee "$work/out" || status=$?

if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
	echo "junit=$CONFORMANCE_JUNIT" >>"$GITHUB_OUTPUT"
fi
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
	bash "$root/cmd/conformance/summary.sh" "$status" <"$work/out" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
