# The portal's own clients, unmodified, against portald over HTTPS. ArcGIS REST JS 4.10.2
# (clients/typescript/test/official.test.ts, run by test-ts) signs in every way it can, a person signing in
# on the portal's page in Debian's Chromium, which trusts portald's certificate through an NSS database
# (certutil). The ArcGIS API for Python 2.4.3 signs in every way it can and runs its calls
# (clients/official/python, pytest, run by test-python-official of mk/python.mk).

.PHONY: test-official

# The browser and certutil, before the TypeScript tests run.
test-ts: tools-chromium tools-nss

## test-official: only the portal's own clients against portald over HTTPS (REST JS with Chromium, the ArcGIS API for Python)
test-official: tools-chromium tools-nss test-python-official
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		cd $(TS_CLIENT) && PORTALD_BIN="$$tmp/portald" node --test build/test/official.test.js
