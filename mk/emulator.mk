# The emulator's own contract, emulator.yaml: its reference page (docs/emulator.html, served at
# /docs/emulator), its lint, its breaking-change gate against the released copy, and the TypeScript types
# generated from it. Its Go client (gen/emulatorapi) is rebuilt by `make generate-go` and checked by
# `make check` with the rest of gen/.

.PHONY: docs-emulator check-docs-emulator lint-emulator check-breaking-emulator generate-ts-emulator check-ts-emulator

TEST_TARGETS += check-docs-emulator check-breaking-emulator check-ts-emulator

# `make lint` lints emulator.yaml with the same tools and rules as openapi.yaml.
lint: lint-emulator

EMULATOR_SPEC := emulator.yaml
EMULATOR_RELEASED := api/released/emulator-1.0.0.yaml

# $(1) is the output file; the same inlining as docs/reference.html.
define build-emulator-docs
tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
$(REDOCLY_ENV) $(REDOCLY) build-docs $(EMULATOR_SPEC) --config tools/redocly/redocly.yaml \
  --output "$$tmp/redoc.html" >"$$tmp/log" 2>&1 || { cat "$$tmp/log"; exit 1; }; \
node tools/redocly/inline-redoc.mjs "$$tmp/redoc.html" $(1)
endef

# `make docs` and `make generate-ts` rebuild the emulator's page and types too.
docs: docs-emulator
generate-ts: generate-ts-emulator

## docs-emulator: rebuild docs/emulator.html from emulator.yaml
docs-emulator: $(REDOCLY)
	@$(call build-emulator-docs,docs/emulator.html)
	@echo "docs/emulator.html: $$(wc -c <docs/emulator.html) bytes"

## check-docs-emulator: fail when docs/emulator.html differs from a fresh build
check-docs-emulator: $(REDOCLY)
	@out=$$(mktemp); trap 'rm -f "$$out"' EXIT; \
	( $(call build-emulator-docs,"$$out") ); \
	cmp -s "$$out" docs/emulator.html || { echo "docs/emulator.html is out of date: run 'make docs-emulator' and commit"; exit 1; }

## lint-emulator: Redocly and Spectral on emulator.yaml, with the rules of openapi.yaml
lint-emulator: $(REDOCLY) $(SPECTRAL)
	$(REDOCLY_ENV) $(REDOCLY) lint $(EMULATOR_SPEC) --config tools/redocly/redocly.yaml --format=stylish
	$(SPECTRAL) lint $(EMULATOR_SPEC) --ruleset tools/spectral/.spectral.yaml --fail-severity=warn --format=stylish

## check-breaking-emulator: fail on a breaking change of emulator.yaml since its release unless its major was raised
check-breaking-emulator:
	$(OASDIFF_GO) run ./checkbreaking -released $(CURDIR)/$(EMULATOR_RELEASED) $(CURDIR)/$(EMULATOR_SPEC)

## generate-ts-emulator: rebuild clients/typescript/src/emulator.gen.ts from emulator.yaml
generate-ts-emulator:
	cd $(TS_CLIENT) && { test -d node_modules || npm ci --no-audit --no-fund --loglevel=error; } && node scripts/generate-emulator.mjs

## check-ts-emulator: fail when clients/typescript/src/emulator.gen.ts is out of date
check-ts-emulator:
	cd $(TS_CLIENT) && { test -d node_modules || npm ci --no-audit --no-fund --loglevel=error; } && node scripts/generate-emulator.mjs --check
