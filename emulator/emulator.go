// Package emulator is the portal emulator as a library: it opens a store,
// seeds it when empty and serves the portal's REST API (package server/api)
// beside the emulator's own endpoints under /emulator/. The portald command
// and package portaltest are thin layers over it.
//
//	srv, err := emulator.New(ctx, emulator.Options{DSN: ":memory:"})
//	if err != nil { ... }
//	defer srv.Close()
//	http.ListenAndServe("127.0.0.1:8080", srv)
package emulator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orgportal/portal-api/server"
	"github.com/orgportal/portal-api/server/api"
	"github.com/orgportal/portal-api/server/seed"
	"github.com/orgportal/portal-api/server/sqlstore"
)

// Options configure an emulator. The zero value is a valid configuration:
// an in-memory store seeded with the demo organizations, portal 11.5
// enterprise at /sharing/rest, loopback-only emulator endpoints.
type Options struct {
	// DSN is the store: the path of a SQLite file (created if missing),
	// ":memory:" for a store discarded at Close, or a postgres:// URL.
	// Empty means ":memory:".
	DSN string
	// Seed is written when the store is empty and again by Reset; nil means
	// the built-in demo organizations (seed.Demo).
	Seed *seed.File
	// Version is the portal version emulated, major.minor; "" means 11.5.
	// Operations introduced later answer 404.
	Version string
	// Deployment is server.DeploymentEnterprise (the default when empty) or
	// server.DeploymentOnline.
	Deployment string
	// Context is the path segment before /sharing/rest, such as "/portal";
	// empty for none.
	Context string
	// Logger receives the request log and unexpected errors; nil discards
	// them.
	Logger *slog.Logger
	// Now is the emulator's clock (token expiry, timestamps, the seed's
	// dates); nil means time.Now.
	Now func() time.Time
	// AllowRemoteAdmin lets clients other than loopback call the /emulator/
	// endpoints. Requests from web pages are refused either way.
	AllowRemoteAdmin bool
	// AdminHosts are host names, besides localhost, by which clients
	// address the emulator (the Host header): the name of a compose service
	// or a CI service container. The /emulator/ endpoints refuse any other
	// name, so that a web page on a DNS name made to point at the emulator
	// cannot call them (an IP address is taken only from remote clients,
	// with AllowRemoteAdmin); the URLs the API writes (info's, the OAuth
	// sign-in's redirects) name the server by the Host only when it is
	// localhost, one of its addresses or one of these
	// (api.Config.Hosts), by the listener's address otherwise.
	AdminHosts []string
	// AdminToken, when set, is required on every /emulator/ call as
	// "Authorization: Bearer <AdminToken>".
	AdminToken string
	// JournalSize is how many API calls the journal keeps (the oldest are
	// dropped); 0 means DefaultJournalSize, a negative number none.
	JournalSize int
	// TrustedProxies are the proxies in front whose Forwarded and
	// X-Forwarded-* headers are believed (api.Config.TrustedProxies).
	TrustedProxies []netip.Prefix
}

// demoSeed is the built-in demo seed, parsed once: New and Reset only read
// a seed.
var demoSeed = sync.OnceValue(seed.Demo)

// Server is a running emulator: an http.Handler for the portal's API under
// Context+"/sharing/rest", /health, /openapi.yaml, /docs and /emulator/.
// Its ServeHTTP is the API's (api.API.ServeHTTP), which asks the emulator
// for its own endpoints first. It is safe for concurrent use.
type Server struct {
	// handler is the API's: its ServeHTTP is the Server's, and it asks the
	// emulator's own endpoints first (own).
	handler
	opts   Options
	store  server.Store
	seed   *seed.File
	seeded bool
	admin  http.Handler

	api *api.API
	// resetMu makes Resets and snapshot restores one at a time.
	resetMu sync.Mutex
	closed  atomic.Bool

	// What belongs to this process (emulator.md): the clock's offset, the
	// fault rules and the journal.
	clock      clock
	faults     faults
	journal    journal
	operations map[string][]string // operationId -> its path parameters
}

// New opens the store opts.DSN names, writes the seed if it holds no
// organization, and returns the emulator serving it. Close releases it.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.DSN == "" {
		opts.DSN = ":memory:"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Seed == nil {
		opts.Seed = demoSeed()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	store, err := sqlstore.Open(ctx, opts.DSN)
	if err != nil {
		return nil, fmt.Errorf("emulator: opening store %s: %w", DescribeStore(opts.DSN), err)
	}
	s := &Server{opts: opts, store: store, seed: opts.Seed}
	s.clock.base = opts.Now
	s.journal.size = opts.JournalSize
	if s.journal.size == 0 {
		s.journal.size = DefaultJournalSize
	}
	fail := func(err error) (*Server, error) {
		return nil, errors.Join(err, store.Close())
	}
	if err := store.Update(ctx, func(tx server.Tx) error {
		empty, err := tx.Empty(ctx)
		if err != nil || !empty {
			s.seeded = false
			return err
		}
		s.seeded = true
		return s.seed.Apply(ctx, tx, s.clock.now())
	}); err != nil {
		return fail(fmt.Errorf("emulator: seeding store: %w", err))
	}
	a, err := s.newAPI()
	if err != nil {
		return fail(err)
	}
	s.api, s.handler = a, a
	s.operations = a.Operations()
	s.admin = s.adminHandler()
	return s, nil
}

func (s *Server) newAPI() (*api.API, error) {
	var defaultOrg string
	if len(s.seed.Organizations) > 0 {
		defaultOrg = s.seed.Organizations[0].ID
	}
	return api.New(api.Config{
		Store: s.store, Context: s.opts.Context, Version: s.opts.Version, Deployment: s.opts.Deployment,
		Logger: s.opts.Logger, Now: s.clock.now, Hooks: s.hooks(), DefaultOrganization: defaultOrg,
		TrustedProxies: s.opts.TrustedProxies,
		Hosts:          s.opts.AdminHosts,
		Before:         s.own,
	})
}

// handler names the Server's embedded http.Handler without exporting it.
type handler = http.Handler

var _ http.Handler = (*Server)(nil)

// own answers the emulator's endpoints (api.Config.Before): the API's
// ServeHTTP, which the Server's is, asks it first.
func (s *Server) own(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path == adminPrefix[:len(adminPrefix)-1] || strings.HasPrefix(r.URL.Path, adminPrefix) {
		s.admin.ServeHTTP(w, r)
		return true
	}
	return s.serveContract(w, r)
}

// Store is the store the emulator serves. Writes made through it are seen
// by the API at once, except for tokens the API has already checked (cached
// for a few seconds): Reset to forget those.
func (s *Server) Store() server.Store { return s.store }

// Seeded reports whether New found the store empty and wrote the seed.
func (s *Server) Seeded() bool { return s.seeded }

// Seed is the seed New and Reset write.
func (s *Server) Seed() *seed.File { return s.seed }

// Options are the options the emulator runs with, defaults filled in.
func (s *Server) Options() Options { return s.opts }

// Reset empties the store, writes the seed again and forgets every token
// the API had cached, and clears the fault rules, the journal, the clock's
// offset and the failed sign-ins counted, as POST /emulator/reset does. Emptying and seeding are one
// transaction: no request sees the store empty, and a write whose token the
// reset removes either commits before it (and is wiped) or answers 498.
func (s *Server) Reset(ctx context.Context) error {
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	s.ClearFaults()
	s.ResetClock()
	defer s.ClearRequests()
	if err := s.store.Reset(ctx, func(tx server.Tx) error { return s.seed.Apply(ctx, tx, s.clock.now()) }); err != nil {
		return fmt.Errorf("emulator: reset: %w", err)
	}
	s.api.ForgetSignins()
	// A token read before the reset committed and cached after this is
	// dropped by the cache itself (its generation moved on).
	s.api.ForgetTokens()
	return nil
}

// Close closes the store; requests still being served fail. Calling it
// again does nothing.
func (s *Server) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	return s.store.Close()
}

// DescribeStore names the store a DSN designates for humans, without a
// PostgreSQL password.
func DescribeStore(dsn string) string {
	switch {
	case dsn == ":memory:":
		return "in-memory SQLite (discarded at exit)"
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		if u, err := url.Parse(dsn); err == nil {
			return "PostgreSQL " + u.Redacted()
		}
		return "PostgreSQL"
	default:
		return "SQLite file " + dsn
	}
}
