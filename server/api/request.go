package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"

	"github.com/orgportal/portal-api/server"
)

// operation is what start-up computed for one operation of the contract;
// its middleware (serve) holds it, so a request is routed once, by echo.
type operation struct {
	spec *openapi3.Operation
	// route is the operation as the parameter validator gets it: without
	// security requirements, which serve checks with the portal's codes.
	route     *routers.Route
	available bool // introduced in the emulated version or before
	anonymous bool // its security has an empty requirement
	read      bool // a GET; it answers a POST with a form body as well
	params    []*openapi3.Parameter
	// body is the schema of the form body and encoding its fields'
	// encodings; nil for an operation without a body.
	body         *openapi3.Schema
	bodyRequired bool
	check        *openapi3.Schema // body as the validator visits it (flatten)
	encoding     map[string]*openapi3.Encoding
	// required names the parameters and fields that may not be left out;
	// any other sent empty is taken as not sent.
	required map[string]bool
	// shadows are the path parameter values that spell another operation's
	// path (a folder id of "moveItems"): that path with this method is no
	// operation, a 404.
	shadows [][]pathValue
	// html is set for the operations that answer an HTML page (the OAuth
	// sign-in), whose errors are pages too; oauthErrors for those whose
	// error envelope carries the OAuth 2.0 error (OAuthErrorBody).
	html, oauthErrors bool
	// secrets names the parameters and form fields whose format is
	// password.
	secrets map[string]bool
}

type pathValue struct{ name, value string }

// operations reads every operation of doc.
func operations(doc *openapi3.T, v server.Version) (map[string]*operation, error) {
	out := map[string]*operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			noSecurity := *op
			noSecurity.Security = &openapi3.SecurityRequirements{}
			o := &operation{
				spec:      op,
				route:     &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: &noSecurity},
				available: true,
				anonymous: allowsAnonymous(doc, op),
				read:      method == http.MethodGet,
				required:  map[string]bool{},
			}
			if ok := op.Responses.Value("200"); ok != nil && ok.Value != nil {
				o.html = ok.Value.Content.Get("text/html") != nil
				if mt := ok.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
					if e := mt.Schema.Value.Properties["error"]; e != nil {
						o.oauthErrors = e.Ref == "#/components/schemas/OAuthErrorBody"
					}
				}
			}
			if s, ok := op.Extensions["x-introduced-in"].(string); ok {
				need, err := server.ParseVersion(s)
				if err != nil {
					return nil, fmt.Errorf("api: openapi.yaml %s %s: %w", method, path, err)
				}
				o.available = !v.Less(need)
			}
			secret := func(name string, sr *openapi3.SchemaRef) {
				if sr != nil && sr.Value != nil && sr.Value.Format == "password" {
					if o.secrets == nil {
						o.secrets = map[string]bool{}
					}
					o.secrets[name] = true
				}
			}
			for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range list {
					if p.Value == nil {
						continue
					}
					secret(p.Value.Name, p.Value.Schema)
					o.params = append(o.params, p.Value)
					if p.Value.Required {
						o.required[p.Value.Name] = true
					}
				}
			}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				mt := rb.Value.Content.Get(echo.MIMEApplicationForm)
				if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
					return nil, fmt.Errorf("api: openapi.yaml %s %s: the body is not a form", method, path)
				}
				o.body, o.bodyRequired, o.encoding = mt.Schema.Value, rb.Value.Required, mt.Encoding
				o.check = flatten(o.body)
				for name, p := range o.body.Properties {
					secret(name, p)
				}
				for _, name := range o.body.Required {
					o.required[name] = true
				}
			}
			out[op.OperationID] = o
		}
	}
	for _, o := range out {
		for _, other := range out {
			if other.route.Path == o.route.Path {
				continue
			}
			if sh, ok := shadow(o.route.Path, other.route.Path); ok {
				o.shadows = append(o.shadows, sh)
			}
		}
	}
	return out, nil
}

// shadow returns the values of path's parameters that make it spell other,
// if other has a fixed segment wherever the two differ.
func shadow(path, other string) ([]pathValue, bool) {
	a, b := strings.Split(path, "/"), strings.Split(other, "/")
	if len(a) != len(b) {
		return nil, false
	}
	var out []pathValue
	for i := range a {
		switch {
		case a[i] == b[i]:
		case strings.HasPrefix(a[i], "{") && !strings.HasPrefix(b[i], "{"):
			out = append(out, pathValue{strings.Trim(a[i], "{}"), b[i]})
		default:
			return nil, false
		}
	}
	return out, len(out) > 0
}

// shadowed reports whether the request's path is another operation's, or
// has an empty path parameter: no operation either way.
func (o *operation) shadowed(c echo.Context) bool {
	for _, v := range c.ParamValues() {
		if v == "" {
			return true
		}
	}
	for _, sh := range o.shadows {
		all := true
		for _, pv := range sh {
			if c.Param(pv.name) != pv.value {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// flatten returns form with each field that is only an allOf of one schema
// (the pattern that carries a description and x-go-type beside a $ref)
// replaced by that schema: the same checks, without kin-openapi visiting
// the wrapper on every request.
func flatten(form *openapi3.Schema) *openapi3.Schema {
	out := *form
	out.Properties = make(openapi3.Schemas, len(form.Properties))
	for name, p := range form.Properties {
		out.Properties[name] = p
		if p == nil || p.Value == nil || len(p.Value.AllOf) != 1 {
			continue
		}
		bare := *p.Value
		bare.Description, bare.Extensions, bare.AllOf = "", nil, nil
		if reflect.DeepEqual(bare, openapi3.Schema{}) {
			out.Properties[name] = p.Value.AllOf[0]
		}
	}
	return &out
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

type stateKey struct{}

// requestState is one request's state, from its route to its answer. It is the
// request's context, so the handlers and the error handler find it there.
type requestState struct {
	context.Context
	// req is the request as it arrived (its host, its TLS state).
	req    *http.Request
	op     *operation
	pretty bool // f=pjson
	// reserved is what the body holds of the budget of bodies in flight.
	reserved int64
	// form is every parameter but the token: the query, and the form body
	// over it (the body wins, as in the portal).
	form url.Values
	// fields are the form body's fields as decoded and validated: JSON
	// documents as the values they decoded to.
	fields    map[string]any
	principal server.Principal
	// hook is the call as Config.Hooks see it (nil without hooks), fault
	// the fault that fired and answer the handler's answer.
	hook   *Call
	hooked Call // what hook points to: one allocation with the call
	fault  *Fault
	answer any
}

func (c *requestState) Value(key any) any {
	if key == (stateKey{}) {
		return c
	}
	return c.Context.Value(key)
}

func stateOf(ctx context.Context) *requestState {
	c, _ := ctx.Value(stateKey{}).(*requestState)
	return c
}

func principal(ctx context.Context) server.Principal {
	if c := stateOf(ctx); c != nil {
		return c.principal
	}
	return server.Principal{}
}

// serve is an operation's middleware: it reads the parameters, resolves the
// token and validates the request against the contract before the
// generated handler binds it.
func (s *srv) serve(o *operation) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			rs := &requestState{Context: server.WithRequest(c.Request().Context()), req: c.Request(), op: o}
			c.SetRequest(c.Request().WithContext(rs))
			if !o.available || o.shadowed(c) {
				return errNotFound
			}
			hooked := s.cfg.Hooks != nil
			if hooked {
				s.observe(c, rs)
				defer func() {
					s.finish(c, rs, err)
					if err == errDrop {
						drop(c)
						err = nil
					}
				}()
			}
			token, err := s.readParams(c, rs)
			if rs.reserved > 0 {
				defer s.bodies.give(rs.reserved)
			}
			if err != nil {
				return err
			}
			if hooked {
				rs.hook.Token = token
			}
			// An invalid token is 498 whatever the operation; none is 499
			// unless the operation allows anonymous callers. A token
			// generateToken bound to a Referer or an address is invalid
			// from any other.
			if err := server.CheckTokenBinding(token, c.Request().Referer(), s.clientIP(c.Request())); err != nil {
				return err
			}
			p, err := s.svc.Authenticate(rs, token)
			if err != nil {
				return err
			}
			if token == "" && !o.anonymous {
				return server.ErrTokenRequired
			}
			rs.principal = p
			if hooked {
				rs.hook.User = p.Name()
			}
			if err := s.validate(c, rs); err != nil {
				return err
			}
			if hooked {
				if f := s.cfg.Hooks.Fault(rs.hook); f != nil {
					if err := s.applyFault(c, rs, f); err != nil {
						return err
					}
				}
			}
			return next(c)
		}
	}
}

// sentToken is the token a call sent, where the portal looks for it, in
// this order: the form body, the query, X-Esri-Authorization,
// Authorization.
func sentToken(form, query url.Values, h http.Header) string {
	return first(form.Get("token"), query.Get("token"), bearer(h.Get("X-Esri-Authorization")), bearer(h.Get(echo.HeaderAuthorization)))
}

// addQuery adds to a body's form the query's parameters it lacks, but the
// token.
func addQuery(form, query url.Values) {
	for k, vs := range query {
		if _, inBody := form[k]; !inBody && k != "token" {
			form[k] = vs
		}
	}
}

// readParams reads the body once (bounded in size and in bytes in flight),
// parses the form once, merges the query string into it, and takes the
// token out (form, query, X-Esri-Authorization, Authorization). The
// generated handler then finds the parameters where it looks for them.
func (s *srv) readParams(c echo.Context, rs *requestState) (token string, err error) {
	req := c.Request()
	var query url.Values // most posts have none: no map to make
	if req.URL.RawQuery != "" {
		if query, err = url.ParseQuery(req.URL.RawQuery); err != nil {
			return "", server.Invalid("the query string is not URL-encoded: " + err.Error())
		}
	}
	form := query
	posted := req.Method == http.MethodPost
	if !posted && form == nil {
		form = url.Values{}
	}
	if posted {
		body, err := s.readBody(c, rs)
		if err != nil {
			return "", err
		}
		if form, err = parseBody(req.Header.Get(echo.HeaderContentType), body); err != nil {
			return "", err
		}
	}
	// A token given twice in one place is refused like any other parameter
	// (decodeForm): taking the first would hide the client's mistake.
	for _, src := range []url.Values{form, query} {
		if n := len(src["token"]); n > 1 {
			return "", server.Invalid(givenTimes("token", n))
		}
	}
	token = sentToken(form, query, req.Header)
	changed := form.Has("token") || query.Has("token")
	delete(form, "token")
	if posted {
		addQuery(form, query)
	}
	for k, vs := range form {
		if len(vs) == 1 && vs[0] == "" && !rs.op.required[k] {
			delete(form, k)
			changed = true
		}
	}
	rs.form = form
	rs.pretty = form.Get("f") == "pjson"
	switch {
	case rs.op.read && (posted || changed):
		// The generated handler binds a read's parameters from the query.
		req.URL.RawQuery = form.Encode()
	case posted || !rs.op.read:
		// The generated binder reads the form through ParseForm, which then
		// finds it parsed; a POST operation that answers GET too
		// (x-also-get) takes the query as its form.
		req.PostForm, req.Form = form, form
		if posted && !strings.HasPrefix(req.Header.Get(echo.HeaderContentType), echo.MIMEApplicationForm) {
			req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
		}
	}
	return token, nil
}

// freeBodyBytes is the size up to which a body with a length is not counted
// against the budget of bodies in flight: what ordinary requests send (a
// settings update, a thousand ids), so that a few large bodies sent slowly
// cannot starve them.
const freeBodyBytes = 64 << 10

// readBody reads the body once, into a buffer of its announced size, after
// reserving that many bytes of the budget of bodies in flight.
func (s *srv) readBody(c echo.Context, rs *requestState) ([]byte, error) {
	req := c.Request()
	n := req.ContentLength
	if n > MaxBodyBytes {
		return nil, errTooLarge
	}
	if n == 0 {
		return nil, nil
	}
	if n > 0 && n <= freeBodyBytes {
		body := make([]byte, n)
		if _, err := io.ReadFull(req.Body, body); err != nil {
			return nil, badBody(err)
		}
		return body, nil
	}
	reserve := n
	if n < 0 {
		reserve = MaxBodyBytes // no length given: the most it may be
	}
	if !s.bodies.take(reserve) {
		c.Response().Header().Set("Retry-After", "1")
		return nil, errBusy
	}
	rs.reserved = reserve
	var body []byte
	var err error
	if n > 0 {
		body = make([]byte, n)
		_, err = io.ReadFull(req.Body, body)
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(c.Response().Writer, req.Body, MaxBodyBytes))
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge
		}
		// Broken framing or a client gone mid-body: the client's doing.
		return nil, badBody(err)
	}
	if n < 0 {
		// Read whole: the body holds what it read, no longer the most it
		// might have been.
		s.bodies.give(reserve - int64(len(body)))
		rs.reserved = int64(len(body))
	}
	return body, nil
}

// parseBody parses a form body: URL-encoded, or multipart with the same
// fields and no files.
func parseBody(ct string, body []byte) (url.Values, error) {
	if len(body) == 0 {
		return url.Values{}, nil
	}
	mt, params := ct, map[string]string(nil)
	if ct != echo.MIMEApplicationForm {
		mt, params, _ = mime.ParseMediaType(ct)
	}
	switch mt {
	case echo.MIMEApplicationForm:
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, server.Invalid("the form body is not URL-encoded: " + err.Error())
		}
		return form, nil
	case echo.MIMEMultipartForm:
		mf, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(MaxBodyBytes)
		if err != nil {
			return nil, server.Invalid("the multipart body cannot be read: " + err.Error())
		}
		defer func() { _ = mf.RemoveAll() }()
		if len(mf.File) > 0 {
			names := make([]string, 0, len(mf.File))
			for name := range mf.File {
				names = append(names, name)
			}
			sort.Strings(names)
			return nil, server.Invalid(names[0] + ": a file part; send each field as text")
		}
		return url.Values(mf.Value), nil
	}
	return nil, server.Invalid(fmt.Sprintf("Content-Type: %q is not accepted; send application/x-www-form-urlencoded or multipart/form-data", ct))
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

// budget bounds the bytes of the bodies in flight: a flood of large bodies
// is answered 503 instead of growing the memory without bound.
type budget struct {
	mu          sync.Mutex
	used, limit int64
}

func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// validate checks the request against the contract with kin-openapi: each
// parameter, and the form body decoded once into the value its schema
// describes. The decoded fields are kept for the handler.
func (s *srv) validate(c echo.Context, rs *requestState) error {
	o := rs.op
	req := c.Request()
	names, values := c.ParamNames(), c.ParamValues()
	if req.URL.RawPath != "" {
		// Echo routes on the escaped path when there is one; the contract's
		// limits are on the values themselves. A copy: the generated
		// handler unescapes echo's own.
		values = slices.Clone(values)
		for i, v := range values {
			if u, err := url.PathUnescape(v); err == nil {
				values[i] = u
			}
		}
	}
	if err := checkText(names, values, rs.form); err != nil {
		return err
	}
	var errs openapi3.MultiError
	var in *openapi3filter.RequestValidationInput
	for _, p := range o.params {
		var err error
		if i := slices.Index(names, p.Name); i >= 0 && p.In == openapi3.ParameterInPath && p.Schema != nil && p.Schema.Value != nil {
			// A path value is a plain string: checked against its schema
			// without kin-openapi's parameter decoding.
			if verr := p.Schema.Value.VisitJSON(values[i], bodyOptions...); verr != nil {
				err = &openapi3filter.RequestError{Parameter: p, Err: verr}
			}
		} else {
			if in == nil {
				pathParams := make(map[string]string, len(names))
				for i, name := range names {
					pathParams[name] = values[i]
				}
				in = &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, QueryParams: rs.form, Route: o.route, Options: paramOptions}
			}
			err = openapi3filter.ValidateParameter(rs, in, p)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if o.body != nil {
		fields, err := o.decodeForm(rs.form)
		if err != nil {
			return err
		}
		switch {
		case len(fields) == 0 && o.bodyRequired:
			return missingBody(o.body)
		default:
			if err := o.check.VisitJSON(fields, bodyOptions...); err != nil {
				errs = append(errs, err)
			}
		}
		rs.fields = fields
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	return nil
}

// missingBody names each required field of an empty body.
func missingBody(schema *openapi3.Schema) error {
	if len(schema.Required) == 0 {
		names := make([]string, 0, len(schema.Properties))
		for name := range schema.Properties {
			if name != "f" {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		return server.Invalid(strings.Join(names, ", ") + ": value is required but missing; give at least one")
	}
	details := make([]string, len(schema.Required))
	for i, name := range schema.Required {
		details[i] = name + ": value is required but missing"
	}
	return server.Invalid(details...)
}

var (
	// The details dump the value indented: quadratic in its depth, seconds
	// for a deeply nested document, and never shown.
	paramOptions = &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()}}
	bodyOptions = []openapi3.SchemaValidationOption{openapi3.VisitAsRequest(), openapi3.MultiErrors(), openapi3.DisableSchemaErrorDetails()}
)
