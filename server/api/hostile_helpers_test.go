package api_test

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/internal/pgtest"
	pt "github.com/orgportal/portal-api/portaltest"
)

// hostileCase is one malformed or hostile request and the answer it must get.
// Every case must leave the store as it found it.
type hostileCase struct {
	op      string            // operationId aimed at; "" for paths that are no operation
	name    string            // what is wrong with the request
	method  string            // POST when empty
	path    string            // after the API root, as sent (escapes kept)
	root    bool              // path is relative to the server root, not the API root
	query   string            // raw query string
	body    string            // raw body
	ctype   string            // Content-Type; the form type for a POST when empty; "none" sends none
	auth    string            // token sent as Authorization: Bearer; admin when empty; "none" sends none
	header  map[string]string // further headers
	chunked bool              // send the body without a length
	status  int               // HTTP status; 200 when 0
	code    int               // envelope code; 0 means no envelope and every item result is CONT_0001
	detail  string            // substring of the messageCode, message or a detail
	items   int               // with code 0: the number of item results
	// page: the answer is an HTML page (the OAuth sign-in's), of HTTP
	// status (400 when 0) and holding detail, instead of the envelope.
	page bool
	// oauth is the OAuth 2.0 error code the envelope must carry in "error".
	oauth string
}

// enc is a form body built from name/value pairs.
func enc(kv ...string) string { return form(kv...).Encode() }

// deepSchema is a memberCategorySchema document whose tree is levels deep
// along a single branch (one node per level, plus a leaf).
func deepSchema(levels int) string {
	var b strings.Builder
	b.WriteString(`{"memberCategorySchema":[`)
	for range levels - 1 {
		b.WriteString(`{"title":"a","categories":[`)
	}
	b.WriteString(`{"title":"leaf"}`)
	for range levels - 1 {
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// nest wraps inner in n JSON arrays.
func nest(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

// ids is n distinct item ids, comma-separated.
func ids(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%032x", i)
	}
	return strings.Join(out, ",")
}

// sendHostile sends c as written: raw path, raw query, raw body.
func sendHostile(t *testing.T, p *pt.Portal, c hostileCase) answer {
	t.Helper()
	base := p.URL
	if c.root {
		base = p.Root
	}
	target := base + c.path
	if c.query != "" {
		target += "?" + c.query
	}
	method := c.method
	if method == "" {
		method = http.MethodPost
	}
	if c.op == "oauthSignIn" {
		c.body, c.query = withGoodStates(t, p, c.body), withGoodStates(t, p, c.query)
	}
	var body io.Reader = strings.NewReader(c.body)
	if c.chunked {
		body = io.MultiReader(body) // hides the length from the client
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	switch {
	case c.ctype == "none":
	case c.ctype != "":
		req.Header.Set("Content-Type", c.ctype)
	case method == http.MethodPost:
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	switch c.auth {
	case "none":
	case "":
		req.Header.Set("Authorization", "Bearer "+pt.AdminToken)
	default:
		req.Header.Set("Authorization", "Bearer "+c.auth)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	if c.page {
		return fetch(t, req)
	}
	return do(t, req)
}

// checkHostile checks the answer to c; it reports through t.Errorf so that
// one case's failure does not hide the others.
func checkHostile(t *testing.T, c hostileCase, a answer) {
	t.Helper()
	if c.page {
		checkHostilePage(t, c, a)
		return
	}
	if a.status >= 500 || a.errCode() >= 500 {
		t.Fatalf("server failure: HTTP %d %s", a.status, a.raw)
	}
	if ct := a.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if c.code == 0 {
		checkAllItemsFail(t, c, a)
		return
	}
	wantStatus := c.status
	if wantStatus == 0 {
		wantStatus = http.StatusOK
	}
	if a.status != wantStatus || a.errCode() != c.code {
		t.Fatalf("want HTTP %d with envelope code %d, got HTTP %d %.600s", wantStatus, c.code, a.status, a.raw)
	}
	if msg, _ := a.errField("message").(string); msg == "" {
		t.Errorf("envelope without a message: %.600s", a.raw)
	}
	if _, isList := a.errField("details").([]any); !isList {
		t.Errorf("details is not an array: %.600s", a.raw)
	}
	text := fmt.Sprint(a.errField("messageCode"), " ", a.errField("message"), " ", strings.Join(a.details(), " | "))
	if !strings.Contains(text, c.detail) {
		t.Errorf("error does not mention %q: %.600s", c.detail, a.raw)
	}
	if c.oauth != "" && (a.errField("error") != c.oauth || a.errField("error_description") != a.errField("message")) {
		t.Errorf("want the OAuth error %s with its description: %.600s", c.oauth, a.raw)
	}
}

// checkHostilePage checks the answer of an operation that answers HTML:
// its error page (or the sign-in page again) with the status and text
// wanted, never a redirect.
func checkHostilePage(t *testing.T, c hostileCase, a answer) {
	t.Helper()
	want := c.status
	if want == 0 {
		want = http.StatusBadRequest
	}
	if a.status != want || a.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("want an HTML page with HTTP %d, got HTTP %d %q: %.600s", want, a.status, a.header.Get("Content-Type"), a.raw)
	}
	if loc := a.header.Get("Location"); loc != "" {
		t.Errorf("redirects to %s", loc)
	}
	if !strings.Contains(a.raw, html.EscapeString(c.detail)) {
		t.Errorf("the page does not say %q: %.1200s", c.detail, a.raw)
	}
}

// checkAllItemsFail checks a batch answer in which every id is refused on
// its own (unknown or not the user's): no envelope, CONT_0001 for each.
func checkAllItemsFail(t *testing.T, c hostileCase, a answer) {
	t.Helper()
	if a.status != http.StatusOK || a.body["error"] != nil {
		t.Fatalf("want per-item results, got HTTP %d %.600s", a.status, a.raw)
	}
	rs, _ := a.body["results"].([]any)
	if len(rs) != c.items {
		t.Fatalf("want %d results, got %d: %.600s", c.items, len(rs), a.raw)
	}
	for _, r := range rs {
		m, _ := r.(map[string]any)
		e, _ := m["error"].(map[string]any)
		if m["success"] != false || e == nil || e["code"] != 400.0 || e["messageCode"] != "CONT_0001" {
			t.Errorf("result %v: want success false with CONT_0001", r)
		}
	}
}

// postgresPortal starts the server on a schema of its own in the database
// PORTAL_TEST_POSTGRES names (pgtest skips when the variable is unset and
// fails when the database does not answer). The schema's cleanup is
// registered first, so it runs after the server's.
func postgresPortal(t *testing.T) *pt.Portal {
	t.Helper()
	return pt.New(t, pt.WithDSN(pgtest.DSN(t)))
}
