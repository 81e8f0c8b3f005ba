# Release builds and the lint of what ships them. The version and revision
# written into portald and the conformance CLI (internal/buildinfo); the
# release binaries and their checksums (.goreleaser.yaml); and lint-release,
# part of make lint: goreleaser check, actionlint on .github/workflows (which
# checks action.yml's metadata through the CI job that uses it, not its
# steps) with shellcheck on their run: scripts, and shellcheck on every *.sh.

.PHONY: lint-release release release-snapshot tools-shellcheck

# Both run with go run at a pinned version: their modules stay out of go.mod,
# and go caches the built tool, so only a machine's first run builds it.
GORELEASER := $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1
ACTIONLINT := $(GO) run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

# Each asks git once, at its first use, then keeps the answer (the $(eval) makes it a simple variable): a
# recursive variable would ask again at every reference, and the binaries, wheels and npm packages of one
# run (release-check) could carry different versions when a commit lands meanwhile.
BUILD_VERSION ?= $(eval BUILD_VERSION := $$(shell git describe --tags --always --dirty 2>/dev/null || echo dev))$(BUILD_VERSION)
BUILD_REVISION ?= $(eval BUILD_REVISION := $$(shell git rev-parse HEAD 2>/dev/null))$(BUILD_REVISION)
BUILDINFO := github.com/orgportal/portal-api/internal/buildinfo
# Every release build links with these: the image (deploy/image.sh) and the
# binaries (.goreleaser.yaml, which reads them from LDFLAGS).
BUILD_LDFLAGS = -s -w -X $(BUILDINFO).Version=$(BUILD_VERSION) -X $(BUILDINFO).Revision=$(BUILD_REVISION)

lint: lint-release

tools-shellcheck:
	@command -v shellcheck >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y shellcheck; }

## lint-release: goreleaser check, actionlint (workflows, action.yml's metadata, run: scripts), shellcheck on *.sh
lint-release: tools-shellcheck
	$(GORELEASER) check --quiet
	$(ACTIONLINT)
	shellcheck $$(git ls-files '*.sh')

## release-snapshot: the release archives and checksums in dist/, built as a release would be, published nowhere
release-snapshot:
	LDFLAGS='$(BUILD_LDFLAGS)' $(GORELEASER) release --snapshot --clean

## release: build and publish the release of the tag at HEAD (the release workflow runs it, with GITHUB_TOKEN)
release:
	LDFLAGS='$(BUILD_LDFLAGS)' $(GORELEASER) release --clean
