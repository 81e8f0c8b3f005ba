package e2e

import (
	"net/http"
	"net/url"
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
