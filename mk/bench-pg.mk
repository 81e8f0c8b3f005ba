# The PostgreSQL load run: portald on PostgreSQL beside pgbench running the
# single statement each operation amounts to, on the same database, at
# 1, 16 and 64 clients, alternating, in rounds whose medians are printed as
# ratios against the targets, beside the floor server sending the same
# statements; then two replicas. Load from wrk (Debian's, installed when missing).

.PHONY: bench-pg

BENCH_PG_CLIENTS ?= 1,16,64
BENCH_PG_DURATION ?= 5s
BENCH_PG_ROUNDS ?= 3
BENCH_PG_DB ?= $(or $(PORTAL_TEST_POSTGRES),postgres://postgres@127.0.0.1:5432/test?sslmode=disable)

## bench-pg: portald on PostgreSQL against pgbench (settings/update, settings read), and two replicas
bench-pg:
	@command -v wrk >/dev/null || { apt-get update && apt-get install -y wrk; }
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		$(GO) build -o "$$tmp/floor" ./internal/bench/floor && \
		$(GO) run ./internal/bench/pg -portald "$$tmp/portald" -floor "$$tmp/floor" -db '$(BENCH_PG_DB)' \
			-clients $(BENCH_PG_CLIENTS) -duration $(BENCH_PG_DURATION) -rounds $(BENCH_PG_ROUNDS)
