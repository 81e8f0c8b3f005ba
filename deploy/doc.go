// Package deploy holds what ships portald to people who do not build it: the
// container image (Dockerfile, built by image.sh through `make image`) and a
// compose file of two replicas on PostgreSQL behind a load balancer. Its test
// builds the image and runs it with podman (`make test-image`).
package deploy
