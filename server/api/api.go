// Package api serves the portal's REST API over HTTP: echo routes generated
// from openapi.yaml, kin-openapi validating every request against the
// embedded contract, token authentication, the error envelope for every
// failure, and an adapter from the generated strict-server interface to the
// business rules of package server.
package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
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
	// AllowRemoteReset lets /emulator/reset answer clients other than loopback.
	AllowRemoteReset bool
	// Reseed writes the seed again after /emulator/reset has emptied the store.
	Reseed func(ctx context.Context, tx server.Tx) error
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
}

// Keys of values kept on the echo context.
const (
	ctxOperation = "portal.operation"
	ctxPretty    = "portal.pretty"
	ctxParams    = "portal.params"
	// ctxRoute and ctxPathParams are what the contract's router found, for
	// the validator: routing once per request, not twice.
	ctxRoute      = "portal.route"
	ctxPathParams = "portal.pathParams"
	// ctxBadRequest holds a body error found before routing.
	ctxBadRequest = "portal.badRequest"
)

type srv struct {
	cfg    Config
	svc    *server.Service
	log    *slog.Logger
	doc    *openapi3.T
	router routers.Router
	base   string
	// validationRoutes are the router's routes as the validator gets them:
	// without security requirements, which authenticate has already
	// checked with the portal's codes.
	validationRoutes map[*openapi3.Operation]*routers.Route
}

// New returns the HTTP handler of the API and its side routes (/health,
// /openapi.yaml, /docs, /emulator/reset).
func New(cfg Config) (http.Handler, error) {
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
	version, err := server.ParseVersion(cfg.Version)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	base := cfg.Context + "/sharing/rest"
	doc, err := portalapi.LoadFor(base)
	if err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("api: router: %w", err)
	}
	gates, err := gatesFromSpec(doc, version, cfg.Deployment)
	if err != nil {
		return nil, err
	}
	var opts []server.Option
	if cfg.Now != nil {
		opts = append(opts, server.WithClock(cfg.Now))
	}
	s := &srv{cfg: cfg, svc: server.NewService(cfg.Store, gates, opts...), log: cfg.Logger, doc: doc, router: router, base: base,
		validationRoutes: validationRoutes(doc)}
	RegisterFormDecoder()

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(s.recoverPanics, s.logRequests)
	e.GET("/health", s.health)
	e.GET("/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml; charset=utf-8", portalapi.YAML)
	})
	e.GET("/docs", func(c echo.Context) error { return c.HTMLBlob(http.StatusOK, docs.ReferenceHTML) })
	e.POST("/emulator/reset", s.reset)
	g := e.Group(base, withClientAddr, s.readParams, s.route, s.authenticate, s.validate)
	gen.RegisterHandlersWithBaseURL(groupRouter{g}, gen.NewStrictHandler(&handlers{svc: s.svc}, []gen.StrictMiddlewareFunc{writeResponse}), "")
	// Unknown paths under the API root go through the group's middlewares,
	// so they answer the envelope in the format asked for.
	g.Any("/*", func(echo.Context) error { return errNotFound })
	return e, nil
}

// validationRoutes returns a route per operation of doc whose operation
// requires no security, for the validator.
func validationRoutes(doc *openapi3.T) map[*openapi3.Operation]*routers.Route {
	out := map[*openapi3.Operation]*routers.Route{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			noSecurity := *op
			noSecurity.Security = &openapi3.SecurityRequirements{}
			out[op] = &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: &noSecurity}
		}
	}
	return out
}

// groupRouter lets the generated registration add its routes to a group.
type groupRouter struct{ g *echo.Group }

func (r groupRouter) CONNECT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.CONNECT(p, h, m...)
}
func (r groupRouter) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.DELETE(p, h, m...)
}
func (r groupRouter) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.GET(p, h, m...)
}
func (r groupRouter) HEAD(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.HEAD(p, h, m...)
}
func (r groupRouter) OPTIONS(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.OPTIONS(p, h, m...)
}
func (r groupRouter) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.PATCH(p, h, m...)
}
func (r groupRouter) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.POST(p, h, m...)
}
func (r groupRouter) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.PUT(p, h, m...)
}
func (r groupRouter) TRACE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.g.TRACE(p, h, m...)
}

// recoverPanics turns a panic into a logged 500 envelope; the client never
// sees the panic's text.
func (s *srv) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return next(c)
	}
}

func (s *srv) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		// Checked first: the arguments would be built even when dropped.
		if s.log.Enabled(c.Request().Context(), slog.LevelInfo) {
			s.log.Info("request", "method", c.Request().Method, "path", c.Request().URL.Path,
				"status", c.Response().Status, "bytes", c.Response().Size, "duration", time.Since(start))
		}
		return nil
	}
}

// readParams reads the form once (bounded), merges the query string into it
// (the body wins, as in the portal), takes the token out, and puts the merged
// form back as the body, so that the validator and the generated binder see
// the same parameters.
func (s *srv) readParams(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		query := req.URL.Query()
		params := url.Values{}
		isForm := false
		if req.Method == http.MethodPost {
			if req.ContentLength > MaxBodyBytes {
				return errTooLarge
			}
			body, err := io.ReadAll(http.MaxBytesReader(c.Response().Writer, req.Body, MaxBodyBytes))
			if err != nil {
				return err
			}
			ct := req.Header.Get(echo.HeaderContentType)
			mt, _, _ := mime.ParseMediaType(ct)
			switch {
			case len(body) > 0 && mt != echo.MIMEApplicationForm:
				// Reported once the route is known, so an unknown path stays a 404.
				c.Set(ctxBadRequest, server.Invalid(fmt.Sprintf("Content-Type: %q is not accepted; send application/x-www-form-urlencoded", ct)))
			default:
				if params, err = url.ParseQuery(string(body)); err != nil {
					c.Set(ctxBadRequest, server.Invalid("the form body is not URL-encoded: "+err.Error()))
					params = url.Values{}
				}
			}
			isForm = true
		}
		token := first(params.Get("token"), query.Get("token"), bearer(req.Header.Get("X-Esri-Authorization")), bearer(req.Header.Get(echo.HeaderAuthorization)))
		params.Del("token")
		query.Del("token")
		if isForm {
			for k, vs := range query {
				if _, inBody := params[k]; !inBody {
					params[k] = vs
				}
			}
			query = url.Values{}
			encoded := params.Encode()
			req.Body = io.NopCloser(strings.NewReader(encoded))
			req.ContentLength = int64(len(encoded))
			req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
			// The generated binder reads the form through ParseForm, which
			// then finds it parsed: the body is left for the validator.
			req.PostForm, req.Form = params, params
		} else {
			params = query
		}
		req.URL.RawQuery = query.Encode()
		c.Set(ctxParams, params)
		c.Set(ctxPretty, params.Get("f") == "pjson")
		c.Set("portal.token", token)
		return next(c)
	}
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func bearer(h string) string {
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// route finds the operation in the contract; unknown paths and methods, and
// operations newer than the emulated version, are 404s.
func (s *srv) route(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		rt, pathParams, err := s.router.FindRoute(c.Request())
		if err != nil {
			return errNotFound
		}
		c.Set(ctxOperation, rt.Operation)
		c.Set(ctxRoute, s.validationRoutes[rt.Operation])
		c.Set(ctxPathParams, pathParams)
		if v, ok := rt.Operation.Extensions["x-introduced-in"].(string); ok {
			if need, err := server.ParseVersion(v); err == nil && s.svc.Gates().Version.Less(need) {
				return errNotFound
			}
		}
		return next(c)
	}
}

type principalKey struct{}

// authenticate resolves the token: an invalid one is 498 whatever the
// operation; none is 499 unless the operation's security allows anonymous
// callers (an empty requirement in openapi.yaml).
func (s *srv) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		token, _ := c.Get("portal.token").(string)
		op := c.Get(ctxOperation).(*openapi3.Operation)
		p, err := s.svc.Authenticate(c.Request().Context(), token)
		if err != nil {
			return err
		}
		if token == "" && !allowsAnonymous(s.doc, op) {
			return server.ErrTokenRequired
		}
		c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), principalKey{}, p)))
		return next(c)
	}
}

func allowsAnonymous(doc *openapi3.T, op *openapi3.Operation) bool {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 {
		return true
	}
	for _, r := range reqs {
		if len(r) == 0 {
			return true
		}
	}
	return false
}

func principal(ctx context.Context) server.Principal {
	p, _ := ctx.Value(principalKey{}).(server.Principal)
	return p
}

// validate checks the request against the contract. Security is checked by
// authenticate, which knows the portal's codes.
func (s *srv) validate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err, bad := c.Get(ctxBadRequest).(error); bad {
			return err
		}
		rt := c.Get(ctxRoute).(*routers.Route)
		pathParams := c.Get(ctxPathParams).(map[string]string)
		req := c.Request()
		var body []byte
		if req.Body != nil {
			body, _ = io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		// The router gives path values as sent, still escaped; the contract's
		// limits (maxLength) are on the values themselves.
		for name, v := range pathParams {
			if u, err := url.PathUnescape(v); err == nil {
				pathParams[name] = u
			}
		}
		params, _ := c.Get(ctxParams).(url.Values)
		if err := checkText(pathParams, params); err != nil {
			return err
		}
		in := &openapi3filter.RequestValidationInput{
			Request: req, PathParams: pathParams, Route: rt,
			Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
				// The details dump the value indented: quadratic in its depth,
				// seconds for a deeply nested document, and never shown.
				SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()}},
		}
		if err := openapi3filter.ValidateRequest(req.Context(), in); err != nil {
			if de, isDomain := server.AsError(err); isDomain {
				return de // a rule the decoder had to apply itself (decode.go, maxDepth)
			}
			return validationError(err)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		return next(c)
	}
}

// writeResponse writes every success answer itself, so that f=pjson and the
// content type apply to them as to errors.
func writeResponse(f gen.StrictHandlerFunc, _ string) gen.StrictHandlerFunc {
	return func(c echo.Context, request any) (any, error) {
		resp, err := f(c, request)
		if err != nil || resp == nil {
			return nil, err
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

// reset empties the store and applies the seed again, for test suites that
// want a known state. Only loopback clients may call it unless allowed.
func (s *srv) reset(c echo.Context) error {
	if !s.cfg.AllowRemoteReset {
		host, _, _ := net.SplitHostPort(c.Request().RemoteAddr)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return server.ErrForbidden
		}
	}
	ctx := c.Request().Context()
	if err := s.cfg.Store.Reset(ctx); err != nil {
		return err
	}
	s.svc.ForgetTokens()
	if s.cfg.Reseed != nil {
		if err := s.cfg.Store.Update(ctx, func(tx server.Tx) error { return s.cfg.Reseed(ctx, tx) }); err != nil {
			return err
		}
	}
	return writeJSON(c, http.StatusOK, map[string]bool{"success": true})
}
