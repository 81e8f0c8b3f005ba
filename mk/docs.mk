# Reference documentation (docs/reference.html, built by Redocly from
# openapi.yaml) and the breaking-change gate against the last release.

.PHONY: docs check-docs test-docs test-samples-ts tools-chromium check-breaking test-breaking changelog-api

TEST_TARGETS += check-docs test-docs test-samples-ts check-breaking test-breaking

CHROMIUM := /usr/bin/chromium
# No usage data and no update check: a build must not depend on the network.
REDOCLY_ENV := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
# bundle applies the decorators of tools/redocly/redocly.yaml (the version,
# deployments and privileges written into descriptions; form examples as the
# text sent), which build-docs does not; build-docs renders with the options
# and template of redocly.yaml and writes a page that loads Redoc from a CDN,
# and inline-redoc.mjs inlines the pinned bundle instead. $(1) is the output
# file.
define build-docs
tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
$(REDOCLY_ENV) $(REDOCLY) bundle openapi.yaml --config tools/redocly/redocly.yaml \
  --output "$$tmp/openapi.yaml" >"$$tmp/log" 2>&1 || { cat "$$tmp/log"; exit 1; }; \
$(REDOCLY_ENV) $(REDOCLY) build-docs "$$tmp/openapi.yaml" --config tools/redocly/redocly.yaml \
  --output "$$tmp/redoc.html" >"$$tmp/log" 2>&1 || { cat "$$tmp/log"; exit 1; }; \
node tools/redocly/inline-redoc.mjs "$$tmp/redoc.html" $(1)
endef

## docs: rebuild docs/reference.html from openapi.yaml
docs: $(REDOCLY)
	@$(call build-docs,docs/reference.html)
	@echo "docs/reference.html: $$(wc -c <docs/reference.html) bytes"

## check-docs: fail when docs/reference.html differs from a fresh build
check-docs: $(REDOCLY)
	@out=$$(mktemp); trap 'rm -f "$$out"' EXIT; \
	( $(call build-docs,"$$out") ); \
	cmp -s "$$out" docs/reference.html || { echo "docs/reference.html is out of date: run 'make docs' and commit"; exit 1; }

tools-chromium:
	@test -x $(CHROMIUM) || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

## test-samples-ts: type-check the TypeScript x-codeSamples of openapi.yaml and emulator.yaml against clients/typescript
test-samples-ts:
	cd clients/typescript && { test -d node_modules || npm ci --no-audit --no-fund --loglevel=error; }
	node docs/check-ts-samples.mjs

## test-docs: load /docs and /docs/emulator in headless Chromium: no console error, no request to another origin, every payload sample sent as shown
test-docs: tools-chromium
	PORTAL_TEST_BROWSER=1 GO=$(GO) mk/go-test-ran.sh ./docs/ TestDocsInBrowser

# The gate and oasdiff live in their own module (tools/oasdiff): oasdiff pins
# a kin-openapi older than the server's.
OASDIFF_GO := $(GO) -C tools/oasdiff
# Findings accepted in a minor release, each with its reason.
OASDIFF_CMD := go tool oasdiff --err-ignore=$(CURDIR)/api/released/accepted-breaking.txt

## check-breaking: fail on a breaking change since the last release unless the major of info.version was raised
check-breaking:
	$(OASDIFF_GO) run ./checkbreaking -oasdiff "$(OASDIFF_CMD)" -released $(CURDIR)/api/released $(CURDIR)/openapi.yaml

## changelog-api: write CHANGELOG-api.md, the changes since the last release
changelog-api:
	$(OASDIFF_GO) run ./checkbreaking -oasdiff "$(OASDIFF_CMD)" -released $(CURDIR)/api/released -changelog $(CURDIR)/CHANGELOG-api.md $(CURDIR)/openapi.yaml

## test-breaking: the gate's own tests, vet and staticcheck (the top-level lint does not see this module)
test-breaking:
	staticcheck=$$($(GO) tool -n staticcheck); \
	$(OASDIFF_GO) mod tidy -diff; \
	$(OASDIFF_GO) vet ./...; \
	( cd tools/oasdiff && "$$staticcheck" ./... ); \
	$(OASDIFF_GO) test -count=1 ./...
