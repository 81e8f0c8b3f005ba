# The ArcGIS API for Python, unmodified, against portald over HTTPS: pytest tests in clients/official/python,
# the client and pytest installed from the hashed lock requirements.txt (shared with the pip-package examples)
# into a virtual environment under .build/, made again only when the lock changes.

PY_CLIENT := clients/official/python
PYTHON ?= python3
PY_VENV := .build/python/venv
PY_STAMP := .build/python/venv.stamp

.PHONY: tools-python test-python-official

TEST_TARGETS += test-python-official

# arcgis 2.4.3 needs Python 3.11 to 3.14; Debian 12's python3 is 3.11, venv and ensurepip come with python3-venv.
tools-python:
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-venv; }

$(PY_STAMP): $(PY_CLIENT)/requirements.txt
	$(MAKE) --no-print-directory tools-python
	rm -rf $(PY_VENV)
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/pip install --quiet --disable-pip-version-check --no-input --require-hashes -r $<
	$(PY_VENV)/bin/pip check
	touch $@

## test-python-official: the ArcGIS API for Python 2.4.3 (pinned with hashes) signs in every way and runs its calls against portald -tls
test-python-official: $(PY_STAMP)
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
		$(GO) build -o "$$tmp/portald" ./cmd/portald && \
		cd $(PY_CLIENT) && PORTALD_BIN="$$tmp/portald" $(CURDIR)/$(PY_VENV)/bin/python -m pytest -p no:cacheprovider -v -rfEs tests
