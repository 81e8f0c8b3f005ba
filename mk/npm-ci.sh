#!/usr/bin/env bash
# npm-ci.sh DIR: DIR/node_modules as `npm ci` makes it from DIR's lockfile,
# made once per lockfile (and Node.js version) in the user's cache and linked
# into DIR, so that a fresh clone with the same lock does not install again.
set -euo pipefail
dir=$1
key=$( { cat "$dir/package.json" "$dir/package-lock.json"; node --version; } | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/portal-api/npm/$(basename "$dir")-$key
if [ ! -f "$cache/.complete" ]; then
	rm -rf "$cache" "$dir/node_modules"
	mkdir -p "$cache"
	cp "$dir/package.json" "$dir/package-lock.json" "$cache/"
	(cd "$cache" && npm ci --no-audit --no-fund --loglevel=error)
	touch "$cache/.complete"
fi
rm -rf "$dir/node_modules"
ln -s "$cache/node_modules" "$dir/node_modules"
