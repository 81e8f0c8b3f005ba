package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	pt "github.com/orgportal/portal-api/portaltest"
)

// answer is a decoded response with its raw text and HTTP status.
type answer struct {
	status int
	raw    string
	header http.Header
	body   map[string]any
}

func (a answer) errCode() int {
	if e, ok := a.body["error"].(map[string]any); ok {
		return int(e["code"].(float64))
	}
	return 0
}

func (a answer) errField(k string) any {
	if e, ok := a.body["error"].(map[string]any); ok {
		return e[k]
	}
	return nil
}

func (a answer) details() []string {
	var out []string
	if d, ok := a.errField("details").([]any); ok {
		for _, x := range d {
			out = append(out, x.(string))
		}
	}
	return out
}

// noRedirects is the client of the tests: a redirect (the OAuth sign-in's)
// is an answer to look at, not to follow.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// do sends req and decodes its JSON answer; an answer that is not JSON
// fails t.
func do(t *testing.T, req *http.Request) answer {
	t.Helper()
	a := fetch(t, req)
	if err := json.Unmarshal([]byte(a.raw), &a.body); err != nil {
		t.Fatalf("%s %s: answer is not JSON: %q", req.Method, req.URL.Path, a.raw)
	}
	return a
}

// fetch sends req and returns its answer undecoded: a page, a redirect.
func fetch(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, raw: string(b), header: resp.Header}
}

// post sends a form as the portal's clients do; token "" sends none.
func post(t *testing.T, p *pt.Portal, path, token string, form url.Values) answer {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if token != "" {
		form.Set("token", token)
	}
	req, _ := http.NewRequest(http.MethodPost, p.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, req)
}

func get(t *testing.T, p *pt.Portal, path, token string, query url.Values) answer {
	t.Helper()
	if query == nil {
		query = url.Values{}
	}
	if token != "" {
		query.Set("token", token)
	}
	req, _ := http.NewRequest(http.MethodGet, p.URL+path+"?"+query.Encode(), nil)
	return do(t, req)
}

// ok fails unless the answer is a success (HTTP 200, no error key).
func ok(t *testing.T, a answer) answer {
	t.Helper()
	if a.status != 200 || a.body["error"] != nil {
		t.Fatalf("want success, got %d %s", a.status, a.raw)
	}
	return a
}

// fails checks the answer is the error envelope with code, HTTP 200, and
// that some detail (or the message) contains each of want.
func fails(t *testing.T, a answer, code int, want ...string) {
	t.Helper()
	if a.status != 200 || a.errCode() != code {
		t.Fatalf("want HTTP 200 with error code %d, got %d %s", code, a.status, a.raw)
	}
	text := fmt.Sprint(a.errField("messageCode"), " ", a.errField("message"), " ", strings.Join(a.details(), " | "))
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("error %s does not mention %q", a.raw, w)
		}
	}
	if _, isList := a.errField("details").([]any); !isList {
		t.Errorf("details is not an array: %s", a.raw)
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// readPage reads an HTML page of the API anonymously, by GET with params in
// the query or by POST with them in a form body; it fails t unless the
// answer is a page with HTTP 200.
func readPage(t *testing.T, p *pt.Portal, method, path string, params url.Values) answer {
	t.Helper()
	var req *http.Request
	if method == http.MethodGet {
		req, _ = http.NewRequest(method, p.URL+path+"?"+params.Encode(), nil)
	} else {
		req, _ = http.NewRequest(method, p.URL+path, strings.NewReader(params.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	a := fetch(t, req)
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%s %s: want a page, got HTTP %d %s: %.600s", method, path, a.status, a.header.Get("Content-Type"), a.raw)
	}
	return a
}
