package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthTimeout bounds the whole check; /health itself gives the store 2 s.
const healthTimeout = 4 * time.Second

// healthcheck is `portald healthcheck [flags]`: with the same flags and
// environment as the server, it asks the server they describe for GET
// /health and fails unless the answer is 200. A container image runs it as
// its health check: an image with no shell and no curl has nothing else.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cfg, err := Load(args, getenv)
	if err != nil {
		return err
	}
	u, client, err := healthRequest(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: GET %s answered %s: %s", u, resp.Status, body)
	}
	fmt.Fprintf(stdout, "GET %s: %s", u, body)
	return nil
}

// healthRequest is the URL of /health on the server cfg starts, and the
// client to ask it with. A server listening on every interface is asked on
// loopback: Go's wildcard listeners take IPv4 and IPv6 alike.
func healthRequest(cfg Config) (string, *http.Client, error) {
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return "", nil, fmt.Errorf("-addr (PORTAL_ADDR): %q is not host:port", cfg.Addr)
	}
	if port == "0" {
		return "", nil, fmt.Errorf("-addr (PORTAL_ADDR): %s picks a free port at start-up: give the port the server listens on", cfg.Addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	// No proxy: the server is on this host.
	tr := &http.Transport{Proxy: nil}
	if cfg.TLS {
		// The server's own certificate is not checked: this is the host
		// asking itself, by an address (127.0.0.1) that a certificate of
		// the operator's need not name.
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec
	}
	u := cfg.scheme() + "://" + net.JoinHostPort(host, port) + "/health"
	return u, &http.Client{Transport: tr}, nil
}
