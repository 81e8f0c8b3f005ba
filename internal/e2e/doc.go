// Package e2e holds end-to-end tests that run the built portald binary as
// processes, the way teams deploy it: replicas on one PostgreSQL database
// behaving as one portal, restarts after a SIGKILL that lose no acknowledged
// write, the transport limits (body size, slow and idle connections) over
// HTTP and HTTPS, the clients that trust the certificate portald
// generates, and the ArcGIS API for Python's requests replayed against it.
package e2e
