# portald for Python and JavaScript test suites: a wheel per platform carrying the binary, with a pytest
# plugin (packages/python), and an npm package whose per-platform packages carry it (packages/npm). The
# binaries are built as the release's are (CGO_ENABLED=0, -trimpath, BUILD_LDFLAGS of mk/release.mk); the
# wheels are written by packages/python/build_wheel.py with the standard library, without network.
# test-wheel installs the host's wheel into a new virtualenv with --no-index and runs the package's own
# tests and an example suite with the ArcGIS API for Python (clients/official/python/requirements.txt);
# test-npm installs the packed tarballs into an empty directory and runs an example with ArcGIS REST JS.
# Both first check the host's artifacts as release-check checks all of them (packages/check_artifacts.py
# --partial): the repository's LICENSE in each, the metadata naming it. Each also runs the unit test of the
# version its builder writes (packages/python/test_build_wheel.py, packages/npm/pack.test.mjs): both map
# git describe's version alike, by the cases of packages/version_cases.json.

.PHONY: wheel wheel-host test-wheel npm-pack npm-pack-host test-npm release-check bench-packages

TEST_TARGETS += test-wheel test-npm
BENCH_TARGETS += bench-packages

PKG_OUT := build/packages
PKG_PY := packages/python
PKG_NPM := packages/npm
PKG_PLATFORMS := linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64
PKG_HOST := $(shell $(GO) env GOOS)-$(shell $(GO) env GOARCH)
PKG_PYTHON ?= python3
PKG_PY_LOCK := clients/official/python/requirements.txt
# Kept between runs: pip download fetches only what is missing. python3 with venv: tools-python (mk/python.mk).
PKG_WHEELHOUSE := $(PKG_OUT)/wheelhouse

# $(1): GOOS-GOARCH; the binary lands in $(PKG_OUT)/bin/GOOS-GOARCH/.
define pkg-build-bin
plat=$(1); os=$${plat%-*}; arch=$${plat#*-}; exe=portald; [ "$$os" = windows ] && exe=portald.exe; \
mkdir -p $(PKG_OUT)/bin/$$plat && \
CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(BUILD_LDFLAGS)' -o $(PKG_OUT)/bin/$$plat/$$exe ./cmd/portald
endef

# $(1): GOOS-GOARCH
define pkg-build-wheel
$(call pkg-build-bin,$(1)) && \
$(PKG_PYTHON) $(PKG_PY)/build_wheel.py --binary $(PKG_OUT)/bin/$(1)/$$exe --platform $(1) --version '$(BUILD_VERSION)' --out $(PKG_OUT)/python
endef

## wheel: the portald wheels of the five platforms in build/packages/python
wheel:
	rm -rf $(PKG_OUT)/python
	$(foreach p,$(PKG_PLATFORMS),$(call pkg-build-wheel,$(p)) &&) true

## wheel-host: the portald wheel of this machine only
wheel-host:
	rm -rf $(PKG_OUT)/python
	$(call pkg-build-wheel,$(PKG_HOST))

## test-wheel: the host's wheel in a new virtualenv (no index), its tests and the ArcGIS API for Python example; build_wheel.py's versions
test-wheel: wheel-host tools-python
	$(PKG_PYTHON) packages/check_artifacts.py --partial $(PKG_OUT)/python
	$(PKG_PYTHON) -m pip download --disable-pip-version-check --quiet --require-hashes -r $(PKG_PY_LOCK) -d $(PKG_WHEELHOUSE)
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PKG_PYTHON) -m venv "$$tmp/venv" && py="$$tmp/venv/bin/python" && \
	"$$py" -m pip install --disable-pip-version-check --quiet --no-index --find-links $(PKG_WHEELHOUSE) --require-hashes -r $(PKG_PY_LOCK) && \
	"$$py" -m pip install --disable-pip-version-check --quiet --no-index --find-links $(PKG_OUT)/python portald && \
	"$$py" -m pytest -p no:cacheprovider -rs --strict-markers $(PKG_PY)/test_build_wheel.py | tee "$$tmp/out" && \
	cp -r $(PKG_PY)/tests $(PKG_PY)/example "$$tmp/" && cd "$$tmp" && unset PORTALD_BIN && \
	"$$py" -m pytest -p no:cacheprovider -rs --strict-markers tests | tee -a "$$tmp/out" && \
	( cd example && "$$py" -m pytest -rs --strict-markers . ) | tee -a "$$tmp/out" && \
	{ ! grep -q ' skipped' "$$tmp/out" || { echo "test-wheel: a test skipped; make test counts no skipped test" >&2; exit 1; }; }

# $(1): GOOS-GOARCH list (space-separated); $(2): --main or nothing
define pkg-npm-pack
$(foreach p,$(1),$(call pkg-build-bin,$(p)) &&) \
node $(PKG_NPM)/pack.mjs --version '$(BUILD_VERSION)' --bins $(PKG_OUT)/bin --out $(PKG_OUT)/npm \
  --platforms $(subst $(pkg-space),$(pkg-comma),$(strip $(1))) $(2)
endef
pkg-comma := ,
pkg-space := $(subst ,, )

## npm-pack: the npm tarballs, portald and its five platform packages, in build/packages/npm
npm-pack:
	rm -rf $(PKG_OUT)/npm
	$(call pkg-npm-pack,$(PKG_PLATFORMS),--main)

## npm-pack-host: the npm tarballs of portald and this machine's platform package
npm-pack-host:
	rm -rf $(PKG_OUT)/npm
	$(call pkg-npm-pack,$(PKG_HOST),--main)

## test-npm: the packed tarballs installed into an empty directory; an example with ArcGIS REST JS, node:test; pack.mjs's versions
test-npm: npm-pack-host
	$(PKG_PYTHON) packages/check_artifacts.py --partial $(PKG_OUT)/npm
	node --test $(PKG_NPM)/pack.test.mjs
	cd $(TS_CLIENT) && { test -x node_modules/.bin/tsc || npm ci --no-audit --no-fund --loglevel=error; }
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cp $(PKG_NPM)/example/package.json $(PKG_NPM)/example/package-lock.json $(PKG_NPM)/example/typecheck.ts \
	  $(PKG_NPM)/example/tsconfig.json "$$tmp/" && cp -r $(PKG_NPM)/example/test "$$tmp/" && \
	tsc="$(CURDIR)/$(TS_CLIENT)/node_modules/.bin/tsc" && types="$(CURDIR)/$(TS_CLIENT)/node_modules/@types" && \
	cd "$$tmp" && npm ci --no-audit --no-fund --loglevel=error && \
	npm install --no-save --no-audit --no-fund --loglevel=error $(CURDIR)/$(PKG_OUT)/npm/*.tgz && \
	unset PORTALD_BIN && npx --no-install portald -h >"$$tmp/usage" && grep -q '^Usage: portald' "$$tmp/usage" && \
	"$$tsc" -p . --typeRoots "$$types" && \
	node --test --test-reporter=spec | tee "$$tmp/out" && \
	grep -q '^ℹ skipped 0$$' "$$tmp/out" && grep -q '^ℹ fail 0$$' "$$tmp/out"

## release-check: every wheel and npm tarball built as a release builds them, then checked (check_artifacts.py)
release-check: wheel npm-pack
	$(PKG_PYTHON) packages/check_artifacts.py $(PKG_OUT)/python $(PKG_OUT)/npm

## bench-packages: what a suite pays through the Python and npm packages: portald's start, and going back between tests
bench-packages:
	$(call pkg-build-bin,$(PKG_HOST))
	PORTALD_BIN=$(PKG_OUT)/bin/$(PKG_HOST)/portald PYTHONPATH=$(PKG_PY) $(PKG_PYTHON) $(PKG_PY)/bench.py
	PORTALD_BIN=$(PKG_OUT)/bin/$(PKG_HOST)/portald node $(PKG_NPM)/bench.mjs
