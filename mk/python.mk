# The ArcGIS API for Python, unmodified, against portald over HTTPS: pytest tests in clients/official/python,
# the client and pytest installed from the hashed lock requirements.txt (shared with the pip-package examples)
# into a virtual environment, .build/python/venv. That is a link to one made once per lock in the user's cache
# directory (named by the lock's hash, complete when it holds .complete), so that a fresh clone of the same
# lock, as CI makes, does not install arcgis again.

PY_CLIENT := clients/official/python
PYTHON ?= python3
PY_VENV := .build/python/venv
PY_STAMP := .build/python/venv.stamp
PY_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/portal-api
PY_VENV_CACHED = $(PY_CACHE)/venv-$(shell sha256sum $(PY_CLIENT)/requirements.txt | cut -c1-16)

.PHONY: tools-python test-python-official

TEST_TARGETS += test-python-official

# arcgis 2.4.3 needs Python 3.11 to 3.14; Debian 12's python3 is 3.11, venv and ensurepip come with python3-venv.
tools-python:
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-venv; }

$(PY_STAMP): $(PY_CLIENT)/requirements.txt
	$(MAKE) --no-print-directory tools-python
	venv='$(PY_VENV_CACHED)'; \
	if [ ! -f "$$venv/.complete" ]; then \
		rm -rf "$$venv" && $(PYTHON) -m venv "$$venv" && \
		"$$venv/bin/pip" install --quiet --disable-pip-version-check --no-input --require-hashes -r $< && \
		"$$venv/bin/pip" check && touch "$$venv/.complete"; \
	fi && \
	rm -rf $(PY_VENV) && mkdir -p $(dir $(PY_VENV)) && ln -s "$$venv" $(PY_VENV)
	touch $@

## test-python-official: the ArcGIS API for Python 2.4.3 (pinned with hashes) signs in every way and runs its calls against portald -tls
test-python-official: $(PY_STAMP)
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		cd $(PY_CLIENT) && PORTALD_BIN="$$tmp/portald" $(CURDIR)/$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -v -rfEs tests
