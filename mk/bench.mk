# The load runs: portald and the bare echo floor server (internal/bench/floor)
# on loopback. bench-wrk compares settings/update on both with wrk, which
# leaves the CPU to the servers; bench-load (the Go load generator) adds
# moveItems latency by batch size, start-up time and memory; bench-signin
# runs sign-ins and settings/update at once on portald. The Go benchmarks per
# operation (internal/bench) run in bench-go with every other benchmark.
# bench-ab (not in make bench: it needs BASE) compares portald built at a
# revision with the working tree's, on SQLite and on PostgreSQL.

.PHONY: bench-wrk bench-load bench-signin bench-ab wrk

BENCH_TARGETS += bench-wrk bench-load bench-signin

WRK_CONNECTIONS ?= 16
WRK_ROUNDS ?= 3
WRK_DURATION ?= 10s
LOAD_WORKERS ?= 8
LOAD_SWEEP ?= 8,32,64
LOAD_DURATION ?= 5s
SIGNIN_DURATION ?= 10s
SIGNIN_ROUNDS ?= 3
# bench-ab: the revision compared with, and its runs on SQLite (wrk) and on
# PostgreSQL (internal/bench/pg -baseline).
BASE ?=
AB_CONNECTIONS ?= 16
# Many short rounds: the median of nine ratios of neighbouring runs moved less than three of 10 s did (0.97
# and 0.88 on the same two builds an hour apart; nine of 5 s: 8 of 9 ratios within 0.85-0.93).
AB_ROUNDS ?= 9
AB_DURATION ?= 5s
AB_PG_CLIENTS ?= 1,16
AB_PG_DURATION ?= 5s

## wrk: install wrk (Debian package) when it is missing
wrk:
	command -v wrk >/dev/null || { apt-get update && apt-get install -y wrk; }

## bench-wrk: settings/update on portald (default flags) against the floor with wrk: throughput, CPU per request, targets
bench-wrk: wrk
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		$(GO) build -o "$$tmp/floor" ./internal/bench/floor && \
		$(GO) build -o "$$tmp/portalload" ./cmd/portalload && \
		"$$tmp/portalload" -wrk -portald "$$tmp/portald" -floor "$$tmp/floor" \
			-connections $(WRK_CONNECTIONS) -rounds $(WRK_ROUNDS) -duration $(WRK_DURATION)

## bench-load: throughput against the floor, moveItems latency by batch size, start-up time, memory
bench-load:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		$(GO) build -o "$$tmp/floor" ./internal/bench/floor && \
		$(GO) build -o "$$tmp/portalload" ./cmd/portalload && \
		"$$tmp/portalload" -report -portald "$$tmp/portald" -floor "$$tmp/floor" \
			-workers $(LOAD_WORKERS) -sweep $(LOAD_SWEEP) -duration $(LOAD_DURATION)

## bench-signin: sign-ins (8 wrk connections) and settings/update (2) at once on portald's SQLite: the writes' share and p99, targets
bench-signin: wrk
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		$(GO) build -o "$$tmp/portalload" ./cmd/portalload && \
		"$$tmp/portalload" -signin -portald "$$tmp/portald" -duration $(SIGNIN_DURATION) -rounds $(SIGNIN_ROUNDS)

## bench-ab: BASE=<git rev>: portald built at BASE against the working tree's, alternating, settings/update on SQLite and PostgreSQL: new ÷ base ≥ 0.95
bench-ab: wrk
	@test -n "$(BASE)" || { echo "bench-ab: name the revision to compare with: make bench-ab BASE=<git rev>" >&2; exit 2; }
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		rev=$$(git rev-parse --verify --quiet "$(BASE)^{commit}") && \
		mkdir "$$tmp/base" && git archive "$$rev" | tar -x -C "$$tmp/base" && \
		(cd "$$tmp/base" && $(GO) build -o "$$tmp/portald-base" ./cmd/portald) && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		$(GO) build -o "$$tmp/portalload" ./cmd/portalload && \
		$(GO) build -o "$$tmp/bench-pg" ./internal/bench/pg && \
		dirty=$$(git diff --quiet HEAD -- || echo ", with uncommitted changes") && \
		echo "bench-ab: base $$(git rev-parse --short "$$rev") ($(BASE)); new the working tree at $$(git rev-parse --short HEAD)$$dirty" && \
		echo && \
		"$$tmp/portalload" -wrk -portald "$$tmp/portald" -baseline "$$tmp/portald-base" \
			-connections $(AB_CONNECTIONS) -rounds $(AB_ROUNDS) -duration $(AB_DURATION) && \
		echo && \
		$(WITH_POSTGRES) "$$tmp/bench-pg" -portald "$$tmp/portald" -baseline "$$tmp/portald-base" \
			-clients $(AB_PG_CLIENTS) -duration $(AB_PG_DURATION) -rounds $(AB_ROUNDS)
