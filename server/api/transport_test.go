package api_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/docs"
	pt "github.com/orgportal/portal-api/portaltest"
)

func dump(t *testing.T, p *pt.Portal) string {
	t.Helper()
	var b bytes.Buffer
	if err := p.Store.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestPrettyJSON(t *testing.T) {
	p := pt.New(t)
	a := post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", `{"enabled":false}`, "f", "pjson"))
	if a.raw != "{\n  \"success\": true\n}\n" {
		t.Errorf("pjson answer = %q", a.raw)
	}
	if ct := a.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("content type = %q", ct)
	}
	a = post(t, p, settingsPath+"/update", "", form("f", "pjson"))
	if !strings.HasPrefix(a.raw, "{\n  \"error\": {\n") {
		t.Errorf("errors are not indented with pjson: %q", a.raw)
	}
	if a = ok(t, get(t, p, settingsPath, "", form("f", "json"))); strings.Contains(a.raw, "\n ") {
		t.Errorf("json answer is indented: %q", a.raw)
	}
	fails(t, get(t, p, settingsPath, "", form("f", "html")), 400, "f")
}

func TestTransportErrors(t *testing.T) {
	p := pt.New(t)
	// Unknown path and method: a real 404 with the envelope.
	for _, req := range []*http.Request{
		mustReq(http.MethodGet, p.URL+"/no/such/thing", ""),
		mustReq(http.MethodDelete, p.URL+movePath, ""),
		mustReq(http.MethodGet, p.URL+movePath, ""),
	} {
		a := do(t, req)
		if a.status != 404 || a.errCode() != 404 {
			t.Errorf("%s %s: %d %s", req.Method, req.URL.Path, a.status, a.raw)
		}
	}
	// A body over 1 MiB: 413 with the envelope, nothing stored.
	big := "informationalBanner=" + strings.Repeat("x", 1<<20+1)
	req := mustReq(http.MethodPost, p.URL+settingsPath+"/update?token="+pt.AdminToken, big)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if a := do(t, req); a.status != 413 || a.errCode() != 413 {
		t.Errorf("big body: %d %s", a.status, a.raw)
	}
	// JSON body instead of a form.
	req = mustReq(http.MethodPost, p.URL+settingsPath+"/update?token="+pt.AdminToken, `{"informationalBanner":{}}`)
	req.Header.Set("Content-Type", "application/json")
	fails(t, do(t, req), 400, "Content-Type")
	// A parameter given twice.
	req = mustReq(http.MethodPost, p.URL+movePath, "items=a&items=b&token="+pt.MemberToken)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	fails(t, do(t, req), 400, "given 2 times")
}

func TestParametersAndTokens(t *testing.T) {
	p := pt.New(t)
	// Query parameters of a POST are merged; the body wins.
	req := mustReq(http.MethodPost, p.URL+movePath+"?folder=ffff&items=x&token="+pt.MemberToken, "items="+pt.RoadsItem+"&folder=/")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if got := results(t, do(t, req)); got != pt.RoadsItem+":500" {
		t.Errorf("merged params = %s", got)
	}
	// The token in each place the portal accepts.
	for name, set := range map[string]func(*http.Request){
		"X-Esri-Authorization": func(r *http.Request) { r.Header.Set("X-Esri-Authorization", "Bearer "+pt.MemberToken) },
		"Authorization":        func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+pt.MemberToken) },
		"query":                func(r *http.Request) { r.URL.RawQuery = "token=" + pt.MemberToken },
	} {
		req := mustReq(http.MethodGet, p.URL+"/content/users/jsmith", "")
		set(req)
		if a := do(t, req); a.body["username"] != "jsmith" {
			t.Errorf("token in %s: %s", name, a.raw)
		}
	}
	// The form field beats the header.
	req = mustReq(http.MethodPost, p.URL+movePath, "items="+pt.RoadsItem+"&folder=/&token=bad")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+pt.MemberToken)
	fails(t, do(t, req), 498, "Invalid token.")
}

func TestContextSegment(t *testing.T) {
	p := pt.New(t, pt.WithContext("/portal"))
	if !strings.HasSuffix(p.URL, "/portal/sharing/rest") {
		t.Fatalf("URL %s", p.URL)
	}
	ok(t, get(t, p, settingsPath, "", nil))
	a := do(t, mustReq(http.MethodGet, p.Root+"/sharing/rest/portals/self/settings", ""))
	if a.status != 404 {
		t.Errorf("the API answers outside its context: %d", a.status)
	}
}

func TestDataSurvivesRestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "portal.db")
	p := pt.New(t, pt.WithDSN(file))
	ok(t, move(t, p, pt.MemberToken, pt.RoadsItem, pt.ArchiveFolder))
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", `{"text":"kept","enabled":false}`)))
	if err := p.Store.Close(); err != nil {
		t.Fatal(err)
	}
	q := pt.New(t, pt.WithDSN(file))
	if folderOf(t, q, pt.RoadsItem) != pt.ArchiveFolder {
		t.Error("the move was lost")
	}
	if a := ok(t, get(t, q, settingsPath, "", nil)); js(a.body["informationalBanner"]) != `{"enabled":false,"text":"kept"}` {
		t.Errorf("settings lost: %s", a.raw)
	}
}

func TestSideRoutes(t *testing.T) {
	p := pt.New(t)
	resp, err := http.Get(p.Root + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", err, resp)
	}
	resp, err = http.Get(p.Root + "/openapi.yaml")
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/yaml") {
		t.Fatalf("openapi.yaml: %v %v", err, resp)
	}
	resp, err = http.Get(p.Root + "/docs")
	if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("docs: %v %v", err, resp)
	}
	page, _ := io.ReadAll(resp.Body)
	if !bytes.Equal(page, docs.ReferenceHTML) || len(page) == 0 {
		t.Error("/docs is not the reference page")
	}
	resp, err = http.Get(p.Root + "/favicon.ico")
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/x-icon" {
		t.Fatalf("favicon.ico: %v %v", err, resp)
	}
	if icon, _ := io.ReadAll(resp.Body); !bytes.Equal(icon, docs.Favicon) || len(icon) == 0 {
		t.Error("/favicon.ico is not the favicon")
	}
	ok(t, move(t, p, pt.MemberToken, pt.RoadsItem, pt.ArchiveFolder))
	resp, err = http.Post(p.Root+"/emulator/reset", "application/json", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reset: %v %v", err, resp)
	}
	if folderOf(t, p, pt.RoadsItem) != "" {
		t.Error("reset did not restore the seed")
	}
}

func mustReq(method, url, body string) *http.Request {
	r, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	return r
}

// A generator that ignores encoding explodes objects and lists; the server
// says so instead of ignoring the fields.
func TestExplodedFieldsAreRefused(t *testing.T) {
	p := pt.New(t)
	before := dump(t, p)
	fails(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner[text]", "x", "informationalBanner[enabled]", "false")),
		400, "send informationalBanner as one form field")
	fails(t, post(t, p, movePath, pt.MemberToken, form("items[0]", pt.RoadsItem, "folder", "/")), 400, "send items as one form field")
	if dump(t, p) != before {
		t.Error("refused requests changed the store")
	}
	// Unknown parameters that are not exploded fields stay ignored, as the portal does.
	ok(t, post(t, p, settingsPath+"/update", pt.AdminToken, form("informationalBanner", `{"enabled":false}`, "owner[x]", "1")))
}

func TestContentTypes(t *testing.T) {
	p := pt.New(t)
	send := func(path, ct, body string) answer {
		req := mustReq(http.MethodPost, p.URL+path+"?token="+pt.MemberToken, body)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		return do(t, req)
	}
	moveForm := "items=" + pt.RoadsItem + "&folder=/"
	// Parameters in the media type are fine; a longer type is not the form type.
	if got := results(t, send(movePath, "application/x-www-form-urlencoded; charset=UTF-8", moveForm)); got != pt.RoadsItem+":500" {
		t.Errorf("form with charset: %s", got)
	}
	fails(t, send(movePath, "application/x-www-form-urlencodedX", moveForm), 400, "Content-Type")
	fails(t, send(movePath, "", moveForm), 400, "Content-Type")
	// An unknown path stays a 404 whatever the body.
	if a := send("/no/such/operation", "application/json", `{}`); a.status != 404 || a.errCode() != 404 {
		t.Errorf("unknown path with a JSON body: %d %s", a.status, a.raw)
	}
}
