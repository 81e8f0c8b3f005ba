#!/usr/bin/env bash
# Builds the image of portald (deploy/Dockerfile): `make image` runs it with
# IMAGE, IMAGE_PLATFORMS (comma-separated), BUILD_VERSION, BUILD_REVISION and
# LDFLAGS set. It builds a static portald per platform, lays out the build
# context the Dockerfile reads, and builds with podman, or docker when its
# engine answers (CONTAINER_ENGINE chooses); when neither works, it installs
# Debian's podman. Several platforms make one manifest list (podman only).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${IMAGE:?}" "${IMAGE_PLATFORMS:?}" "${BUILD_VERSION:?}" "${BUILD_REVISION?}" "${LDFLAGS:?}"
GO=${GO:-go}

engine=${CONTAINER_ENGINE:-}
if [[ -z $engine ]]; then
	# A docker client without an engine answers --version, not info.
	if command -v podman >/dev/null && podman info >/dev/null 2>&1; then
		engine=podman
	elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then
		engine=docker
	else
		echo "image.sh: neither podman nor docker works here: installing Debian's podman" >&2
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y podman
		engine=podman
	fi
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
# The directories portald writes to, owned by its user in the image.
mkdir -p "$ctx/rootfs/data" "$ctx/rootfs/tmp"
chmod 755 "$ctx/rootfs/data"
chmod 1777 "$ctx/rootfs/tmp"
IFS=, read -ra platforms <<<"$IMAGE_PLATFORMS"
for p in "${platforms[@]}"; do
	CGO_ENABLED=0 GOOS=${p%%/*} GOARCH=${p##*/} "$GO" build -trimpath -ldflags "$LDFLAGS" -o "$ctx/$p/portald" ./cmd/portald
done

args=(--file deploy/Dockerfile --platform "$IMAGE_PLATFORMS"
	--build-arg "VERSION=$BUILD_VERSION" --build-arg "REVISION=$BUILD_REVISION")
case $engine in
podman)
	# The docker format keeps HEALTHCHECK, which the OCI format has no field for.
	# No intermediate images: every build starts from a new binary anyway.
	args+=(--format docker --layers=false)
	if ((${#platforms[@]} > 1)); then
		podman manifest rm "$IMAGE" >/dev/null 2>&1 || true
		podman build "${args[@]}" --manifest "$IMAGE" "$ctx"
	else
		podman build "${args[@]}" --tag "$IMAGE" "$ctx"
	fi
	;;
docker)
	if ((${#platforms[@]} > 1)); then
		echo "image.sh: several platforms ($IMAGE_PLATFORMS) need podman" >&2
		exit 1
	fi
	docker build "${args[@]}" --tag "$IMAGE" "$ctx"
	;;
*)
	echo "image.sh: CONTAINER_ENGINE=$engine: want podman or docker" >&2
	exit 1
	;;
esac
echo "built $IMAGE ($IMAGE_PLATFORMS) with $engine"
