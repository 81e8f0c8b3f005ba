# The container image of portald (deploy/Dockerfile), FROM scratch with a
# static portald built here, so that building it needs no registry:
# deploy/image.sh builds it with podman, or with docker when its engine
# answers, installing Debian's podman when neither works. test-image builds
# it into a podman store of its own and runs it (deploy/image_test.go).

.PHONY: image image-push test-image tools-podman

TEST_TARGETS += test-image

IMAGE ?= localhost/portald:dev
# linux/amd64, linux/arm64, or both, comma-separated (a manifest list; podman only).
IMAGE_PLATFORMS ?= linux/$(shell $(GO) env GOARCH)
# podman or docker; empty: whichever works.
CONTAINER_ENGINE ?=

## image: build the image IMAGE (default localhost/portald:dev) for IMAGE_PLATFORMS
image:
	IMAGE='$(IMAGE)' IMAGE_PLATFORMS='$(IMAGE_PLATFORMS)' CONTAINER_ENGINE='$(CONTAINER_ENGINE)' GO='$(GO)' \
		BUILD_VERSION='$(BUILD_VERSION)' BUILD_REVISION='$(BUILD_REVISION)' LDFLAGS='$(BUILD_LDFLAGS)' deploy/image.sh

## image-push: push IMAGE, every platform built, to its registry (podman; log in first)
image-push:
	if podman manifest exists '$(IMAGE)'; then podman manifest push --all '$(IMAGE)' 'docker://$(IMAGE)'; \
	else podman push '$(IMAGE)' 'docker://$(IMAGE)'; fi

# The test runs containers with runc on slirp4netns's user-mode network.
tools-podman:
	@command -v podman >/dev/null && command -v runc >/dev/null && command -v slirp4netns >/dev/null || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y podman runc slirp4netns; }

## test-image: build the image into a podman store of the test's own, run it: health, API, restart, /emulator/, conformance
test-image: tools-podman
	PORTAL_TEST_IMAGE=1 GO=$(GO) mk/go-test-ran.sh ./deploy/ TestImage
