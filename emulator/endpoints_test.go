package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/client"
	"github.com/orgportal/portal-api/docs"
	"github.com/orgportal/portal-api/emulator"
	"github.com/orgportal/portal-api/internal/pgtest"
)

// call sends one call to the emulator's endpoints from a loopback client,
// its body as JSON or, when empty, none and no Content-Type (as curl -X
// DELETE sends it), and returns the status and the raw answer.
func call(t *testing.T, base, method, path, body string, header map[string]string) (int, []byte, *http.Request) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, req
}

// endpoint is one call of each operation of emulator.yaml, as a test makes
// it, with its path template there.
type endpoint struct {
	method, path, template, body string
}

var endpoints = []endpoint{
	{"POST", "/emulator/faults", "/emulator/faults", `{"operation":"getItem","times":0,"error":{"code":500}}`},
	{"GET", "/emulator/faults", "/emulator/faults", ""},
	{"DELETE", "/emulator/faults/f1", "/emulator/faults/{id}", ""},
	{"DELETE", "/emulator/faults", "/emulator/faults", "{}"},
	{"GET", "/emulator/requests?operation=moveItems&since=0&limit=10", "/emulator/requests", ""},
	{"GET", "/emulator/requests?unmatched=true", "/emulator/requests", ""},
	{"DELETE", "/emulator/requests", "/emulator/requests", ""},
	{"GET", "/emulator/clock", "/emulator/clock", ""},
	{"POST", "/emulator/clock", "/emulator/clock", `{"advance":"90m"}`},
	{"PUT", "/emulator/snapshots/first", "/emulator/snapshots/{name}", ""},
	{"GET", "/emulator/snapshots", "/emulator/snapshots", ""},
	{"POST", "/emulator/snapshots/first/restore", "/emulator/snapshots/{name}/restore", "{}"},
	{"DELETE", "/emulator/snapshots/first", "/emulator/snapshots/{name}", ""},
	{"POST", "/emulator/organizations", "/emulator/organizations", `{"id":"NEWORG","name":"New","users":[{"username":"new-admin","password":"pw","role":"org_admin","tokens":["new-token"]}]}`},
	{"DELETE", "/emulator/organizations/NEWORG", "/emulator/organizations/{id}", ""},
	{"POST", "/emulator/reset", "/emulator/reset", ""},
}

// Every endpoint answers as emulator.yaml says: each call in turn, its
// answer validated against the contract's response schema.
func TestAnswersMatchEmulatorYAML(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(portalapi.EmulatorYAML)
	if err != nil {
		t.Fatal(err)
	}
	_, hs := start(t, emulator.Options{})
	moveRoads(t, hs.URL)
	// A call that matches no operation, for the journal's unmatched entry.
	if resp, err := http.Get(hs.URL + "/rest/info?f=json"); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /rest/info: %s", resp.Status)
	}
	covered := map[string]bool{}
	for _, e := range endpoints {
		status, raw, req := call(t, hs.URL, e.method, e.path, e.body, nil)
		if status != http.StatusOK {
			t.Fatalf("%s %s: HTTP %d %s", e.method, e.path, status, raw)
		}
		item := doc.Paths.Value(e.template)
		if item == nil || item.GetOperation(e.method) == nil {
			t.Fatalf("emulator.yaml has no %s %s", e.method, e.template)
		}
		op := item.GetOperation(e.method)
		covered[op.OperationID] = true
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req,
				Route: &routers.Route{Spec: doc, Path: e.template, PathItem: item, Method: e.method, Operation: op}},
			Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(raw)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true},
		}
		if err := openapi3filter.ValidateResponse(t.Context(), in); err != nil {
			t.Errorf("%s %s: the answer does not match emulator.yaml: %v\n%s", e.method, e.path, err, raw)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if !covered[op.OperationID] {
				t.Errorf("operation %s is not called", op.OperationID)
			}
		}
	}
}

// state is everything an emulator call could change: the store, the
// snapshots, the fault rules, the journal and the clock.
func state(t *testing.T, srv *emulator.Server) string {
	t.Helper()
	snaps, err := srv.Snapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal([]any{snaps, srv.Faults(), len(srv.Requests("", 0, 0)), time.Until(srv.Now()).Round(time.Hour)})
	return dump(t, srv) + string(j)
}

// A cross-site request to any emulator endpoint is refused and changes
// nothing: neither the store, nor the snapshots, faults, journal or clock.
func TestEveryEndpointRefusesWebPages(t *testing.T) {
	srv, hs := start(t, emulator.Options{})
	moveRoads(t, hs.URL)
	if err := srv.SaveSnapshot(t.Context(), "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddFault(emulator.Fault{Operation: "getItem", Error: &emulator.FaultError{Code: 500}}); err != nil {
		t.Fatal(err)
	}
	if err := srv.AdvanceClock(time.Hour); err != nil {
		t.Fatal(err)
	}
	before := state(t, srv)
	for _, e := range endpoints {
		for name, h := range map[string]map[string]string{
			"foreign Origin":      {"Origin": "http://evil.example"},
			"cross-site fetch":    {"Sec-Fetch-Site": "cross-site"},
			"form content type":   {"Content-Type": "text/plain"},
			"urlencoded form":     {"Content-Type": "application/x-www-form-urlencoded"},
			"rebound DNS as Host": {"Host": "attacker.example"},
		} {
			if e.method == http.MethodGet && strings.Contains(name, "form") {
				continue // GETs carry no body to be a form
			}
			t.Run(e.method+" "+e.path+" "+name, func(t *testing.T) {
				req, err := http.NewRequest(e.method, hs.URL+e.path, strings.NewReader(e.body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				for k, v := range h {
					if k == "Host" {
						req.Host = v
					} else {
						req.Header.Set(k, v)
					}
				}
				a := send(t, req)
				if a.status != http.StatusForbidden || a.envelopeCode(t) != http.StatusForbidden {
					t.Errorf("HTTP %d: %v", a.status, a.body)
				}
			})
		}
	}
	if after := state(t, srv); after != before {
		t.Errorf("refused calls changed the emulator:\nbefore %s\nafter  %s", before, after)
	}
}

// Bad fault rules are refused with a detail naming the field, and add
// nothing.
func TestFaultRulesRefused(t *testing.T) {
	srv, hs := start(t, emulator.Options{})
	for body, detail := range map[string]string{
		`{"error":{"code":498}}`:                                            "operation: required",
		`{"operation":"noSuchOperation","error":{"code":498}}`:              `is not an operationId of openapi.yaml`,
		`{"operation":"getItem"}`:                                           "give exactly one of",
		`{"operation":"getItem","error":{"code":498},"drop":true}`:          "give exactly one of",
		`{"operation":"getItem","error":{"code":0}}`:                        "error.code: required",
		`{"operation":"updateSettings","itemErrors":{"*":{"code":500}}}`:    "itemErrors: only for moveItems and deleteItems",
		`{"operation":"moveItems","itemErrors":{}}`:                         "itemErrors: name at least one",
		`{"operation":"getItem","status":200}`:                              "status: an HTTP status from 300 to 599",
		`{"operation":"getItem","headers":{"Retry-After":"1"},"drop":true}`: "headers: only with status",
		`{"operation":"getItem","drop":true,"delay":"soon"}`:                "delay: a Go duration",
		`{"operation":"getItem","drop":true,"delay":"1h"}`:                  "delay: a Go duration",
		`{"operation":"getItem","drop":true,"skip":-1}`:                     "skip: 0 or more",
		`{"operation":"getItem","drop":true,"times":-2}`:                    "times: 0",
		`{"operation":"getItem","drop":true,"match":{"folderId":"x"}}`:      "match.folderId: not a path parameter of getItem",
		`{"operation":"getItem","drop":true,"id":"mine"}`:                   "given by the emulator",
		`{"operation":"getItem","drop":true,"probability":0.5}`:             "probability",
		`{"operation":"getItem","status":429,"headers":{"Bad Header":"1"}}`: "headers.Bad Header: ",
		// The portal's codes are HTTP-like; ErrorBody.code is an int32.
		`{"operation":"getSelf","error":{"code":99999999999}}`:                        "error.code: ",
		`{"operation":"getSelf","error":{"code":-5}}`:                                 "error.code: ",
		`{"operation":"getSelf","error":{"code":200}}`:                                "error.code: ",
		`{"operation":"getSelf","error":{"code":600}}`:                                "error.code: ",
		`{"operation":"moveItems","itemErrors":{"abc":{"code":99999999999}}}`:         "itemErrors.abc.code: ",
		`{"operation":"deleteItems","itemErrors":{"*":{"code":399}}}`:                 "itemErrors.*.code: ",
		`{"operation":"getItem","status":503,"headers":{"Retry-After":"1\r\nX: 1"}}`:  "headers.Retry-After: ",
		`{"operation":"getItem","status":503,"headers":{"Retry-After":"1\u0000"}}`:    "headers.Retry-After: ",
		`{"operation":"getItem","status":503,"headers":{"X-A":"\u007f"}}`:             "headers.X-A: ",
		`{"operation":"getItem","status":503,"headers":{"X(A)":"1"}}`:                 "headers.X(A): ",
		`{"operation":"getItem","status":503,"headers":{"X\nA":"1"}}`:                 `headers.\"X\\nA\": `,
		`{"operation":"getItem","status":503,"headers":{"":"1"}}`:                     `headers.\"\": `,
		`{"operation":"getItem","status":503,"headers":{"content-length":"5"}}`:       "headers.content-length: frames the answer",
		`{"operation":"getItem","status":503,"headers":{"Transfer-Encoding":"gzip"}}`: "headers.Transfer-Encoding: frames the answer",
		`{"operation":"getItem","status":503,"headers":{"Connection":"close"}}`:       "headers.Connection: frames the answer",
		`[]`: "not the JSON document expected",
		`{"operation":"moveItems","itemErrors":{"abc":{"code":0}},"times":1}`:    "itemErrors.abc.code: required",
		`{"operation":"getItem","status":503,"headers":{"Retry-After":"2"}}  {}`: "more than one JSON value",
	} {
		status, raw, _ := call(t, hs.URL, "POST", "/emulator/faults", body, nil)
		if status != http.StatusBadRequest || !bytes.Contains(raw, []byte(detail)) {
			t.Errorf("%s: HTTP %d %s, want 400 mentioning %q", body, status, raw, detail)
		}
	}
	if n := len(srv.Faults()); n != 0 {
		t.Errorf("%d rules added", n)
	}
	if status, raw, _ := call(t, hs.URL, "DELETE", "/emulator/organizations/X%00", "", nil); status != http.StatusBadRequest {
		t.Errorf("removing an organization whose id holds a NUL: HTTP %d %s", status, raw)
	}
	if status, raw, _ := call(t, hs.URL, "DELETE", "/emulator/faults/f99", "", nil); status != http.StatusNotFound {
		t.Errorf("removing an unknown rule: HTTP %d %s", status, raw)
	}
	for _, body := range []string{`{}`, `{"advance":"2h","reset":true}`, `{"advance":"soon"}`, `{"set":"tomorrow"}`} {
		if status, raw, _ := call(t, hs.URL, "POST", "/emulator/clock", body, nil); status != http.StatusBadRequest {
			t.Errorf("clock %s: HTTP %d %s", body, status, raw)
		}
	}
	for _, q := range []string{"since=-1", "since=x", "limit=0", "operation=settings/update"} {
		if status, raw, _ := call(t, hs.URL, "GET", "/emulator/requests?"+q, "", nil); status != http.StatusBadRequest {
			t.Errorf("requests?%s: HTTP %d %s", q, status, raw)
		}
	}
	for _, body := range []string{`[]`, `{"id":"X"}`, `{"id":"X\u0000","name":"x"}`, `{"id":"X","name":"x","users":[{"username":"u","password":"p","role":"org_user","tokens":["t\u0000"]}]}`, `{"id":"X","name":"x","users":[{"username":"u","password":"p","role":"no_such_role"}]}`, `{"id":"X","name":"x","colour":"red"}`} {
		if status, raw, _ := call(t, hs.URL, "POST", "/emulator/organizations", body, nil); status != http.StatusBadRequest {
			t.Errorf("organization %s: HTTP %d %s", body, status, raw)
		}
	}
}

// The journal keeps the last JournalSize calls; since and limit page it.
func TestJournalIsBounded(t *testing.T) {
	srv, hs := start(t, emulator.Options{JournalSize: 3})
	c, err := client.New(hs.URL+"/sharing/rest", client.WithToken(memberToken))
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := c.Item(t.Context(), roads); err != nil {
			t.Fatal(err)
		}
	}
	seqs := func(rs []emulator.Request) string {
		var s []string
		for _, r := range rs {
			s = append(s, fmt.Sprint(r.Seq))
		}
		return strings.Join(s, ",")
	}
	if got := seqs(srv.Requests("", 0, 0)); got != "3,4,5" {
		t.Errorf("journal seqs %s, want 3,4,5", got)
	}
	status, raw, _ := call(t, hs.URL, "GET", "/emulator/requests?since=3&limit=1", "", nil)
	var list emulator.RequestList
	if err := json.Unmarshal(raw, &list); err != nil || status != 200 || seqs(list.Requests) != "4" {
		t.Errorf("since=3&limit=1: HTTP %d %s", status, raw)
	}
	if rs := srv.Requests("moveItems", 0, 0); len(rs) != 0 {
		t.Errorf("moveItems calls: %d", len(rs))
	}
	none, hs2 := start(t, emulator.Options{JournalSize: -1})
	c2, _ := client.New(hs2.URL+"/sharing/rest", client.WithToken(memberToken))
	if _, err := c2.Item(t.Context(), roads); err != nil {
		t.Fatal(err)
	}
	if rs := none.Requests("", 0, 0); len(rs) != 0 {
		t.Errorf("a journal of size -1 kept %d calls", len(rs))
	}
}

// Snapshots live in the store: a second emulator on the same SQLite file
// finds them after a restart.
func TestSnapshotsSurviveARestart(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "portal.db")
	first, hs := start(t, emulator.Options{DSN: dsn})
	if err := first.SaveSnapshot(t.Context(), "seed"); err != nil {
		t.Fatal(err)
	}
	seeded := dump(t, first)
	moveRoads(t, hs.URL)
	hs.Close()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, hs2 := start(t, emulator.Options{DSN: dsn})
	if status, raw, _ := call(t, hs2.URL, "POST", "/emulator/snapshots/seed/restore", "", nil); status != 200 {
		t.Fatalf("restore after a restart: HTTP %d %s", status, raw)
	}
	if got := dump(t, second); got != seeded {
		t.Errorf("after restore:\n%s\nwant\n%s", got, seeded)
	}
}

// On PostgreSQL, replicas share the snapshots: one saves, another lists and
// restores it, and both serve the restored state.
func TestSnapshotsSharedByReplicasOnPostgreSQL(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, hsA := start(t, emulator.Options{DSN: dsn})
	b, hsB := start(t, emulator.Options{DSN: dsn})
	if status, raw, _ := call(t, hsA.URL, "PUT", "/emulator/snapshots/clean", "", nil); status != 200 {
		t.Fatalf("save: HTTP %d %s", status, raw)
	}
	clean := dump(t, a)
	moveRoads(t, hsB.URL)
	if dump(t, a) == clean {
		t.Fatal("the move through B is not in the store")
	}
	status, raw, _ := call(t, hsB.URL, "GET", "/emulator/snapshots", "", nil)
	if status != 200 || !bytes.Contains(raw, []byte(`"name":"clean"`)) {
		t.Fatalf("B's snapshots: HTTP %d %s", status, raw)
	}
	if status, raw, _ := call(t, hsB.URL, "POST", "/emulator/snapshots/clean/restore", "", nil); status != 200 {
		t.Fatalf("restore through B: HTTP %d %s", status, raw)
	}
	if got := dump(t, a); got != clean {
		t.Errorf("A after B restored:\n%s\nwant\n%s", got, clean)
	}
	if got := dump(t, b); got != clean {
		t.Error("B after restoring differs")
	}
	if err := a.DeleteSnapshot(context.Background(), "clean"); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := call(t, hsB.URL, "POST", "/emulator/snapshots/clean/restore", "", nil); status != http.StatusNotFound {
		t.Errorf("restoring a snapshot another replica deleted: HTTP %d", status)
	}
}

// A parameter too long for the journal stands as a note of its size.
func TestJournalKeepsNoHugeValue(t *testing.T) {
	srv, hs := start(t, emulator.Options{})
	text := strings.Repeat("x", 100_000)
	banner := `{"text":"` + text + `","enabled":false}`
	form := "f=json&token=demo-admin-token&informationalBanner=" + banner
	resp, err := http.Post(hs.URL+"/sharing/rest/portals/self/settings/update", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rs := srv.Requests("updateSettings", 0, 0)
	if len(rs) != 1 || rs[0].Params["informationalBanner"] != fmt.Sprintf("(not kept: %d bytes)", len(banner)) || rs[0].Params["f"] != "json" {
		t.Errorf("journal: %.300v", rs)
	}
}

// The contract and its reference are served beside the portal's.
func TestContractServed(t *testing.T) {
	_, hs := start(t, emulator.Options{Context: "/portal"})
	for path, want := range map[string]struct {
		ctype string
		body  []byte
	}{
		"/emulator.yaml": {"application/yaml; charset=utf-8", portalapi.EmulatorYAML},
		"/docs/emulator": {"text/html; charset=utf-8", docs.EmulatorHTML},
	} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != want.ctype || !bytes.Equal(body, want.body) {
			t.Errorf("GET %s: HTTP %d %q, %d bytes", path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
}

// AddFault's refusal names each field refused, for Go callers as for HTTP's.
func TestAddFaultErrorNamesFields(t *testing.T) {
	srv, _ := start(t, emulator.Options{})
	_, err := srv.AddFault(emulator.Fault{Operation: "getItem", Delay: "soon", Error: &emulator.FaultError{Code: 99}})
	if err == nil {
		t.Fatal("AddFault took a delay of \"soon\" and an error code of 99")
	}
	for _, field := range []string{"delay: ", "error.code: "} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("%q does not name %q", err, field)
		}
	}
}
