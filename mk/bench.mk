# The load run: portald on a temporary SQLite file and the bare echo floor
# server (internal/bench/floor), measured side by side on loopback by
# cmd/portalload, which prints one table. The Go benchmarks per operation
# (internal/bench) run in bench-go with every other benchmark.

.PHONY: bench-load

BENCH_TARGETS += bench-load

LOAD_WORKERS ?= 8
LOAD_SWEEP ?= 8,32,64
LOAD_DURATION ?= 5s

## bench-load: throughput against the floor, moveItems latency by batch size, start-up time, memory
bench-load:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		$(GO) build -o "$$tmp/floor" ./internal/bench/floor && \
		$(GO) build -o "$$tmp/portalload" ./cmd/portalload && \
		"$$tmp/portalload" -report -portald "$$tmp/portald" -floor "$$tmp/floor" \
			-workers $(LOAD_WORKERS) -sweep $(LOAD_SWEEP) -duration $(LOAD_DURATION)
