# Release builds: the version and revision written into portald (and the
# conformance CLI) by the linker (internal/buildinfo).

BUILD_VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILD_REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
BUILDINFO := github.com/orgportal/portal-api/internal/buildinfo
# Every release build links with these.
BUILD_LDFLAGS = -s -w -X $(BUILDINFO).Version=$(BUILD_VERSION) -X $(BUILDINFO).Revision=$(BUILD_REVISION)
