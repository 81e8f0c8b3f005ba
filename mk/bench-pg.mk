# The PostgreSQL load run: portald on PostgreSQL beside pgbench running the
# single statement each operation amounts to, on the same database, at
# 1, 16 and 64 clients, alternating, in rounds whose medians are printed as
# ratios against the targets, beside the floor server sending the same
# statements; then two replicas. Load from wrk (Debian's, installed when missing).

.PHONY: bench-pg bench-pg-run

BENCH_PG_CLIENTS ?= 1,16,64
BENCH_PG_DURATION ?= 5s
BENCH_PG_ROUNDS ?= 3

## bench-pg: portald on PostgreSQL against pgbench (settings/update, settings read), and two replicas
bench-pg: wrk
	$(WITH_POSTGRES) $(MAKE) --no-print-directory bench-pg-run

bench-pg-run:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		$(GO) build -o "$$tmp/floor" ./internal/bench/floor && \
		$(GO) run ./internal/bench/pg -portald "$$tmp/portald" -floor "$$tmp/floor" -db "$$PORTAL_TEST_POSTGRES" \
			-clients $(BENCH_PG_CLIENTS) -duration $(BENCH_PG_DURATION) -rounds $(BENCH_PG_ROUNDS)
