# README.md's client snippets run as a newcomer runs them (from a directory
# outside the checkout, against portald -tls), its other blocks likewise or
# listed with why they cannot run here (docs/readme_snippets_test.go), and the Python and JavaScript
# request samples of openapi.yaml and emulator.yaml run against the reference
# server; both with the packages of the repository's locks (clients/typescript's
# node_modules, the venv of mk/python.mk, included before this file).

.PHONY: test-readme-clients test-readme-snippets test-samples-clients node-modules-ts

TEST_TARGETS += test-readme-clients test-readme-snippets test-samples-clients

node-modules-ts:
	cd clients/typescript && { test -d node_modules || npm ci --no-audit --no-fund --loglevel=error; }

## test-readme-clients: README.md's ArcGIS REST JS and ArcGIS API for Python snippets, each run twice from outside the checkout, and its containers.conf command
test-readme-clients: $(PY_STAMP) node-modules-ts
	PORTAL_TEST_README_CLIENTS=1 GO=$(GO) mk/go-test-ran.sh ./docs/ TestReadmeClientSnippets

## test-readme-snippets: every other block of README.md run from outside the checkout (the pip and npm packages' examples with the host's wheel and tarballs), or listed with why it cannot run here
test-readme-snippets: $(PY_STAMP) wheel-host npm-pack-host tools-podman
	PORTAL_TEST_README_SNIPPETS=1 GO=$(GO) $(WITH_POSTGRES) mk/go-test-ran.sh ./docs/ TestReadmeSnippets

## test-samples-clients: run every Python (requests) and JavaScript (ArcGIS REST JS) request sample against the reference server
test-samples-clients: $(PY_STAMP) node-modules-ts
	PORTAL_TEST_SAMPLES=1 GO=$(GO) mk/go-test-ran.sh ./docs/ TestClientSamples
