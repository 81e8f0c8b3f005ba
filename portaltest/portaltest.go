// Package portaltest runs the portal emulator in-process for tests, in the
// style of net/http/httptest: a real HTTP server on a loopback port in front
// of the real transport, rules and SQL store, seeded with the demo
// organizations (or a seed of the test's), closed when the test ends.
//
//	func TestMyScript(t *testing.T) {
//		p := portaltest.New(t)
//		c := p.Client(portaltest.AdminToken)
//		// ... run the code under test against p.URL or with c ...
//	}
//
// Each Portal has its own store, so tests can run in parallel. The demo
// organizations' tokens, users, folders and items are exported constants.
// WithTLS serves HTTPS instead, with a certificate Client trusts and
// CertFile hands to other clients.
package portaltest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/emulator"
	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/seed"
	"github.com/orgportal/portal-api/tlscert"
)

// Facts of the demo organizations (server/seed/demo.yaml, and the
// x-example-fixtures of openapi.yaml).
const (
	OrgID             = "0123456789ABCDEF" // the demo organization
	OtherOrgID        = "FEDCBA9876543210" // a second organization, for isolation
	AdminToken        = "demo-admin-token" // user admin, org_admin
	MemberToken       = "demo-user-token"  // user jsmith, org_user
	PublisherToken    = "demo-publisher-token"
	SecAdminToken     = "demo-secadmin-token"
	CatAdminToken     = "demo-catadmin-token"
	ContentAdminToken = "demo-contentadmin-token"
	ViewerToken       = "demo-viewer-token"
	OtherAdminToken   = "demo-other-admin-token"
	OtherUserToken    = "demo-other-user-token"
	Admin             = "admin"
	AdminPassword     = "admin-password"
	Member            = "jsmith"
	MemberPassword    = "jsmith-password"
	ProjectsFolder    = "1a9ad803da604628b08c968ce602a231" // jsmith's, holds ParcelsItem
	ArchiveFolder     = "6c5b4a39281746e5b0a9f8e7d6c5b4a3" // jsmith's, empty
	RoadsItem         = "93b54c8930ae46d9a00a7820cb3ebbd1" // jsmith's, in the root folder
	ParcelsItem       = "2d6f1e0c7b8a49d3a5c4e3f2a1b0c9d8" // jsmith's, in ProjectsFolder
	HydrantsItem      = "7e8f9a0b1c2d43e5f6a7b8c9d0e1f2a3" // jsmith's, in the root folder
)

// Portal is a running emulator.
type Portal struct {
	URL         string // the API base, ending in /sharing/rest
	Root        string // the server root: /health, /openapi.yaml, /emulator/
	AdminToken  string // AdminToken, for code that takes the tokens from the Portal
	MemberToken string // MemberToken
	// Store is the emulator's store, to arrange or inspect state beside the
	// API.
	Store server.Store
	// Server is the emulator itself (Reset, Options).
	Server *emulator.Server

	http *httptest.Server
	// Over HTTPS (WithTLS): the certificate file's PEM and the client that
	// trusts it; hc is nil over HTTP.
	certPEM []byte
	hc      *http.Client
}

// Option changes the emulated portal.
type Option func(*config)

type config struct {
	opts     emulator.Options
	seedPath string
	tls      bool
}

// WithSeed serves f instead of the demo organizations; the constants of
// this package then mean nothing.
func WithSeed(f *seed.File) Option { return func(c *config) { c.opts.Seed = f } }

// WithSeedFile serves the YAML or JSON seed file at path (the shape of
// server/seed/demo.yaml).
func WithSeedFile(path string) Option { return func(c *config) { c.seedPath = path } }

// WithVersion emulates a portal version, major.minor (default 11.5).
func WithVersion(v string) Option { return func(c *config) { c.opts.Version = v } }

// WithDeployment emulates "enterprise" (the default) or "online".
func WithDeployment(d string) Option { return func(c *config) { c.opts.Deployment = d } }

// WithContext puts the API under a context segment, such as "/portal".
func WithContext(segment string) Option { return func(c *config) { c.opts.Context = segment } }

// WithDSN uses another store than a new in-memory SQLite: a SQLite file, or
// a postgres:// URL (give each test its own schema or database).
func WithDSN(dsn string) Option { return func(c *config) { c.opts.DSN = dsn } }

// WithClock replaces time.Now as the emulator's clock: token expiry and
// timestamps read it.
func WithClock(now func() time.Time) Option { return func(c *config) { c.opts.Now = now } }

// WithLogger receives the emulator's request log (discarded by default).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.opts.Logger = l } }

// WithTrustedProxies names the proxies whose forwarding headers the server
// believes (emulator.Options.TrustedProxies).
func WithTrustedProxies(p ...netip.Prefix) Option {
	return func(c *config) { c.opts.TrustedProxies = p }
}

// WithHosts names the host names, besides localhost, by which clients
// address the server (emulator.Options.AdminHosts): the URLs it writes name
// it by a request's Host only when it is one of these, localhost or one of
// its addresses.
func WithHosts(names ...string) Option { return func(c *config) { c.opts.AdminHosts = names } }

// WithTLS serves HTTPS (HTTP/2 included): URL and Root start with
// https://, the server presents a certificate made for this Portal, and
// Client, Emulator and HTTPClient trust it. CertFile and Certificate give
// it to other clients.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// New starts an emulator for tb, closed by tb.Cleanup; it fails tb when the
// emulator cannot start.
func New(tb testing.TB, opts ...Option) *Portal {
	tb.Helper()
	p, err := Start(opts...)
	if err != nil {
		tb.Fatalf("portaltest: %v", err)
	}
	tb.Cleanup(p.Close)
	return p
}

// Start starts an emulator outside a test (an example, a TestMain); Close
// stops it.
func Start(opts ...Option) (*Portal, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.seedPath != "" {
		f, err := seed.ReadFile(c.seedPath)
		if err != nil {
			return nil, err
		}
		c.opts.Seed = f
	}
	srv, err := emulator.New(context.Background(), c.opts)
	if err != nil {
		return nil, err
	}
	p := &Portal{AdminToken: AdminToken, MemberToken: MemberToken, Store: srv.Store(), Server: srv}
	if c.tls {
		if err := p.startTLS(); err != nil {
			_ = srv.Close()
			return nil, err
		}
	} else {
		p.http = httptest.NewServer(srv)
	}
	p.Root = p.http.URL
	p.URL = p.Root + c.opts.Context + "/sharing/rest"
	return p, nil
}

// startTLS serves p.Server over HTTPS with a pair made for loopback, the
// way portald -tls makes one.
func (p *Portal) startTLS() error {
	certPEM, keyPEM, err := tlscert.Generate(tlscert.Hosts("127.0.0.1:0"), time.Now())
	if err != nil {
		return err
	}
	pair, err := tlscert.Parse(certPEM, keyPEM, "the generated certificate", "its key", time.Now())
	if err != nil {
		return err
	}
	pool, err := tlscert.Pool(certPEM)
	if err != nil {
		return err
	}
	p.certPEM = certPEM
	p.hc = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	p.http = httptest.NewUnstartedServer(p.Server)
	p.http.EnableHTTP2 = true
	p.http.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	// A client refusing the certificate is the test's business: its
	// handshake error goes to WithLogger's logger, not to stderr.
	p.http.Config.ErrorLog = slog.NewLogLogger(p.Server.Options().Logger.Handler(), slog.LevelWarn)
	p.http.StartTLS()
	return nil
}

// Close stops the server and closes the store.
func (p *Portal) Close() {
	p.http.Close()
	if p.hc != nil {
		p.hc.CloseIdleConnections()
	}
	_ = p.Server.Close()
}

// HTTPClient is the *http.Client that Client and Emulator send through: one
// that trusts the Portal's certificate over HTTPS, http.DefaultClient over
// HTTP.
func (p *Portal) HTTPClient() *http.Client {
	if p.hc == nil {
		return http.DefaultClient
	}
	return p.hc
}

// Certificate is the certificate the Portal presents over HTTPS (WithTLS),
// nil over HTTP. A Go client can trust it alone: add it to its RootCAs.
func (p *Portal) Certificate() *x509.Certificate { return p.http.Certificate() }

// CertFile writes the Portal's certificate file (PEM: the certificate and
// the CA that signed it) into a temporary directory of tb's and returns its
// path, for clients that take a CA file: curl --cacert,
// REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS. It fails tb over HTTP.
func (p *Portal) CertFile(tb testing.TB) string {
	tb.Helper()
	if p.certPEM == nil {
		tb.Fatal("portaltest: CertFile: the Portal serves HTTP; start it with WithTLS")
	}
	path := filepath.Join(tb.TempDir(), "portal-cert.pem")
	if err := os.WriteFile(path, p.certPEM, 0o644); err != nil {
		tb.Fatalf("portaltest: CertFile: %v", err)
	}
	return path
}

// Client returns the Go client of the API signed in with token, or
// anonymous when token is empty; opts come after the token's.
func (p *Portal) Client(token string, opts ...client.Option) *client.Client {
	if token != "" {
		opts = append([]client.Option{client.WithToken(token)}, opts...)
	}
	if p.hc != nil {
		opts = append([]client.Option{client.WithHTTPClient(p.hc)}, opts...)
	}
	c, err := client.New(p.URL, opts...)
	if err != nil {
		// Only options the caller passed can make it fail.
		panic(fmt.Sprintf("portaltest: client: %v", err))
	}
	return c
}

// Reset puts the store back to the seed and forgets cached tokens, as
// POST /emulator/reset does.
func (p *Portal) Reset(tb testing.TB) {
	tb.Helper()
	if err := p.Server.Reset(context.Background()); err != nil {
		tb.Fatalf("portaltest: reset: %v", err)
	}
}
