package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// tokenPlace says where a request carries its token.
type tokenPlace int

const (
	// tokenDefault: the form field for a POST (the portal's usual way), the
	// X-Esri-Authorization header for a GET (keeps tokens out of URLs).
	tokenDefault tokenPlace = iota
	tokenForm
	tokenQuery
	tokenEsriHeader
	tokenBearerHeader
)

// operation is one operation of the contract, with what the suite needs to
// put its parameters on the wire.
type operation struct {
	id     string
	method string
	path   string // template, below base
	base   string // the REST root, or where the path's own servers put it
	op     *openapi3.Operation
	form   *openapi3.MediaType // the form request body; nil when none
	pairs  []*pair
	// queryForm sends the form in the query: a GET of a POST operation
	// marked x-also-get.
	queryForm bool
}

// request is one call, its parameters not yet encoded.
type request struct {
	op      *operation
	params  map[string]any // path and query parameters
	body    map[string]any // form fields; nil sends no body
	token   string         // "" sends none
	tokenIn tokenPlace
	header  http.Header // more headers, such as the Referer a client sends
}

// answer is what came back.
type answer struct {
	status int
	raw    []byte
	body   map[string]any // nil when the body is no JSON object
	err    *apiError      // the envelope's error; nil when none
	// https tells whether the answer came over HTTPS: the scheme of the
	// last request sent, redirects followed.
	https bool
}

// apiError is the error envelope's content.
type apiError struct {
	Code        int    `json:"code"`
	MessageCode string `json:"messageCode,omitempty"`
	// OAuth and Description are the OAuth 2.0 error and its description,
	// which the token endpoint's errors carry.
	OAuth       string   `json:"error,omitempty"`
	Description string   `json:"error_description,omitempty"`
	Message     string   `json:"message"`
	Details     []string `json:"details"`
}

func (e *apiError) String() string {
	b, _ := json.Marshal(e)
	return string(b)
}

// detailsContain reports whether some detail holds every one of words.
func (e *apiError) detailsContain(words ...string) bool {
	for _, d := range e.Details {
		all := true
		for _, w := range words {
			if !strings.Contains(d, w) {
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

// encodeValue renders v as one form field or query value: JSON for fields
// whose encoding says so, comma-joined for lists, plain text for scalars.
func encodeValue(v any, asJSON bool) (string, error) {
	if asJSON {
		b, err := json.Marshal(v)
		return string(b), err
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case int:
		return strconv.Itoa(v), nil
	case json.Number:
		return v.String(), nil
	case []string:
		return encodeValue(toAny(v), false)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, err := encodeValue(e, false)
			if err != nil {
				return "", err
			}
			if strings.Contains(s, ",") {
				// The comma form cannot carry this entry; the contract's
				// other form of a list, a JSON array of strings, can.
				b, err := json.Marshal(v)
				return string(b), err
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	default:
		return "", fmt.Errorf("no form encoding for %T", v)
	}
}

func toAny(v []string) []any {
	out := make([]any, len(v))
	for i, s := range v {
		out[i] = s
	}
	return out
}

// httpRequest builds the HTTP request for r, as the contract's encoding
// says.
func (s *suite) httpRequest(ctx context.Context, r request) (*http.Request, error) {
	path := r.op.path
	query := url.Values{}
	for _, pref := range r.op.op.Parameters {
		p := pref.Value
		v, ok := r.params[p.Name]
		if !ok || v == nil {
			continue
		}
		text, err := encodeValue(v, false)
		if err != nil {
			return nil, fmt.Errorf("%s: parameter %s: %w", r.op.id, p.Name, err)
		}
		switch p.In {
		case "path":
			path = strings.ReplaceAll(path, "{"+p.Name+"}", url.PathEscape(text))
		case "query":
			query.Set(p.Name, text)
		}
	}
	if strings.Contains(path, "{") {
		return nil, fmt.Errorf("%s: path parameters missing in %s", r.op.id, path)
	}
	var form url.Values
	if r.body != nil {
		form = url.Values{}
		keys := make([]string, 0, len(r.body))
		for k := range r.body {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := r.body[k]
			if v == nil {
				continue
			}
			asJSON := false
			if r.op.form != nil {
				if enc := r.op.form.Encoding[k]; enc != nil && enc.ContentType == "application/json" {
					asJSON = true
				}
			}
			text, err := encodeValue(v, asJSON)
			if err != nil {
				return nil, fmt.Errorf("%s: field %s: %w", r.op.id, k, err)
			}
			form.Set(k, text)
		}
	}
	header := r.header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if r.token != "" {
		place := r.tokenIn
		if place == tokenDefault {
			place = tokenEsriHeader
			if r.op.method == http.MethodPost {
				place = tokenForm
			}
		}
		switch place {
		case tokenForm:
			if form == nil {
				form = url.Values{}
			}
			form.Set("token", r.token)
		case tokenQuery:
			query.Set("token", r.token)
		case tokenEsriHeader:
			header.Set("X-Esri-Authorization", "Bearer "+r.token)
		case tokenBearerHeader:
			header.Set("Authorization", "Bearer "+r.token)
		}
	}
	if r.op.queryForm {
		for k, v := range form {
			query[k] = v
		}
		form = nil
	}
	u := r.op.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, r.op.method, u, body)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Accept", "application/json")
	return req, nil
}

// send sends r for t. Problems with the answer's conformance are reported
// by the validator; send fails t only when there is no answer to look at.
func (s *suite) send(t TB, r request) *answer {
	t.Helper()
	a, err := s.trySend(t, r)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return a
}

func (s *suite) trySend(t TB, r request) (*answer, error) {
	s.noteWrite(r.op.id)
	req, err := s.httpRequest(s.ctx(t), r)
	if err != nil {
		return nil, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.op.id, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", r.op.id, err)
	}
	a := &answer{status: resp.StatusCode, raw: raw, https: resp.Request != nil && resp.Request.URL.Scheme == "https"}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return a, fmt.Errorf("%s: the answer is no JSON object (HTTP %d): %s", r.op.id, resp.StatusCode, clip(raw, 300))
	}
	a.body = body
	if e, ok := body["error"]; ok {
		a.err = &apiError{}
		b, _ := json.Marshal(e)
		if err := json.Unmarshal(b, a.err); err != nil {
			return a, fmt.Errorf("%s: unreadable error envelope: %s", r.op.id, clip(raw, 300))
		}
	}
	return a, nil
}

// page is the answer of an operation that answers HTML or a redirect.
type page struct {
	status   int
	location string // a redirect's target
	text     string
}

// sendPage sends r as a browser would, reading a redirect without
// following it, and returns the answer. The validator checks the status,
// media type and Location against the contract.
func (s *suite) sendPage(t TB, r request) *page {
	t.Helper()
	s.noteWrite(r.op.id)
	req, err := s.httpRequest(s.ctx(t), r)
	if err != nil {
		t.Fatalf("%v", err)
	}
	req.Header.Set("Accept", "text/html")
	resp, err := s.pages.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", r.op.id, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", r.op.id, err)
	}
	return &page{status: resp.StatusCode, location: resp.Header.Get("Location"), text: string(raw)}
}

// ctx is the context for requests made on t's behalf. It survives the end
// of t, so that cleanups can still send requests, and carries t so that the
// validator reports to it.
func (s *suite) ctx(t TB) context.Context {
	return withTB(context.WithoutCancel(t.Context()), t)
}

// call is send with the operation named by id.
func (s *suite) call(t TB, id, token string, params, body map[string]any) *answer {
	t.Helper()
	return s.send(t, request{op: s.ops[id], params: params, body: body, token: token})
}

// ok fails t unless a is a success, and returns a's body.
func ok(t TB, what string, a *answer) map[string]any {
	t.Helper()
	if a.err != nil {
		t.Fatalf("%s: want success, got error %s", what, a.err)
	}
	return a.body
}

// decode converts a JSON-like value into out.
func decode(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
