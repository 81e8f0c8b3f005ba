#!/usr/bin/env bash
# with-postgres.sh COMMAND...: runs COMMAND with PORTAL_TEST_POSTGRES naming a
# PostgreSQL database. Set, the variable is used as it is. Unset, a throwaway
# cluster is made from Debian's postgresql (installed when missing): initdb
# into a temporary directory, trust auth, loopback on a free port, database
# `test`; stopped and removed when COMMAND ends, whatever its outcome.
set -euo pipefail

if [ -n "${PORTAL_TEST_POSTGRES:-}" ]; then
	exec "$@"
fi

# The newest of Debian's installed major versions.
bindir() {
	local d
	d=$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
	[ -x "$d" ] && dirname "$d"
}
bin=$(bindir || true)
if [ -z "$bin" ]; then
	echo "with-postgres: installing Debian's postgresql" >&2
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
	bin=$(bindir)
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/portal-pg.XXXXXX")
# initdb and postgres refuse to run as root: as root the cluster belongs to
# the postgres user the package made.
as=()
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$dir"
	as=(runuser -u postgres --)
fi
stop() {
	"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap stop EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${as[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
# max_connections for
# the bench's 64 clients beside pgbench's and the tests' pools.
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
	-o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=300" \
	start >/dev/null || { cat "$dir/log" >&2; exit 1; }
"${as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres test

export PORTAL_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/test?sslmode=disable"
echo "with-postgres: a throwaway PostgreSQL at $PORTAL_TEST_POSTGRES" >&2
# PATH gets the cluster's tools (pgbench for make bench-pg).
PATH="$bin:$PATH" "$@"
