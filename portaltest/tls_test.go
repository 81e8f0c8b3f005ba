package portaltest_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/portaltest"
)

// WithTLS: the URLs are https, and the API client, the emulator's client
// and HTTPClient trust the Portal, over HTTP/2; a client that does not
// trust it is refused.
func TestWithTLS(t *testing.T) {
	p := portaltest.New(t, portaltest.WithTLS(), portaltest.WithContext("/portal"))
	if !strings.HasPrefix(p.Root, "https://127.0.0.1:") || p.URL != p.Root+"/portal/sharing/rest" {
		t.Fatalf("Root %q, URL %q", p.Root, p.URL)
	}
	if _, err := p.Client(portaltest.MemberToken).Item(t.Context(), portaltest.HydrantsItem); err != nil {
		t.Fatalf("API client: %v", err)
	}
	if rs := p.Requests(t, "getItem"); len(rs) != 1 || !strings.HasPrefix(rs[0].Path, "/portal/sharing/rest/") {
		t.Fatalf("journal through the emulator's client: %+v", rs)
	}
	r, err := p.Emulator().GetClockWithResponse(t.Context())
	if err != nil || r.JSON200 == nil {
		t.Fatalf("emulator client: %v", err)
	}
	resp, err := p.HTTPClient().Get(p.Root + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		t.Errorf("/health: %s over %s, want 200 over HTTP/2", resp.Status, resp.Proto)
	}
	var unknown x509.UnknownAuthorityError
	if _, err := (&http.Client{}).Get(p.Root + "/health"); !errors.As(err, &unknown) {
		t.Errorf("a client without the certificate: %v, want an unknown authority", err)
	}
}

// CertFile and Certificate give the Portal's certificate to other clients:
// curl trusts the file, and a Go client the certificate alone; both are
// what the server presents.
func TestWithTLSCertificateForOtherClients(t *testing.T) {
	p := portaltest.New(t, portaltest.WithTLS())
	file := p.CertFile(t)
	out, err := exec.Command("curl", "-sS", "--fail", "--cacert", file, p.Root+"/health").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"status":"ok"`) {
		t.Errorf("curl --cacert %s: %v\n%s", file, err, out)
	}
	pool := x509.NewCertPool()
	pool.AddCert(p.Certificate())
	conn, err := tls.Dial("tcp", strings.TrimPrefix(p.Root, "https://"), &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatalf("trusting Certificate(): %v", err)
	}
	presented := conn.ConnectionState().PeerCertificates[0]
	conn.Close()
	if !presented.Equal(p.Certificate()) {
		t.Error("Certificate() is not the certificate the server presents")
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(pem, []byte("-----BEGIN CERTIFICATE-----")) {
		t.Errorf("CertFile holds %q", pem)
	}
	if plain := portaltest.New(t); plain.Certificate() != nil || !strings.HasPrefix(plain.Root, "http://") {
		t.Errorf("without WithTLS: Root %q, Certificate %v", plain.Root, plain.Certificate())
	}
}

// The emulator's endpoints take an https Origin as the server's own, and
// refuse the http one.
func TestWithTLSOwnOrigin(t *testing.T) {
	p := portaltest.New(t, portaltest.WithTLS())
	for origin, want := range map[string]int{
		p.Root: http.StatusOK,
		"http://" + strings.TrimPrefix(p.Root, "https://"): http.StatusForbidden,
	} {
		r, err := p.Emulator().ListFaultsWithResponse(t.Context(), func(_ context.Context, req *http.Request) error {
			req.Header.Set("Origin", origin)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode() != want {
			t.Errorf("Origin %s: HTTP %d, want %d", origin, r.StatusCode(), want)
		}
	}
}
