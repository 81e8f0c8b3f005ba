# README.md's client snippets run as a newcomer runs them (from a directory
# outside the checkout, against portald -tls), and the Python and JavaScript
# request samples of openapi.yaml and emulator.yaml run against the reference
# server; both with the packages of the repository's locks (clients/typescript's
# node_modules, the venv of mk/python.mk, included before this file).

.PHONY: test-readme-clients test-samples-clients node-modules-ts

TEST_TARGETS += test-readme-clients test-samples-clients

node-modules-ts:
	cd clients/typescript && { test -d node_modules || npm ci --no-audit --no-fund --loglevel=error; }

## test-readme-clients: README.md's ArcGIS REST JS and ArcGIS API for Python snippets, each run twice from outside the checkout, and its containers.conf command
test-readme-clients: $(PY_STAMP) node-modules-ts
	PORTAL_TEST_README_CLIENTS=1 GO=$(GO) mk/go-test-ran.sh ./docs/ TestReadmeClientSnippets

## test-samples-clients: run every Python (requests) and JavaScript (ArcGIS REST JS) request sample against the reference server
test-samples-clients: $(PY_STAMP) node-modules-ts
	PORTAL_TEST_SAMPLES=1 GO=$(GO) mk/go-test-ran.sh ./docs/ TestClientSamples
