# Clients generated from openapi.yaml by the generators people use (tools/generators/*, each pinned by its
# package-lock.json or go.mod), type-checked strictly and run with the recipe clients/README.md shows against a
# portald built from this tree.
GENERATORS_DIR := tools/generators
GENERATORS_NPM := hey-api orval openapi-typescript-codegen openapi-fetch
GENERATORS_GO := ogen oapi-codegen

.PHONY: test-generators

## test-generators: each generator's client, from openapi.yaml, against portald
test-generators: $(foreach g,$(GENERATORS_NPM),$(GENERATORS_DIR)/$(g)/node_modules/.installed)
	GO=$(GO) $(GENERATORS_DIR)/run.sh $(GENERATORS_NPM) $(GENERATORS_GO)

$(GENERATORS_DIR)/%/node_modules/.installed: $(GENERATORS_DIR)/%/package.json $(GENERATORS_DIR)/%/package-lock.json
	cd $(GENERATORS_DIR)/$* && npm ci --no-audit --no-fund --loglevel=error
	touch $@

TEST_TARGETS += test-generators
