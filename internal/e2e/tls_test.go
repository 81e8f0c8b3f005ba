package e2e

import (
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// trustChecks are scripts run by a client people automate the portal with:
// each fetches url trusting caFile (nothing more when empty) and prints
// the answer.
var trustChecks = []struct {
	name string
	cmd  func(url, caFile string) *exec.Cmd
}{
	{"curl", func(url, caFile string) *exec.Cmd {
		args := []string{"-sS", "--fail", url}
		if caFile != "" {
			args = append(args, "--cacert", caFile)
		}
		return exec.Command("curl", args...)
	}},
	// Python's ssl module as requests uses it (REQUESTS_CA_BUNDLE is its
	// CA file), with the defaults of Python 3.11 and then with the strict
	// checks Python 3.13 turns on by default.
	{"python", func(url, caFile string) *exec.Cmd { return exec.Command("python3", "-c", pythonFetch, url, caFile, "") }},
	{"python-3.13-strict", func(url, caFile string) *exec.Cmd {
		return exec.Command("python3", "-c", pythonFetch, url, caFile, "strict")
	}},
	{"node-https", func(url, caFile string) *exec.Cmd { return nodeCommand(nodeHTTPS, url, caFile) }},
	{"node-fetch", func(url, caFile string) *exec.Cmd { return nodeCommand(nodeFetch, url, caFile) }},
}

const pythonFetch = `
import ssl, sys, urllib.request
url, cafile, strict = sys.argv[1:4]
ctx = ssl.create_default_context(cafile=cafile or None)
if strict:
    ctx.verify_flags |= ssl.VERIFY_X509_STRICT | ssl.VERIFY_X509_PARTIAL_CHAIN
print(urllib.request.urlopen(url, context=ctx).read().decode())
`

const (
	nodeHTTPS = `require('https').get(process.argv[1], r => { let b = ''; r.on('data', c => b += c); r.on('end', () => console.log(b)); })
  .on('error', e => { console.error(e.message); process.exit(1); });`
	nodeFetch = `fetch(process.argv[1]).then(r => r.text()).then(b => console.log(b), e => { console.error(String(e.cause || e)); process.exit(1); });`
)

// nodeCommand runs script with NODE_EXTRA_CA_CERTS=caFile, or without the
// variable when caFile is empty.
func nodeCommand(script, url, caFile string) *exec.Cmd {
	cmd := exec.Command("node", "-e", script, url)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NODE_EXTRA_CA_CERTS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if caFile != "" {
		cmd.Env = append(cmd.Env, "NODE_EXTRA_CA_CERTS="+caFile)
	}
	return cmd
}

// The certificate portald generates, given as the CA file, is trusted by
// curl, Python (3.11's defaults and 3.13's strict ones) and Node.js, by
// name and by address; without it each refuses the server, so the trust
// comes from the file.
func TestClientsTrustTheGeneratedCertificate(t *testing.T) {
	for _, tool := range []string{"curl", "python3", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to check that it trusts the certificate: %v", tool, err)
		}
	}
	p := startPortaldTLS(t, "-db", ":memory:")
	_, port, _ := net.SplitHostPort(p.host())
	for _, c := range trustChecks {
		for _, host := range []string{"127.0.0.1", "localhost"} {
			t.Run(c.name+"/"+host, func(t *testing.T) {
				url := "https://" + net.JoinHostPort(host, port) + "/health"
				out, err := c.cmd(url, p.CertFile).CombinedOutput()
				if err != nil || !strings.Contains(string(out), `"status":"ok"`) {
					t.Errorf("trusting %s: %v\n%s", p.CertFile, err, out)
				}
				out, err = c.cmd(url, "").CombinedOutput()
				if err == nil {
					t.Errorf("without the certificate file the server was trusted:\n%s", out)
				} else if s := strings.ToLower(string(out)); !strings.Contains(s, "certificate") && !strings.Contains(s, "issuer") {
					t.Errorf("without the certificate file: %v, but not for the certificate:\n%s", err, out)
				}
			})
		}
	}
}

// Replicas started together with the same -tls-cert and -tls-key generate
// one pair between them, and all serve it.
func TestReplicasShareTheGeneratedCertificate(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	procs := make([]*process, 3)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			procs[i] = startPortald(t, "-tls", "-tls-cert", certFile, "-tls-key", keyFile, "-db", ":memory:")
		})
	}
	wg.Wait()
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(pemBytes)
	generated := 0
	for i, p := range procs {
		if strings.Contains(p.line, "generated now") {
			generated++
		}
		conn, err := tls.Dial("tcp", p.host(), tlsConfig(t, certFile))
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		served := conn.ConnectionState().PeerCertificates[0].Raw
		conn.Close()
		if !bytes.Equal(served, b.Bytes) {
			t.Errorf("replica %d serves another certificate than %s holds", i, certFile)
		}
	}
	if generated != 1 {
		t.Errorf("%d replicas say they generated the pair, want 1", generated)
	}
}

// Chromium trusts the certificate once its CA (the file's last
// certificate) is an authority of its NSS database, as when a person
// imports the file under Authorities; without it the page does not load.
// make test-tls-browser runs it with Chromium and certutil installed.
func TestChromiumTrustsTheGeneratedCertificate(t *testing.T) {
	if os.Getenv("PORTAL_TEST_BROWSER") != "1" {
		t.Skip("set PORTAL_TEST_BROWSER=1 to load a page in headless Chromium (make test-tls-browser)")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("PORTAL_TEST_BROWSER=1 but no chromium: %v (make tools-chromium installs Debian's)", err)
	}
	certutil, err := exec.LookPath("certutil")
	if err != nil {
		t.Fatalf("PORTAL_TEST_BROWSER=1 but no certutil: %v (make tools-nss installs Debian's libnss3-tools)", err)
	}
	p := startPortaldTLS(t, "-db", ":memory:")
	_, port, _ := net.SplitHostPort(p.host())
	url := "https://localhost:" + port + "/health"

	// The CA alone, as an authority: the leaf must chain to it.
	pemBytes, err := os.ReadFile(p.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	var last *pem.Block
	for rest := pemBytes; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		last = b
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(last), 0o644); err != nil {
		t.Fatal(err)
	}

	load := func(t *testing.T, trust bool) (string, string) {
		home := t.TempDir()
		nssdb := "sql:" + filepath.Join(home, ".pki", "nssdb")
		if err := os.MkdirAll(filepath.Join(home, ".pki", "nssdb"), 0o700); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(certutil, "-d", nssdb, "-N", "--empty-password").CombinedOutput(); err != nil {
			t.Fatalf("certutil -N: %v\n%s", err, out)
		}
		if trust {
			if out, err := exec.Command(certutil, "-d", nssdb, "-A", "-t", "C,,", "-n", "portald", "-i", caFile).CombinedOutput(); err != nil {
				t.Fatalf("certutil -A: %v\n%s", err, out)
			}
		}
		cmd := exec.CommandContext(t.Context(), chromium,
			"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir="+filepath.Join(home, "profile"), "--dump-dom", url)
		// Chromium reads the NSS database of $HOME on Linux.
		cmd.Env = append(os.Environ(), "HOME="+home)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, stderr.String())
		}
		return string(out), stderr.String()
	}
	t.Run("trusted", func(t *testing.T) {
		dom, stderr := load(t, true)
		if !strings.Contains(dom, `{"status":"ok"}`) {
			t.Errorf("the page did not load with the CA trusted: %q\n%s", dom, tail(stderr, 2000))
		}
	})
	t.Run("untrusted", func(t *testing.T) {
		dom, stderr := load(t, false)
		if strings.Contains(dom, `{"status":"ok"}`) || !strings.Contains(stderr, "ERR_CERT_AUTHORITY_INVALID") {
			t.Errorf("without the CA: page %q\n%s", dom, tail(stderr, 2000))
		}
	})
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
