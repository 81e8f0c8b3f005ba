# The load runs: portald and the bare echo floor server (internal/bench/floor)
# on loopback. bench-wrk compares settings/update on both with wrk, which
# leaves the CPU to the servers; bench-load (the Go load generator) adds
# moveItems latency by batch size, start-up time and memory. The Go
# benchmarks per operation (internal/bench) run in bench-go with every other
# benchmark.

.PHONY: bench-wrk bench-load wrk

BENCH_TARGETS += bench-wrk bench-load

WRK_CONNECTIONS ?= 16
WRK_ROUNDS ?= 3
WRK_DURATION ?= 10s
LOAD_WORKERS ?= 8
LOAD_SWEEP ?= 8,32,64
LOAD_DURATION ?= 5s

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
