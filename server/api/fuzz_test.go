package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/orgportal/portal-api/emulator"
	pt "github.com/orgportal/portal-api/portaltest"
	"github.com/orgportal/portal-api/server"
)

// fuzzOp is an operation the fuzzer sends forms to; {} in path is where the
// fuzzed path value goes (def when the fuzzer gives none).
type fuzzOp struct {
	method, path, def string
	form              string // a valid form, the seed
}

var fuzzOps = []fuzzOp{
	{"POST", "/portals/{}/settings/update", pt.OrgID, enc("informationalBanner", `{"text":"Read-only","bgColor":"grey","fontColor":"#FFFFFF","enabled":true}`, "portalConfigProperties", `{"tokenExpiration":120,"httpsDomains":["example.org"],"footerLinks":[{"title":"Terms","url":"https://example.org/t"}]}`, "clearEmptyFields", "true")},
	{"GET", "/portals/{}/settings", pt.OrgID, enc("f", "pjson")},
	{"POST", "/portals/{}/assignMemberCategorySchema", pt.OrgID, enc("memberCategorySchema", `{"memberCategorySchema":[{"title":"Office","categories":[{"title":"USA","categories":[{"title":"Maine"}]}]}]}`)},
	{"GET", "/portals/{}/memberCategorySchema", pt.OrgID, enc("f", "json")},
	{"POST", "/portals/{}/deleteMemberCategorySchema", pt.OrgID, enc("f", "json")},
	{"GET", "/portals/{}/users", pt.OrgID, enc("categories", "/Office/USA,/Dept", "start", "1", "num", "5")},
	{"GET", "/community/users/{}", pt.Member, ""},
	{"POST", "/community/users/{}/update", pt.Member, enc("categories", `["/Office/USA"]`)},
	{"POST", "/content/users/{}/moveItems", pt.Member, enc("items", pt.RoadsItem+","+pt.ParcelsItem, "folder", pt.ArchiveFolder)},
	{"GET", "/content/users/{}", pt.Member, enc("start", "2", "num", "1")},
	{"GET", "/content/users/" + pt.Member + "/{}", pt.ProjectsFolder, enc("num", "100")},
	{"GET", "/content/items/{}", pt.RoadsItem, enc("f", "json")},
	{"POST", "/content/users/{}/createFolder", pt.Member, enc("title", "Field Work")},
	{"POST", "/content/users/" + pt.Member + "/{}/delete", pt.ArchiveFolder, enc("f", "json")},
	{"POST", "/content/users/{}/addItem", pt.Member, enc("title", "Trails", "type", "Feature Service", "tags", "a,b", "description", "d")},
	{"POST", "/content/users/" + pt.Member + "/{}/addItem", pt.ProjectsFolder, enc("title", "Zoning", "type", "Web Map")},
	{"POST", "/content/users/{}/deleteItems", pt.Member, enc("items", `["`+pt.HydrantsItem+`","nope"]`)},
	{"POST", "/generateToken", "", enc("username", pt.Member, "password", "jsmith-password", "expiration", "60", "client", "referer", "referer", "http")},
	// The reads around the three operations, and the rest of sign-in.
	{"GET", "/search", "", enc("q", `owner:`+pt.Member+` AND (type:"feature service" OR tags:water) NOT title:x`, "sortField", "title", "sortOrder", "desc", "start", "1", "num", "10")},
	{"GET", "/community/groups", "", enc("q", "accountid:"+pt.OrgID, "sortField", "title", "sortOrder", "asc", "num", "10")},
	{"GET", "/community/groups/{}", "d3c4e5f6a7b8490312c3d4e5f6a7b8c9", enc("f", "json")},
	{"GET", "/community/users/{}/tags", pt.Member, enc("f", "json")},
	{"GET", "/community/self", "", enc("f", "json")},
	{"GET", "/portals/{}", pt.OrgID, enc("f", "json")},
	{"GET", "/portals/{}/roles", pt.OrgID, enc("start", "1", "num", "10")},
	{"POST", "/content/users/{}/items/" + pt.RoadsItem + "/move", pt.Member, enc("folder", pt.ArchiveFolder)},
	{"POST", "/content/users/" + pt.Member + "/{}/items/" + pt.ParcelsItem + "/move", pt.ProjectsFolder, enc("folder", "/")},
	{"POST", "/oauth2/token", "", enc("grant_type", "client_credentials", "client_id", "demo-app", "client_secret", "demo-app-secret", "expiration", "120", "f", "json")},
}

// fuzzPortal is the emulator under fuzzing, its handler called without a
// network in between, so that each input costs little.
type fuzzPortal struct {
	h     http.Handler
	srv   *emulator.Server
	store server.Store
}

func newFuzzPortal(tb testing.TB) *fuzzPortal {
	srv, err := emulator.New(context.Background(), emulator.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	p := &fuzzPortal{h: srv, srv: srv, store: srv.Store()}
	if err := p.addSchema(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// addSchema gives the demo organization a member category schema, so that
// member updates have categories to hold.
func (p *fuzzPortal) addSchema() error {
	ctx := context.Background()
	schema := []server.CategoryNode{{Title: "Office", Categories: []server.CategoryNode{{Title: "USA"}}}, {Title: "Dept"}}
	return p.store.Update(ctx, func(tx server.Tx) error { return tx.PutCategorySchema(ctx, pt.OrgID, schema) })
}

func (p *fuzzPortal) dump(t *testing.T) string {
	var b bytes.Buffer
	if err := p.store.Dump(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// reset puts the demo organization back after a success changed it, so
// every input meets the same store and a failure replays as found. It costs
// about 10 ms (password hashing), against well under 1 ms for an input.
func (p *fuzzPortal) reset(t *testing.T) {
	if err := p.srv.Reset(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.addSchema(); err != nil {
		t.Fatal(err)
	}
}

// serve sends op's form with the fuzzed path value as the administrator.
func (p *fuzzPortal) serve(op fuzzOp, pathValue string, formBytes []byte) (*http.Request, *httptest.ResponseRecorder) {
	value := op.def
	if pathValue != "" {
		value = url.PathEscape(pathValue)
	}
	req := httptest.NewRequest(op.method, "/sharing/rest"+strings.Replace(op.path, "{}", value, 1), nil)
	if op.method == http.MethodGet {
		req.URL.RawQuery = string(formBytes)
	} else {
		req.Body = http.NoBody
		if len(formBytes) > 0 {
			req.Body = io.NopCloser(bytes.NewReader(formBytes))
			req.ContentLength = int64(len(formBytes))
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("Authorization", "Bearer "+pt.AdminToken)
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, req)
	return req, rec
}

// TestFuzzSeedsSucceed keeps the fuzzer's starting points honest: each
// operation's seed form is accepted, so mutations start from the rules, not
// from a rejection.
func TestFuzzSeedsSucceed(t *testing.T) {
	p := newFuzzPortal(t)
	for _, op := range fuzzOps {
		_, rec := p.serve(op, "", []byte(op.form))
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusOK || body["error"] != nil {
			t.Errorf("%s %s: %d %s", op.method, op.path, rec.Code, rec.Body)
		}
		p.reset(t)
	}
}

// apiCodes are the envelope codes a request may get; 500 is a server fault.
var apiCodes = map[float64]int{400: 200, 403: 200, 498: 200, 499: 200, 404: 404, 413: 413}

// FuzzFormDecode sends fuzzed form bytes (as the body of a POST, the query of
// a GET) and a fuzzed path value to each operation, as the administrator.
// The answer must be JSON: a success, or an envelope with a client-error
// code and its HTTP status; a refused request must change nothing.
func FuzzFormDecode(f *testing.F) {
	for i, op := range fuzzOps {
		f.Add(uint8(i), "", []byte(op.form))
		f.Add(uint8(i), "", []byte(op.form+"&f=html"))
		f.Add(uint8(i), op.def+"\x00", []byte(op.form))
	}
	f.Add(uint8(0), "", []byte("informationalBanner=%7B%22text%22%3A%22a%00b%22%7D"))
	f.Add(uint8(2), "", []byte("memberCategorySchema="+url.QueryEscape(deepSchema(50))))
	f.Add(uint8(8), "", []byte("items=%5B%5B%5B%5D%5D%5D&folder=%2F"))
	f.Add(uint8(12), "", []byte("title=a;b"))
	f.Add(uint8(12), "..%2f", []byte("title=%ff"))
	f.Add(uint8(17), "", []byte("username=jsmith&username=admin&password=x"))
	p := newFuzzPortal(f)
	f.Fuzz(func(t *testing.T, opIndex uint8, pathValue string, formBytes []byte) {
		op := fuzzOps[int(opIndex)%len(fuzzOps)]
		if op.path == "/generateToken" {
			// A refused sign-in changes no row but counts against the
			// throttle (50 failures from one address answer 429 until a
			// quarter of an hour has passed): reset, so that each input
			// meets none, as its replay does.
			defer p.reset(t)
		}
		before := p.dump(t)
		req, rec := p.serve(op, pathValue, formBytes)

		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s %s: answer is not a JSON object: %v: %q", op.method, req.URL, err, rec.Body.String())
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		envelope, failed := body["error"].(map[string]any)
		if !failed {
			if rec.Code != http.StatusOK {
				t.Fatalf("success with HTTP %d: %s", rec.Code, rec.Body)
			}
			if p.dump(t) != before {
				p.reset(t)
			}
			return
		}
		code, _ := envelope["code"].(float64)
		status, known := apiCodes[code]
		if !known || rec.Code != status {
			t.Fatalf("%s %s: HTTP %d, envelope %s", op.method, req.URL, rec.Code, rec.Body)
		}
		if _, isList := envelope["details"].([]any); !isList {
			t.Errorf("details is not an array: %s", rec.Body)
		}
		if p.dump(t) != before {
			t.Fatalf("%s %s: refused with %v, yet the store changed", op.method, req.URL, code)
		}
	})
}
