# Every target installs what it needs: Go modules come from go.mod, npm
# packages from tools/*/package-lock.json (installed once per lock in the
# user's cache: mk/npm-ci.sh).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
REDOCLY := tools/redocly/node_modules/.bin/redocly
SPECTRAL := tools/spectral/node_modules/.bin/spectral
# Targets that need PostgreSQL run under this: the database PORTAL_TEST_POSTGRES
# names, or a throwaway cluster of Debian's postgresql when it is unset.
WITH_POSTGRES := mk/with-postgres.sh

.PHONY: all generate generate-go check lint lint-spec test test-go test-race test-go-side test-clients run bench fuzz tools clean

.DEFAULT_GOAL := all

# Fragments append to these.
TEST_TARGETS := test-go
BENCH_TARGETS := bench-go
include $(sort $(wildcard mk/*.mk))

all: check lint test-go

## generate: rebuild everything derived from openapi.yaml (gen/, docs/, the TypeScript client)
generate: generate-go docs generate-ts

generate-go:
	$(GO) generate ./gen/...

## check: fail when generated code, go.mod or go.sum drift from their sources
check:
	$(GO) generate ./gen/...
	git diff --exit-code -- gen/ || { echo "gen/ is out of date: run 'make generate' and commit"; exit 1; }
	test -z "$$(git status --porcelain -- gen/)" || { git status --porcelain -- gen/; echo "untracked or changed files in gen/"; exit 1; }
	$(GO) mod tidy -diff

$(REDOCLY): tools/redocly/package.json tools/redocly/package-lock.json
	mk/npm-ci.sh tools/redocly
	touch $@

$(SPECTRAL): tools/spectral/package.json tools/spectral/package-lock.json
	mk/npm-ci.sh tools/spectral
	touch $@

tools: $(REDOCLY) $(SPECTRAL)

## lint: go vet, staticcheck (pinned in go.mod) and the OpenAPI linters (pinned in tools/redocly, tools/spectral)
lint: lint-spec
	@files=$$("$$($(GO) env GOROOT)/bin/gofmt" -l $$(git ls-files '*.go')); \
		if [ -n "$$files" ]; then echo "not gofmt-formatted: $$files" >&2; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@# portaltest is imported into tests on macOS and Windows too: the code
	@# built only there (no inode) must compile.
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) vet ./...

## lint-spec: Redocly recommended-strict and Spectral spectral:oas, both with no error and no warning
lint-spec: $(REDOCLY) $(SPECTRAL)
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(REDOCLY) lint openapi.yaml --config tools/redocly/redocly.yaml --format=stylish
	$(SPECTRAL) lint openapi.yaml --ruleset tools/spectral/.spectral.yaml --fail-severity=warn --format=stylish

## test: every check and every test (PostgreSQL: PORTAL_TEST_POSTGRES, or a throwaway cluster)
# Two streams run at once, each one target after another: the linters, the Go
# tests and the generator recipes; and the other test targets, which install
# and drive the clients. They share no file (the npm tools are linked first;
# each stream's servers listen on ports of their own), and the machine's
# second core would otherwise idle while the clients wait on their
# registries. Each stream's output is printed whole when it ends.
test: check tools
	$(WITH_POSTGRES) $(MAKE) --no-print-directory -j2 --output-sync=recurse test-go-side test-clients

test-go-side:
	$(MAKE) --no-print-directory -j1 lint test-go test-race test-generators

test-clients:
	$(MAKE) --no-print-directory -j1 $(filter-out test-go test-generators,$(TEST_TARGETS))

test-go:
	$(WITH_POSTGRES) $(GO) test -count=1 ./...

# The in-process emulator's tests again under the race detector: they drive
# every operation with faults, the clock and the store's goroutines at once;
# and SQLite's group commit, whose writes hand one transaction around.
test-race:
	$(WITH_POSTGRES) $(GO) test -race -count=1 ./portaltest/ ./emulator/
	$(GO) test -race -count=1 -run '^TestGroupCommit' ./server/sqlstore/

## run: the emulator with its embedded store and the demo organization
run:
	$(GO) run ./cmd/portald

## bench: Go benchmarks per operation
bench:
	$(MAKE) --no-print-directory $(BENCH_TARGETS)

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf dist tools/redocly/node_modules tools/spectral/node_modules clients/typescript/node_modules portal.db portal-cert.pem portal-key.pem
