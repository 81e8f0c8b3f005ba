package e2e

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/orgportal/portal-api/conformance"
	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// alternate sends each request to the next of several servers in turn, as a
// round-robin load balancer would: the Host header stays the one the client
// wrote, so that the addresses the servers write back are the balancer's.
type alternate struct {
	hosts []string
	next  atomic.Uint64
	seen  []atomic.Int64
}

func (a *alternate) RoundTrip(req *http.Request) (*http.Response, error) {
	i := int(a.next.Add(1)-1) % len(a.hosts)
	a.seen[i].Add(1)
	r := req.Clone(req.Context())
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	r.URL.Host = a.hosts[i]
	return http.DefaultTransport.RoundTrip(r)
}

// The conformance suite passes against two replicas on one PostgreSQL
// database, its requests alternating between them.
func TestConformanceAcrossReplicas(t *testing.T) {
	procs := replicas(t, 2)
	var hosts []string
	for _, p := range procs {
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, u.Host)
	}
	lb := &alternate{hosts: hosts, seen: make([]atomic.Int64, len(hosts))}
	conformance.Run(t, conformance.Target{
		BaseURL: procs[0].URL, AdminToken: pt.AdminToken, MemberToken: pt.MemberToken,
		HTTPClient: &http.Client{Transport: lb},
	})
	for i := range hosts {
		if lb.seen[i].Load() < 50 {
			t.Errorf("replica %d answered only %d requests", i, lb.seen[i].Load())
		}
	}
}

// The conformance suite passes against the in-process server on PostgreSQL
// (conformance's own test covers SQLite).
func TestConformancePostgres(t *testing.T) {
	p := pt.New(t, pt.WithDSN(pgtest.DSN(t)))
	conformance.Run(t, conformance.Target{BaseURL: p.URL, AdminToken: p.AdminToken, MemberToken: p.MemberToken})
}

// The whole suite passes against portald -tls, over HTTPS with the
// certificate it generates: the token answers' ssl:true included, which the
// examples, written over HTTP, show as false.
func TestConformanceOverTLS(t *testing.T) {
	p := startPortaldTLS(t, "-db", ":memory:")
	rep, err := (&conformance.Runner{}).Run(conformance.Target{
		BaseURL: p.URL, AdminToken: pt.AdminToken, MemberToken: pt.MemberToken, HTTPClient: p.client,
	})
	if err != nil {
		t.Fatal(err)
	}
	passed, failed, _ := rep.Counts()
	for _, c := range rep.Cases() {
		if c.Status == conformance.Failed {
			t.Errorf("FAIL %s:\n%s", c.Name, strings.Join(c.Errors(), "\n"))
		}
	}
	if rep.Failed() || failed > 0 || passed < 100 {
		t.Errorf("over HTTPS: %d passed, %d failed; want no failure and the whole suite run", passed, failed)
	}
	ran := map[string]conformance.Status{}
	for _, c := range rep.Cases() {
		ran[strings.TrimPrefix(c.Name, rep.Root.Name+"/")] = c.Status
	}
	for _, name := range []string{"examples/generateToken/issued", "examples/oauthToken/appToken", "signIn/implicitPython", "signIn/codePKCE"} {
		if s, ok := ran[name]; !ok || s != conformance.Passed {
			t.Errorf("%s: %v (ran: %v), want PASS", name, s, ok)
		}
	}
}

// The conformance command checks portald -tls when -ca-file names the
// certificate file portald generated, at every release and deployment
// portald emulates (the command detects both), and without -ca-file fails
// saying the certificate is not trusted and what to give.
func TestConformanceCommandCAFile(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "conformance")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/orgportal/portal-api/cmd/conformance").CombinedOutput(); err != nil {
		t.Fatalf("go build conformance: %v\n%s", err, out)
	}
	for _, deployment := range []string{"enterprise", "online"} {
		for _, version := range []string{"10.8", "11.0", "11.1", "11.5"} {
			t.Run(deployment+"-"+version, func(t *testing.T) {
				checkConformanceCommandCAFile(t, bin, version, deployment)
			})
		}
	}
}

func checkConformanceCommandCAFile(t *testing.T, bin, version, deployment string) {
	p := startPortaldTLS(t, "-db", ":memory:", "-version", version, "-deployment", deployment)
	conformanceCmd := func(args ...string) (int, string) {
		cmd := exec.Command(bin, append([]string{"-base-url", p.URL, "-token", pt.AdminToken, "-member-token", pt.MemberToken}, args...)...)
		for _, kv := range os.Environ() {
			// Only what the command is given decides what it trusts.
			if !strings.HasPrefix(kv, "CONFORMANCE_") && !strings.HasPrefix(kv, "SSL_CERT_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &exit):
			return exit.ExitCode(), string(out)
		default:
			t.Fatalf("running conformance: %v", err)
			return 0, ""
		}
	}
	code, out := conformanceCmd("-ca-file", p.CertFile)
	if code != 0 || !regexp.MustCompile(`\nPASS: [1-9][0-9]+ passed, 0 failed, `).MatchString(out) ||
		!strings.Contains(out, "PASS    examples/generateToken/issued (") {
		t.Errorf("-ca-file %s: exit status %d, want 0 and the whole suite passed:\n%s", p.CertFile, code, out)
	}
	code, out = conformanceCmd()
	if code != 1 || !strings.Contains(out, "x509: certificate signed by unknown authority") ||
		!strings.Contains(out, "the portal's certificate is not trusted: give -ca-file") || strings.Contains(out, "PASS    ") {
		t.Errorf("without -ca-file: exit status %d, want 1 and the certificate error, no test passed:\n%s", code, out)
	}
}
