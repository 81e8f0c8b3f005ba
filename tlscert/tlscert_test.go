package tlscert_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgportal/portal-api/tlscert"
)

var now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestHosts(t *testing.T) {
	base := []string{"localhost", "127.0.0.1", "::1"}
	cases := map[string][]string{
		"127.0.0.1:8080":        base,
		"localhost:0":           base,
		"[::1]:8443":            base,
		":8080":                 base,
		"0.0.0.0:8080":          base,
		"[::]:8080":             base,
		"portal.example.com:80": append(base[:3:3], "portal.example.com"),
		"10.1.2.3:8443":         append(base[:3:3], "10.1.2.3"),
		"[2001:db8::1]:8443":    append(base[:3:3], "2001:db8::1"),
		"not an address":        base,
	}
	for addr, want := range cases {
		if got := tlscert.Hosts(addr); !reflect.DeepEqual(got, want) {
			t.Errorf("Hosts(%q) = %q, want %q", addr, got, want)
		}
	}
}

// pool trusts the certificates of a certificate file, as a client given it
// as its CA file does.
func pool(t *testing.T, certPEM []byte) *x509.CertPool {
	t.Helper()
	p, err := tlscert.Pool(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ClientConfig trusts a certificate file, and refuses a file that holds
// none.
func TestClientConfig(t *testing.T) {
	certPEM, _, err := tlscert.Generate([]string{"localhost"}, now)
	if err != nil {
		t.Fatal(err)
	}
	good, bad := filepath.Join(t.TempDir(), "good.pem"), filepath.Join(t.TempDir(), "bad.pem")
	if err := os.WriteFile(good, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("no PEM here"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := tlscert.ClientConfig(good)
	if err != nil {
		t.Fatal(err)
	}
	leaf := chain(t, certPEM)[0]
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: cfg.RootCAs, CurrentTime: now}); err != nil {
		t.Errorf("ClientConfig does not trust the file's certificate: %v", err)
	}
	if _, err := tlscert.ClientConfig(bad); err == nil || !strings.Contains(err.Error(), "bad.pem") {
		t.Errorf("ClientConfig of a file without certificates: %v", err)
	}
}

func chain(t *testing.T, certPEM []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for rest := certPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return out
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
}

// A generated pair: a P-256 leaf for exactly the hosts asked, for server
// authentication, valid for a year from now, signed by a CA that signs
// nothing below it; trusted by Go for every host, for no other.
func TestGenerate(t *testing.T) {
	hosts := []string{"localhost", "127.0.0.1", "::1", "portal.test", "10.1.2.3"}
	certPEM, keyPEM, err := tlscert.Generate(hosts, now)
	if err != nil {
		t.Fatal(err)
	}
	certs := chain(t, certPEM)
	if len(certs) != 2 {
		t.Fatalf("%d certificates, want the leaf and its CA", len(certs))
	}
	leaf, ca := certs[0], certs[1]
	if k, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() {
		t.Errorf("leaf key %T, want ECDSA P-256", leaf.PublicKey)
	}
	if leaf.IsCA || !ca.IsCA || !ca.MaxPathLenZero || ca.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Errorf("leaf IsCA %v, CA IsCA %v MaxPathLenZero %v", leaf.IsCA, ca.IsCA, ca.MaxPathLenZero)
	}
	if !reflect.DeepEqual(leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}) {
		t.Errorf("leaf ExtKeyUsage %v", leaf.ExtKeyUsage)
	}
	if got := leaf.NotAfter.Sub(now); got != tlscert.Validity || leaf.NotBefore.After(now) {
		t.Errorf("leaf valid from %s to %s, want from before %s for %s", leaf.NotBefore, leaf.NotAfter, now, tlscert.Validity)
	}
	if len(leaf.AuthorityKeyId) == 0 || !bytes.Equal(leaf.AuthorityKeyId, ca.SubjectKeyId) {
		// Python 3.13's strict verification wants both.
		t.Errorf("leaf AuthorityKeyId %x, CA SubjectKeyId %x", leaf.AuthorityKeyId, ca.SubjectKeyId)
	}
	roots := pool(t, certPEM)
	for _, h := range hosts {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: h, Roots: roots, CurrentTime: now}); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	for _, h := range []string{"portal.example", "10.1.2.4", "127.0.0.2"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: h, Roots: roots, CurrentTime: now}); err == nil {
			t.Errorf("%s: trusted, but the certificate is not for it", h)
		}
	}
	// Only the CA trusted (a browser that imported it as an authority).
	caOnly := x509.NewCertPool()
	caOnly.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: caOnly, CurrentTime: now}); err != nil {
		t.Errorf("with only the CA trusted: %v", err)
	}
	if _, err := tlscert.Parse(certPEM, keyPEM, "cert", "key", now); err != nil {
		t.Errorf("Parse of a generated pair: %v", err)
	}
	if _, _, err := tlscert.Generate(nil, now); err == nil {
		t.Error("Generate without hosts succeeded")
	}
}

// A client given the certificate file as its CA file talks HTTPS, HTTP/2
// included, to a server that serves the pair.
func TestGeneratedPairServes(t *testing.T) {
	certPEM, keyPEM, err := tlscert.Generate(tlscert.Hosts("127.0.0.1:0"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tlscert.Parse(certPEM, keyPEM, "cert", "key", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.Proto) }))
	hs.EnableHTTP2 = true
	hs.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	hs.StartTLS()
	defer hs.Close()
	_, port, _ := net.SplitHostPort(hs.Listener.Addr().String())
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool(t, certPEM)}, ForceAttemptHTTP2: true}}
	for _, host := range []string{"127.0.0.1", "localhost"} {
		resp, err := c.Get("https://" + net.JoinHostPort(host, port) + "/")
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "HTTP/2.0" {
			t.Errorf("%s: served over %s, want HTTP/2.0", host, b)
		}
	}
}

func writePair(t *testing.T, dir string, certPEM, keyPEM []byte) (certFile, keyFile string) {
	t.Helper()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if certPEM != nil {
		if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if keyPEM != nil {
		if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

// Neither file: a pair is generated and written, the key for its owner
// only; the next call loads that pair.
func TestLoadOrGenerateWritesThenLoads(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "portal-cert.pem"), filepath.Join(dir, "portal-key.pem")
	first, generated, err := tlscert.LoadOrGenerate(certFile, keyFile, tlscert.Hosts("127.0.0.1:8443"), now)
	if err != nil || !generated {
		t.Fatalf("first start: generated %v, %v", generated, err)
	}
	for file, mode := range map[string]os.FileMode{certFile: 0o644, keyFile: 0o600} {
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", file, fi.Mode().Perm(), mode)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	second, generated, err := tlscert.LoadOrGenerate(certFile, keyFile, tlscert.Hosts("127.0.0.1:8443"), now.Add(time.Hour))
	if err != nil || generated {
		t.Fatalf("second start: generated %v, %v", generated, err)
	}
	if !reflect.DeepEqual(first.Certificate, second.Certificate) {
		t.Error("the second start did not load the pair the first wrote")
	}
}

// Replicas started together with the same paths end up serving one pair.
func TestLoadOrGenerateTogether(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	const n = 8
	certs := make([]tls.Certificate, n)
	errs := make([]error, n)
	generated := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			certs[i], generated[i], errs[i] = tlscert.LoadOrGenerate(certFile, keyFile, []string{"localhost"}, now)
		})
	}
	wg.Wait()
	made := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("replica %d: %v", i, errs[i])
		}
		if generated[i] {
			made++
		}
		if !reflect.DeepEqual(certs[i].Certificate, certs[0].Certificate) {
			t.Errorf("replica %d serves another certificate than replica 0", i)
		}
	}
	if made != 1 {
		t.Errorf("%d replicas generated a pair, want 1", made)
	}
	onDisk, err := tlscert.Load(certFile, keyFile, now)
	if err != nil {
		t.Fatalf("the files on disk: %v", err)
	}
	if !reflect.DeepEqual(onDisk.Certificate, certs[0].Certificate) {
		t.Error("the files on disk are not the pair the replicas serve")
	}
}

// What stops start-up, each with a message naming the file and the
// problem.
func TestLoadOrGenerateRefuses(t *testing.T) {
	certPEM, keyPEM, err := tlscert.Generate([]string{"localhost"}, now)
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, err := tlscert.Generate([]string{"localhost"}, now)
	if err != nil {
		t.Fatal(err)
	}
	leafOnly := certPEM[:bytes.Index(certPEM, []byte("-----END CERTIFICATE-----"))+len("-----END CERTIFICATE-----\n")]
	garbled := bytes.Replace(certPEM, []byte("MII"), []byte("MIJ"), 1)
	cases := []struct {
		name        string
		cert, key   []byte
		at          time.Time
		wantInError []string
	}{
		{"cert without key", certPEM, nil, now, []string{"cert.pem exists but the key", "key.pem does not"}},
		{"key without cert", nil, keyPEM, now, []string{"key.pem exists but the certificate", "cert.pem does not"}},
		{"not PEM", []byte("hello"), keyPEM, now, []string{"cert.pem holds no PEM certificate"}},
		{"certificate does not parse", garbled, keyPEM, now, []string{"certificate 1 in", "cert.pem does not parse"}},
		{"key not PEM", certPEM, []byte("hello"), now, []string{"key.pem holds no PEM private key"}},
		{"key does not parse", certPEM, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), now, []string{"private key in", "key.pem does not parse"}},
		{"key of another certificate", certPEM, otherKey, now, []string{"key.pem is not the key of the certificate in", "cert.pem"}},
		{"expired", certPEM, keyPEM, now.Add(tlscert.Validity + time.Minute), []string{"certificate 1 in", "cert.pem expired on " + now.Add(tlscert.Validity).Format(time.RFC3339)}},
		{"expired, leaf only", leafOnly, keyPEM, now.Add(2 * tlscert.Validity), []string{"the certificate in", "cert.pem expired on"}},
		{"not yet valid", certPEM, keyPEM, now.Add(-24 * time.Hour), []string{"cert.pem is not valid before"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			certFile, keyFile := writePair(t, t.TempDir(), c.cert, c.key)
			before, _ := os.ReadFile(certFile)
			_, generated, err := tlscert.LoadOrGenerate(certFile, keyFile, []string{"localhost"}, c.at)
			if err == nil || generated {
				t.Fatalf("generated %v, error %v; want a refusal", generated, err)
			}
			for _, s := range c.wantInError {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if after, _ := os.ReadFile(certFile); !bytes.Equal(before, after) {
				t.Error("the certificate file changed")
			}
		})
	}
	t.Run("one path for both", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "both.pem")
		if _, _, err := tlscert.LoadOrGenerate(f, f, []string{"localhost"}, now); err == nil || !strings.Contains(err.Error(), "two files") {
			t.Errorf("error %v, want one saying two files are needed", err)
		}
	})
	t.Run("no such directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "missing")
		_, _, err := tlscert.LoadOrGenerate(filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem"), []string{"localhost"}, now)
		if err == nil || !strings.Contains(err.Error(), "missing") {
			t.Errorf("error %v, want one naming the directory", err)
		}
	})
}
