// Package e2e holds end-to-end tests that run the built portald binary as
// several processes, the way teams deploy it: replicas on one PostgreSQL
// database behaving as one portal.
package e2e
