package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheckPasses(t *testing.T) {
	in := start(t, "-addr", "127.0.0.1:0", "-db", ":memory:")
	// From a flag, and from the environment as in the image.
	for _, c := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"healthcheck", "-addr", in.addr}, nil},
		{[]string{"healthcheck"}, map[string]string{"PORTAL_ADDR": in.addr}},
	} {
		var out strings.Builder
		if err := run(t.Context(), c.args, env(c.env), &out, nil); err != nil {
			t.Fatalf("%q with %v: %v", c.args, c.env, err)
		}
		if want := "GET http://" + in.addr + `/health: {"status":"ok"}`; !strings.HasPrefix(out.String(), want) {
			t.Errorf("%q printed %q, want %q", c.args, out.String(), want)
		}
	}
}

// A server serving HTTPS is checked over HTTPS.
func TestHealthcheckOverTLS(t *testing.T) {
	dir := t.TempDir()
	tlsArgs := []string{"-tls", "-tls-cert", dir + "/cert.pem", "-tls-key", dir + "/key.pem"}
	in := start(t, append([]string{"-addr", "127.0.0.1:0", "-db", ":memory:"}, tlsArgs...)...)
	var out strings.Builder
	if err := run(t.Context(), append([]string{"healthcheck", "-addr", in.addr}, tlsArgs...), env(nil), &out, nil); err != nil {
		t.Fatalf("healthcheck over TLS: %v", err)
	}
	if want := "GET https://" + in.addr + "/health"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	// Asked over HTTP, the HTTPS server does not answer 200.
	if err := run(t.Context(), []string{"healthcheck", "-addr", in.addr}, env(nil), &strings.Builder{}, nil); err == nil {
		t.Error("an HTTP health check of an HTTPS server passed")
	}
}

func TestHealthcheckFails(t *testing.T) {
	sick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			t.Errorf("checked %s", r.URL.Path)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"unavailable"}`))
	}))
	defer sick.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	for _, c := range []struct{ addr, want string }{
		{strings.TrimPrefix(sick.URL, "http://"), `503 Service Unavailable: {"status":"unavailable"}`},
		{closed, "connection refused"},
		{"127.0.0.1:0", "picks a free port"},
	} {
		err := run(t.Context(), []string{"healthcheck", "-addr", c.addr}, env(nil), &strings.Builder{}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("healthcheck of %s = %v, want an error containing %q", c.addr, err, c.want)
		}
	}
	// A configuration the server would refuse is refused here too.
	if err := run(t.Context(), []string{"healthcheck", "-deployment", "cloud"}, env(nil), &strings.Builder{}, nil); err == nil || !strings.Contains(err.Error(), "-deployment") {
		t.Errorf("healthcheck with a bad flag = %v", err)
	}
}

// A server on every interface is checked on loopback.
func TestHealthRequestURL(t *testing.T) {
	for addr, want := range map[string]string{
		"0.0.0.0:8080":   "http://127.0.0.1:8080/health",
		"[::]:8080":      "http://127.0.0.1:8080/health",
		":8080":          "http://127.0.0.1:8080/health",
		"localhost:9090": "http://localhost:9090/health",
		"[::1]:9090":     "http://[::1]:9090/health",
		"10.1.2.3:80":    "http://10.1.2.3:80/health",
	} {
		got, _, err := healthRequest(Config{Addr: addr})
		if err != nil || got != want {
			t.Errorf("healthRequest(%s) = %q, %v; want %q", addr, got, err, want)
		}
	}
}
