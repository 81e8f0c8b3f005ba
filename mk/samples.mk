# README.md's client snippets run as a newcomer runs them: from a directory
# outside the checkout, against portald -tls, with the packages of the
# repository's locks (clients/typescript's node_modules, the venv of
# mk/python.mk, included before this file).

.PHONY: test-readme-clients

TEST_TARGETS += test-readme-clients

## test-readme-clients: README.md's ArcGIS REST JS and ArcGIS API for Python snippets, each run twice from outside the checkout, and its containers.conf command
test-readme-clients: $(PY_STAMP)
	cd clients/typescript && { test -d node_modules || npm ci --no-audit --no-fund --loglevel=error; }
	PORTAL_TEST_README_CLIENTS=1 GO=$(GO) mk/go-test-ran.sh ./docs/ TestReadmeClientSnippets
