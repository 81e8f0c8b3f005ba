// Package portaltest starts the reference server in-process for tests: a
// real HTTP server over the real transport, rules and SQL store, seeded with
// the demo organization.
package portaltest

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/orgportal/portal-api/emulator"
	"github.com/orgportal/portal-api/server"
)

// Demo organization facts the tests rely on (see server/seed/demo.yaml and
// x-example-fixtures in openapi.yaml).
const (
	OrgID             = "0123456789ABCDEF"
	OtherOrgID        = "FEDCBA9876543210"
	AdminToken        = "demo-admin-token"
	MemberToken       = "demo-user-token"
	PublisherToken    = "demo-publisher-token"
	SecAdminToken     = "demo-secadmin-token"
	CatAdminToken     = "demo-catadmin-token"
	ContentAdminToken = "demo-contentadmin-token"
	ViewerToken       = "demo-viewer-token"
	OtherAdminToken   = "demo-other-admin-token"
	OtherUserToken    = "demo-other-user-token"
	Member            = "jsmith"
	ProjectsFolder    = "1a9ad803da604628b08c968ce602a231"
	ArchiveFolder     = "6c5b4a39281746e5b0a9f8e7d6c5b4a3"
	RoadsItem         = "93b54c8930ae46d9a00a7820cb3ebbd1"
	ParcelsItem       = "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8"
	HydrantsItem      = "7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3"
)

// Portal is a running reference server.
type Portal struct {
	URL         string // base URL of the API, ending in /sharing/rest
	Root        string // server root, for /health and /openapi.yaml
	AdminToken  string
	MemberToken string
	Store       server.Store
}

// Options change the emulated portal.
type Options struct {
	DSN        string // store; ":memory:" when empty
	Context    string
	Version    string
	Deployment string
	Now        func() time.Time
}

// Start starts a server with default options.
func Start(tb testing.TB) *Portal { return StartWith(tb, Options{}) }

// StartWith starts a server; it stops when the test ends.
func StartWith(tb testing.TB, o Options) *Portal {
	tb.Helper()
	srv, err := emulator.New(context.Background(), emulator.Options{
		DSN: o.DSN, Context: o.Context, Version: o.Version, Deployment: o.Deployment, Now: o.Now,
	})
	if err != nil {
		tb.Fatalf("portaltest: %v", err)
	}
	tb.Cleanup(func() { _ = srv.Close() })
	hs := httptest.NewServer(srv)
	tb.Cleanup(hs.Close)
	return &Portal{URL: hs.URL + o.Context + "/sharing/rest", Root: hs.URL, AdminToken: AdminToken, MemberToken: MemberToken, Store: srv.Store()}
}
