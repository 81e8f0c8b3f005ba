// Package api serves the portal's REST API over HTTP: echo routes generated
// from openapi.yaml, kin-openapi validating every request against the
// embedded contract, token authentication, the error envelope for every
// failure, and an adapter from the generated strict-server interface to the
// business rules of package server.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/docs"
	"github.com/orgportal/portal-api/gen"
	"github.com/orgportal/portal-api/server"
)

// MaxBodyBytes is the largest request body accepted (1 MiB).
const MaxBodyBytes = 1 << 20

// Config configures the HTTP API.
type Config struct {
	Store      server.Store
	Context    string // segment before /sharing/rest, such as "/portal"; may be empty
	Version    string // emulated portal version, such as "11.5"
	Deployment string // server.DeploymentEnterprise or server.DeploymentOnline
	Logger     *slog.Logger
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
	// BodyBytesInFlight bounds the bytes of all request bodies being read or
	// worked on at once; DefaultBodyBytesInFlight when 0.
	BodyBytesInFlight int64
	// Hooks, when set, sees every call to an operation and may inject
	// faults (package emulator).
	Hooks Hooks
	// DefaultOrganization is the organization an anonymous portals/self
	// answers (the portal's own: the first of the seed).
	DefaultOrganization string
	// Hosts are the names, besides localhost and the server's addresses, by
	// which clients address it: a request's Host names the server in the
	// URLs it writes only when it is one of them (RequestBase).
	Hosts []string
	// TrustedProxies are the addresses of the proxies in front, whose
	// Forwarded and X-Forwarded-* headers are believed (TrustForwarding);
	// none by default.
	TrustedProxies []netip.Prefix
	// Before, when not nil, answers the requests it claims (reporting true)
	// before the API routes them, with no CORS and no log of the API's: the
	// emulator's own endpoints.
	Before func(w http.ResponseWriter, r *http.Request) bool
}

// DefaultBodyBytesInFlight is the default bound on the bytes of all bodies
// in flight: 16 bodies of the largest size, or thousands of ordinary ones.
const DefaultBodyBytesInFlight = 16 * MaxBodyBytes

type srv struct {
	cfg    Config
	svc    *server.Service
	log    *slog.Logger
	doc    *openapi3.T
	base   string
	bodies *budget
}

// API is the HTTP handler of the API and its side routes (/health,
// /openapi.yaml, /docs).
type API struct {
	s   *srv
	e   *echo.Echo
	ops map[string]*operation
}

// ForgetTokens empties the token cache, for an owner that reset the store
// behind the API's back: no token of the old state is honoured.
func (a *API) ForgetTokens() { a.s.svc.ForgetTokens() }

// ForgetSignins forgets the failed sign-ins counted by the throttle, for an
// owner that reset the store to its seed.
func (a *API) ForgetSignins() { a.s.svc.ForgetSignins() }

// New returns the API on cfg.Store.
func New(cfg Config) (*API, error) {
	if cfg.Store == nil {
		return nil, errors.New("api: no store")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = "11.5"
	}
	if cfg.Deployment == "" {
		cfg.Deployment = server.DeploymentEnterprise
	}
	if cfg.Deployment != server.DeploymentEnterprise && cfg.Deployment != server.DeploymentOnline {
		return nil, fmt.Errorf("api: deployment %q: want enterprise or online", cfg.Deployment)
	}
	if cfg.Context != "" && (!strings.HasPrefix(cfg.Context, "/") || strings.HasSuffix(cfg.Context, "/")) {
		return nil, fmt.Errorf("api: context %q: want empty or /segment", cfg.Context)
	}
	if cfg.BodyBytesInFlight == 0 {
		cfg.BodyBytesInFlight = DefaultBodyBytesInFlight
	}
	version, err := server.ParseVersion(cfg.Version)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	base := cfg.Context + "/sharing/rest"
	doc, limits, err := loadSpec(base)
	if err != nil {
		return nil, err
	}
	gates, err := gatesFromSpec(doc, version, cfg.Deployment)
	if err != nil {
		return nil, err
	}
	gates.Limits = limits
	opts := []server.Option{server.WithDefaultOrganization(cfg.DefaultOrganization)}
	if cfg.Now != nil {
		opts = append(opts, server.WithClock(cfg.Now))
	}
	s := &srv{cfg: cfg, svc: server.NewService(cfg.Store, gates, opts...), log: cfg.Logger, doc: doc, base: base,
		bodies: &budget{limit: cfg.BodyBytesInFlight}}
	ops, err := operations(doc, version)
	if err != nil {
		return nil, err
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.GET("/health", s.health)
	e.GET("/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml; charset=utf-8", portalapi.YAML)
	})
	e.GET("/docs", func(c echo.Context) error { return c.HTMLBlob(http.StatusOK, docs.ReferenceHTML) })
	e.GET("/favicon.ico", func(c echo.Context) error { return c.Blob(http.StatusOK, "image/x-icon", docs.Favicon) })
	// Each operation is routed once, by echo, to its generated handler behind
	// the one middleware that holds what start-up computed for it.
	perOp := make(map[string][]echo.MiddlewareFunc, len(ops))
	for id, o := range ops {
		perOp[id] = []echo.MiddlewareFunc{s.serve(o)}
	}
	// Only the sign-ins need the client's address (sign-in throttling).
	for _, id := range []string{"generateToken", "oauthSignIn"} {
		perOp[id] = append([]echo.MiddlewareFunc{s.withClientAddr}, perOp[id]...)
	}
	// Answers that carry tokens or codes are kept by no cache (RFC 6749
	// 5.1): the token endpoints' and the sign-in's redirect.
	for _, id := range []string{"generateToken", "oauthToken", "oauthSignIn"} {
		perOp[id] = append([]echo.MiddlewareFunc{noStore}, perOp[id]...)
	}
	for id, o := range ops {
		if o.html {
			perOp[id] = append([]echo.MiddlewareFunc{pageHeaders}, perOp[id]...)
		}
	}
	g := groupRouter{g: e.Group(base), bare: new([]string), beside: map[string]*echo.Group{}, slashed: map[string]bool{},
		e: e, context: cfg.Context, also: map[string][]string{}, alsoGet: map[string]bool{}}
	// A path whose own servers put it beside the REST root, not under it
	// (the sign-in the sign-in page posts: /sharing/oauth2/signin), is
	// routed where they say.
	for path, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if slashed, _ := op.Extensions["x-trailing-slash"].(bool); slashed {
				g.slashed[path] = true
			}
			if get, _ := op.Extensions["x-also-get"].(bool); get {
				g.alsoGet[path] = true
			}
			if at, ok := op.Extensions["x-also-at"].([]any); ok {
				for _, a := range at {
					s, _ := a.(string)
					if !strings.HasPrefix(s, "/sharing/") {
						return nil, fmt.Errorf("api: openapi.yaml %s: x-also-at %q does not start with /sharing/", path, s)
					}
					g.also[path] = append(g.also[path], s)
				}
			}
		}
		if len(item.Servers) == 0 {
			continue
		}
		at, ok := strings.CutPrefix(item.Servers[0].URL, "{scheme}://{host}")
		if !ok {
			return nil, fmt.Errorf("api: openapi.yaml %s: a server URL that does not start with {scheme}://{host}", path)
		}
		g.beside[path] = e.Group(cfg.Context + at)
	}
	gen.RegisterHandlersWithOptions(g, gen.NewStrictHandler(&handlers{svc: s.svc, context: cfg.Context, hosts: cfg.Hosts}, []gen.StrictMiddlewareFunc{writeResponse}),
		gen.RegisterHandlersOptions{OperationMiddlewares: perOp})
	if len(*g.bare) > 0 {
		// A route without its middleware would skip authentication.
		return nil, fmt.Errorf("api: generated routes without an operation of openapi.yaml: %v", *g.bare)
	}
	// Unknown paths under the API root answer the envelope in the format
	// asked for.
	g.g.Any("/*", func(c echo.Context) error {
		q, _ := url.ParseQuery(c.Request().URL.RawQuery)
		c.SetRequest(c.Request().WithContext(&requestState{Context: c.Request().Context(), pretty: q.Get("f") == "pjson"}))
		return errNotFound
	})
	return &API{s: s, e: e, ops: ops}, nil
}

// ServeHTTP is what every request meets, routed by echo in it rather than
// in echo's own ServeHTTP so that one function of this package, not three,
// stands between the connection and an operation's middleware:
//   - a path starting with repeated slashes is served as if it started with
//     one, as the portal's web servers do (the ArcGIS API for Python writes
//     //sharing/rest/ for a portal without a context);
//   - the forwarding headers of trusted proxies are believed;
//   - Config.Before answers what it claims;
//   - a web page's preflight is answered, and answers to pages carry their
//     origin (cors);
//   - after the route's handler, in one deferred function: a panic becomes
//     a logged 500 envelope, whose client never sees the panic's text; an
//     error is answered through the error handler; the request is logged.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := a.s
	if u := r.URL; strings.HasPrefix(u.Path, "//") {
		u.Path = "/" + strings.TrimLeft(u.Path, "/")
		if u.RawPath != "" {
			u.RawPath = "/" + strings.TrimLeft(u.RawPath, "/")
		}
	}
	TrustForwarding(r, s.cfg.TrustedProxies)
	if s.cfg.Before != nil && s.cfg.Before(w, r) {
		return
	}
	if s.cors(w, r) {
		return
	}
	c := a.e.AcquireContext()
	c.Reset(r, w)
	start := time.Now()
	var err error
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			err = fmt.Errorf("panic: %v", p)
		}
		if err != nil {
			if s.cfg.Hooks != nil && routingMiss(err) {
				s.unmatched(c, start)
			}
			c.Error(err)
		}
		// Checked first: the arguments would be built even when dropped.
		if ctx := c.Request().Context(); s.log.Enabled(ctx, slog.LevelInfo) {
			// A record of its own, as slog's documentation shows for a
			// wrapper: Logger.LogAttrs would take the stack for the
			// caller's position, which is always this line.
			now := time.Now()
			rec := slog.NewRecord(now, slog.LevelInfo, "request", 0)
			rec.AddAttrs(slog.String("method", c.Request().Method), slog.String("path", c.Request().URL.Path),
				slog.Int("status", c.Response().Status), slog.Int64("bytes", c.Response().Size), slog.Duration("duration", now.Sub(start)))
			_ = s.log.Handler().Handle(ctx, rec)
		}
		a.e.ReleaseContext(c)
	}()
	a.e.Router().Find(r.Method, echo.GetPath(r), c)
	err = c.Handler()(c)
}

// groupRouter lets the generated registration add its routes to a group.
// Every read answers POST as well as GET: the portal takes a read's
// parameters from a form body too, and its JavaScript client posts them.
type groupRouter struct {
	g    *echo.Group
	bare *[]string // paths registered without a middleware
	// beside holds the groups of the paths routed beside the REST root;
	// slashed the paths also answered with (or, for "/", without) a
	// trailing slash.
	beside  map[string]*echo.Group
	slashed map[string]bool
	// also holds the other paths (after the context) an operation answers
	// at (x-also-at: the portal's clients call the OAuth endpoints under
	// sharing/oauth2 and sharing/rest/oauth2 alike); alsoGet the POST
	// operations that answer GET too (x-also-get).
	e       *echo.Echo
	context string
	also    map[string][]string
	alsoGet map[string]bool
}

func (r groupRouter) check(p string, m []echo.MiddlewareFunc) {
	if len(m) == 0 {
		*r.bare = append(*r.bare, p)
	}
}

// at returns the group p is routed in.
func (r groupRouter) at(p string) *echo.Group {
	if g, ok := r.beside[p]; ok {
		return g
	}
	return r.g
}

// register routes h at p with method, and at p's other spelling when the
// contract says the operation has one (x-trailing-slash): the REST root
// is at sharing/rest and sharing/rest/, the token endpoint at oauth2/token
// and oauth2/token/, as the official clients call them.
func (r groupRouter) register(method, p string, h echo.HandlerFunc, m []echo.MiddlewareFunc) *echo.Route {
	r.check(p, m)
	g := r.at(p)
	for _, a := range r.also[p] {
		r.e.Add(method, r.context+a, h, m...)
		if r.slashed[p] {
			r.e.Add(method, r.context+a+"/", h, m...)
		}
	}
	if r.slashed[p] {
		if p == "/" {
			g.Add(method, "", h, m...)
		} else {
			g.Add(method, p+"/", h, m...)
		}
	}
	return g.Add(method, p, h, m...)
}

func (r groupRouter) CONNECT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.register(http.MethodConnect, p, h, m)
}
func (r groupRouter) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.register(http.MethodDelete, p, h, m)
}
func (r groupRouter) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	r.register(http.MethodPost, p, h, m)
	return r.register(http.MethodGet, p, h, m)
}
func (r groupRouter) HEAD(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.register(http.MethodHead, p, h, m)
}
func (r groupRouter) OPTIONS(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.register(http.MethodOptions, p, h, m)
}
func (r groupRouter) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.register(http.MethodPatch, p, h, m)
}
func (r groupRouter) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	if r.alsoGet[p] {
		r.register(http.MethodGet, p, h, m)
	}
	return r.register(http.MethodPost, p, h, m)
}
func (r groupRouter) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.register(http.MethodPut, p, h, m)
}
func (r groupRouter) TRACE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.register(http.MethodTrace, p, h, m)
}

// writeResponse writes every JSON success answer itself, so that f=pjson and
// the content type apply to them as to errors.
func writeResponse(f gen.StrictHandlerFunc, _ string) gen.StrictHandlerFunc {
	return func(c echo.Context, request any) (any, error) {
		resp, err := f(c, request)
		if err != nil || resp == nil {
			return nil, err
		}
		rs := stateOf(c.Request().Context())
		if rs != nil && rs.hook != nil {
			rs.answer = resp
		}
		if rs != nil && rs.op.html {
			return resp, nil // a page: the generated server writes it (see pageHeaders)
		}
		return nil, writeJSON(c, http.StatusOK, resp)
	}
}

func (s *srv) health(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Store.Ping(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}
