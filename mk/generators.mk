# The generator recipes of clients/README.md, run as written (tools/generators/run): each in an empty directory
# with openapi.yaml, its npm packages installed from tools/generators/<recipe>/package-lock.json, against a
# portald built from this tree.

.PHONY: test-generators generators-lock

## test-generators: each generator recipe of clients/README.md, run as written against portald
test-generators:
	GO=$(GO) $(GO) run ./tools/generators/run

## generators-lock: rewrite tools/generators/*/package-lock.json from the recipes' package.json (review the diff)
generators-lock:
	$(GO) run ./tools/generators/run -update-locks

TEST_TARGETS += test-generators
