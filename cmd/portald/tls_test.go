package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgportal/portal-api/tlscert"
)

// trusting is a client that trusts the certificates of file, as one given
// it as its CA file does, over HTTP/2 when the server offers it.
func trusting(t *testing.T, file string) *http.Client {
	t.Helper()
	cfg, err := tlscert.ClientConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}}
}

// -tls without files: portald generates the pair, says where and how to
// trust it, and serves the API over HTTPS (HTTP/2) at the https URL it
// prints; started again, it serves the same pair.
func TestRunTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	args := []string{"-tls", "-tls-cert", certFile, "-tls-key", keyFile, "-addr", "127.0.0.1:0", "-db", ":memory:", "-context", "/portal"}
	first := start(t, args...)
	for _, want := range []string{
		"API at https://" + first.addr + "/portal/sharing/rest,",
		"HTTPS certificate " + certFile + " (generated now; trust it with GIS(..., ca_bundles=) of the ArcGIS API for Python, REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS or curl --cacert)",
	} {
		if !strings.Contains(first.line, want) {
			t.Errorf("start-up line %q lacks %q", first.line, want)
		}
	}
	if fi, err := os.Stat(keyFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, %v; want mode 0600", fi, err)
	}
	c := trusting(t, certFile)
	resp, err := c.Get("https://" + first.addr + "/portal/sharing/rest/content/users/jsmith?f=json&token=demo-user-token")
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Items []any }
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || len(body.Items) == 0 || resp.ProtoMajor != 2 {
		t.Fatalf("over HTTPS: %s %s, %d items, %v", resp.Proto, resp.Status, len(body.Items), err)
	}
	// Plain HTTP to the HTTPS port is told what went wrong.
	plain, err := http.Get("http://" + first.addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(plain.Body)
	plain.Body.Close()
	if plain.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "HTTPS") {
		t.Errorf("plain HTTP to the HTTPS port: %s %q", plain.Status, msg)
	}
	written, _ := os.ReadFile(certFile)
	first.stop(t)

	second := start(t, args...)
	if !strings.Contains(second.line, "HTTPS certificate "+certFile+" (trust it with") {
		t.Errorf("restart: start-up line %q does not name the certificate loaded", second.line)
	}
	if again, _ := os.ReadFile(certFile); string(again) != string(written) {
		t.Error("the restart replaced the certificate")
	}
	resp, err = trusting(t, certFile).Get("https://" + second.addr + "/health")
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	resp.Body.Close()
	second.stop(t)
}

// The generated certificate names the -addr host beside the loopback
// names, and is not for other hosts.
func TestRunTLSCertificateNamesAddrHost(t *testing.T) {
	dir := t.TempDir()
	certFile := filepath.Join(dir, "cert.pem")
	in := start(t, "-tls", "-tls-cert", certFile, "-tls-key", filepath.Join(dir, "key.pem"), "-addr", "localhost:0", "-db", ":memory:")
	in.stop(t)
	pair, err := tlscert.Load(certFile, filepath.Join(dir, "key.pem"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	leaf := pair.Leaf
	if strings.Join(leaf.DNSNames, ",") != "localhost" || len(leaf.IPAddresses) != 2 {
		t.Errorf("names %v %v, want localhost, 127.0.0.1 and ::1", leaf.DNSNames, leaf.IPAddresses)
	}
}

// A pair that cannot serve stops start-up before the store is opened, with
// the flag and the problem in the message.
func TestRunRefusesBadCertificates(t *testing.T) {
	old, oldKey, err := tlscert.Generate([]string{"localhost"}, time.Now().Add(-2*tlscert.Validity))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		cert, key []byte
		want      []string
	}{
		{"expired", old, oldKey, []string{"-tls: ", "cert.pem expired on"}},
		{"key alone", nil, oldKey, []string{"-tls: ", "key.pem exists but the certificate", "cert.pem does not"}},
		{"not a certificate", []byte("not PEM"), oldKey, []string{"-tls: ", "cert.pem holds no PEM certificate"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			certFile, keyFile, db := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "portal.db")
			if c.cert != nil {
				if err := os.WriteFile(certFile, c.cert, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(keyFile, c.key, 0o600); err != nil {
				t.Fatal(err)
			}
			err := run(t.Context(), []string{"-tls", "-tls-cert", certFile, "-tls-key", keyFile, "-addr", "127.0.0.1:0", "-db", db}, env(nil), io.Discard, nil)
			for _, s := range c.want {
				if err == nil || !strings.Contains(err.Error(), s) {
					t.Errorf("run = %v, want an error containing %q", err, s)
				}
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("the store was created: %v", err)
			}
		})
	}
}
