#!/usr/bin/env bash
# summary.sh STATUS < OUTPUT: the Markdown job summary of one run of the
# conformance CLI, from its output and exit status (action.sh appends it to
# $GITHUB_STEP_SUMMARY): the verdict line, then each failed test once, by
# name.
#
# The CLI prints a line per test as it ends ("FAIL    name (12ms)", padded
# and timed, groups included: a group fails when a test in it fails), and
# then its summary, which names each failed test once ("FAIL name", its
# errors indented below) and a group only for a failure of its own, such as
# a setup that failed. The summary's lines are the ones listed here.
set -euo pipefail

status=${1:?usage: summary.sh STATUS < OUTPUT}
out=$(cat)

echo "### Portal API conformance"
echo
# The CLI's last line: PASS or FAIL, the counts, the time, the portal.
if verdict=$(grep -E '^(PASS|FAIL): ' <<<"$out" | tail -n 1); then
	echo "$verdict"
else
	echo "The suite did not run (exit status $status): see the step's log."
fi
failed=$(sed -n 's/^FAIL \([^ ].*\)$/\1/p' <<<"$out" | awk '!seen[$0]++')
if [[ -n "$failed" ]]; then
	echo
	echo "Failed:"
	echo
	while IFS= read -r name; do
		# shellcheck disable=SC2016 # Markdown's backquotes, not a command
		printf -- '- `%s`\n' "$name"
	done <<<"$failed"
fi
