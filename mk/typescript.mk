# The TypeScript client in clients/typescript: types generated from openapi.yaml by openapi-typescript,
# openapi-fetch at run time, npm packages pinned by its package-lock.json. Its tests run the client and the
# portal's official JavaScript client against a portald built from this tree.
TS_CLIENT := clients/typescript

.PHONY: generate-ts test-ts

## generate-ts: rebuild clients/typescript/src/{schema.d.ts,operations.gen.ts} from openapi.yaml
generate-ts:
	cd $(TS_CLIENT) && { test -d node_modules || npm ci --no-audit --no-fund --loglevel=error; } && node scripts/generate.mjs

## test-ts: install the pinned packages, fail on generated files out of date, type-check, run the node tests
test-ts:
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	cd $(TS_CLIENT) && node scripts/generate.mjs --check
	cd $(TS_CLIENT) && npm run --silent typecheck
	@# One portald for every test file (the harness would otherwise build one per file).
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		cd $(TS_CLIENT) && PORTALD_BIN="$$tmp/portald" npm test --silent

TEST_TARGETS += test-ts
