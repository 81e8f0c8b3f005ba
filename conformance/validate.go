package conformance

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// exchange is one request the suite sent and the answer it got, as seen on
// the wire.
type exchange struct {
	Method      string
	URL         string
	OperationID string
	Status      int
	Body        []byte
}

type ctxKey int

const (
	tbKey ctxKey = iota
	captureKey
)

// withTB makes the validator report problems of requests sent with ctx to t.
func withTB(ctx context.Context, t TB) context.Context { return context.WithValue(ctx, tbKey, t) }

// capture records the exchanges of requests sent with a context from
// withCapture, so that a caller of a client method can see the raw body the
// client decoded.
type capture struct {
	mu        sync.Mutex
	exchanges []exchange
}

func withCapture(ctx context.Context, c *capture) context.Context {
	return context.WithValue(ctx, captureKey, c)
}

func (c *capture) last() (exchange, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.exchanges) == 0 {
		return exchange{}, false
	}
	return c.exchanges[len(c.exchanges)-1], true
}

// validator is an http.RoundTripper that checks every answer against the
// contract: the route must exist, the status must be 200 (API errors
// included) and the body must match the response schema.
// Problems go to the TB found in the request's context, so that whoever sent
// the request fails, whatever code path sent it.
type validator struct {
	next   http.RoundTripper
	router routers.Router
	// orphan receives problems of requests sent without a TB in their
	// context; the suite never does that, so it is a safety net.
	orphan func(string)
	// statusSeen keeps a wrong status reported once per test and operation:
	// a portal that gets it wrong gets it wrong on every error.
	statusSeen sync.Map // statusKey -> bool
}

type statusKey struct {
	test   string
	op     string
	status int
}

func newValidator(doc *openapi3.T, next http.RoundTripper) (*validator, error) {
	rdoc, err := routerDoc(doc)
	if err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(rdoc)
	if err != nil {
		return nil, fmt.Errorf("router for the contract: %w", err)
	}
	if next == nil {
		next = http.DefaultTransport
	}
	return &validator{next: next, router: router}, nil
}

func (v *validator) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := v.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", req.Method, req.URL.Path, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))

	route, params, rerr := findRoute(v.router, req)
	ex := exchange{Method: req.Method, URL: req.URL.String(), Status: resp.StatusCode, Body: body}
	if route != nil {
		ex.OperationID = route.Operation.OperationID
	}
	if c, ok := req.Context().Value(captureKey).(*capture); ok {
		c.mu.Lock()
		c.exchanges = append(c.exchanges, ex)
		c.mu.Unlock()
	}

	var problem string
	if rerr != nil {
		problem = fmt.Sprintf("%s %s: the suite sent a request the contract has no operation for (%v)", req.Method, req.URL.Path, rerr)
	} else {
		problem = checkResponse(req, resp, body, route, params)
	}
	t, _ := req.Context().Value(tbKey).(TB)
	if problem != "" && route != nil && resp.StatusCode != http.StatusOK && t != nil {
		if _, seen := v.statusSeen.LoadOrStore(statusKey{t.Name(), ex.OperationID, resp.StatusCode}, true); seen {
			problem = ""
		}
	}
	if problem != "" {
		if t != nil {
			t.Errorf("%s", problem)
		} else if v.orphan != nil {
			v.orphan(problem)
		}
	}
	return resp, nil
}

// restRoot is how the REST root's address ends: the contract's servers put
// it at {scheme}://{host}[/{context}]/sharing/rest, and a path with servers
// of its own (the sign-in the sign-in page posts) beside it.
const restRoot = "/sharing/rest"

// besideRoot returns the base address of the operations of item, for a
// portal whose REST root is base: base itself, or for a path with servers of
// its own, base with /sharing/rest replaced by what those servers put after
// {scheme}://{host} (their first, the one without a context).
func besideRoot(base string, item *openapi3.PathItem) (string, error) {
	if len(item.Servers) == 0 {
		return base, nil
	}
	at, ok := strings.CutPrefix(item.Servers[0].URL, "{scheme}://{host}")
	root, isREST := strings.CutSuffix(base, restRoot)
	if !ok || !isREST {
		return "", fmt.Errorf("the contract routes a path at %s, and the target's REST root %s does not end in %s", item.Servers[0].URL, base, restRoot)
	}
	return root + at, nil
}

// routerDoc returns doc for the router: every path with the server its
// requests go to, on the target's address (doc's one server). kin-openapi's
// router keeps a path's own servers for the paths after it, so every path
// states its own.
//
// The other addresses the contract gives an operation are routes of that
// same operation, so that their answers are held to its schema: each
// x-also-at path, rooted at the portal's address (the REST root without
// /sharing/rest, its context kept), and GET wherever a POST operation
// marked x-also-get is routed.
func routerDoc(doc *openapi3.T) (*openapi3.T, error) {
	if len(doc.Servers) != 1 {
		return nil, fmt.Errorf("the contract for the validator has %d servers, want the target's only", len(doc.Servers))
	}
	base := doc.Servers[0].URL
	out := *doc
	out.Paths = openapi3.NewPaths()
	for path, item := range doc.Paths.Map() {
		at, err := besideRoot(base, item)
		if err != nil {
			return nil, err
		}
		c := *item
		c.Servers = openapi3.Servers{{URL: at}}
		if alsoGet(c.Post) && c.Get == nil {
			c.Get = c.Post
		}
		out.Paths.Set(path, &c)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, a := range alsoAt(op) {
				if !strings.HasPrefix(a, "/sharing/") {
					return nil, fmt.Errorf("the contract's %s (%s): x-also-at %q does not start with /sharing/", op.OperationID, path, a)
				}
				root, isREST := strings.CutSuffix(base, restRoot)
				if !isREST {
					return nil, fmt.Errorf("the contract's %s is also at %s, beside the REST root, and the target's REST root %s does not end in %s",
						op.OperationID, a, base, restRoot)
				}
				if doc.Paths.Value(a) != nil {
					return nil, fmt.Errorf("the contract's %s: x-also-at %q is a path of its own", op.OperationID, a)
				}
				alias := out.Paths.Value(a)
				if alias == nil {
					alias = &openapi3.PathItem{Servers: openapi3.Servers{{URL: root}}}
					out.Paths.Set(a, alias)
				}
				if other := alias.GetOperation(method); other != nil && other != op {
					return nil, fmt.Errorf("the contract puts %s and %s at %s %s", other.OperationID, op.OperationID, method, a)
				}
				alias.SetOperation(method, op)
				if method == http.MethodPost && alsoGet(op) {
					alias.SetOperation(http.MethodGet, op)
				}
			}
		}
	}
	return &out, nil
}

// alsoAt is op's x-also-at: the other paths, after the portal's context,
// the portal answers it at.
func alsoAt(op *openapi3.Operation) []string {
	if op == nil {
		return nil
	}
	list, _ := op.Extensions["x-also-at"].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// alsoGet is whether op, a POST, answers a GET with its form in the query
// too (x-also-get).
func alsoGet(op *openapi3.Operation) bool {
	if op == nil {
		return false
	}
	get, _ := op.Extensions["x-also-get"].(bool)
	return get
}

// findRoute is the router's FindRoute, which also finds an operation
// marked x-trailing-slash at its path with the trailing slash toggled
// (sharing/rest and sharing/rest/, oauth2/token/), at its x-also-at paths
// as well (sharing/oauth2/token/), as the router routes those.
func findRoute(router routers.Router, req *http.Request) (*routers.Route, map[string]string, error) {
	route, params, err := router.FindRoute(req)
	if err == nil || !errors.Is(err, routers.ErrPathNotFound) {
		return route, params, err
	}
	alt := req.Clone(req.Context())
	u := *req.URL
	if p, ok := strings.CutSuffix(u.Path, "/"); ok {
		u.Path = p
	} else {
		u.Path += "/"
	}
	u.RawPath = ""
	alt.URL = &u
	r, ps, altErr := router.FindRoute(alt)
	if altErr != nil || r.Operation == nil {
		return route, params, err
	}
	if slashed, _ := r.Operation.Extensions["x-trailing-slash"].(bool); !slashed {
		return route, params, err
	}
	return r, ps, nil
}

// jsonAnswered reports whether the operation's HTTP 200 answer is JSON;
// the OAuth pages answer HTML and redirects instead.
func jsonAnswered(op *openapi3.Operation) bool {
	r := op.Responses.Status(http.StatusOK)
	return r != nil && r.Value != nil && r.Value.Content.Get("application/json") != nil
}

// checkPage checks an answer of an operation that answers HTML or a
// redirect: its status is one the operation declares (other than the
// transport failures, 404 and 413, which are JSON), an answer with content
// has a declared media type, and a redirect says where to.
func checkPage(req *http.Request, resp *http.Response, route *routers.Route) string {
	op := route.Operation
	at := fmt.Sprintf("%s (%s %s)", op.OperationID, req.Method, req.URL.Path)
	declared := op.Responses.Status(resp.StatusCode)
	if declared == nil || declared.Value == nil || resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusRequestEntityTooLarge {
		return fmt.Sprintf("%s answered HTTP %d, which the contract does not declare for it", at, resp.StatusCode)
	}
	if len(declared.Value.Content) > 0 {
		mt, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if declared.Value.Content.Get(mt) == nil {
			return fmt.Sprintf("%s answered HTTP %d with Content-Type %q; the contract declares %s", at, resp.StatusCode,
				resp.Header.Get("Content-Type"), strings.Join(slices.Sorted(maps.Keys(declared.Value.Content)), ", "))
		}
	}
	if _, ok := declared.Value.Headers["Location"]; ok && resp.Header.Get("Location") == "" {
		return fmt.Sprintf("%s answered HTTP %d without a Location header", at, resp.StatusCode)
	}
	return ""
}

// checkResponse returns a description of how the answer breaks the
// contract, or "".
func checkResponse(req *http.Request, resp *http.Response, body []byte, route *routers.Route, params map[string]string) string {
	op := route.Operation.OperationID
	if !jsonAnswered(route.Operation) {
		return checkPage(req, resp, route)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      route,
		},
		Status: resp.StatusCode,
		Header: resp.Header,
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
		},
	}
	if resp.StatusCode != http.StatusOK {
		// The contract declares 404 and 413 for transport failures, which
		// no request of the suite to an operation the portal has provokes:
		// any status but 200 is the usual way to break this contract, and
		// deserves a plain message.
		return fmt.Sprintf("%s (%s %s) answered HTTP %d; the contract answers every API error with HTTP 200 and the error envelope in the body: %s",
			op, req.Method, req.URL.Path, resp.StatusCode, clip(body, 300))
	}
	in.SetBodyBytes(body)
	err := openapi3filter.ValidateResponse(req.Context(), in)
	if err == nil {
		if problem := checkNulls(route, body); problem != "" {
			return fmt.Sprintf("%s (%s %s): the answer does not match the contract's response schema:\n%s\nbody: %s", op, req.Method, req.URL.Path, problem, clip(body, 600))
		}
		if problem := checkSuccessOrError(route, body); problem != "" {
			return fmt.Sprintf("%s (%s %s): %s\nbody: %s", op, req.Method, req.URL.Path, problem, clip(body, 600))
		}
		return ""
	}
	return fmt.Sprintf("%s (%s %s): the answer does not match the contract's response schema:\n%s\nbody: %s",
		op, req.Method, req.URL.Path, describeValidation(err), clip(body, 600))
}

// describeValidation turns kin-openapi's errors, which embed whole schemas,
// into one short line per problem: where and why.
func describeValidation(err error) string {
	var lines []string
	var walk func(error)
	walk = func(err error) {
		var multi openapi3.MultiError
		var re *openapi3filter.ResponseError
		var se *openapi3.SchemaError
		switch {
		case errors.As(err, &multi):
			for _, e := range multi {
				walk(e)
			}
		case errors.As(err, &re) && re.Err != nil:
			if re.Reason != "" && !errors.As(re.Err, &multi) && !errors.As(re.Err, &se) {
				lines = append(lines, re.Reason+": "+re.Err.Error())
				return
			}
			walk(re.Err)
		case errors.As(err, &se):
			if se.Origin != nil {
				var inner openapi3.MultiError
				var innerSE *openapi3.SchemaError
				if errors.As(se.Origin, &inner) || errors.As(se.Origin, &innerSE) {
					walk(se.Origin)
					return
				}
			}
			at := "/" + strings.Join(se.JSONPointer(), "/")
			lines = append(lines, fmt.Sprintf("at %s: %s", at, se.Reason))
		default:
			lines = append(lines, err.Error())
		}
	}
	walk(err)
	sort.Strings(lines)
	lines = dedupe(lines)
	return "  - " + strings.Join(lines, "\n  - ")
}

func dedupe(in []string) []string {
	out := in[:0]
	for i, s := range in {
		if i == 0 || s != in[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// clip shortens b for a message.
func clip(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// checkSuccessOrError checks what the published schemas leave to the suite:
// an answer is either the error envelope alone or a success answer holding
// every property its schema's x-success-required lists. The schemas do not
// say it with oneOf, which code generators handle badly.
func checkSuccessOrError(route *routers.Route, body []byte) string {
	required, ok := successRequired(route)
	if !ok {
		return ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return "the answer is not a JSON object"
	}
	if _, isError := obj["error"]; isError {
		var others []string
		for k := range obj {
			if k != "error" {
				others = append(others, k)
			}
		}
		if len(others) > 0 {
			sort.Strings(others)
			return fmt.Sprintf("the error envelope carries other properties too: %s", strings.Join(others, ", "))
		}
		return ""
	}
	var absent []string
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			absent = append(absent, k)
		}
	}
	if len(absent) > 0 {
		return fmt.Sprintf("neither the error envelope nor a success answer: %s absent", strings.Join(absent, ", "))
	}
	return ""
}

// checkNulls runs strictNulls over the answer: "" when every null in it is
// one the schema admits.
func checkNulls(route *routers.Route, body []byte) string {
	s := responseSchema(route)
	if s == nil {
		return ""
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	var problems []string
	strictNulls(s, v, "", &problems)
	if len(problems) == 0 {
		return ""
	}
	return "  - " + strings.Join(problems, "\n  - ")
}

// successRequired returns the x-success-required list of the operation's
// HTTP 200 JSON schema, and whether it has one.
func successRequired(route *routers.Route) ([]string, bool) {
	s := responseSchema(route)
	if s == nil {
		return nil, false
	}
	raw, ok := s.Extensions["x-success-required"]
	if !ok {
		return nil, false
	}
	list, _ := raw.([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out, true
}

// strictNulls reports each null in v that schema s does not admit under
// OpenAPI 3.0.3, where `nullable: true` admits null only beside a `type` in
// the same schema object. kin-openapi accepts null wherever `nullable: true`
// appears (beside an allOf, say), as standard validators (Spectral, Ajv,
// Prism) do not; this pass holds answers to the stricter reading.
func strictNulls(s *openapi3.Schema, v any, at string, out *[]string) {
	if s == nil {
		return
	}
	if v == nil {
		if !admitsNull(s) {
			*out = append(*out, fmt.Sprintf("at %s: null, which the schema does not admit (nullable needs a type beside it, and every allOf branch must admit null)", cmp.Or(at, "/")))
		}
		return
	}
	for _, sub := range s.AllOf {
		strictNulls(sub.Value, v, at, out)
	}
	// Of the alternatives, those the value matches.
	for _, subs := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, sub := range subs {
			if sub.Value != nil && sub.Value.VisitJSON(v) == nil {
				strictNulls(sub.Value, v, at, out)
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p, ok := s.Properties[k]; ok && p.Value != nil {
				strictNulls(p.Value, v[k], at+"/"+k, out)
			} else if ap := s.AdditionalProperties.Schema; ap != nil && ap.Value != nil {
				strictNulls(ap.Value, v[k], at+"/"+k, out)
			}
		}
	case []any:
		if s.Items != nil && s.Items.Value != nil {
			for i, e := range v {
				strictNulls(s.Items.Value, e, fmt.Sprintf("%s/%d", at, i), out)
			}
		}
	}
}

// admitsNull is whether null validates against s under OpenAPI 3.0.3.
func admitsNull(s *openapi3.Schema) bool {
	if s.Type != nil && len(s.Type.Slice()) > 0 && !s.Nullable {
		return false
	}
	if s.Type == nil || len(s.Type.Slice()) == 0 {
		// Without a type, nullable has no effect: null passes unless a
		// subschema or an enum refuses it.
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, any(nil)) {
			return false
		}
	}
	for _, sub := range s.AllOf {
		if sub.Value != nil && !admitsNull(sub.Value) {
			return false
		}
	}
	for _, subs := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		if len(subs) > 0 && !slices.ContainsFunc(subs, func(r *openapi3.SchemaRef) bool { return r.Value == nil || admitsNull(r.Value) }) {
			return false
		}
	}
	return true
}

// responseSchema is the schema of the operation's HTTP 200 JSON answer, or nil.
func responseSchema(route *routers.Route) *openapi3.Schema {
	if route == nil || route.Operation == nil || route.Operation.Responses == nil {
		return nil
	}
	r := route.Operation.Responses.Status(http.StatusOK)
	if r == nil || r.Value == nil {
		return nil
	}
	mt := r.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}
