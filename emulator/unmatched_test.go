package emulator_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	portalapi "github.com/orgportal/portal-api"
	"github.com/orgportal/portal-api/emulator"
)

// unmatchedCall is a call no operation takes, and what its journal entry
// must say.
type unmatchedCall struct {
	method, path, body string
	header             map[string]string
	params             map[string]any
	caller             string
}

// Calls that match no operation are journaled with their method, path,
// parameter names (values only of f, grant_type and response_type), the
// token as its user name, and their 404; GET /emulator/requests?unmatched=true
// lists them alone, unmatched=false the others. Their answers are the 404
// envelope they were before.
func TestJournalRecordsUnmatchedCalls(t *testing.T) {
	srv, hs := start(t, emulator.Options{Context: "/portal"})
	calls := []unmatchedCall{
		// The probes of the Python API before it signs in.
		{method: "GET", path: "/portal/info?f=json", params: map[string]any{"f": "json"}},
		{method: "GET", path: "/portal/rest/services?f=pjson&token=no-such-token", params: map[string]any{"f": "pjson", "token": "(invalid token)"}},
		// Under the API root, paths the emulator has no operation for.
		{method: "GET", path: "/portal/sharing/rest/community/users?q=owner:jsmith&f=json", header: map[string]string{"X-Esri-Authorization": "Bearer " + memberToken},
			params: map[string]any{"f": "json", "q": "(not kept)", "token": "jsmith"}, caller: "jsmith"},
		// A sign-in form: names only, the password redacted as ever.
		{method: "POST", path: "/portal/sharing/legacy/signin", body: "oauth_state=abc123&username=jsmith&password=jsmith-password&expiration=60",
			params: map[string]any{"oauth_state": "(not kept)", "username": "(not kept)", "password": "(not kept)", "expiration": "(not kept)"}},
		{method: "POST", path: "/portal/sharing/rest/legacy/token?f=json", body: "grant_type=client_credentials&client_id=app&client_secret=s3cret-value",
			params: map[string]any{"f": "json", "grant_type": "client_credentials", "client_id": "(not kept)", "client_secret": "(not kept)"}},
		// A method the path does not answer.
		{method: "PUT", path: "/portal/sharing/rest/portals/self/settings/update", body: "token=" + memberToken,
			params: map[string]any{"token": "jsmith"}, caller: "jsmith"},
		// Outside the context.
		{method: "GET", path: "/robots.txt", params: map[string]any{}},
	}
	for _, c := range calls {
		req, err := http.NewRequest(c.method, hs.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		if a := send(t, req); a.status != http.StatusNotFound || a.envelopeCode(t) != 404 {
			t.Errorf("%s %s: HTTP %d %v, want the 404 envelope", c.method, c.path, a.status, a.body)
		}
	}
	// A matched call, and calls of the emulator's own and the side routes,
	// which are no API calls.
	moveRoads(t, hs.URL+"/portal")
	for _, path := range []string{"/health", "/emulator.yaml", "/emulator/nothing-here"} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	get := func(query string) (int, []emulator.Request) {
		t.Helper()
		status, raw, _ := call(t, hs.URL, "GET", "/emulator/requests"+query, "", nil)
		var list emulator.RequestList
		if status == http.StatusOK {
			if err := json.Unmarshal(raw, &list); err != nil {
				t.Fatal(err)
			}
		}
		return status, list.Requests
	}
	_, unmatched := get("?unmatched=true")
	if len(unmatched) != len(calls) {
		t.Fatalf("unmatched=true: %d entries, want %d: %+v", len(unmatched), len(calls), unmatched)
	}
	for i, c := range calls {
		r := unmatched[i]
		path, _, _ := strings.Cut(c.path, "?")
		if r.Operation != emulator.UnmatchedOperation || r.Method != c.method || r.Path != path || r.Caller != c.caller ||
			r.Answer.Status != 404 || r.Answer.Code != 404 || r.Answer.Success || r.Fault != "" {
			t.Errorf("entry %d: %+v, want %s %s by %q answered 404", i, r, c.method, path, c.caller)
		}
		if !reflect.DeepEqual(r.Params, c.params) {
			t.Errorf("%s %s: params %v, want %v", c.method, path, r.Params, c.params)
		}
	}
	if _, same := get("?operation=" + url.QueryEscape(emulator.UnmatchedOperation)); !reflect.DeepEqual(same, unmatched) {
		t.Errorf("operation=%s: %+v, want what unmatched=true gives", emulator.UnmatchedOperation, same)
	}
	if _, same := get("?unmatched=true&operation=" + url.QueryEscape(emulator.UnmatchedOperation)); !reflect.DeepEqual(same, unmatched) {
		t.Error("unmatched=true with its own operation differs")
	}
	if _, two := get("?unmatched=true&limit=2&since=" + itoa(unmatched[0].Seq)); len(two) != 2 || two[0].Seq != unmatched[1].Seq {
		t.Errorf("unmatched=true with since and limit: %+v", two)
	}
	_, matched := get("?unmatched=false")
	if len(matched) != 1 || matched[0].Operation != "moveItems" {
		t.Errorf("unmatched=false: %+v, want the moveItems call alone", matched)
	}
	if _, all := get(""); len(all) != len(calls)+1 {
		t.Errorf("the whole journal: %d entries, want %d", len(all), len(calls)+1)
	}
	raw, _ := json.Marshal(srv.Requests("", 0, 0))
	for _, secret := range []string{memberToken, "jsmith-password", "s3cret-value", "abc123", "no-such-token"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the journal holds %q", secret)
		}
	}
	for _, q := range []string{"?unmatched=yes", "?unmatched=true&operation=moveItems", "?unmatched=false&operation=" + url.QueryEscape(emulator.UnmatchedOperation), "?operation=(matched)"} {
		if status, _ := get(q); status != http.StatusBadRequest {
			t.Errorf("GET /emulator/requests%s: HTTP %d, want 400", q, status)
		}
	}
}

// An operation the emulated version does not have answers 404 and is
// journaled as unmatched.
func TestJournalRecordsOperationsOfLaterVersions(t *testing.T) {
	srv, hs := start(t, emulator.Options{Version: "10.7"})
	req, _ := http.NewRequest("POST", hs.URL+"/sharing/rest/portals/self/settings/update", strings.NewReader("f=json&token=demo-admin-token"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if a := send(t, req); a.status != http.StatusNotFound {
		t.Fatalf("settings/update on 10.7: HTTP %d %v", a.status, a.body)
	}
	rs := srv.Requests(emulator.UnmatchedOperation, 0, 0)
	if len(rs) != 1 || rs[0].Caller != "admin" || rs[0].Params["f"] != "json" || !strings.HasSuffix(rs[0].Path, "/settings/update") {
		t.Errorf("journal: %+v", rs)
	}
}

// No operationId of openapi.yaml is spelled as the unmatched entries'
// operation, so a filter on it never mixes the two.
func TestUnmatchedOperationIsNoOperationID(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(portalapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			n++
			if op.OperationID == emulator.UnmatchedOperation {
				t.Errorf("openapi.yaml has an operation %q", op.OperationID)
			}
		}
	}
	if n == 0 {
		t.Fatal("no operation read from openapi.yaml")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
