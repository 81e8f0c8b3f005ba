# Fuzzing: the form and JSON decoding of the operations (server/api), the search query parser and the
# member category schema rules (server). Seeds come from f.Add and from the
# committed corpora in testdata/fuzz/; a plain `go test` replays both.

.PHONY: fuzz test-fuzz-short

TEST_TARGETS += test-fuzz-short

FUZZTIME ?= 30s
# The short run counts executions, not seconds: a duration races the fuzz
# coordinator's deadline in some Go releases and fails for no reason.
FUZZTIME_SHORT ?= 2000x
# package:target pairs; go test fuzzes one target of one package at a time.
FUZZ_TARGETS := ./server/api:FuzzFormDecode ./server:FuzzCategorySchema ./server:FuzzParseQuery

# $(1): the fuzz time; $(2): arguments to the test binary.
define run-fuzz
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$name ($$pkg) for $(1)"; \
	  $(GO) test -run "^$$name\$$" -fuzz "^$$name\$$" -fuzztime $(1) $$pkg $(2) || exit 1; \
	done
endef

## fuzz: run each fuzz target for FUZZTIME (default 30s)
fuzz:
	$(call run-fuzz,$(FUZZTIME))

# The short run starts from the seeds and testdata/fuzz alone, not from the inputs that earlier runs on this
# machine left in the Go cache: replaying those first (353 for FuzzFormDecode here, growing with every run)
# took longer than the 2000 executions, and made the run depend on the machine's history. The testing
# package's -test.fuzzcachedir (which go test sets to the cache's directory) names an empty directory instead.
## test-fuzz-short: each fuzz target for FUZZTIME_SHORT (default 2000 executions) from its seeds, part of make test
test-fuzz-short:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(MAKE) --no-print-directory fuzz-short-in FUZZ_CACHE="$$tmp"

.PHONY: fuzz-short-in
fuzz-short-in:
	$(call run-fuzz,$(FUZZTIME_SHORT),-args -test.fuzzcachedir=$(FUZZ_CACHE))
